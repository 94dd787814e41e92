"""``uth audit``: rebuild every hand from its events and prove each payout right or wrong.

    uth audit --source floor.jsonl                 # summary and a table of findings
    uth audit --source sqlite:///floor.db --json   # JSON Lines, summary last
    uth audit --follow --source kafka://broker:9092

Without ``--follow`` everything in the source is audited (a Kafka topic from its start to
its current end). ``--json`` writes one object per finding (``kind``, ``hand_id``,
``table_id``, ``dealer_id``, ``seat``, ``spot``, ``expected``, ``recorded``, ``detail``, and
its ``finding_id``), one per rejected input line (``"kind": "rejected"``, ``reason``,
``position``) and last ``{"summary": {...}}``.

``--follow`` runs as the consumer ``uth-auditor`` (on Kafka, a member of that consumer
group; start more for more throughput), publishes findings to ``uth.audit-findings`` (key
= hand_id; on other logs they are printed only), commits its position only once they are
acknowledged, and resumes after a crash without losing a finding; one repeated after a
crash has the same ``finding_id``. SIGTERM/SIGINT: the batch is finished and committed,
exit 0.

``--table``, ``--dealer``, ``--kind`` (each repeatable), ``--since`` and ``--until`` (local
time in ``UTH_TIMEZONE`` unless given with ``Z`` or an offset) keep only the findings that
match; ``--csv`` writes them as CSV (one row per finding, the ``--json`` fields, money
in currency units beside the table's ``currency``).

Exit status: 0 when the audit ran (whatever it found), 2 when the source cannot be read.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Iterator
from typing import IO, Any

BATCH = 2000


def register(sub: Any) -> None:
    p = sub.add_parser("audit", help="audit every hand of a log: mispays and rule breaches",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", required=True,
                   help="file.jsonl, sqlite:///log.db or kafka://host:port[/topic]")
    p.add_argument("--json", action="store_true", help="JSON Lines output, summary last")
    p.add_argument("--follow", action="store_true",
                   help="keep auditing new events as consumer uth-auditor (until SIGTERM)")
    p.add_argument("--consumer", default="uth-auditor", help="consumer name (with --follow)")
    p.add_argument("--findings-topic", default="uth.audit-findings",
                   help="Kafka topic the findings are published to (with --follow)")
    p.add_argument("--stalled-after", type=float, default=30.0, metavar="MINUTES",
                   help="with --follow: report a hand with no event for this long (table "
                        "time) while its table goes on, or while its table sends nothing "
                        "(wall clock) (default 30)")
    p.add_argument("--positions", action="store_true",
                   help="give each finding the line (or log offset) of its event: a second "
                        "pass over the source")
    p.add_argument("--batch", type=int, default=BATCH, help="records per batch")
    from pipeline.finding_filters import add_arguments

    add_arguments(p)
    p.set_defaults(func=run)


def read_batches(source: str, batch: int = BATCH) -> Iterator[list[tuple[Any, bytes]]]:
    """The source's records in batches of ``(position, raw bytes)``, through ``open_log``
    (a JSON Lines file read in large blocks, position = line number), so that ``uth
    audit`` reads a file exactly as ``uth ingest`` and ``uth load`` do."""
    from events.logs import open_log
    from events.logs.jsonl import JsonlLog

    with open_log(source, create=False) as log:
        if isinstance(log, JsonlLog):  # the line numbers paired in C, no record per line
            for first, lines in log.line_batches(max_batch=batch):
                yield list(zip(range(first, first + len(lines)), lines, strict=True))
            return
        yield from _positioned(log, batch)


def _positioned(log: Any, batch: int) -> Iterator[list[tuple[Any, bytes]]]:
    """A log's records as ``(position, raw bytes)``, batch by batch."""
    where = log.where
    for records in log.read(max_batch=batch):
        yield [(where(r), r.value) for r in records]


def decoded_batches(source: str, batch: int = BATCH, *,
                    scrub: bool = True) -> Iterator[list[Any]]:
    """The source's events and rejections (``decode_records`` of :func:`read_batches`),
    batch by batch. A JSON Lines file's lines go to the decoder as they are, with the
    number of the first: a line's number is only worked out for a batch holding a bad
    line (the same rejections, at the same line numbers). A player identifier is read as
    ``uth ingest`` stores it (:func:`events.contract.privacy.scrub_all`: its pseudonym, or
    dropped with no key), so that no rejection's reason shows it in clear; ``scrub=False``
    reads it as the log holds it (``uth protect`` follows the pseudonyms a table sent)."""
    from events.contract.codec import decode_many, decode_records
    from events.contract.privacy import scrub_all as scrubbed_values
    from events.logs import open_log
    from events.logs.jsonl import JsonlLog

    def scrub_all(values: list[bytes]) -> list[bytes]:
        return scrubbed_values(values) if scrub else values

    with open_log(source, create=False) as log:
        if isinstance(log, JsonlLog):
            for first, lines in log.line_batches(max_batch=batch):
                yield decode_many(scrub_all(lines), first)
            return
        for chunk in _positioned(log, batch):
            values = [value for _, value in chunk]
            if (scrubbed := scrub_all(values)) is not values:
                chunk = [(p, v) for (p, _), v in zip(chunk, scrubbed, strict=True)]
            yield decode_records(chunk)


