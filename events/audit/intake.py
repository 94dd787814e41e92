"""The auditor's intake: input in, each table's events in ``seq`` order, each hand's events
collected until its ``HandEnded`` or ``HandVoided`` (see :class:`events.audit.auditor.Auditor`).

A hand keeps at most :data:`MAX_HAND_EVENTS` events (its end always): the work of auditing
one hand is bounded, and a hand with more is reported once as an ``overlong_hand`` (the
events past the bound are counted, not audited). With ``stall_seconds`` set (``uth audit
--follow``), a hand that has had no event for that long while its table's events go on is
reported once as an ``incomplete_hand`` that has not ended; so is one whose table has
gone silent altogether (:meth:`Intake.report_silent`, on the follower's wall clock).

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

from events.audit.clean import CleanHand
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
from events.findings import INCOMPLETE_HAND, OVERLONG_HAND, Finding, parse_time
from events.replay.fold import TableContext
from events.replay.state import TablesInForce

_ENDS = frozenset((HandEnded, HandVoided))
# a real hand has a few hundred events at most (22 seats online); many more is a fault
# or a flood, whose audit would cost more per event the longer the hand grows
MAX_HAND_EVENTS = 5_000
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
    tables: TablesInForce
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
    overlong: dict[str, int]
    stalled: set[str]
    stall_seconds: float | None = None
    # False: each table's events come in the order to audit them, each once (the
    # warehouse's feed, whose sequences are checked elsewhere): no sequencer
    sequenced: bool = True
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
            if not self.sequenced:
                seq.distinct += len(events)
                self._route(events, positions)
                continue
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
            at = positions[a:b] if positions is not None else None
            if len(hand[1]) + len(chunk) > MAX_HAND_EVENTS:
                keep: list[int] = []
                for k, e in enumerate(chunk):
                    if self._room(hand_id, len(hand[1]) + len(keep), e):
                        keep.append(k)
                chunk = [chunk[k] for k in keep]
                at = [at[k] for k in keep] if at is not None else None
            if at is not None:
                where = self.positions.setdefault(hand_id, {})
                where.update(zip([e.event_id for e in chunk], at, strict=True))
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

    def _room(self, hand_id: str, events: list[Event] | int, ev: Event) -> bool:
        """Whether the hand (its events, or their count) may take ``ev``: under the bound,
        or its end; else ``ev`` is counted past the bound (reported the first time)."""
        have = events if isinstance(events, int) else len(events)
        if have < MAX_HAND_EVENTS or type(ev) in _ENDS:
            return True
        past = self.overlong.get(hand_id, 0)
        self.overlong[hand_id] = past + 1
        where = self.positions.get(hand_id)
        if where:
            where.pop(ev.event_id, None)  # not kept: nothing of it to wait for
        if not past:
            self._emit_all([Finding(
                OVERLONG_HAND, hand_id, ev.table_id, None, None, None, MAX_HAND_EVENTS, None,
                f"Hand {hand_id} has more than {MAX_HAND_EVENTS:,} events; the ones after "
                f"the {MAX_HAND_EVENTS:,}th (from this {type(ev).__name__} on) are not "
                "audited.", ev.event_id, ev.occurred_at)])
        return False

    def _stalled(self, ev: Event) -> None:
        """A table event while the table's hand is open: that hand, silent for longer
        than ``stall_seconds`` of the table's time, is reported (once)."""
        hand_id = self.current.get(ev.table_id)
        hand = self.open.get(hand_id) if hand_id is not None else None
        if hand is None or not hand[1] or hand_id in self.stalled:
            return
        assert hand_id is not None and self.stall_seconds is not None
        last = hand[1][-1].occurred_at
        silent = (parse_time(ev.occurred_at) - parse_time(last)).total_seconds()
        if silent <= self.stall_seconds:
            return
        self.stalled.add(hand_id)  # reported: not again
        self._emit_all([Finding(
            INCOMPLETE_HAND, hand_id, ev.table_id, None, None, None, None, None,
            f"Hand {hand_id} has not ended and has had no event for {silent / 60:,.0f} "
            f"minutes (its last at {last}) while table {ev.table_id} went on "
            f"({type(ev).__name__} at {ev.occurred_at}).", ev.event_id, ev.occurred_at)])

    def report_silent(self, table_id: str, limit: float) -> None:
        """The table has sent nothing for longer than ``limit`` seconds (wall clock, ``uth
        audit --follow``): its open hand is reported (once), or it would never be."""
        hand_id = self.current.get(table_id)
        hand = self.open.get(hand_id) if hand_id is not None else None
        if hand_id is None or hand is None or not hand[1] or hand_id in self.stalled:
            return
        self.stalled.add(hand_id)
        last = hand[1][-1]
        self._emit_all([Finding(
            INCOMPLETE_HAND, hand_id, table_id, None, None, None, None, None,
            f"Hand {hand_id} has not ended and table {table_id} has sent nothing for more "
            f"than {limit / 60:,.0f} minutes (the hand's last event at {last.occurred_at}).",
            last.event_id, last.occurred_at)])

    def _process(self, ev: Event, pos: Any) -> None:
        hand_id = ev.hand_id
        if hand_id is None:
            if self.stall_seconds is not None and self.current:
                self._stalled(ev)
            kind = type(ev)
            if kind is TableOpened:
                self.tables.opened(ev)  # type: ignore[arg-type]
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
            if self._room(hand_id, hand[1], ev):
                hand[1].append(ev)
            if type(ev) in _ENDS:
                self._ended(hand_id, ev.table_id)
            return
        if self.stall_seconds is not None and self.current:
            self._stalled(ev)  # an event of an earlier hand: the table went on
        hand = self.ready.get(hand_id)
        if hand is not None:
            if self._room(hand_id, hand[1], ev):
                hand[1].append(ev)  # e.g. a dispute before the hand was settled
                self._changed(hand_id)
            return
        done = self.completed.get(hand_id)
        if done is not None:
            if self._room(hand_id, _kept(done[1]), ev):
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



def _kept(blob: Any) -> int:
    """How many events a settled hand keeps: its list, its msgpack array's length (read
    from the header, not decoded), or a clean hand's disputes."""
    if isinstance(blob, list):
        return len(blob)
    if isinstance(blob, CleanHand):
        return len(blob.notes)
    head = blob[0] if blob else 0x90
    if 0x90 <= head <= 0x9F:
        return int(head & 0x0F)
    size = 2 if head == 0xDC else 4
    return int.from_bytes(blob[1 : 1 + size], "big")
