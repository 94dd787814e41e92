"""``uth tail``: follow a log live and print events as a person reads them.

    uth tail --source sqlite:///floor.db            # the last 20 events, then follow
    uth tail --source kafka://broker:9092 --table T3 --from-start --no-follow

One line per event: time at the table, table, hand, type and a short summary with card
glyphs (``seat 3: A♠ K♦``, ``seat 3 ante: win +5.00``). Lines that are not valid events are
shown with ``!!`` and the reason. Stops on SIGINT/SIGTERM.
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


def money(cents: int, sign: bool = False) -> str:
    """Cents as ``12.50`` (``+12.50`` / ``-12.50`` with ``sign``)."""
    text = f"{abs(cents) // 100:,}.{abs(cents) % 100:02d}"
    if cents < 0:
        return "-" + text
    return ("+" + text) if sign and cents > 0 else text


def cards(items: list[str]) -> str:
    from events.game.cards import glyph

    return " ".join(glyph(c) for c in items)


def summary(event: Any) -> str:
    """A short sentence for one event."""
    kind = type(event).__name__
    p = event.payload
    if kind == "TableOpened":
        trips = f", trips up to {money(p.max_trips)}" if p.max_trips else ""
        return (f"{p.ruleset}: ante {money(p.min_bet)} to {money(p.max_bet)} {p.currency}"
                f"{trips}, {p.seats} seats")
    if kind == "TableClosed":
        return "table closed"
    if kind == "ChipsPurchased":
        return f"seat {p.seat} buys {money(p.amount)} in chips ({p.method})"
    if kind == "HandStarted":
        seats = ", ".join(str(s) for s in p.seats)
        return f"dealer {p.dealer_id}, seat{'s' if len(p.seats) > 1 else ''} {seats}"
    if kind == "BetPlaced":
        return f"seat {p.seat} {p.spot} {money(p.amount)}"
    if kind == "CardsDealt":
        who = f"seat {p.seat}" if p.target == "seat" else p.target
        return f"{who}: {cards(p.cards)}"
    if kind == "CommunityRevealed":
        street = "flop" if p.street == "flop" else "turn and river"
        return f"{street}: {cards(p.cards)}"
    if kind == "PlayerDecision":
        auto = " (auto)" if p.auto else ""
        if p.action == "raise":
            return f"seat {p.seat} {p.street}: raise {p.multiple}x ({money(p.amount)}){auto}"
        return f"seat {p.seat} {p.street}: {p.action}{auto}"
    if kind == "DealerRevealed":
        return f"dealer shows {cards(p.cards)}"
    if kind == "PayoutRecorded":
        return f"seat {p.seat} {p.spot}: {p.outcome} {money(p.amount, sign=True)}"
    if kind == "HandEnded":
        return "hand over"
    if kind == "HandVoided":
        return f"VOID: {p.reason}"
    if kind == "DisputeOpened":
        return f"seat {p.seat} disputes: {p.claim}"
    if kind == "DisputeResolved":
        return f"seat {p.seat} resolved: {p.resolution} ({money(p.adjustment, sign=True)})"
    return kind


def line(event: Any) -> str:
    """``21:03:11.123  T1    T1-0042   CardsDealt         seat 3: A♠ K♦``."""
    from events.localtime import stamp

    clock = stamp(event.occurred_at, clock_only=True)  # the casino's clock (UTH_TIMEZONE)
    hand = event.hand_id or "-"
    return (f"{clock:<12}  {event.table_id:<6} {hand:<10} {type(event).__name__:<18} "
            f"{summary(event)}")


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
                    return 0
            for batch in log.read(start, follow=not args.no_follow, stop=lambda: stopping):
                for _, text in _lines(log, batch, tables):
                    print(text)
                sys.stdout.flush()
    except LogError as exc:
        print(f"uth tail: {exc}", file=sys.stderr)
        return 2
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
    place; a line that is not a valid event is shown with ``!!`` and its reason."""
    from events.contract.codec import Rejection, decode_line

    out = []
    at = ""  # a rejected line keeps its place after the event before it
    for record in batch:
        item = decode_line(record.value, log.where(record))
        if not isinstance(item, Rejection):
            at = item.occurred_at
        if tables and item.table_id not in tables:
            continue
        text = f"!! {item}" if isinstance(item, Rejection) else line(item)
        out.append(((at, record.partition, record.offset), text))
    return out