def audit_source(source: str, *, records: bool = False, batch: int = BATCH,
                 positions: bool = False, currencies: dict[str, str] | None = None) -> Any:
    """Audit everything in ``source``; the ``AuditReport``. With ``positions`` findings
    get the position of the event that showed them (a second look at the source, when
    there are any). ``currencies``, when given, is filled with each table's currency."""
    from events.audit.auditor import BULK_HANDS, Auditor
    from pipeline.gc_policy import bulk_work

    auditor = Auditor(records=records, batch=BULK_HANDS)
    with bulk_work():
        for items in decoded_batches(source, batch):
            auditor.feed_many(items)
        report = auditor.finish()
    if currencies is not None:
        currencies.update({t: c.currency for t, c in auditor.tables.items() if c.currency})
    if positions and report.findings:
        report.findings = locate(report.findings, source, batch)
    return report


def locate(findings: list[Any], source: str, batch: int = BATCH) -> list[Any]:
    """The findings with the position of the event that showed them (its first line, or
    its place in the log)."""
    import dataclasses

    wanted = {f.event_id for f in findings if f.event_id and f.position is None}
    if not wanted:
        return findings
    where = _records_of(source, wanted, batch)
    return [dataclasses.replace(f, position=where[f.event_id])
            if f.position is None and f.event_id in where else f for f in findings]


def _records_of(source: str, wanted: set[str], batch: int) -> dict[str, Any]:
    import re

    pattern = re.compile(rb'"event_id"\s*:\s*"([^"]*)"')
    where: dict[str, Any] = {}
    for chunk in read_batches(source, batch):
        for position, raw in chunk:
            m = pattern.search(raw)
            if m is not None:
                eid = m.group(1).decode("utf-8", "replace")
                if eid in wanted:
                    where.setdefault(eid, position)
        if len(where) == len(wanted):
            break
    return where


CSV_FIELDS = ("finding_id", "kind", "table_id", "hand_id", "dealer_id", "seat", "spot",
              "expected", "recorded", "currency", "detail", "occurred_at", "event_id",
              "position")


def run(args: argparse.Namespace) -> int:
    from events.logs import LogError
    from pipeline.finding_filters import Filter, exclusive_formats, finding_row, write_csv

    if refused := exclusive_formats(args, "audit"):
        print(refused, file=sys.stderr)
        return 2
    try:
        if args.follow:
            return _follow(args)
        currencies: dict[str, str] = {}
        report = audit_source(args.source, batch=args.batch, positions=args.positions,
                              currencies=currencies)
    except (LogError, OSError) as exc:
        print(f"uth audit: {exc}", file=sys.stderr)
        return 2
    chosen = Filter.from_args(args)
    total = len(report.findings)
    if chosen.active:
        report.findings = [f for f in report.findings if chosen.keep(f)]
        report.disputes = [d for d in report.disputes if chosen.keep(d)]
    if args.csv:
        write_csv((finding_row(f, currencies) for f in report.findings), CSV_FIELDS, sys.stdout)
        return 0
    if args.json:
        write_json(report, sys.stdout)
    else:
        write_text(report, sys.stdout)
        if chosen.active:
            print(f"\nShown: {len(report.findings):,} of {total:,} findings "
                  f"({chosen.describe()}).")
    return 0


def write_json(report: Any, out: IO[str]) -> None:
    for f in report.findings:
        out.write(json.dumps(f.to_json()) + "\n")
    for r in report.rejected:
        out.write(json.dumps({"kind": "rejected", "reason": r.reason, "position": r.position,
                              "code": r.code, "event_id": r.event_id,
                              "table_id": r.table_id}) + "\n")
    out.write(json.dumps({"summary": report.summary}) + "\n")


def _money(cents: int | None) -> str:
    from events.money import money

    return money(cents)


