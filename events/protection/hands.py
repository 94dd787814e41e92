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

from collections.abc import Iterable
from dataclasses import dataclass, field
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


def _ms(text: str) -> int:
    return round(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


class HandFolder:
    """Feed decoded events in log order (other items are ignored); :meth:`seat_hands`."""

    def __init__(self) -> None:
        self._open: dict[str, _Hand] = {}
        self._rulesets: dict[str, str] = {}
        self._ordinals: dict[str, int] = {}
        self._rows: list[tuple[_Hand, int, str]] = []  # (hand, seat, ended_at)
        self._adjusted: dict[tuple[str, str, int], int] = {}  # (table, hand, seat): cents
        self._disputes_seen: set[str] = set()  # DisputeResolved event ids
        self._ended: set[tuple[str, str]] = set()  # (table, hand) of hands ended or voided

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
                if ev.event_id not in self._disputes_seen:
                    self._disputes_seen.add(ev.event_id)
                    key = (ev.table_id, hand_id, ev.payload.seat)
                    self._adjusted[key] = self._adjusted.get(key, 0) + ev.payload.adjustment
                continue
            if kind is HandStarted:
                assert isinstance(ev, HandStarted)
                if hand_id in self._open or (ev.table_id, hand_id) in self._ended:
                    continue  # a redelivered copy (or a reused id): the hand is under way
                n = self._ordinals.get(ev.table_id, 0)
                self._ordinals[ev.table_id] = n + 1
                p = ev.payload
                self._open[hand_id] = _Hand(ev.table_id, hand_id, p.dealer_id, ev.occurred_at,
                                            n, dict(p.player_refs or {}), list(p.seats))
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
            hand.seen = set()
            for seat in hand.seats:
                if "ante" in hand.bets.get(seat, {}):
                    self._rows.append((hand, seat, ev.occurred_at))
        elif kind is HandVoided:
            del self._open[hand.hand_id]
            self._ended.add((hand.table_id, hand.hand_id))

    def seat_hands(self) -> SeatHands:
        rows = self._rows
        n = len(rows)
        hole = np.zeros((n, 2), dtype=np.int64)
        dealer = np.zeros((n, 2), dtype=np.int64)
        board = np.zeros((n, 5), dtype=np.int64)
        complete = np.zeros(n, dtype=np.bool_)
        dh: list[int] = []
        ds: list[int] = []
        dm: list[int] = []
        for i, (hand, seat, _) in enumerate(rows):
            cards = hand.hole.get(seat)
            if cards is None or len(hand.dealer) != 2 or len(hand.board) != 5:
                continue
            hole[i] = [_INDEX[c] for c in cards]
            dealer[i] = [_INDEX[c] for c in hand.dealer]
            board[i] = [_INDEX[c] for c in hand.board]
            complete[i] = True
            for street, multiple, auto in hand.decisions.get(seat, []):
                if not auto:  # the table decided on a timeout: not the player's choice
                    dh.append(i)
                    ds.append(street)
                    dm.append(multiple)
        dec_hand = np.array(dh, dtype=np.int64)
        keep = complete[dec_hand] if n else np.zeros(0, np.bool_)

        def col(values: Iterable[int]) -> IntArray:
            return np.fromiter(values, dtype=np.int64, count=n)

        return SeatHands(
            table_id=[h.table_id for h, _, _ in rows],
            hand_id=[h.hand_id for h, _, _ in rows],
            dealer_id=[h.dealer_id for h, _, _ in rows],
            ruleset=[self._rulesets.get(h.table_id, "") for h, _, _ in rows],
            player_ref=[h.refs.get(s) for h, s, _ in rows],
            seat=col(s for _, s, _ in rows),
            ordinal=col(h.ordinal for h, _, _ in rows),
            started_ms=col(_ms(h.started_at) for h, _, _ in rows),
            ended_ms=col(_ms(e) for _, _, e in rows),
            ante=col(h.bets[s]["ante"] for h, s, _ in rows),
            blind=col(h.bets[s].get("blind", 0) for h, s, _ in rows),
            trips=col(h.bets[s].get("trips", 0) for h, s, _ in rows),
            play=col(h.play.get(s, 0) for h, s, _ in rows),
            result=col(h.result.get(s, 0) for h, s, _ in rows),
            adjustment=col(self._adjusted.get((h.table_id, h.hand_id, s), 0) for h, s, _ in rows),
            hole=hole, dealer=dealer, board=board, cards_known=complete,
            dec_hand=dec_hand[keep],
            dec_street=np.array(ds, dtype=np.int64)[keep],
            dec_multiple=np.array(dm, dtype=np.int64)[keep],
        )
