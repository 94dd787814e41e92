"""Seat-hands (one player's part of one hand) folded from contract events, as columns.

Only what a rating slip and the protection statistic need: who sat where, the wagers, the
cards (hole, dealer, board in deal order), the decisions and the settled result. A hand is
kept when it ended (``HandEnded``); a voided hand returns every wager and is left out, as
is a seat whose cards or decisions the events do not show whole. A resolved dispute's
adjustment (``DisputeResolved``, which may come long after the hand) is kept with the seat's
hand, whatever the order it arrives in. A redelivered copy (same ``event_id``) counts once:
the ids of an open hand's events are kept until it ends, and a hand that ended is not
started again.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from datetime import datetime

import numpy as np
import numpy.typing as npt

from events.contract.schemas import (
    BetPlaced,
    CardsDealt,
    DisputeResolved,
    HandEnded,
    HandStarted,
    HandVoided,
    PayoutRecorded,
    PlayerDecision,
    TableOpened,
)
from events.game.cards import DECK, card_index

IntArray = npt.NDArray[np.int64]
STREETS = {"preflop": 0, "flop": 1, "river": 2}
_INDEX = {card: card_index(card) for card in DECK}  # the contract's cards, validated


@dataclass
class _Hand:
    table_id: str
    hand_id: str
    dealer_id: str
    started_at: str
    ordinal: int  # the hand's place among its table's hands
    refs: dict[int, str]
    seats: list[int]
    bets: dict[int, dict[str, int]] = field(default_factory=dict)
    hole: dict[int, list[str]] = field(default_factory=dict)
    dealer: list[str] = field(default_factory=list)
    board: list[str] = field(default_factory=list)
    decisions: dict[int, list[tuple[int, int, bool]]] = field(default_factory=dict)
    result: dict[int, int] = field(default_factory=dict)
    play: dict[int, int] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)  # event ids: a redelivered copy counts once


@dataclass(frozen=True)
class SeatHands:
    """Columns per seat-hand, and the decisions (N rows) of those that have them."""

    table_id: list[str]
    hand_id: list[str]
    dealer_id: list[str]
    ruleset: list[str]
    player_ref: list[str | None]
    seat: IntArray
    ordinal: IntArray  # place among the table's hands (for seat sessions)
    started_ms: IntArray
    ended_ms: IntArray
    ante: IntArray
    blind: IntArray
    trips: IntArray
    play: IntArray
    result: IntArray  # net of every spot, cents
    adjustment: IntArray  # resolved disputes: paid to (+) or taken from (-) the player, cents
    hole: IntArray  # (H, 2)
    dealer: IntArray  # (H, 2)
    board: IntArray  # (H, 5)
    cards_known: npt.NDArray[np.bool_]  # hole, dealer and board all dealt in the events
    dec_hand: IntArray
    dec_street: IntArray
    dec_multiple: IntArray

    def __len__(self) -> int:
        return len(self.hand_id)

    def rows(self, lo: int, hi: int) -> SeatHands:
        """Seat-hands ``lo`` to ``hi`` (not included), with their decisions."""
        mine = (self.dec_hand >= lo) & (self.dec_hand < hi)
        out: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name.startswith("dec_"):
                out[f.name] = value[mine] - (lo if f.name == "dec_hand" else 0)
            else:
                out[f.name] = value[lo:hi]
        return SeatHands(**out)  # type: ignore[arg-type]


def _ms(text: str) -> int:
    return round(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


class _Rows:
    """The seat-hands taken so far, packed as they end: machine integers in arrays and
    shared strings, so that memory grows by a few hundred bytes a seat-hand (a hand's
    dicts and lists are dropped when it ends)."""

    INTS = ("seat", "ordinal", "started_ms", "ended_ms", "ante", "blind", "trips", "play",
            "result")

    def __init__(self) -> None:
        self.table_id: list[str] = []
        self.hand_id: list[str] = []
        self.dealer_id: list[str] = []
        self.player_ref: list[str | None] = []
        self.ints = {k: array("q") for k in self.INTS}
        self.cards = array("q")  # nine a seat-hand: hole, dealer, board
        self.complete = array("b")
        self.decisions = array("q")  # three a decision: seat-hand, street, multiple

    def __len__(self) -> int:
        return len(self.complete)

    def add(self, hand: _Hand, seat: int, started_ms: int, ended_ms: int) -> None:
        row = len(self)
        ints = self.ints
        ref = hand.refs.get(seat)
        self.table_id.append(hand.table_id)
        self.hand_id.append(hand.hand_id)
        self.dealer_id.append(hand.dealer_id)
        self.player_ref.append(None if ref is None else sys.intern(ref))
        bets = hand.bets[seat]
        ints["seat"].append(seat)
        ints["ordinal"].append(hand.ordinal)
        ints["started_ms"].append(started_ms)
        ints["ended_ms"].append(ended_ms)
        ints["ante"].append(bets["ante"])
        ints["blind"].append(bets.get("blind", 0))
        ints["trips"].append(bets.get("trips", 0))
        ints["play"].append(hand.play.get(seat, 0))
        ints["result"].append(hand.result.get(seat, 0))
        cards = hand.hole.get(seat)
        if cards is None or len(hand.dealer) != 2 or len(hand.board) != 5:
            self.cards.extend([0] * 9)
            self.complete.append(0)
            return
        self.cards.extend([_INDEX[c] for c in (*cards, *hand.dealer, *hand.board)])
        self.complete.append(1)
        for street, multiple, auto in hand.decisions.get(seat, []):
            if not auto:  # the table decided on a timeout: not the player's choice
                self.decisions.extend((row, street, multiple))


class Adjustments:
    """What resolved disputes paid to (+) or took from (-) each seat-hand's player, in
    cents, keyed by (table, hand, seat); a redelivered ``DisputeResolved`` counts once."""

    def __init__(self) -> None:
        self.cents: dict[tuple[str, str, int], int] = {}
        self._seen: set[str] = set()  # event ids

    def add(self, ev: DisputeResolved) -> None:
        if ev.event_id in self._seen or ev.hand_id is None:
            return
        self._seen.add(ev.event_id)
        key = (ev.table_id, ev.hand_id, ev.payload.seat)
        self.cents[key] = self.cents.get(key, 0) + ev.payload.adjustment

    def feed(self, events: Iterable[object]) -> None:
        """Only the ``DisputeResolved`` events of ``events`` are read."""
        for ev in events:
            if type(ev) is DisputeResolved:
                assert isinstance(ev, DisputeResolved)
                self.add(ev)


class HandFolder:
    """Feed decoded events in log order (other items are ignored); :meth:`seat_hands`."""

    def __init__(self, adjustments: Adjustments | None = None,
                 ordinals: dict[str, int] | None = None,
                 resumed: dict[tuple[str, str], int] | None = None) -> None:
        self._open: dict[str, _Hand] = {}
        self._rulesets: dict[str, str] = {}
        # per table, the hands started so far; ``resumed``: the places of hands started
        # before (a warehouse's hands still open at its last load, read again whole)
        self.ordinals: dict[str, int] = {} if ordinals is None else ordinals
        self._resumed = {} if resumed is None else resumed
        self._rows = _Rows()
        # given: every resolved dispute's adjustment, read before the events, so that
        # seat-hands may be taken as they end (the events' own are added too, once each);
        # else gathered from the events, for seat-hands taken at the end
        self.adjustments = Adjustments() if adjustments is None else adjustments
        self._ended: set[tuple[str, str]] = set()  # (table, hand) of hands ended or voided

    @property
    def ended(self) -> set[tuple[str, str]]:
        """(table, hand) of the hands that ended or were voided."""
        return self._ended

    def open_hands(self) -> list[tuple[str, str, int]]:
        """The hands started and not ended: (table, hand, place among the table's)."""
        return [(h.table_id, h.hand_id, h.ordinal) for h in self._open.values()]

    @property
    def pending(self) -> int:
        """Seat-hands ended and not yet taken."""
        return len(self._rows)

    def take(self) -> SeatHands:
        """The seat-hands ended since the last take (whole hands), let go here."""
        sh = self.seat_hands()
        self._rows = _Rows()
        return sh

    def feed(self, events: Iterable[object]) -> None:
        for ev in events:
            kind = type(ev)
            if kind is TableOpened:
                assert isinstance(ev, TableOpened)
                self._rulesets[ev.table_id] = ev.payload.ruleset
                continue
            hand_id = getattr(ev, "hand_id", None)
            if hand_id is None:
                continue
            if kind is DisputeResolved:
                assert isinstance(ev, DisputeResolved)
                self.adjustments.add(ev)
                continue
            if kind is HandStarted:
                assert isinstance(ev, HandStarted)
                if hand_id in self._open or (ev.table_id, hand_id) in self._ended:
                    continue  # a redelivered copy (or a reused id): the hand is under way
                n = self._resumed.pop((ev.table_id, hand_id), None)
                if n is None:
                    n = self.ordinals.get(ev.table_id, 0)
                    self.ordinals[ev.table_id] = n + 1
                p = ev.payload
                self._open[hand_id] = _Hand(sys.intern(ev.table_id), hand_id,
                                            sys.intern(p.dealer_id), ev.occurred_at, n,
                                            dict(p.player_refs or {}), list(p.seats))
                continue
            hand = self._open.get(hand_id)
            if hand is None:
                continue
            event_id = getattr(ev, "event_id", "")
            if event_id in hand.seen:
                continue
            hand.seen.add(event_id)
            self._apply(hand, ev, kind)

    def _apply(self, hand: _Hand, ev: object, kind: type) -> None:
        if kind is BetPlaced:
            assert isinstance(ev, BetPlaced)
            bet = ev.payload
            hand.bets.setdefault(bet.seat, {})[bet.spot] = bet.amount
            if bet.player_ref is not None:
                hand.refs[bet.seat] = bet.player_ref
        elif kind is CardsDealt:
            assert isinstance(ev, CardsDealt)
            deal = ev.payload
            if deal.target == "seat" and deal.seat is not None:
                hand.hole[deal.seat] = list(deal.cards)
            elif deal.target == "dealer":
                hand.dealer = list(deal.cards)
            else:
                hand.board = list(deal.cards)
        elif kind is PlayerDecision:
            assert isinstance(ev, PlayerDecision)
            dec = ev.payload
            hand.decisions.setdefault(dec.seat, []).append(
                (STREETS[dec.street], dec.multiple or 0, dec.auto))
            if dec.amount:
                hand.play[dec.seat] = dec.amount
        elif kind is PayoutRecorded:
            assert isinstance(ev, PayoutRecorded)
            pay = ev.payload
            hand.result[pay.seat] = hand.result.get(pay.seat, 0) + pay.amount
        elif kind is HandEnded:
            assert isinstance(ev, HandEnded)
            del self._open[hand.hand_id]
            self._ended.add((hand.table_id, hand.hand_id))
            started, ended = _ms(hand.started_at), _ms(ev.occurred_at)  # once a hand
            for seat in hand.seats:
                if "ante" in hand.bets.get(seat, {}):
                    self._rows.add(hand, seat, started, ended)
        elif kind is HandVoided:
            del self._open[hand.hand_id]
            self._ended.add((hand.table_id, hand.hand_id))

    def seat_hands(self) -> SeatHands:
        rows = self._rows
        n = len(rows)
        ints = {k: np.frombuffer(v, dtype=np.int64) if n else np.zeros(0, np.int64)
                for k, v in rows.ints.items()}
        cards = (np.frombuffer(rows.cards, dtype=np.int64) if n
                 else np.zeros(0, np.int64)).reshape(n, 9)
        decisions = (np.frombuffer(rows.decisions, dtype=np.int64) if len(rows.decisions)
                     else np.zeros(0, np.int64)).reshape(-1, 3)
        tables, hands = rows.table_id, rows.hand_id
        adjusted = self.adjustments.cents
        adjustment = np.fromiter(
            (adjusted.get((t, h, s), 0) for t, h, s in zip(
                tables, hands, ints["seat"].tolist(), strict=True)), dtype=np.int64, count=n)
        return SeatHands(
            table_id=tables, hand_id=hands, dealer_id=rows.dealer_id,
            ruleset=[self._rulesets.get(t, "") for t in tables], player_ref=rows.player_ref,
            seat=ints["seat"].copy(), ordinal=ints["ordinal"].copy(),
            started_ms=ints["started_ms"].copy(), ended_ms=ints["ended_ms"].copy(),
            ante=ints["ante"].copy(), blind=ints["blind"].copy(), trips=ints["trips"].copy(),
            play=ints["play"].copy(), result=ints["result"].copy(), adjustment=adjustment,
            hole=cards[:, 0:2].copy(), dealer=cards[:, 2:4].copy(), board=cards[:, 4:9].copy(),
            cards_known=np.frombuffer(rows.complete, dtype=np.int8).astype(np.bool_)
            if n else np.zeros(0, np.bool_),
            dec_hand=decisions[:, 0].copy(), dec_street=decisions[:, 1].copy(),
            dec_multiple=decisions[:, 2].copy(),
        )