def write_text(report: Any, out: IO[str]) -> None:
    s = report.summary
    out.write(f"Audited {s['events']:,} events in {s['hands']:,} hands: {s['findings']:,} "
              f"finding{'s' if s['findings'] != 1 else ''}, {s['rejected_events']:,} rejected "
              f"input line{'s' if s['rejected_events'] != 1 else ''}, "
              f"{s['duplicates_ignored']:,} redelivered event"
              f"{'s' if s['duplicates_ignored'] != 1 else ''} ignored.\n")
    if report.findings:
        counts: dict[str, int] = {}
        for f in report.findings:
            counts[f.kind] = counts.get(f.kind, 0) + 1
        out.write("By kind: " + ", ".join(f"{k} {n:,}" for k, n in sorted(
            counts.items(), key=lambda kv: -kv[1])) + "\n\n")
        header = (f"{'kind':<18} {'table':<8} {'hand':<16} {'dealer':<8} {'seat':>4} "
                  f"{'spot':<6} {'expected':>10} {'recorded':>10}  detail")
        out.write(header + "\n" + "-" * len(header) + "\n")
        for f in report.findings:
            out.write(f"{f.kind:<18} {f.table_id or '-':<8} {f.hand_id or '-':<16} "
                      f"{f.dealer_id or '-':<8} {f.seat if f.seat is not None else '-':>4} "
                      f"{f.spot or '-':<6} {_money(f.expected):>10} {_money(f.recorded):>10}"
                      f"  {f.detail}\n")
    if report.disputes:
        out.write("\nDisputes:\n")
        for d in report.disputes:
            out.write(f"  hand {d.hand_id} seat {d.seat} ({d.status}): {d.claim}\n"
                      f"    verdict: {d.verdict}\n")
    if report.rejected:
        out.write("\nRejected input:\n")
        for r in report.rejected:
            out.write(f"  {r}\n")


def _follow(args: argparse.Namespace) -> int:
    from events.audit.follow import FollowAuditor
    from events.logs import open_log
    from pipeline.audit.publish import PublishOnce

    stopping = {"now": False}

    def handler(signum: int, frame: object) -> None:
        stopping["now"] = True

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    log = open_log(args.source, create=False)
    sink = _findings_sink(args, log)

    from pipeline.finding_filters import Filter

    chosen = Filter.from_args(args)

    def show(key: str, message: dict[str, Any]) -> None:
        if chosen.active and not chosen.keep(message):
            return  # still published: the filters choose what this terminal shows
        if args.json:
            print(json.dumps(message), flush=True)
        else:
            print(follow_line(key, message), flush=True)

    with log:
        follower = FollowAuditor(log, sink, consumer=args.consumer, batch=args.batch,
                                 stop=lambda: stopping["now"], on_message=show,
                                 stall_seconds=args.stalled_after * 60)
        try:
            summary = follower.run()
        finally:
            if isinstance(sink, PublishOnce):
                sink.close()
    if args.json:
        print(json.dumps({"summary": summary}), flush=True)
    else:
        print(stop_sentence(summary), file=sys.stderr)
    return 0


def follow_line(key: str, message: dict[str, Any]) -> str:
    """One line of ``--follow`` as a person reads it: when (local time), table, dealer,
    hand and seat, then what was found."""
    from events.localtime import to_local, zone_name

    when = message.get("occurred_at")
    try:
        stamp = to_local(when, zone_name()).strftime("%H:%M:%S") if when else "--:--:--"
    except ValueError:
        stamp = "--:--:--"
    where = [f"table {message.get('table_id') or '-'}"]
    if message.get("dealer_id"):
        where.append(f"dealer {message['dealer_id']}")
    if message.get("hand_id"):
        where.append(f"hand {message['hand_id']}")
    if message.get("seat") is not None:
        where.append(f"seat {message['seat']}")
    kind = message.get("kind")
    if kind == "dispute":
        what = f"dispute ({message.get('status')}): {message.get('verdict')}"
    elif kind == "rejected":
        what = f"rejected input at {message.get('position')}: {message.get('reason')}"
    else:
        what = f"{kind}: {message.get('detail') or message.get('reason') or key}"
    return f"{stamp}  {', '.join(where)}  {what}"


def stop_sentence(summary: dict[str, int]) -> str:
    """What a stopped ``--follow`` did, in a sentence."""
    def n(key: str, noun: str) -> str:
        value = int(summary.get(key, 0))
        return f"{value:,} {noun}{'' if value == 1 else 's'}"

    return (f"uth audit stopped: audited {n('events', 'event')} in {n('hands', 'hand')}, "
            f"found {n('findings', 'finding')}, rejected "
            f"{n('rejected_events', 'input line')}, ignored "
            f"{n('duplicates_ignored', 'redelivered event')}; published "
            f"{n('published', 'message')} and committed the position "
            f"{int(summary.get('commits', 0)):,} time"
            f"{'' if summary.get('commits', 0) == 1 else 's'}.")


def _findings_sink(args: argparse.Namespace, log: Any) -> Any:
    """Where findings go: the Kafka topic on the source's cluster, else nowhere more than
    the standard output."""
    from events.logs.kafka import KafkaLog
    from pipeline.audit.publish import PublishOnce

    if isinstance(log, KafkaLog):
        servers = ",".join(log.target.servers)
        findings = KafkaLog(f"kafka://{servers}/{args.findings_topic}?partitions="
                            f"{log.target.partitions}")
        return PublishOnce(findings)

    def nowhere(messages: list[tuple[str, bytes]]) -> None:
        sys.stdout.flush()

    return nowhere
