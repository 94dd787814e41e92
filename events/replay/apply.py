"""The apply functions of the fold: one per event type, each checks the event against the
rules (reusing ``events.game.rules``' ``verify_*``) and returns the new :class:`HandState`.

A failed check is a finding in the state and the fold goes on where it can: a bet over the
limit is still money on the table, so it is applied; a second decision from a seat that
already raised is not. Whether a bet or decision is legal is the rules' question
(``bet_ok``, ``decision_ok``: the legality, once); a refusal is worded by the rules'
``verify_*``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from events.contract.schemas import (
    BetPlaced,
    CardsDealt,
    CommunityRevealed,
    DealerRevealed,
    DisputeOpened,
    DisputeResolved,
    HandEnded,
    HandStarted,
    HandVoided,
    PayoutRecorded,
    PlayerDecision,
    TableClosed,
    TableOpened,
)
from events.findings import (
    DUPLICATE_CARD,
    ILLEGAL_ACTION,
    REVEAL_MISMATCH,
    UNEXPECTED_PAYOUT,
    Finding,
)
from events.game.rules import (
    STREETS,
    RuleViolation,
    SeatState,
    bet_ok,
    decision_ok,
    multiples,
    verify_bet,
    verify_decision,
)
from events.game.rules import verify_in_hand as _verify_in_hand
from events.game.rulesets import TableLimits
from events.money import money
from events.replay.state import (
    DisputeNote,
    HandState,
    Paid,
    TableContext,
    _after_end,
    _blank_seat,
    _evolve,
    _evolve1,
    _flag,
    _not_in_hand,
    _put,
    _seat_update,
    _seat_with,
    _with,
)

# ---------------------------------------------------------------------- the apply functions


def _hand_started(state: HandState, ev: HandStarted) -> HandState:
    if state.started:
        return _after_end(state, ev) or _flag(state, state.finding(
            ILLEGAL_ACTION, "HandStarted arrived for a hand that had already started.", ev))
    p = ev.payload
    found: list[Finding] = []
    limits = state.table.limits if state.table is not None else None
    if limits is not None and limits.seats is not None:
        for s in p.seats:
            if s > limits.seats:
                found.append(Finding(ILLEGAL_ACTION, state.hand_id, state.table_id,
                                     p.dealer_id, s, None, None, None,
                                     f"Seat {s} is in play at a table of {limits.seats} seats.",
                                     ev.event_id, ev.occurred_at))
    changes: dict[str, Any] = {}
    if p.player_refs:
        changes["player_refs"] = {**state.player_refs, **p.player_refs}
    if found:
        changes["findings"] = state.findings + tuple(found)
    return _evolve(state, started=True, dealer_id=p.dealer_id, shoe_id=p.shoe_id,
                   seats_in_play=tuple(p.seats), started_at=ev.occurred_at, **changes)


def _bet_placed(state: HandState, ev: BetPlaced) -> HandState:
    if state.ended is not None:
        return _after_end(state, ev)  # type: ignore[return-value]
    p = ev.payload
    spot, amount = p.spot, p.amount
    seat = state.seats.get(p.seat) or _blank_seat(p.seat)
    if state.started and p.seat not in state.seats_in_play:
        return _flag(state, state.finding(
            ILLEGAL_ACTION, f"Seat {p.seat} placed a {spot} bet of {money(amount)} but is "
            f"not in play in this hand (seats {_seat_list(state.seats_in_play)}).",
            ev, p.seat, spot))
    table = state.table
    limits = table.limits if table is not None else None
    if not (limits is not None and not state.cards
            and bet_ok(seat.ante, seat.blind, seat.trips, spot, amount, limits)):
        try:  # the rules' own words for the refusal
            verify_bet(seat, spot, amount, limits or _NO_LIMITS, cards_dealt=bool(state.cards))
        except RuleViolation as exc:
            found = state.finding(exc.kind, str(exc), ev, p.seat, spot)
            if getattr(seat, spot):  # a second bet on a spot is not applied
                return _flag(state, found)
            state = _flag(state, found)
    state = _put(state, "seats", p.seat, _seat_with(seat, spot, amount))
    if p.player_ref is not None and state.player_refs.get(p.seat) != p.player_ref:
        state = _put(state, "player_refs", p.seat, p.player_ref)
    return state


_NO_LIMITS = TableLimits(min_bet=1, max_bet=10**12, max_trips=None)


def _seat_list(seats: Iterable[int]) -> str:
    return ", ".join(str(s) for s in seats) or "none"


def _cards_dealt(state: HandState, ev: CardsDealt) -> HandState:
    if state.ended is not None:
        return _after_end(state, ev)  # type: ignore[return-value]
    p = ev.payload
    target = p.target
    found: list[Finding] = []
    if target == "seat":
        seat_no = p.seat
        assert seat_no is not None
        holder = f"seat {seat_no}"
        if _not_in_hand(state, seat_no):
            return _flag(state, state.finding(
                ILLEGAL_ACTION, f"Cards were dealt to seat {seat_no}, which is not in play in "
                f"this hand (seats {_seat_list(state.seats_in_play)}).", ev, seat_no))
        if seat_no in state.hole:
            return _flag(state, state.finding(
                ILLEGAL_ACTION, f"Seat {seat_no} was dealt cards a second time; a seat gets "
                "two cards once.", ev, seat_no))
        seat = state.seat(seat_no)
        if not (seat.ante and seat.blind):  # unequal ones were flagged when bet
            try:
                _verify_in_hand(seat)
            except RuleViolation as exc:
                found.append(state.finding(exc.kind, f"{exc} It was dealt cards anyway.", ev,
                                           seat_no))
    elif target == "community":
        holder = "the board"
        if state.community:
            return _flag(state, state.finding(
                ILLEGAL_ACTION, "The community cards were dealt a second time.", ev))
    else:
        holder = "the dealer"
        if state.dealer:
            return _flag(state, state.finding(
                ILLEGAL_ACTION, "The dealer was dealt cards a second time.", ev))
    # an owned state's mappings are its own dicts (events.replay.state._owned)
    cards = cast(dict[str, str], state.cards) if state.owned else dict(state.cards)
    for card in p.cards:
        other = cards.get(card)
        if other is not None:
            found.append(state.finding(
                DUPLICATE_CARD, f"{card} was dealt to {holder} and already to {other}; "
                "a deck holds each card once.", ev, p.seat))
        else:
            cards[card] = holder
    changes: dict[str, Any] = {"cards": cards}
    if state.dealing_order is None:
        changes["dealing_order"] = "community_first" if target == "community" else "players_first"
    hand = tuple(p.cards)
    if target == "seat":
        changes["hole"] = _with(state.hole, p.seat, hand)
    elif target == "community":
        changes["community"] = hand
    else:
        changes["dealer"] = hand
    if found:
        changes["findings"] = state.findings + tuple(found)
    return _evolve(state, **changes)


def _community_revealed(state: HandState, ev: CommunityRevealed) -> HandState:
    if state.ended is not None:
        return _after_end(state, ev)  # type: ignore[return-value]
    p = ev.payload
    shown = tuple(p.cards)
    n = len(state.revealed)
    if p.street == "flop":
        if n:
            return _flag(state, state.finding(
                ILLEGAL_ACTION, "The flop was revealed a second time.", ev))
        dealt = state.community[:3]
    else:
        if n != 3:
            what = "before the flop" if n == 0 else "a second time"
            return _flag(state, state.finding(
                ILLEGAL_ACTION, f"The turn and river were revealed {what}.", ev))
        dealt = state.community[3:5]
    if not state.community:
        found = state.finding(REVEAL_MISMATCH, f"The {_street_word(p.street)} "
                              f"{' '.join(shown)} was revealed but no community cards were "
                              "dealt.", ev)
        return _flag(state, found, revealed=state.revealed + shown)
    if shown != dealt:
        found = state.finding(REVEAL_MISMATCH, f"The {_street_word(p.street)} revealed "
                              f"{' '.join(shown)}; the cards dealt there were "
                              f"{' '.join(dealt)}.", ev)
        return _flag(state, found, revealed=state.revealed + dealt)
    return _evolve1(state, "revealed", state.revealed + shown)


def _street_word(street: str) -> str:
    return "flop" if street == "flop" else "turn and river"


def _player_decision(state: HandState, ev: PlayerDecision) -> HandState:
    if state.ended is not None:
        return _after_end(state, ev)  # type: ignore[return-value]
    p = ev.payload
    seat = state.seats.get(p.seat) or _blank_seat(p.seat)
    if state.started and p.seat not in state.seats_in_play:
        return _flag(state, state.finding(
            ILLEGAL_ACTION, f"Seat {p.seat} made a decision but is not in play in this hand "
            f"(seats {_seat_list(state.seats_in_play)}).", ev, p.seat))
    if state.dealer_revealed:  # decided after seeing the dealer's cards: flagged, kept
        found = state.finding(ILLEGAL_ACTION, f"Seat {p.seat} decided {_on(p.street)} after the "
                              "dealer's cards were revealed; decisions come before the reveal.",
                              ev, p.seat, "play" if p.action == "raise" else None)
        if not seat.ante or seat.folded or seat.play:
            return _flag(state, found)
        return _decided(_flag(state, found), seat, ev)
    ruleset = state.ruleset
    if p.seat in state.hole and decision_ok(
            seat.ante, seat.play, seat.folded, len(seat.decided), p.street, p.action,
            p.multiple, p.amount, multiples(p.street, ruleset), state.street):
        return _decided(state, seat, ev)
    try:
        if p.seat not in state.hole:
            raise RuleViolation(f"Seat {p.seat} decided {_on(p.street)} before it was dealt "
                                "its cards.")
        verify_decision(seat, p.street, p.action, p.multiple, p.amount, ruleset=ruleset,
                        current_street=state.street)
    except RuleViolation as exc:
        found = state.finding(exc.kind, str(exc), ev, p.seat,
                              "play" if p.action == "raise" else None)
        if not seat.ante or seat.folded or seat.play:
            return _flag(state, found)  # a seat out of the hand decides nothing
        return _decided(_flag(state, found), seat, ev)
    return _decided(state, seat, ev)


def _on(street: str) -> str:
    return "preflop" if street == "preflop" else f"on the {street}"


# Every street up to a decision's counts as decided, so one missing decision is one finding.
_DECIDED = {street: STREETS[: i + 1] for i, street in enumerate(STREETS)}


def _decided(state: HandState, seat: SeatState, ev: PlayerDecision) -> HandState:
    """``state`` with the decision ``ev`` applied to ``seat`` and kept in its decisions."""
    p = ev.payload
    decided = _DECIDED[p.street]
    if p.action == "raise":
        new = _seat_update(seat, play=p.amount, play_multiple=p.multiple, raised_on=p.street,
                           decided=decided)
    else:
        new = _seat_update(seat, folded=p.action == "fold", decided=decided)
    state = _evolve1(state, "decisions", (*state.decisions, ev))
    return _put(state, "seats", p.seat, new)


def _dealer_revealed(state: HandState, ev: DealerRevealed) -> HandState:
    if state.ended is not None:
        return _after_end(state, ev)  # type: ignore[return-value]
    shown = tuple(ev.payload.cards)
    if state.dealer_revealed:
        return _flag(state, state.finding(
            ILLEGAL_ACTION, "The dealer's cards were revealed a second time.", ev))
    if not state.dealer:
        return _flag(state, state.finding(
            REVEAL_MISMATCH, f"The dealer revealed {' '.join(shown)} but was never dealt "
            "cards.", ev), dealer_revealed=shown)
    if shown != state.dealer:
        return _flag(state, state.finding(
            REVEAL_MISMATCH, f"The dealer revealed {' '.join(shown)}; the dealer was dealt "
            f"{' '.join(state.dealer)}.", ev), dealer_revealed=state.dealer)
    return _evolve1(state, "dealer_revealed", shown)


def _payout_recorded(state: HandState, ev: PayoutRecorded) -> HandState:
    p = ev.payload
    if state.ended == "ended":
        return _after_end(state, ev)  # type: ignore[return-value]
    key = (p.seat, p.spot)
    seat = state.seats.get(p.seat)
    stake = getattr(seat, p.spot) if seat is not None else 0
    paid = state.payouts.get(key)
    if paid is not None:
        again = Paid(paid.outcome, paid.amount, paid.event_id, paid.before_reveal,
                     paid.occurred_at, paid.extra + p.amount)
        return _flag(state, state.finding(
            UNEXPECTED_PAYOUT, f"Seat {p.seat}'s {p.spot} was settled a second time "
            f"({p.outcome} {money(p.amount)}); one payout per wager.", ev, p.seat, p.spot,
            None, p.amount), payouts=_with(state.payouts, key, again))
    new = Paid(p.outcome, p.amount, ev.event_id, not state.dealer_revealed, ev.occurred_at)
    if not stake:
        where = (f"seat {p.seat} is not in play in this hand" if _not_in_hand(state, p.seat)
                 else f"seat {p.seat} has no {p.spot} wager")
        state = _flag(state, state.finding(
            UNEXPECTED_PAYOUT, f"A {p.spot} payout ({p.outcome} {money(p.amount)}) was "
            f"recorded but {where}.", ev, p.seat, p.spot, None, p.amount))
    return _put(state, "payouts", key, new)


def _hand_ended(state: HandState, ev: HandEnded) -> HandState:
    if state.ended is not None:
        return _after_end(state, ev)  # type: ignore[return-value]
    return _evolve(state, ended="ended", ended_at=ev.occurred_at)


def _hand_voided(state: HandState, ev: HandVoided) -> HandState:
    if state.ended is not None:
        return _after_end(state, ev)  # type: ignore[return-value]
    return _evolve(state, ended="voided", ended_at=ev.occurred_at,
                   void_reason=ev.payload.reason)


def _dispute_opened(state: HandState, ev: DisputeOpened) -> HandState:
    note = DisputeNote(ev.payload.seat, ev.payload.claim, None, ev.event_id, ev.occurred_at)
    return _evolve(state, disputes=(*state.disputes, note))


def _dispute_resolved(state: HandState, ev: DisputeResolved) -> HandState:
    p = ev.payload
    note = DisputeNote(p.seat, p.resolution, p.adjustment, ev.event_id, ev.occurred_at)
    return _evolve(state, disputes=(*state.disputes, note))


def _table_opened(state: HandState, ev: TableOpened) -> HandState:
    return _evolve(state, table=TableContext.opened(ev))


def _ignore(state: HandState, ev: Any) -> HandState:
    return state


Apply = Callable[[HandState, Any], HandState]
APPLY: dict[type[Any], Apply] = {
    HandStarted: _hand_started,
    BetPlaced: _bet_placed,
    CardsDealt: _cards_dealt,
    CommunityRevealed: _community_revealed,
    PlayerDecision: _player_decision,
    DealerRevealed: _dealer_revealed,
    PayoutRecorded: _payout_recorded,
    HandEnded: _hand_ended,
    HandVoided: _hand_voided,
    DisputeOpened: _dispute_opened,
    DisputeResolved: _dispute_resolved,
    TableOpened: _table_opened,
    TableClosed: _ignore,
}
