"""The state of a hand in the fold (:mod:`events.replay.fold`): immutable values.

:class:`HandState` is everything known about a hand after some of its events; the apply
functions (:mod:`events.replay.apply`) make new states with :func:`_evolve`, which copies
the instance dictionary (faster than ``dataclasses.replace``, which re-runs ``__init__``:
it runs once per event).

A fold that keeps no intermediate state (:func:`events.replay.fold.fold`, the stream of
hands in :mod:`events.replay.hands`) works on an *owned* state (:func:`_owned`): its own
copy, which the same apply functions change in place instead of copying the state and a
mapping per event (about a third of the fold's time); :func:`_released` makes it a value
again before anyone else sees it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from events.contract.schemas import Event, PlayerDecision, TableOpened
from events.findings import ILLEGAL_ACTION, Finding
from events.game.rules import SeatState
from events.game.rulesets import (
    Ruleset,
    RulesetError,
    TableLimits,
    UnknownRulesetError,
    load_ruleset,
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
    ruleset_invalid: bool = False  # its file is there but cannot be used (ruleset_error)

    @classmethod
    def opened(cls, ev: TableOpened) -> TableContext:
        p = ev.payload
        limits = TableLimits(p.min_bet, p.max_bet, p.max_trips, p.seats)
        try:
            ruleset: Ruleset | None = load_ruleset(p.ruleset)
            error = None
        except (RulesetError, OSError) as exc:
            ruleset, error = None, str(exc)
            return cls(ev.table_id, p.ruleset, None, limits, p.currency, error,
                       not isinstance(exc, UnknownRulesetError))
        return cls(ev.table_id, p.ruleset, ruleset, limits, p.currency, error)


def opened_in_force(opened: Iterable[TableOpened], table_id: str,
                    seq: int) -> TableOpened | None:
    """The ``TableOpened`` in force at event ``seq`` of table ``table_id`` (a hand's first
    event): the table's last one before it by ``seq``, or None. The one definition for a
    caller holding a table's openings; a stream read in log order keeps
    :class:`TablesInForce` (the same answer as it goes). SQL callers:
    ``pipeline.hands.opened.OPENED_EVENTS``."""
    best: TableOpened | None = None
    for o in opened:
        if o.table_id == table_id and o.seq < seq and (best is None or o.seq > best.seq):
            best = o
    return best


class TablesInForce(dict[str, TableContext]):
    """Each table's rules in a stream read in log order: the last ``TableOpened`` seen of
    the table (:func:`opened_in_force` as the stream goes), which a hand takes when it
    begins."""

    def opened(self, ev: TableOpened) -> TableContext:
        table = self[ev.table_id] = TableContext.opened(ev)
        return table


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
    # each seat's player (HandStarted's player_refs, a BetPlaced's player_ref after them)
    player_refs: Mapping[int, str] = field(default_factory=lambda: _EMPTY)
    # the decisions applied to a seat, in order: each one's street says which cards its
    # player knew (the hole cards and the board revealed by then); ``payload.auto``, the
    # table decided on a timeout (not the player's choice)
    decisions: tuple[PlayerDecision, ...] = ()
    owned: bool = field(default=False, compare=False, repr=False)  # see _owned

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
        return self.seats.get(seat) or _blank_seat(seat)

    def finding(
        self, kind: str, detail: str, ev: Event | None = None, seat: int | None = None,
        spot: str | None = None, expected: int | None = None, recorded: int | None = None,
    ) -> Finding:
        return Finding(kind, self.hand_id, self.table_id, self.dealer_id, seat, spot,
                       expected, recorded, detail,
                       ev.event_id if ev is not None else None,
                       ev.occurred_at if ev is not None else None)


_BLANK_SEATS: dict[int, SeatState] = {}


def _blank_seat(seat: int) -> SeatState:
    """A seat with nothing wagered or decided (one value per seat number: a dataclass's
    frozen ``__init__`` costs more than the rest of applying a bet)."""
    blank = _BLANK_SEATS.get(seat)
    if blank is None:
        blank = _BLANK_SEATS[seat] = SeatState(seat=seat)
    return blank


def _evolve(state: HandState, **changes: Any) -> HandState:
    """A copy of ``state`` with ``changes``: the fold's one way to make a new state (an
    owned state is changed in place).

    Faster than ``dataclasses.replace`` (no re-validation through ``__init__``), which
    matters because it runs once per event.
    """
    if state.owned:
        state.__dict__.update(changes)
        return state
    new = object.__new__(HandState)
    d = new.__dict__
    d.update(state.__dict__)
    d.update(changes)
    return new


def _evolve1(state: HandState, name: str, value: Any) -> HandState:
    """:func:`_evolve` of one field (the common case, without a keyword dict)."""
    if state.owned:
        state.__dict__[name] = value
        return state
    new = object.__new__(HandState)
    d = new.__dict__
    d.update(state.__dict__)
    d[name] = value
    return new


def _with(mapping: Mapping[Any, Any], key: Any, value: Any) -> Mapping[Any, Any]:
    out = dict(mapping)
    out[key] = value
    return out


def _put(state: HandState, name: str, key: Any, value: Any) -> HandState:
    """``state`` with ``key`` set to ``value`` in its mapping ``name``."""
    if state.owned:  # its mappings are its own dicts (_owned)
        state.__dict__[name][key] = value
        return state
    return _evolve1(state, name, _with(state.__dict__[name], key, value))


_MAPPINGS = ("seats", "hole", "cards", "payouts", "player_refs")


def _owned(state: HandState) -> HandState:
    """A copy of ``state`` that the apply functions change in place, for a fold that keeps
    no intermediate state; its mappings are its own dicts."""
    new = object.__new__(HandState)
    d = new.__dict__
    d.update(state.__dict__)
    for name in _MAPPINGS:
        d[name] = dict(d[name])
    d["owned"] = True
    return new


def _released(state: HandState) -> HandState:
    """``state``, no longer changed in place: a value again (an apply copies it), its
    mappings read-only views, as every state the fold hands out."""
    d = state.__dict__
    for name in _MAPPINGS:
        d[name] = MappingProxyType(d[name])
    d["owned"] = False
    return state


def _seat_update(seat: SeatState, **changes: Any) -> SeatState:
    new = object.__new__(SeatState)
    new.__dict__.update(seat.__dict__)
    new.__dict__.update(changes)
    return new


def _seat_with(seat: SeatState, name: str, value: Any) -> SeatState:
    """:func:`_seat_update` of one field (a bet: without a keyword dict)."""
    new = object.__new__(SeatState)
    d = new.__dict__
    d.update(seat.__dict__)
    d[name] = value
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
