"""``uth disputes``: every dispute of a log with the replay's verdict on it.

    uth disputes --source sqlite:///floor.db            # open disputes first, then resolved
    uth disputes --source floor.jsonl --open            # the supervisor's queue
    uth disputes --source kafka://broker:9092 --json    # one JSON object per dispute

Each disputed hand is replayed from its events (the evidence ``uth replay`` shows), and each
dispute gets ``owed``: the cents the house owes the player on that hand (the correct net
minus the recorded net for the seat; negative when the player was overpaid, 0 when the
hand was paid right, 0 with the note "no wager on this hand" for a seat that placed no
wager on a hand that ended), and for a resolved one ``adjustment_correct``: whether its
adjustment equals ``owed``. Times are shown in ``UTH_TIMEZONE`` (default UTC); ``--json``
keeps the contract's UTC times. ``--json`` writes the fields ``hand_id``, ``table_id``,
``seat``, ``dealer_id``, ``claim``, ``opened_at``, ``status`` (open or resolved),
``resolution``, ``adjustment``, ``owed``, ``adjustment_correct`` and ``note``, one object
per line.

Exit status: 0 when the log was read (with or without disputes), 2 when it cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any


def register(sub: Any) -> None:
    p = sub.add_parser("disputes", help="every dispute with what the house owes the player",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", required=True,
                   help="file.jsonl, sqlite:///log.db or kafka://host:port[/topic]")
    p.add_argument("--json", action="store_true", help="one JSON object per dispute")
    p.add_argument("--open", action="store_true", help="only the disputes still open")
    p.set_defaults(func=run)


def disputes(source: str) -> list[dict[str, Any]]:
    """Every dispute of ``source``, open ones first (see :func:`events.audit.disputes.queue`)."""
    from events.audit.disputes import dispute_rows, queue
    from pipeline.hand_source import collect, disputed_hand_ids, evidence_of

    ids = disputed_hand_ids(source)
    hands = collect(source, ids) if ids else {}
    rows: list[dict[str, Any]] = []
    for hand_id in ids:
        if hand_id in hands:
            rows += dispute_rows(evidence_of(hands[hand_id]))
    return queue(rows)


def run(args: argparse.Namespace) -> int:
    from events.logs import LogError

    try:
        rows = disputes(args.source)
    except (LogError, OSError) as exc:
        print(f"uth disputes: {exc}", file=sys.stderr)
        return 2
    if args.open:
        rows = [r for r in rows if r["status"] == "open"]
    if args.json:
        for row in rows:
            sys.stdout.write(json.dumps(row) + "\n")
    else:
        write_text(rows, sys.stdout, open_only=args.open)
    return 0


def _money(cents: int | None) -> str:
    from events.money import money

    return money(cents)


def _when(text: str | None, zone: str) -> str:
    from events.localtime import to_local

    return to_local(text, zone).strftime("%Y-%m-%d %H:%M:%S") if text else "-"


def _checked(row: dict[str, Any]) -> str:
    if row["status"] == "open":
        return "open"
    return {True: "right", False: "WRONG", None: "unknown"}[row["adjustment_correct"]]


def write_text(rows: list[dict[str, Any]], out: IO[str], open_only: bool = False) -> None:
    opened = sum(r["status"] == "open" for r in rows)
    if not rows:
        out.write("No open disputes.\n" if open_only else "No disputes in this log.\n")
        return
    wrong = sum(r["adjustment_correct"] is False for r in rows)
    out.write(f"{len(rows):,} dispute{'s' if len(rows) != 1 else ''}: {opened:,} open, "
              f"{len(rows) - opened:,} resolved"
              + (f" ({wrong:,} with a wrong adjustment)" if wrong else "") + ".\n\n")
    from events.localtime import zone_name

    zone = zone_name()
    header = (f"{'status':<8} {'hand':<16} {'table':<8} {'seat':>4} {'dealer':<8} "
              f"{'opened (' + zone + ')':<24} {'owed':>10} {'adjusted':>10} {'check':<7}  "
              "claim / resolution")
    out.write(header + "\n" + "-" * len(header) + "\n")
    for r in rows:
        text = r["claim"] or ""
        if r["resolution"]:
            text += f" / {r['resolution']}"
        if r.get("note"):
            text += f" ({r['note']})"
        out.write(f"{r['status']:<8} {r['hand_id'] or '-':<16} {r['table_id'] or '-':<8} "
                  f"{r['seat']:>4} {r['dealer_id'] or '-':<8} {_when(r['opened_at'], zone):<24} "
                  f"{_money(r['owed']):>10} {_money(r['adjustment']):>10} {_checked(r):<7}  "
                  f"{text}\n")
    out.write("\nowed: what the house owes the player on the hand (correct net minus recorded; "
              "negative: the player was overpaid; 0 for a seat that placed no wager). Replay "
              "a hand with `uth replay HAND_ID`.\n")
