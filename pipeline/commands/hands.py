"""``uth hands``: find a hand to replay without knowing its id.

    uth hands --source floor.jsonl --table T03 --dealer D0007
    uth hands --source sqlite:///floor.db --seat 5 --since 2026-11-29T22:00 --until 2026-11-29T23:00
    uth hands --source floor.jsonl --card As --card Kd --outcome win
    uth hands --source floor.jsonl --status voided --json

Every criterion given must match: ``--table``, ``--dealer``, ``--seat`` (a seat in play),
``--since``/``--until`` (the hand's start, local time in ``UTH_TIMEZONE`` unless given with
``Z`` or an offset), ``--status`` (settled, voided, incomplete), ``--outcome`` (the player's
recorded net on the hand: win, lose or push; of ``--seat``, else of any seat) and ``--card``
(dealt to anyone; repeat for more). Latest first, ``--limit`` of them (default 50).
``--json`` writes one object per hand (nets in cents), ``--csv`` a CSV table (``net``, every
seat's together, and ``nets``, seat:amount, in currency units beside the ``currency``).

Exit status: 0 when the log was read (whether or not a hand matched), 2 when it cannot be.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from typing import Any

FIELDS = ("hand_id", "table_id", "dealer_id", "seats", "started_at", "ended_at", "status",
          "board", "net", "nets", "currency")


def _card(text: str) -> str:
    from events.game.cards import is_card

    card = text.strip()
    if card[:2] == "10":  # as every output prints it: 10♦
        card = "T" + card[2:]
    card = card[:1].upper() + card[1:].lower()
    if not is_card(card):
        raise argparse.ArgumentTypeError(f"{text!r} is not a card: write rank then suit, "
                                         "e.g. As, Td (or 10d), 7h")
    return card


def register(sub: Any) -> None:
    from pipeline.finding_filters import add_arguments

    p = sub.add_parser("hands", help="list and search hands (table, dealer, seat, time, card)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--source", required=True,
                   help="file.jsonl, sqlite:///log.db or kafka://host:port[/topic]")
    add_arguments(p, kinds=False)
    p.add_argument("--seat", type=int, help="a seat in play")
    p.add_argument("--status", choices=("settled", "voided", "incomplete"))
    p.add_argument("--outcome", choices=("win", "lose", "push"),
                   help="the player's recorded net on the hand (of --seat, else any seat)")
    p.add_argument("--card", type=_card, action="append", default=[], metavar="CARD",
                   help="a card dealt in the hand, e.g. As (repeat: all of them)")
    p.add_argument("--limit", type=int, default=50, help="at most this many, latest first")
    p.add_argument("--json", action="store_true", help="one JSON object per hand")
    p.set_defaults(func=run)


@dataclass
class HandSummary:
    """What hand search shows and matches of a hand: its reference fold's state
    (:mod:`events.replay.fold`) in a few fields."""

    hand_id: str
    table_id: str
    dealer_id: str | None = None
    seats: tuple[int, ...] = ()
    started_at: str | None = None
    ended_at: str | None = None
    status: str = "incomplete"
    currency: str | None = None  # its table's
    board: list[str] = field(default_factory=list)
    cards: set[str] = field(default_factory=set)
    paid: dict[tuple[int, str], int] = field(default_factory=dict)  # (seat, spot) -> amount

    @classmethod
    def of(cls, state: Any) -> HandSummary:
        """The summary of a :class:`~events.replay.fold.HandState` (a wager's first
        recorded payout: a redelivered copy of one changes nothing)."""
        table = state.table
        return cls(state.hand_id, state.table_id, state.dealer_id, tuple(state.seats_in_play),
                   state.started_at, state.ended_at, _STATUS[state.ended],
                   table.currency if table is not None else None, list(state.community),
                   set(state.cards), {k: paid.amount for k, paid in state.payouts.items()})

    @property
    def nets(self) -> dict[int, int]:
        """Each seat's recorded net on the hand."""
        out: dict[int, int] = {}
        for (seat, _spot), amount in self.paid.items():
            out[seat] = out.get(seat, 0) + amount
        return out

    def to_json(self) -> dict[str, Any]:
        return {"hand_id": self.hand_id, "table_id": self.table_id,
                "dealer_id": self.dealer_id, "seats": list(self.seats),
                "started_at": self.started_at, "ended_at": self.ended_at,
                "status": self.status, "board": self.board,
                "nets": {str(k): v for k, v in sorted(self.nets.items())},
                "currency": self.currency}


_STATUS = {None: "incomplete", "ended": "settled", "voided": "voided"}


