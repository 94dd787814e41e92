"""A hand as a fold over its events: one function applies one event to an immutable state.

Each event is checked against the rules before it is applied (bets before any card, ante =
blind, the table's limits, 52 distinct cards, reveals equal to the dealt cards, the legal
decision for the street, no decision after a raise or fold, no game event after the hand
ended). A failed check becomes a :class:`~events.findings.Finding` in the state and
the fold goes on where it can: a bet over the limit is still money on the table, so it is
applied; a second decision from a seat that already raised is not.

Checks that need the whole hand (the dealer revealed before settlement, every seat raised
or folded, a payout per wager) run when the hand is settled (``events.audit.settle``).

>>> from events.contract.schemas import decode_event
>>> state = HandState.begin("H1", "T1")
>>> state.street, state.ended
('preflop', None)

:func:`replay` keeps every intermediate state (they share structure), so the state after
event N, and what each party could see then (:func:`visible`), is one index away.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from events.contract.schemas import Event
from events.findings import Finding
from events.game.rules import BET_SPOTS
from events.replay.apply import APPLY, _ignore
from events.replay.state import (
    DisputeNote,
    HandState,
    Paid,
    TableContext,
    _owned,
    _released,
)

__all__ = [
    "APPLY",
    "DisputeNote",
    "HandReplay",
    "HandState",
    "Paid",
    "TableContext",
    "_ignore",
    "apply",
    "fold",
    "replay",
    "visible",
]


def apply(state: HandState, ev: Event) -> HandState:
    """The hand after one more event (checked first; findings go into the state)."""
    return APPLY.get(type(ev), _ignore)(state, ev)


def fold(events: Iterable[Event], state: HandState) -> HandState:
    """Apply ``events`` in order to ``state``; the final state (``state`` is left as it
    was: the fold works on its own copy, changed in place, as no intermediate state is
    kept)."""
    table = APPLY
    state = _owned(state)
    for ev in events:
        state = table.get(type(ev), _ignore)(state, ev)
    return _released(state)


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
        "bets": {s: {**{spot: getattr(st, spot) for spot in BET_SPOTS}, "play": st.play}
                 for s, st in sorted(state.seats.items())},
        "folded": sorted(s for s, st in state.seats.items() if st.folded),
    }
