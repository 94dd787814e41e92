"""``uth tail``: follow a log live and print events as a person reads them.

    uth tail --source sqlite:///floor.db            # the last 20 events, then follow
    uth tail --source kafka://broker:9092 --table T3 --from-start --no-follow

One line per event: time at the table, table, hand, type and the event in words, as
the evidence document says it (``Seat 3 is dealt A♠ K♦ (face down).``). Lines that are
not valid events are shown with ``!!`` and the reason. Stops on SIGINT/SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("tail", help="follow an event log and print events as people read them",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", required=True, help="sqlite:///log.db, kafka://host:port, x.jsonl")
    p.add_argument("-n", "--lines", type=int, default=20,
                   help="first show the last N events (of --table, when given; default 20)")
    p.add_argument("--from-start", action="store_true", help="start at the beginning")
    p.add_argument("--no-follow", action="store_true", help="stop at the end of the log")
    p.add_argument("--table", action="append", help="only this table (repeatable)")
    p.set_defaults(func=run)


def line(event: Any) -> str:
    """``2026-12-04 21:03:11.123  T1    T1-0042   CardsDealt         seat 3: A♠ K♦``: the
    date too, since a log followed overnight crosses midnight."""
    from events.describe import describe
    from events.localtime import stamp, to_local, utc_moment

    clock = stamp(event.occurred_at, clock_only=True)  # the casino's clock (UTH_TIMEZONE)
    moment = utc_moment(event.occurred_at)
    day = f"{to_local(moment):%Y-%m-%d} " if moment is not None else ""
    hand = event.hand_id or "-"
    return (f"{day}{clock:<12}  {event.table_id:<6} {hand:<10} {type(event).__name__:<18} "
            f"{describe(event)}")


def run(args: argparse.Namespace) -> int:
    from events.logs import LogError, open_log

    stopping = False

    def stop_now(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop_now)
    signal.signal(signal.SIGINT, stop_now)
    tables = set(args.table or [])
    try:
        log = open_log(args.source, create=False)
        with log:
            start = None
            if not args.from_start:
                shown, start = last_lines(log, max(args.lines, 0), tables, lambda: stopping)
                for text in shown:
                    print(text)
                if args.no_follow:
                    return _say_unseen(tables, shown, log) if args.lines > 0 else 0
                if tables and not shown and args.lines > 0:  # a mistyped table: say so
                    print(f"uth tail: no event of table {', '.join(sorted(tables))} in "
                          f"{log.describe()} yet; waiting for one (Ctrl-C to stop)",
                          file=sys.stderr, flush=True)
            printed = 0
            for batch in log.read(start, follow=not args.no_follow, stop=lambda: stopping):
                for _, text in _lines(log, batch, tables):
                    print(text)
                    printed += 1
                sys.stdout.flush()
            if args.no_follow:
                return _say_unseen(tables, ["."] * printed, log)
    except LogError as exc:
        print(f"uth tail: {exc}", file=sys.stderr)
        return 2
    return 0


def _say_unseen(tables: set[str], shown: list[str], log: Any) -> int:
    """A ``--table`` of which nothing was shown is said (a mistyped table printed nothing)."""
    if tables and not shown:
        names = ", ".join(sorted(tables))
        print(f"uth tail: no event of table {names} in {log.describe()}", file=sys.stderr)
        return 1
    return 0


def last_lines(log: Any, count: int, tables: set[str],
               stop: Any) -> tuple[list[str], dict[int, int]]:
    """The last ``count`` events (of ``tables``, when given) in time order, and the cursor
    at the end of what was read. Read to the log's real end from a window before the end
    it reports, widened until it holds enough: a log of several partitions gives the last
    ``count`` of them all, not ``count`` per partition (and a broker that reports an end
    offset short of the real one costs nothing but a wider read)."""
    from events.logs.base import advance_all

    end = log.end()
    window = max(count, 1) * 4
    while True:
        start = {p: max(o - window, 0) for p, o in end.items()}
        cursor = dict(start)
        found: list[tuple[tuple[str, int, int], str]] = []
        for batch in log.read(start or None, follow=False, stop=stop):
            found += _lines(log, batch, tables)
            advance_all(cursor, batch)
        if len(found) >= count or all(o == 0 for o in start.values()):
            found.sort()
            return [text for _, text in found[len(found) - count:]] if count else [], cursor
        window *= 4


def _lines(log: Any, batch: list[Any],
           tables: set[str]) -> list[tuple[tuple[str, int, int], str]]:
    """Each record of ``batch`` shown (of ``tables``, when given), keyed by its time and
    place; a line that is not a valid event is shown with ``!!`` and its reason (a player
    identifier in it as ``uth ingest`` stores it: :func:`events.contract.privacy.scrub_all`)."""
    from events.contract.codec import Rejection, decode_line
    from events.contract.privacy import scrub_all

    out = []
    at = ""  # a rejected line keeps its place after the event before it
    values = scrub_all([record.value for record in batch])
    for record, value in zip(batch, values, strict=True):
        item = decode_line(value, log.where(record))
        if not isinstance(item, Rejection):
            at = item.occurred_at
        if tables and item.table_id not in tables:
            continue
        text = f"!! {item}" if isinstance(item, Rejection) else line(item)
        out.append(((at, record.partition, record.offset), text))
    return out
