"""Seat-hands (one player's part of one hand) taken from the reference fold of each hand
(:class:`events.replay.hands.HandsFold`), as columns.

Only what a rating slip and the protection statistic need: who sat where, the wagers, the
cards (hole, dealer, board in deal order), the decisions and the settled result, as the
reference fold has them when the hand ends (``HandEnded``); a voided hand returns every
wager and is left out, as is a seat whose cards the events do not show whole. A decision
the table made on a timeout (``auto``) is not the player's choice and is not scored. A
resolved dispute's adjustment (``DisputeResolved``, which may come long after the hand) is
kept with the seat's hand, whatever the order it arrives in. A redelivered copy (same
``event_id``) counts once: the fold skips it, and a hand that ended is not started again.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, fields
from datetime import datetime

import numpy as np
import numpy.typing as npt

from events.contract.schemas import DisputeResolved
from events.game.cards import DECK, card_index
from events.game.rules import BET_SPOTS
from events.replay.hands import HandsFold
from events.replay.state import HandState

IntArray = npt.NDArray[np.int64]
STREETS = {"preflop": 0, "flop": 1, "river": 2}
_INDEX = {card: card_index(card) for card in DECK}  # the contract's cards, validated


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

    INTS = ("seat", "ordinal", "started_ms", "ended_ms", *BET_SPOTS, "play", "result")

    def __init__(self) -> None:
        self.table_id: list[str] = []
        self.hand_id: list[str] = []
        self.dealer_id: list[str] = []
        self.ruleset: list[str] = []  # of the TableOpened in force when the hand began
        self.player_ref: list[str | None] = []
        self.ints = array("q")  # len(INTS) a seat-hand
        self.cards = array("q")  # nine a seat-hand: hole, dealer, board
        self.complete = array("b")
        self.decisions = array("q")  # three a decision: seat-hand, street, multiple

    def __len__(self) -> int:
        return len(self.complete)

    def add(self, state: HandState, ordinal: int) -> None:
        """The seat-hands of an ended hand: each seat in play that placed an ante."""
        table_id, hand_id = sys.intern(state.table_id), state.hand_id
        dealer_id = sys.intern(state.dealer_id or "")
        ruleset = state.table.ruleset_name or "" if state.table is not None else ""
        refs, seats, holes = state.player_refs, state.seats, state.hole
        started, ended = _ms(state.started_at or ""), _ms(state.ended_at or "")  # once a hand
        result: dict[int, int] = {}
        for (seat, _spot), paid in state.payouts.items():
            result[seat] = result.get(seat, 0) + paid.amount + paid.extra
        chosen: dict[int, list[tuple[int, int]]] = {}
        for ev in state.decisions:
            d = ev.payload
            if not d.auto:  # auto: the table decided on a timeout, not the player
                chosen.setdefault(d.seat, []).append((STREETS[d.street], d.multiple or 0))
        shown = [_INDEX[c] for c in (*state.dealer, *state.community)]
        known = len(shown) == 7 and len(state.dealer) == 2
        ints, cards, complete, decisions = self.ints, self.cards, self.complete, self.decisions
        for seat in state.seats_in_play:
            wagers = seats.get(seat)
            if wagers is None or not wagers.ante:
                continue
            row = len(complete)
            ref = refs.get(seat)
            self.table_id.append(table_id)
            self.hand_id.append(hand_id)
            self.dealer_id.append(dealer_id)
            self.ruleset.append(ruleset)
            self.player_ref.append(None if ref is None else sys.intern(ref))
            ints.extend((seat, ordinal, started, ended, wagers.ante, wagers.blind,
                         wagers.trips, wagers.play, result.get(seat, 0)))
            hole = holes.get(seat)
            if hole is None or not known:
                cards.extend(_UNKNOWN)
                complete.append(0)
                continue
            cards.extend([_INDEX[c] for c in hole])
            cards.extend(shown)
            complete.append(1)
            for street, multiple in chosen.get(seat, ()):
                decisions.extend((row, street, multiple))


_UNKNOWN = [0] * 9  # a seat-hand whose cards the events do not show whole


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


class SeatHandCollector:
    """Feed decoded events in log order (other items are ignored); :meth:`seat_hands`.
    The hands are folded by the reference (:class:`~events.replay.hands.HandsFold`); an
    ended hand's seat-hands are packed from its final state."""

    def __init__(self, adjustments: Adjustments | None = None,
                 ordinals: dict[str, int] | None = None,
                 resumed: dict[tuple[str, str], int] | None = None) -> None:
        # per table, the hands started so far; ``resumed``: the places of hands started
        # before (a warehouse's hands still open at its last load, read again whole)
        self.ordinals: dict[str, int] = {} if ordinals is None else ordinals
        self._resumed = {} if resumed is None else resumed
        self._places: dict[str, int] = {}  # hand in play -> its place among its table's
        self._rows = _Rows()
        # given: every resolved dispute's adjustment, read before the events, so that
        # seat-hands may be taken as they end (the events' own are added too, once each);
        # else gathered from the events, for seat-hands taken at the end
        self.adjustments = Adjustments() if adjustments is None else adjustments
        self._hands = HandsFold(self._ended, self._begun)

    @property
    def ended(self) -> set[tuple[str, str]]:
        """(table, hand) of the hands that ended or were voided."""
        return self._hands.closed

    def open_hands(self) -> list[tuple[str, str, int]]:
        """The hands started and not ended: (table, hand, place among the table's)."""
        return [(s.table_id, s.hand_id, self._places[s.hand_id])
                for s in self._hands.open_states()]

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
        batch = events if isinstance(events, list) else list(events)
        self.adjustments.feed(batch)
        self._hands.feed(batch)

    def fold(self, events: Iterable[object]) -> None:
        """:meth:`feed` of events that hold no ``DisputeResolved`` (their adjustments
        given beforehand): the events are not looked through for them."""
        self._hands.feed(events)

    def _begun(self, state: HandState) -> None:
        key = (state.table_id, state.hand_id)
        n = self._resumed.pop(key, None)
        if n is None:
            n = self.ordinals.get(state.table_id, 0)
            self.ordinals[state.table_id] = n + 1
        self._places[state.hand_id] = n

    def _ended(self, state: HandState) -> None:
        n = self._places.pop(state.hand_id)
        if state.ended == "ended":
            self._rows.add(state, n)

    def seat_hands(self) -> SeatHands:
        rows = self._rows
        n = len(rows)
        table = (np.frombuffer(rows.ints, dtype=np.int64) if n
                 else np.zeros(0, np.int64)).reshape(n, len(rows.INTS))
        ints = {k: table[:, i] for i, k in enumerate(rows.INTS)}
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
            ruleset=rows.ruleset, player_ref=rows.player_ref,
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
