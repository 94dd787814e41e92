"""Every hand of a stream of events folded by the reference as the events come (log order,
many tables and hands interleaved), for whoever needs hands' courses without auditing
them (game protection's seat-hands): the one walk of a hand's events, shared.

A hand begins at its ``HandStarted``, from the ``TableOpened`` in force at its table then
(:class:`~events.replay.state.TableContext`); each of its events is applied once by
:func:`events.replay.fold.apply`'s functions (a redelivered copy, an event id the hand has
already applied, is skipped); when it ends or is voided its final state goes to
``on_end`` and the hand is closed: later events of it (a late payout, a redelivered
``HandStarted``) are not folded. Events of a hand before its ``HandStarted`` (out of log
order) are not the hand's here: the auditor, which orders each table's events first, is
the judge of such a stream.

The states are owned by the fold while the hand is in play (changed in place, see
:func:`events.replay.state._owned`): ``on_begin`` and ``on_end`` may read them; only the
state given to ``on_end`` may be kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from events.contract.schemas import HandStarted, TableOpened
from events.replay.apply import APPLY, _ignore
from events.replay.state import HandState, TablesInForce, _owned, _released

Observer = Callable[[HandState], None]


def _nothing(state: HandState) -> None:
    return None


class HandsFold:
    """Feed events in log order (:meth:`feed`; items that are not events are ignored)."""

    def __init__(self, on_end: Observer, on_begin: Observer = _nothing) -> None:
        self.on_end = on_end
        self.on_begin = on_begin
        self.tables = TablesInForce()
        # hand id -> its state and the ids of the events it applied
        self._open: dict[str, tuple[HandState, set[str]]] = {}
        self.closed: set[tuple[str, str]] = set()  # (table, hand) of hands ended or voided

    def open_states(self) -> list[HandState]:
        """The hands begun and not ended, as the fold has them (read, do not keep)."""
        return [state for state, _ in self._open.values()]

    def feed(self, events: Iterable[Any]) -> None:
        apply_of = APPLY.get
        open_hands, closed = self._open, self.closed
        for ev in events:
            hand_id = getattr(ev, "hand_id", None)
            if hand_id is None:
                if type(ev) is TableOpened:
                    self.tables.opened(ev)
                continue
            entry = open_hands.get(hand_id)
            if entry is None:
                if type(ev) is not HandStarted or (ev.table_id, hand_id) in closed:
                    continue
                entry = open_hands[hand_id] = (_owned(HandState.begin(
                    hand_id, ev.table_id, self.tables.get(ev.table_id))), set())
                self.on_begin(entry[0])
            state, applied = entry
            event_id = ev.event_id
            if event_id in applied:
                continue  # a redelivered copy
            applied.add(event_id)
            state = apply_of(type(ev), _ignore)(state, ev)
            if state.ended is not None:
                del open_hands[hand_id]
                closed.add((state.table_id, hand_id))
                self.on_end(_released(state))
            elif state is not entry[0]:  # (an owned state is changed in place)
                open_hands[hand_id] = (state, applied)
