"""A whole clean hand in one pass, planned for the auditor's fast path.

:func:`fast_plan` answers one of two things: "certified plain, here is what the judge
needs" (cards, wagers, decisions, recorded payouts packed as machine integers), or
``None``, "ask the reference" (the fold of :mod:`events.replay.fold`, event by event,
which finds and words the findings). It accepts only the common, legal course of a hand:
whether a bet, a decision or a deal to a seat is legal it asks ``events.game.rules``
(``bet_ok``, ``decision_ok``, ``in_hand_ok``: the legality the fold applies too), and at
the first event the fold could flag, or anything unusual, it gives up. The tests hold it
to the fold on random legal hands and on hands with one thing wrong.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any, NamedTuple

from events.contract.schemas import (
    BetPlaced,
    CardsDealt,
    CommunityRevealed,
    DealerRevealed,
    DisputeOpened,
    DisputeResolved,
    Event,
    HandEnded,
    HandStarted,
    HandVoided,
    PayoutRecorded,
    PlayerDecision,
)
from events.game.cards import CARD_INDEX
from events.game.rules import BET_SPOTS, STREETS, bet_ok, decision_ok, in_hand_ok, multiples
from events.game.rulesets import Ruleset
from events.game.settlement import OUTCOME_CODES, SPOT_CODES
from events.replay.fold import Paid, TableContext

_new = object.__new__
_tuple_new = tuple.__new__  # a NamedTuple from its values, without its __new__


class _Walk(NamedTuple):
    first: HandStarted
    bets: dict[int, list[int]]
    dec: dict[int, list[Any]]
    hole: dict[int, tuple[str, ...]]
    cards: dict[str, str]
    community: tuple[str, ...]
    dealer: tuple[str, ...]
    revealed: tuple[str, ...]
    dealer_revealed: tuple[str, ...]
    order: str | None
    pays: list[Any]  # the PayoutRecorded events, in order (checked by their users)
    early: int  # how many of them came before the dealer's cards were revealed
    disputes: list[Any]
    ended: str | None
    ended_at: str | None
    void_reason: str | None


def _payouts(w: _Walk) -> dict[tuple[int, str], Paid] | None:
    """The payouts as the fold keeps them, or ``None`` where the fold would flag one (a
    second payout of a wager, a payout of a spot without a wager). Stakes are final by
    then: the walk refuses a bet or decision after a payout."""
    out: dict[tuple[int, str], Paid] = {}
    bets, dec = w.bets, w.dec
    for k, ev in enumerate(w.pays):
        p = ev.payload
        key = (p.seat, p.spot)
        if key in out:
            return None
        if p.spot == "play":
            d = dec.get(p.seat)
            if d is None or not d[0]:
                return None
        else:
            b = bets.get(p.seat)
            if b is None or not b[_SPOT[p.spot]]:
                return None
        out[key] = _tuple_new(Paid, (p.outcome, p.amount, ev.event_id, k < w.early,
                                ev.occurred_at, 0))
    return out


def _walk(events: Sequence[Event], table: TableContext | None) -> _Walk | None:
    """One pass over a clean hand's events, checking as the fold would; the hand as local
    values, or ``None`` at the first thing the fold could flag."""
    if table is None or table.limits is None or not events:
        return None
    first = events[0]
    if type(first) is not HandStarted:
        return None
    limits = table.limits
    ruleset = table.ruleset
    hs = first.payload
    in_play = frozenset(hs.seats)
    if limits.seats is not None and max(in_play) > limits.seats:
        return None
    allowed = {street: multiples(street, ruleset) for street in STREETS}
    bets: dict[int, list[int]] = {}  # seat -> [ante, blind, trips]
    dec: dict[int, list[Any]] = {}  # seat -> [play, multiple, raised_on, folded, n decided]
    hole: dict[int, tuple[str, ...]] = {}
    cards: dict[str, str] = {}
    community: tuple[str, ...] = ()
    dealer: tuple[str, ...] = ()
    revealed: tuple[str, ...] = ()
    street_now = "preflop"  # the street decisions are taken on now
    dealer_revealed: tuple[str, ...] = ()
    order: str | None = None
    pays: list[Any] = []
    early = -1  # payouts before the reveal: fixed when the dealer's cards are revealed
    disputes: list[Any] = []
    ended: str | None = None
    ended_at: str | None = None
    void_reason: str | None = None
    rest = iter(events)
    next(rest)
    for ev in rest:
        kind = type(ev)
        if kind is PayoutRecorded:
            pays.append(ev)
            continue
        p: Any = ev.payload
        if kind is BetPlaced:
            seat, spot, amount = p.seat, p.spot, p.amount
            if cards or pays or seat not in in_play:
                return None
            b = bets.get(seat)
            if b is None:
                b = bets[seat] = [0, 0, 0]
            if not bet_ok(b[0], b[1], b[2], spot, amount, limits):
                return None
            b[_SPOT[spot]] = amount
        elif kind is PlayerDecision:
            seat, street = p.seat, p.street
            # stakes must be final before any payout
            if pays or dealer_revealed or seat not in hole:
                return None
            b = bets.get(seat)
            if b is None:
                return None
            d = dec.get(seat)
            if d is None:
                d = dec[seat] = [0, None, None, False, 0]
            action = p.action
            if not decision_ok(b[0], d[0], d[3], d[4], street, action, p.multiple, p.amount,
                               allowed[street], street_now):
                return None
            if action == "fold":
                d[3] = True
            elif action == "raise":
                d[0], d[1], d[2] = p.amount, p.multiple, street
            d[4] += 1
        elif kind is CardsDealt:
            target = p.target
            if target == "seat":
                seat = p.seat
                b = bets.get(seat)
                if seat not in in_play or seat in hole or b is None or not in_hand_ok(b[0], b[1]):
                    return None
                holder = f"seat {seat}"
                hole[seat] = tuple(p.cards)
            elif target == "community":
                if community:
                    return None
                holder = "the board"
                community = tuple(p.cards)
            else:
                if dealer:
                    return None
                holder = "the dealer"
                dealer = tuple(p.cards)
            for c in p.cards:
                if c in cards:
                    return None
                cards[c] = holder
            if order is None:
                order = "community_first" if target == "community" else "players_first"
        elif kind is CommunityRevealed:
            shown = tuple(p.cards)
            if p.street == "flop":
                if revealed or not community or shown != community[:3]:
                    return None
                street_now = "flop"
            elif len(revealed) != 3 or shown != community[3:5]:
                return None
            else:
                street_now = "river"
            revealed += shown
        elif kind is DealerRevealed:
            shown = tuple(p.cards)
            if dealer_revealed or not dealer or shown != dealer:
                return None
            dealer_revealed = shown
            early = len(pays)
        elif kind is HandEnded or kind is HandVoided:
            ended_at = ev.occurred_at
            if kind is HandEnded:
                ended = "ended"
            else:
                ended, void_reason = "voided", p.reason
            for later in rest:  # after the end, only disputes may follow
                if type(later) is not DisputeOpened and type(later) is not DisputeResolved:
                    return None
                disputes.append(later)
        elif kind is DisputeOpened or kind is DisputeResolved:
            disputes.append(ev)
        else:
            return None
    return _Walk(first, bets, dec, hole, cards, community, dealer, revealed, dealer_revealed,
                 order, pays, len(pays) if early < 0 else early, disputes, ended, ended_at,
                 void_reason)


_SPOT = {spot: k for k, spot in enumerate(BET_SPOTS)}


# ------------------------------------------------------------------------ the lean audit

SEAT_BYTES = 5 * 8  # a seat of a Plan: five int64
PAY_BYTES = 4 * 8  # a payout of a Plan: four int64


class Plan(NamedTuple):
    """A plain finished hand, ready to be judged in bulk (``events.audit.judge.judge``),
    its numbers packed as machine integers so that the judge reads a whole batch of plans
    into NumPy without a Python step per number:

    - ``cards``: int16 card indices, seven a row: the dealer's seven cards, then each
      seat's (in the order of ``seats``);
    - ``seats``: int64, five a seat: seat, ante, play, trips, folded (0/1);
    - ``pays``: int64, four a recorded payout: seat, spot (``settlement.SPOT_CODES``),
      outcome (``settlement.OUTCOME_CODES``), amount; checked against the wagers there.
    """

    ruleset: Ruleset | None
    voided: bool
    cards: bytes = b""
    seats: bytes = b""
    pays: bytes = b""
    first: HandStarted | None = None  # what the warehouse row of the hand is made of
    ended_at: str | None = None
    dealing_order: str | None = None

    @property
    def n_seats(self) -> int:
        return len(self.seats) // SEAT_BYTES

    @property
    def n_pays(self) -> int:
        return len(self.pays) // PAY_BYTES


def fast_plan(events: Sequence[Event], table: TableContext | None) -> Plan | None:
    """The hand as a :class:`Plan` when it is plain: no finding in its fold, none in its
    closing checks (ended, dealer revealed before any payout, every seat raised or folded,
    rules and cards known), no dispute, one payout per wager. Else ``None``."""
    w = _walk(events, table)
    if w is None or w.ended is None or w.disputes:
        return None
    if w.ended == "voided":
        for ev in w.pays:
            if ev.payload.outcome != "push":  # (a push carries 0)
                return None
        return Plan(None, True) if _payouts(w) is not None else None
    if w.early:
        return None  # a payout before the dealer's reveal: the full path words it
    assert table is not None
    ruleset = table.ruleset
    if ruleset is None or not w.dealer_revealed or len(w.community) != 5 or not w.dealer:
        return None
    bets, dec, holes = w.bets, w.dec, w.hole
    idx = CARD_INDEX
    comm = [idx[c] for c in w.community]
    cards = array("h", [idx[c] for c in w.dealer] + comm)
    seats = array("q")
    for seat, (ante, blind, trips) in bets.items():
        d = dec.get(seat)
        hole = holes.get(seat)
        if d is None or not (d[0] or d[3]) or hole is None or ante != blind:
            return None  # neither raised nor folded, or no cards: the full path says why
        play = d[0]
        cards.extend([idx[hole[0]], idx[hole[1]], *comm])
        seats.extend((seat, ante, play, trips, 0 if play else 1))
    # the judge checks the payouts against the wagers, one per wager, in NumPy
    pays = array("q")
    for ev in w.pays:
        p = ev.payload
        pays.extend((p.seat, SPOT_CODES[p.spot], OUTCOME_CODES[p.outcome], p.amount))
    return Plan(ruleset, False, cards.tobytes(), seats.tobytes(), pays.tobytes(), w.first,
                w.ended_at, w.order)
