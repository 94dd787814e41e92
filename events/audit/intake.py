"""The auditor's intake: input in, each table's events in ``seq`` order, each hand's events
collected until its ``HandEnded`` or ``HandVoided`` (see :class:`events.audit.auditor.Auditor`).

The common case is taken in bulk: a batch's events are grouped by table; when a table's
events simply continue its sequence the sequencer takes them at once and they go to their
hands a run at a time. Anything else (a gap, a redelivery, a new hand, a table event) goes
one event at a time through :meth:`Intake._process`.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby
from operator import attrgetter
from typing import Any

from events.audit.sequence import Sequencer
from events.contract.codec import Rejection
from events.contract.schemas import (
    DisputeOpened,
    DisputeResolved,
    Event,
    HandEnded,
    HandVoided,
    TableClosed,
    TableOpened,
)
from events.findings import Finding
from events.replay.fold import TableContext

_ENDS = frozenset((HandEnded, HandVoided))
_HAND = attrgetter("hand_id")

Hand = tuple[TableContext | None, list[Event]]


def hand_runs(events: list[Event]) -> list[tuple[str | None, int, bool]]:
    """Each run of one hand's events: its hand id, the index after it, and whether it
    holds a ``HandEnded`` or ``HandVoided``."""
    out = []
    end = 0
    for hand_id, run in groupby(events, key=_HAND):
        chunk = list(run)
        end += len(chunk)
        out.append((hand_id, end, not _ENDS.isdisjoint(map(type, chunk))))
    return out


class Intake:
    """The input side of :class:`events.audit.auditor.Auditor` (which provides the outputs)."""

    sequencer: Sequencer
    tables: dict[str, TableContext]
    open: dict[str, Hand]  # hand_id -> (the table's rules when it began, its events)
    current: dict[str, str]  # table_id -> its open hand
    ready: dict[str, Hand]  # ended, waiting to be settled
    completed: dict[str, tuple[int, Any]]
    positions: dict[str, dict[str, Any]]
    rejected: list[Rejection]
    keep: bool
    quiet: bool
    batch: int
    hands_seen: int
    # hands that ended since the last flush and were settled at once (the lean auditor's
    # right ones): they count toward ``batch`` as the waiting ones do, so a hand left
    # waiting (abandoned, or judged wrong) is settled no later than it was before

    def flush(self) -> None:
        raise NotImplementedError

    def _late(self, hand_id: str, done: tuple[int, Any], ev: Event) -> None:
        raise NotImplementedError

    def _orphan_dispute(self, ev: DisputeOpened | DisputeResolved) -> None:
        raise NotImplementedError

    def _emit_all(self, findings: Iterable[Finding]) -> None:
        raise NotImplementedError

    def _on_rejected_call(self, rejection: Rejection) -> None:
        raise NotImplementedError

    # --------------------------------------------------------------------------- input

    def feed(self, item: Event | Rejection, position: Any = None) -> None:
        self.feed_many(((position, item),))

    def feed_many(self, items: Iterable[Any]) -> None:
        """Feed ``Event``/``Rejection`` items or ``(position, item)`` pairs. Each table's
        events keep their order; tables are independent of each other."""
        items = items if isinstance(items, list) else list(items)
        by_table: dict[str, tuple[list[Event], list[Any] | None]] = {}
        if items and type(items[0]) is not tuple:
            for item in items:  # the common case: no positions
                if type(item) is Rejection:
                    self._rejected(item)
                    continue
                lists = by_table.get(item.table_id)
                if lists is None:
                    lists = by_table[item.table_id] = ([], None)
                lists[0].append(item)
        else:
            for pair in items:
                position, item = pair if type(pair) is tuple else (None, pair)
                if type(item) is Rejection:
                    self._rejected(item)
                    continue
                lists = by_table.get(item.table_id)
                if lists is None:
                    lists = by_table[item.table_id] = ([], [])
                lists[0].append(item)
                lists[1].append(position)  # type: ignore[union-attr]
        seq = self.sequencer
        for table_id, (events, positions) in by_table.items():
            if seq.take_run(table_id, events):  # the common case: the sequence goes on
                self._route(events, positions)
                continue
            self._push_each(events, positions)

    def _push_each(self, events: list[Event], positions: list[Any] | None) -> None:
        """One table's events through the sequencer one at a time (a gap, a redelivery,
        events out of order), its findings emitted as they appear."""
        seq = self.sequencer
        for k, ev in enumerate(events):
            seq.push(ev, positions[k] if positions else None, self._process)
            if seq.findings:
                self._emit_all(seq.findings)
                seq.findings.clear()

    def _route(self, events: list[Event], positions: list[Any] | None) -> None:
        """In-order events of one table to their hands, a run of one hand at a time
        (:func:`hand_runs`)."""
        runs = hand_runs(events)
        open_ = self.open
        a = 0
        for hand_id, b, ends in runs:
            hand = open_.get(hand_id) if hand_id is not None else None
            if hand is None:  # a table event, a new hand or a late one: one by one
                for k in range(a, b):
                    self._process(events[k], positions[k] if positions else None)
                    if k + 1 < b and hand_id is not None and hand_id in open_:
                        hand = open_[hand_id]
                        a = k + 1
                        break
                else:
                    a = b
                    continue
            assert hand_id is not None  # (its hand is open)
            chunk = events[a:b]
            if positions is not None:
                where = self.positions.setdefault(hand_id, {})
                where.update(zip([e.event_id for e in chunk],
                                 positions[a:b], strict=True))
            hand[1].extend(chunk)
            if ends:  # (an end taken one by one above would have closed the hand)
                self._ended(hand_id, chunk[0].table_id)
            a = b

    def _original(self, ev: Event) -> Event | None:
        """The event first received with ``ev``'s id, while its hand is being audited."""
        if ev.hand_id is None:
            return None
        hand = self.open.get(ev.hand_id) or self.ready.get(ev.hand_id)
        if hand is None:
            return None
        return next((e for e in hand[1] if e.event_id == ev.event_id), None)

    def _rejected(self, rejection: Rejection) -> None:
        if self.quiet:
            return
        if self.keep:
            self.rejected.append(rejection)
        self._on_rejected_call(rejection)

    def _process(self, ev: Event, pos: Any) -> None:
        hand_id = ev.hand_id
        if hand_id is None:
            kind = type(ev)
            if kind is TableOpened:
                self.tables[ev.table_id] = TableContext.opened(ev)  # type: ignore[arg-type]
            elif kind is TableClosed:
                self._abandon(ev.table_id)
            return
        if pos is not None:
            where = self.positions.get(hand_id)
            if where is None:
                where = self.positions[hand_id] = {}
            where[ev.event_id] = pos
        hand = self.open.get(hand_id)
        if hand is not None:
            hand[1].append(ev)
            if type(ev) in _ENDS:
                self._ended(hand_id, ev.table_id)
            return
        hand = self.ready.get(hand_id)
        if hand is not None:
            hand[1].append(ev)  # e.g. a dispute before the hand was settled
            self._changed(hand_id)
            return
        done = self.completed.get(hand_id)
        if done is not None:
            self._late(hand_id, done, ev)
            return
        if isinstance(ev, DisputeOpened | DisputeResolved):
            self._orphan_dispute(ev)
            return
        table_id = ev.table_id
        if self.current.get(table_id) is not None:
            self._abandon(table_id)
        self.open[hand_id] = (self.tables.get(table_id), [ev])
        self.current[table_id] = hand_id
        self.hands_seen += 1
        if type(ev) in _ENDS:
            self._ended(hand_id, table_id)

    def _changed(self, hand_id: str) -> None:
        """A hand waiting to be settled got another event."""

    def _ended(self, hand_id: str, table_id: str) -> None:
        self.ready[hand_id] = self.open.pop(hand_id)
        if self.current.get(table_id) == hand_id:
            del self.current[table_id]
        self._flush_when_due()

    def _flush_when_due(self) -> None:
        if len(self.ready) >= self.batch:
            self.flush()

    def _abandon(self, table_id: str) -> None:
        """The table moved on (another hand started, or it closed): its open hand will
        not end; settle it as it is (incomplete)."""
        hand_id = self.current.pop(table_id, None)
        if hand_id is not None and hand_id in self.open:
            self.ready[hand_id] = self.open.pop(hand_id)