def summaries(source: str) -> dict[str, HandSummary]:
    """Every hand of the source, each folded by the reference (``events.replay.fold``'s
    ``apply``, with its table's ``TableOpened`` in force). A settled hand is kept as its
    small summary: the fold applies no game event after a hand ended, so nothing later
    changes it. Applying an event twice (a redelivered copy) changes nothing the summary
    shows, so no event id is remembered."""
    from events.contract.codec import Rejection, decode_records
    from events.contract.schemas import TableOpened
    from events.replay.fold import HandState, apply
    from events.replay.state import TablesInForce
    from pipeline.commands.audit import read_batches

    done: dict[str, HandSummary] = {}
    folding: dict[str, HandState] = {}
    tables = TablesInForce()
    for chunk in read_batches(source):
        for ev in decode_records(chunk):
            if isinstance(ev, Rejection):
                continue
            hand_id = ev.hand_id
            if hand_id is None:
                if isinstance(ev, TableOpened):
                    tables.opened(ev)
                continue
            if hand_id in done:
                continue
            state = folding.get(hand_id)
            if state is None:
                state = HandState.begin(hand_id, ev.table_id, tables.get(ev.table_id))
            state = folding[hand_id] = apply(state, ev)
            if state.ended == "ended":
                done[hand_id] = HandSummary.of(folding.pop(hand_id))
    return {**done, **{h: HandSummary.of(state) for h, state in folding.items()}}


def matches(h: HandSummary, args: argparse.Namespace, chosen: Any) -> bool:
    if chosen.tables and h.table_id not in chosen.tables:
        return False
    if chosen.dealers and h.dealer_id not in chosen.dealers:
        return False
    if (chosen.since or chosen.until) and not chosen.within(h.started_at):
        return False
    if args.seat is not None and args.seat not in h.seats:
        return False
    if args.status and h.status != args.status:
        return False
    if args.card and not set(args.card) <= h.cards:
        return False
    if args.outcome:
        by_seat = h.nets
        nets = [by_seat[args.seat]] if args.seat in by_seat else (
            [] if args.seat is not None else list(by_seat.values()))
        sign = {"win": 1, "lose": -1, "push": 0}[args.outcome]
        if not any((n > 0) - (n < 0) == sign for n in nets):
            return False
    return True


def run(args: argparse.Namespace) -> int:
    from events.logs import LogError
    from pipeline.finding_filters import Filter, exclusive_formats, write_csv

    if refused := exclusive_formats(args, "hands"):
        print(refused, file=sys.stderr)
        return 2
    chosen = Filter.from_args(args)
    try:
        hands = summaries(args.source)
    except (LogError, OSError) as exc:
        print(f"uth hands: {exc}", file=sys.stderr)
        return 2
    found = sorted((h for h in hands.values() if matches(h, args, chosen)),
                   key=lambda h: (h.started_at or "", h.hand_id), reverse=True)
    shown = found[:max(0, args.limit)]
    if args.csv:
        from events.money import units
        from pipeline.finding_filters import in_units

        rows = [in_units({**h.to_json(), "seats": " ".join(map(str, h.seats)),
                          "board": " ".join(h.board), "net": sum(h.nets.values()),
                          "nets": " ".join(f"{k}:{units(v, h.currency)}"
                                           for k, v in sorted(h.nets.items()))},
                         ("net",), h.currency) for h in shown]
        write_csv(rows, FIELDS, sys.stdout)
    elif args.json:
        for h in shown:
            sys.stdout.write(json.dumps(h.to_json()) + "\n")
    else:
        write_text(shown, len(found), len(hands), args.source)
    return 0


def write_text(shown: list[HandSummary], found: int, total: int, source: str) -> None:
    from events.audit.evidence import glyphs
    from events.localtime import to_local, zone_name

    zone = zone_name()
    out = sys.stdout
    if not found:
        out.write(f"No hand of the {total:,} in {source} matches.\n")
        return
    more = f", the latest {len(shown):,} shown" if len(shown) < found else ""
    out.write(f"{found:,} of {total:,} hands match{more}.\n\n")
    header = (f"{'hand':<16} {'table':<8} {'dealer':<8} {'started (' + zone + ')':<24} "
              f"{'status':<10} {'seats':<14} board")
    out.write(header + "\n" + "-" * len(header) + "\n")
    for h in shown:
        when = (to_local(h.started_at, zone).strftime("%Y-%m-%d %H:%M:%S")
                if h.started_at else "-")
        out.write(f"{h.hand_id:<16} {h.table_id:<8} {h.dealer_id or '-':<8} {when:<24} "
                  f"{h.status:<10} {','.join(map(str, h.seats)):<14} {glyphs(h.board)}\n")
    out.write(f"\nReplay one: uth replay HAND_ID --source {source}\n")
