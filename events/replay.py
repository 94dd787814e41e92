"""A hand as a fold over its events: one function applies one event to an immutable state.

Each event is checked against the rules before it is applied (bets before any card, ante =
blind, the table's limits, 52 distinct cards, reveals equal to the dealt cards, the legal
decision for the street, no decision after a raise or fold, no game event after the hand
ended). A failed check becomes a :class:`~events.audit_findings.Finding` in the state and
the fold goes on where it can: a bet over the limit is still money on the table, so it is
applied; a second decision from a seat that already raised is not.

Checks that need the whole hand (the dealer revealed before settlement, every seat raised
or folded, a payout per wager) run when the hand is settled (``events.audit_settle``).

>>> from events.schemas import decode_event
>>> state = HandState.begin("H1", "T1")
>>> state.street, state.ended
('preflop', None)

:func:`replay` keeps every intermediate state (they share structure), so the state after
event N, and what each party could see then (:func:`visible`), is one index away.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from events.audit_findings import (
    DUPLICATE_CARD,
    ILLEGAL_ACTION,
    REVEAL_MISMATCH,
    UNEXPECTED_PAYOUT,
    Finding,
)
from events.rules import STREETS, RuleViolation, SeatState, money, verify_bet, verify_decision
from events.rules import verify_in_hand as _verify_in_hand
from events.rulesets import Ruleset, RulesetError, TableLimits, load_ruleset
from events.schemas import (
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
    TableClosed,
    TableOpened,
)

_EMPTY: Mapping[Any, Any] = MappingProxyType({})


@dataclass(frozen=True)
class TableContext:
    """The rules and limits in force at a table (from its last ``TableOpened``)."""

    table_id: str
    ruleset_name: str | None = None
    ruleset: Ruleset | None = None
    limits: TableLimits | None = None
    currency: str | None = None
    ruleset_error: str | None = None

    @classmethod
    def opened(cls, ev: TableOpened) -> TableContext:
        p = ev.payload
        limits = TableLimits(p.min_bet, p.max_bet, p.max_trips, p.seats)
        try:
            ruleset: Ruleset | None = load_ruleset(p.ruleset)
            error = None
        except (RulesetError, OSError) as exc:
            ruleset, error = None, str(exc)
        return cls(ev.table_id, p.ruleset, ruleset, limits, p.currency, error)


class Paid(NamedTuple):
    """A recorded payout of one wager; ``extra`` sums any further payouts of it. (An
    immutable tuple rather than a dataclass: the auditor makes one per payout.)"""

    outcome: str
    amount: int
    event_id: str
    before_reveal: bool
    occurred_at: str
    extra: int = 0


@dataclass(frozen=True, slots=True)
class DisputeNote:
    """A ``DisputeOpened`` (``adjustment`` None) or ``DisputeResolved`` of the hand."""

    seat: int
    text: str
    adjustment: int | None
    event_id: str
    occurred_at: str


@dataclass(frozen=True)
class HandState:
    """Everything known about a hand after some of its events. Treat it as a value:
    apply functions return a new state and never change the one they were given."""

    hand_id: str
    table_id: str
    table: TableContext | None = None
    started: bool = False
    dealer_id: str | None = None
    shoe_id: str | None = None
    seats_in_play: tuple[int, ...] = ()
    seats: Mapping[int, SeatState] = field(default_factory=lambda: _EMPTY)
    hole: Mapping[int, tuple[str, ...]] = field(default_factory=lambda: _EMPTY)
    community: tuple[str, ...] = ()
    dealer: tuple[str, ...] = ()
    cards: Mapping[str, str] = field(default_factory=lambda: _EMPTY)  # card -> who holds it
    dealing_order: str | None = None
    revealed: tuple[str, ...] = ()
    dealer_revealed: tuple[str, ...] = ()
    payouts: Mapping[tuple[int, str], Paid] = field(default_factory=lambda: _EMPTY)
    ended: str | None = None  # "ended" | "voided"
    void_reason: str | None = None
    disputes: tuple[DisputeNote, ...] = ()
    findings: tuple[Finding, ...] = ()
    started_at: str | None = None
    ended_at: str | None = None

    @classmethod
    def begin(cls, hand_id: str, table_id: str, table: TableContext | None = None) -> HandState:
        return cls(hand_id, table_id, table)

    @property
    def street(self) -> str:
        """The street decisions are made on now: preflop, flop (after the flop is
        revealed) or river (after the turn and river)."""
        n = len(self.revealed)
        return "preflop" if n < 3 else "flop" if n < 5 else "river"

    @property
    def cards_dealt(self) -> bool:
        return bool(self.cards)

    @property
    def ruleset(self) -> Ruleset | None:
        return self.table.ruleset if self.table is not None else None

    def seat(self, seat: int) -> SeatState:
        return self.seats.get(seat) or SeatState(seat=seat)

    def finding(
        self, kind: str, detail: str, ev: Event | None = None, seat: int | None = None,
        spot: str | None = None, expected: int | None = None, recorded: int | None = None,
    ) -> Finding:
        return Finding(kind, self.hand_id, self.table_id, self.dealer_id, seat, spot,
                       expected, recorded, detail,
                       ev.event_id if ev is not None else None,
                       ev.occurred_at if ev is not None else None)


def _evolve(state: HandState, **changes: Any) -> HandState:
    """A copy of ``state`` with ``changes``: the fold's one way to make a new state.

    Faster than ``dataclasses.replace`` (no re-validation through ``__init__``), which
    matters because it runs once per event.
    """
    new = object.__new__(HandState)
    d = new.__dict__
    d.update(state.__dict__)
    d.update(changes)
    return new


def _evolve1(state: HandState, name: str, value: Any) -> HandState:
    """:func:`_evolve` of one field (the common case, without a keyword dict)."""
    new = object.__new__(HandState)
    d = new.__dict__
    d.update(state.__dict__)
    d[name] = value
    return new


def _with(mapping: Mapping[Any, Any], key: Any, value: Any) -> Mapping[Any, Any]:
    out = dict(mapping)
    out[key] = value
    return out


def _seat_update(seat: SeatState, **changes: Any) -> SeatState:
    new = object.__new__(SeatState)
    new.__dict__.update(seat.__dict__)
    new.__dict__.update(changes)
    return new


def _flag(state: HandState, *found: Finding, **changes: Any) -> HandState:
    return _evolve(state, findings=state.findings + found, **changes)


def _not_in_hand(state: HandState, seat: int) -> bool:
    return state.started and seat not in state.seats_in_play


def _after_end(state: HandState, ev: Event) -> HandState | None:
    """The state with a finding when a game event arrives after the hand ended."""
    if state.ended is None:
        return None
    what = "ended" if state.ended == "ended" else "was voided"
    return _flag(state, state.finding(
        ILLEGAL_ACTION, f"{type(ev).__name__} arrived after the hand {what}; no game event "
        "may follow the end of a hand.", ev))


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
    return _evolve(state, started=True, dealer_id=p.dealer_id, shoe_id=p.shoe_id,
                   seats_in_play=tuple(p.seats), started_at=ev.occurred_at,
                   findings=state.findings + tuple(found))


def _bet_placed(state: HandState, ev: BetPlaced) -> HandState:
    if state.ended is not None:
        return _after_end(state, ev)  # type: ignore[return-value]
    p = ev.payload
    spot, amount = p.spot, p.amount
    seat = state.seats.get(p.seat) or SeatState(seat=p.seat)
    if state.started and p.seat not in state.seats_in_play:
        return _flag(state, state.finding(
            ILLEGAL_ACTION, f"Seat {p.seat} placed a {spot} bet of {money(amount)} but is "
            f"not in play in this hand (seats {_seat_list(state.seats_in_play)}).",
            ev, p.seat, spot))
    table = state.table
    limits = table.limits if table is not None else None
    if not (limits is not None and not state.cards and _bet_ok(seat, spot, amount, limits)):
        try:  # the rules' own check, for its sentence (and for whatever _bet_ok missed)
            verify_bet(seat, spot, amount, limits or _NO_LIMITS, cards_dealt=bool(state.cards))
        except RuleViolation as exc:
            found = state.finding(exc.kind, str(exc), ev, p.seat, spot)
            if getattr(seat, spot):  # a second bet on a spot is not applied
                return _flag(state, found)
            new_seat = _seat_update(seat, **{spot: amount})
            return _flag(state, found, seats=_with(state.seats, p.seat, new_seat))
    new_seat = _seat_update(seat, **{spot: amount})
    return _evolve1(state, "seats", _with(state.seats, p.seat, new_seat))


def _bet_ok(seat: SeatState, spot: str, amount: int, limits: TableLimits) -> bool:
    """The common legal bet, decided quickly; ``False`` sends it to ``verify_bet``. Only
    ever true where ``verify_bet`` accepts the bet too (a test checks that)."""
    if spot == "trips":
        return not seat.trips and (limits.max_trips is None or amount <= limits.max_trips)
    if not limits.min_bet <= amount <= limits.max_bet:
        return False
    if spot == "ante":
        return not seat.ante and (not seat.blind or seat.blind == amount)
    return spot == "blind" and not seat.blind and (not seat.ante or seat.ante == amount)


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
    cards = dict(state.cards)
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
    seat = state.seats.get(p.seat) or SeatState(seat=p.seat)
    if state.started and p.seat not in state.seats_in_play:
        return _flag(state, state.finding(
            ILLEGAL_ACTION, f"Seat {p.seat} made a decision but is not in play in this hand "
            f"(seats {_seat_list(state.seats_in_play)}).", ev, p.seat))
    if p.seat in state.hole and _decision_ok(state, seat, p):
        return _evolve1(state, "seats", _with(state.seats, p.seat, _decided(seat, p)))
    try:
        if p.seat not in state.hole:
            raise RuleViolation(f"Seat {p.seat} decided {_on(p.street)} before it was dealt "
                                "its cards.")
        verify_decision(seat, p.street, p.action, p.multiple, p.amount, ruleset=state.ruleset,
                        current_street=state.street)
    except RuleViolation as exc:
        found = state.finding(exc.kind, str(exc), ev, p.seat,
                              "play" if p.action == "raise" else None)
        if not seat.ante or seat.folded or seat.play:
            return _flag(state, found)  # a seat out of the hand decides nothing
        return _flag(state, found, seats=_with(state.seats, p.seat, _decided(seat, p)))
    return _evolve1(state, "seats", _with(state.seats, p.seat, _decided(seat, p)))


_STREET_AT = {0: "preflop", 3: "flop", 5: "river"}
_DEFAULT_MULTIPLES = {"preflop": (4, 3), "flop": (2,), "river": (1,)}


def _decision_ok(state: HandState, seat: SeatState, p: Any) -> bool:
    """The common legal decision, decided quickly; ``False`` sends it to
    ``verify_decision``. Only ever true where that accepts it too (a test checks that)."""
    street = p.street
    if (not seat.ante or seat.folded or seat.play
            or _STREET_AT.get(len(state.revealed)) != street
            or len(seat.decided) >= 3 or STREETS[len(seat.decided)] != street):
        return False
    action = p.action
    if action == "check":
        return bool(street != "river")
    if action == "fold":
        return bool(street == "river")
    ruleset = state.table.ruleset if state.table is not None else None
    allowed = ruleset.multiples(street) if ruleset is not None else _DEFAULT_MULTIPLES[street]
    return bool(p.multiple in allowed and p.amount == p.multiple * seat.ante)


def _on(street: str) -> str:
    return "preflop" if street == "preflop" else f"on the {street}"


def _decided(seat: SeatState, p: Any) -> SeatState:
    # Every street up to this one counts as decided, so one missing decision is one finding.
    decided = STREETS[: STREETS.index(p.street) + 1]
    if p.action == "raise":
        return _seat_update(seat, play=p.amount, play_multiple=p.multiple, raised_on=p.street,
                            decided=decided)
    return _seat_update(seat, folded=p.action == "fold", decided=decided)


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
    payouts = _with(state.payouts, key, new)
    if not stake:
        where = (f"seat {p.seat} is not in play in this hand" if _not_in_hand(state, p.seat)
                 else f"seat {p.seat} has no {p.spot} wager")
        return _flag(state, state.finding(
            UNEXPECTED_PAYOUT, f"A {p.spot} payout ({p.outcome} {money(p.amount)}) was "
            f"recorded but {where}.", ev, p.seat, p.spot, None, p.amount), payouts=payouts)
    return _evolve1(state, "payouts", payouts)


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


def apply(state: HandState, ev: Event) -> HandState:
    """The hand after one more event (checked first; findings go into the state)."""
    return APPLY.get(type(ev), _ignore)(state, ev)


def fold(events: Iterable[Event], state: HandState) -> HandState:
    """Apply ``events`` in order to ``state``; the final state."""
    table = APPLY
    for ev in events:
        state = table.get(type(ev), _ignore)(state, ev)
    return state


# --------------------------------------------------------------------------- point in time


@dataclass(frozen=True)
class HandReplay:
    """A replayed hand: ``states[n]`` is the state after the first ``n`` events."""

    events: tuple[Event, ...]
    states: tuple[HandState, ...]

    @property
    def final(self) -> HandState:
        return self.states[-1]

    def at(self, n: int) -> HandState:
        """The state after event ``n`` (1-based; 0 is before the first event)."""
        if not 0 <= n < len(self.states):
            raise IndexError(f"event {n} is outside 0..{len(self.events)}")
        return self.states[n]

    def new_findings(self, n: int) -> tuple[Finding, ...]:
        """The findings event ``n`` raised."""
        before, after = self.at(n - 1).findings, self.at(n).findings
        return after[len(before):]


def replay(events: Iterable[Event], table: TableContext | None = None) -> HandReplay:
    """Fold one hand's events (a ``TableOpened`` among them sets the table's rules),
    keeping every intermediate state."""
    evs = tuple(events)
    hand = next((e for e in evs if e.hand_id is not None), None)
    if hand is None:
        raise ValueError("no event of a hand to replay")
    assert hand.hand_id is not None
    state = HandState.begin(hand.hand_id, hand.table_id, table)
    states = [state]
    for ev in evs:
        state = apply(state, ev)
        states.append(state)
    return HandReplay(evs, tuple(states))


PARTIES = ("surveillance", "public")


def visible(state: HandState, party: str) -> dict[str, Any]:
    """What ``party`` could see in ``state``: ``surveillance`` (every card dealt),
    ``public`` (anyone at the table: bets, decisions, revealed cards) or ``seat:N`` (the
    public view plus that seat's own hole cards).

    Players' cards are exposed when the dealer settles (after the dealer's reveal), except
    those of seats that folded (their cards stay face down).
    """
    everything = party == "surveillance"
    own: int | None = None
    if party.startswith("seat:"):
        own = int(party.split(":", 1)[1])
    elif party not in PARTIES:
        raise ValueError(f"unknown party {party!r}: surveillance, public or seat:N")
    showdown = bool(state.dealer_revealed)
    hole: dict[int, list[str]] = {}
    for seat, cards in state.hole.items():
        folded = state.seat(seat).folded
        if everything or seat == own or (showdown and not folded):
            hole[seat] = list(cards)
    return {
        "party": party,
        "community": list(state.community if everything else state.revealed),
        "dealer": list(state.dealer if everything else state.dealer_revealed),
        "hole": hole,
        "bets": {s: {"ante": st.ante, "blind": st.blind, "trips": st.trips, "play": st.play}
                 for s, st in sorted(state.seats.items())},
        "folded": sorted(s for s, st in state.seats.items() if st.folded),
    }
