"""``uth ingest``: validate events from a file or log and write them to a log, once.

    uth ingest --source floor.jsonl --sink sqlite:///floor.db
    uth ingest --source sqlite:///outbox.db --sink kafka://broker:9092 --follow \\
        --consumer outbox-forwarder

Valid events are written in order; each invalid one goes with its reason to the sink's
dead-letter store (Kafka topic ``uth.dead-letter``, the SQLite log's ``dead_letter`` table,
or ``<sink>.rejected.jsonl`` beside a file). The same ``event_id`` twice is stored once;
the same table ``seq`` with another ``event_id``, or the same ``event_id`` with other bytes,
is a conflict, dead-lettered and not stored;
gaps in a table's ``seq`` are reported. With ``--consumer`` the source position is stored
after each durable batch (so a restart resumes and repeats nothing); ``--follow`` keeps
reading new events and retries through sink outages (its consumer name defaults to
``uth-ingest``). SIGTERM or SIGINT: the current batch
is finished and committed, then it exits 0.

Exit status: 0 when every line read is accounted for (written, duplicate or rejected);
1 when a write failed (what was reported as written is durable); 2 when the source or the
sink cannot be opened or reached.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "ingest", help="validate events and write them to a log (SQLite, Kafka, JSON Lines)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", required=True,
                   help="file.jsonl, - (stdin), sqlite:///outbox.db or kafka://host:port[/topic]")
    p.add_argument("--sink", required=True,
                   help="sqlite:///log.db, kafka://host:port[/topic] or file.jsonl")
    p.add_argument("--follow", action="store_true",
                   help="keep reading new events until SIGTERM/SIGINT")
    p.add_argument("--consumer", metavar="NAME",
                   help="store the source position under NAME and resume from it "
                        "(default with --follow: uth-ingest)")
    p.add_argument("--batch", type=int, default=2000, help="records per batch (default 2000)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--quiet", action="store_true", help="print nothing unless it fails")
    p.set_defaults(func=run)


class _Shutdown:
    def __init__(self) -> None:
        self.requested = False

    def __call__(self) -> bool:
        return self.requested

    def install(self) -> None:
        def handler(signum: int, frame: object) -> None:
            self.requested = True

        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGINT, handler)


def run(args: argparse.Namespace) -> int:
    from events.logs import LogError, open_log
    from events.logs.forward import Forwarder
    from events.logs.kafka import KafkaLog

    if args.follow and not args.consumer and args.source != "-":
        args.consumer = "uth-ingest"  # following without a stored position would repeat
    shutdown = _Shutdown()
    shutdown.install()
    try:
        source = open_log(args.source, create=args.follow)
        sink = open_log(args.sink)
        if isinstance(sink, KafkaLog):
            sink.check()
    except LogError as exc:
        print(f"uth ingest: {exc}", file=sys.stderr)
        print("uth ingest: nothing was written", file=sys.stderr)
        return 2

    shown = Progress()

    def progress(report: Any) -> None:
        if args.follow and not args.quiet and not args.json:
            shown(report)

    with source, sink:
        forwarder = Forwarder(source, sink, consumer=args.consumer, follow=args.follow,
                              stop=shutdown, batch_size=args.batch, on_batch=progress)
        report = forwarder.run()
    if args.json:
        print(json.dumps({"source": source.describe(), "sink": sink.describe(),
                          **report.as_dict()}, sort_keys=True))
    elif not args.quiet or not report.accounted:
        print(render(report, source.describe(), sink.describe()))
    if report.error is not None:
        print(f"uth ingest: {report.error}", file=sys.stderr)
        return 1 if report.read or report.written else 2
    return 0 if report.accounted else 1


PROGRESS_SECONDS = 5.0


class Progress:
    """The running counts of ``--follow``, printed at most every ``interval`` seconds and
    only when they changed (a poll that found nothing new prints nothing)."""

    def __init__(self, interval: float = PROGRESS_SECONDS, clock: Any = None,
                 out: Any = None) -> None:
        import time

        self.interval = interval
        self.clock = clock or time.monotonic
        self.out = out
        self.last_at: float | None = None
        self.last: tuple[int, ...] = (0, 0, 0, 0)

    def __call__(self, report: Any) -> bool:
        counts = (report.read, report.written, report.duplicates, report.rejected_total)
        now = self.clock()
        if counts == self.last or (self.last_at is not None
                                   and now - self.last_at < self.interval):
            return False
        self.last, self.last_at = counts, now
        print(f"read {report.read:,}  written {report.written:,}  duplicates "
              f"{report.duplicates:,}  rejected {report.rejected_total:,}",
              file=self.out or sys.stderr, flush=True)
        return True


def render(report: Any, source: str, sink: str) -> str:
    """The report as a person reads it."""
    lines = [f"ingest {source} -> {sink}", *(f"  note: {n}" for n in report.notes),
             f"  read       {report.read:>9,}",
             f"  written    {report.written:>9,}",
             f"  duplicates {report.duplicates:>9,}  (already stored: counted once)",
             f"  rejected   {report.rejected_total:>9,}"]
    for code, count in sorted(report.rejected.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"    {code:<16}{count:>7,}")
    if report.late:
        lines.append(f"  out of order {report.late:>7,}  (late events filled a gap)")
    for table, first, last in report.gaps[:20]:
        n = last - first + 1
        span = f"seq {first}" if n == 1 else f"seq {first}..{last}"
        lines.append(f"  gap: {table} {span} missing when seq {last + 1} arrived")
    if len(report.gaps) > 20:
        lines.append(f"  ... {len(report.gaps) - 20} more gaps")
    for table, ranges in report.missing.items():
        text = ", ".join(f"{a}" if a == b else f"{a}..{b}" for a, b in ranges[:10])
        lines.append(f"  still missing: {table} seq {text}")
    if report.retries:
        lines.append(f"  retries    {report.retries:>9,}")
    status = "every line accounted for" if report.accounted else "NOT every line accounted for"
    lines.append(f"  {status}")
    return "\n".join(lines)
