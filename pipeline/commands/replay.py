"""``uth replay``: one hand step by step, as a floor supervisor reads it.

    uth replay T03-000042 --source floor.jsonl
    uth replay T03-000042 --source sqlite:///floor.db --at 12     # the state after event 12
    uth replay T03-000042 --source kafka://broker:9092 --json > evidence.json
    uth replay T03-000042 --source floor.jsonl --html evidence.html   # a printable sheet

Each event in order (cards as glyphs, bets, each decision), with the finding it raised;
then the dealer's hand and whether it qualifies, each seat's hand named, and for every
wager the correct settlement beside the recorded one; disputes with their verdict; and the
verdict on the hand. ``--json`` writes the same as an evidence document (the events
included, with their SHA-256, and an inclusion proof of them against the latest seal of
the log, which ``uth verify --evidence FILE --public-key KEY.pub`` checks alone) to archive
with a dispute. ``--at N`` stops after event N and shows what each party could see then.
``--html FILE`` also writes the same document as a printable page (cards drawn, the
verdict per wager, every event with its log position and SHA-256), self-contained, to FILE.

A hand of more than 5,000 events (an ``overlong_hand``) is replayed up to that bound and
its end, as ``uth audit`` audits it, with a warning on stderr.

Exit status: 0 when the hand was found, 1 when it is not in the source, 2 when the source
cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("replay", help="replay one hand step by step with the correct settlement",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("hand_id", metavar="HAND_ID")
    p.add_argument("--source", required=True,
                   help="file.jsonl, sqlite:///log.db or kafka://host:port[/topic]")
    p.add_argument("--at", type=int, metavar="N", help="stop after event N of the hand")
    p.add_argument("--json", action="store_true", help="write the evidence document (JSON)")
    p.add_argument("--html", metavar="FILE",
                   help="also write the evidence as a printable HTML sheet to FILE")
    p.set_defaults(func=run)


def hand_events(source: str, hand_id: str) -> tuple[list[Any], Any, int]:
    """The hand's events (once each, in ``seq`` order), its table's ``TableOpened`` in
    force when the hand began (or None), and how many records of the hand were past the
    auditor's bound (``MAX_HAND_EVENTS``: the first ones and its end are kept, as the
    auditor keeps them; the rest are counted, not replayed)."""
    from events.audit.intake import MAX_HAND_EVENTS
    from events.contract.codec import decode_line
    from events.contract.privacy import needs_scrub, scrub
    from events.contract.schemas import HandEnded, HandVoided, TableOpened
    from events.replay.state import opened_in_force
    from pipeline.commands.audit import read_batches

    needle = json.dumps(hand_id).encode()
    found: dict[str, Any] = {}
    opened: list[Any] = []
    past = 0
    for batch in read_batches(source):
        for position, raw in batch:
            if needle not in raw and b"TableOpened" not in raw:
                continue
            if needs_scrub(raw):  # players only as pseudonyms, as the ingest stores them
                raw = scrub(raw, without_key="drop")
            ev = decode_line(raw, position)
            if isinstance(ev, TableOpened):
                opened.append(ev)
            elif getattr(ev, "hand_id", None) == hand_id and ev.event_id not in found:  # type: ignore[union-attr]
                if len(found) < MAX_HAND_EVENTS or isinstance(ev, HandEnded | HandVoided):
                    found[ev.event_id] = ev  # type: ignore[union-attr]
                else:
                    past += 1
    events = sorted(found.values(), key=lambda e: e.seq)
    table = None
    if events:
        table = opened_in_force(opened, events[0].table_id, events[0].seq)
    return events, table, past


def inclusion_proof(source: str, table_id: str, event_ids: list[str]) -> dict[str, Any] | str:
    """The proof of the hand's events against the log's latest seal, or why there is none."""
    from events.ledger.log_proof import prove
    from events.logs import LogError, open_log

    try:
        with open_log(source, create=False) as log:
            return prove(log, table_id, event_ids)
    except LogError as exc:
        return f"no inclusion proof: {exc}"


def run(args: argparse.Namespace) -> int:
    from events.audit.evidence import evidence, render, visible_text
    from events.logs import LogError

    try:
        events, opened, past = hand_events(args.source, args.hand_id)
    except (LogError, OSError) as exc:
        print(f"uth replay: {exc}", file=sys.stderr)
        return 2
    if not events:
        print(f"uth replay: hand {args.hand_id} is not in {args.source}"
              + suggestion(args.source, args.hand_id), file=sys.stderr)
        return 1
    if past:
        overlong(args.hand_id, len(events), past)
    context = [opened] if opened is not None else []
    doc = evidence([*context, *events], at=args.at)
    ids = [e.event_id for e in [*context, *events]]
    proof = inclusion_proof(args.source, events[0].table_id, ids)
    if args.json or args.html:  # both carry the hand's inclusion proof
        if isinstance(proof, str):
            doc["inclusion_proof"] = None
            doc["inclusion_proof_missing"] = proof
        else:
            doc["inclusion_proof"] = proof
    if not isinstance(proof, str):
        warn_failed_proof(proof)
    if args.html:
        try:
            write_html(doc, args.source, args.hand_id, args.html)
        except (LogError, OSError) as exc:
            print(f"uth replay: cannot write {args.html}: {exc}", file=sys.stderr)
            return 2
        print(f"uth replay: wrote the evidence sheet of {args.hand_id} to {args.html}",
              file=sys.stderr)
    if args.json:
        sys.stdout.write(json.dumps(doc, indent=2, sort_keys=False) + "\n")
    else:
        sys.stdout.write(render(doc))
        if args.at is not None:
            sys.stdout.write(visible_text(doc))
    return 0


def overlong(hand_id: str, kept: int, past: int) -> None:
    """Say, on stderr, that the hand is an ``overlong_hand`` replayed only in part."""
    from events.audit.intake import MAX_HAND_EVENTS

    print(f"uth replay: WARNING: hand {hand_id} has more than {MAX_HAND_EVENTS:,} events "
          f"(an overlong_hand, as uth audit reports it); only the first {MAX_HAND_EVENTS:,} "
          f"and its end ({kept:,} events) are replayed, {past:,} more records of it are "
          "not: this replay is no proof of the whole hand.", file=sys.stderr)


def warn_failed_proof(proof: dict[str, Any]) -> None:
    """Say plainly, on stderr, when the hand's events no longer prove against the seal
    (the log was changed after it): the document then proves nothing of them."""
    from events.ledger.compare import shown
    from events.ledger.proof import check_paths

    problems = check_paths(proof).problems
    if problems:
        print("uth replay: WARNING: the log no longer matches its seal; this hand's "
              "inclusion proof FAILS (run uth verify --source on the log):", file=sys.stderr)
        for problem in problems:
            print(f"  {shown(problem, 300)}", file=sys.stderr)


def write_html(doc: dict[str, Any], source: str, hand_id: str, path: str) -> None:
    """The printable sheet, with each event's position in ``source``."""
    from pathlib import Path

    from events.audit.evidence_html import render_html
    from pipeline.hand_source import collect

    found = collect(source, [hand_id]).get(hand_id)
    Path(path).write_text(render_html(doc, found.positions if found else {}), encoding="utf-8")


def suggestion(source: str, hand_id: str) -> str:
    """``; did you mean ...?`` naming the source's hand ids nearest ``hand_id``, or ``""``."""
    import difflib

    from pipeline.hand_source import hand_ids

    near = difflib.get_close_matches(hand_id, hand_ids(source), n=5, cutoff=0.6)
    return f"; did you mean {', '.join(near)}?" if near else ""
