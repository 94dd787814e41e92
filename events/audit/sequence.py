"""Per-table sequence checking, de-duplication and re-ordering of a stream of events.

Every table numbers its events ``seq`` = 0, 1, 2... The :class:`Sequencer` takes events
in delivery order and hands each table's events on in ``seq`` order:

- a redelivered copy (same ``seq``, same ``event_id``, same content) is ignored and counted;
  so is a copy of an event under another ``seq`` (the contract counts an ``event_id`` once;
  the warehouse, which de-duplicates on it, keeps the first copy alike, and the ``seq`` the
  copy took is then missing: a gap);
- the same ``seq`` with another ``event_id``, or the same ``event_id`` with other content,
  is a ``sequence_conflict``: the copy received first is kept;
- an event ahead of the next expected ``seq`` waits (out-of-order delivery) until the gap
  fills; when it does not (more than ``hold`` events of that table waiting, the end of the
  stream, or :meth:`Sequencer.release_all` when idle in follow mode), the missing ``seq``
  numbers are a ``sequence_gap`` and the waiting events go on.

Validation comes first (only decoded, valid events reach it), so a corrupt copy never
hides the good event with the same id. The ``event_id`` of the last ``window`` (to twice
that) ``seq`` numbers of each table is remembered (ids only: the events themselves are let
go once their hand is audited); an older ``seq`` seen again is counted as a redelivery.

>>> from events.contract.schemas import decode_event
>>> def ev(seq, eid):
...     return decode_event(('{"event_id":"%s","type":"TableClosed","schema_version":1,'
...         '"table_id":"T1","hand_id":null,"seq":%d,'
...         '"occurred_at":"2026-11-29T21:03:11Z","payload":{}}' % (eid, seq)).encode())
>>> s, out = Sequencer(), []
>>> take = lambda e, pos: out.append(e.seq)
>>> s.push(ev(1, "b"), None, take); out
[]
>>> s.push(ev(0, "a"), None, take); out
[0, 1]
>>> s.push(ev(1, "b"), None, take); s.duplicates
1
>>> s.push(ev(1, "c"), None, take); s.findings[0].kind
'sequence_conflict'
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import Any

from events.contract.schemas import Event
from events.findings import (
    Finding,
    sequence_conflict,
    sequence_gap,
)

Process = Callable[[Event, Any], None]
_SEQ = attrgetter("seq")
_FIRST = itemgetter(0)
_ID = attrgetter("event_id")
Original = Callable[[Event], Event | None]


@dataclass
class _Table:
    expect: int = 0
    held: dict[int, tuple[Event, Any]] = field(default_factory=dict)
    seen: dict[int, str] = field(default_factory=dict)  # seq -> event_id (recent ones)
    # runs taken whole: (first seq, their event ids); a list per run, not a dict entry per
    # event (a redelivery, which needs the look-up, is rare)
    runs: list[tuple[int, list[str]]] = field(default_factory=list)
    count: int = 0  # how many seq numbers ``seen`` and ``runs`` hold
    old: tuple[dict[int, str], list[tuple[int, list[str]]]] = field(
        default_factory=lambda: ({}, []))  # the generation before
    # the event ids remembered (those of ``seen``, ``runs``, ``held`` and ``old``),
    # gathered on the generation's first need and kept up to date until it ends: most
    # runs need no look-up at all until a redelivery or a renumbering is possible
    exact: set[str] | None = None

    def remembered_ids(self) -> set[str]:
        """The event ids remembered (gathered when first needed in a generation)."""
        if self.exact is None:
            ids = {ev.event_id for ev, _ in self.held.values()}
            for seen, runs in ((self.seen, self.runs), self.old):
                ids.update(seen.values())
                for _, run in runs:
                    ids.update(run)
            self.exact = ids
        return self.exact

    def take_ids(self, ids: list[str]) -> bool:
        """Remember ``ids`` when none of them is remembered and none repeats; else
        ``False``, and what is remembered is unchanged."""
        known = self.remembered_ids()
        if not known.isdisjoint(ids) or len(set(ids)) != len(ids):
            return False
        known.update(ids)
        return True

    def remember_id(self, event_id: str) -> None:
        if self.exact is not None:
            self.exact.add(event_id)

    def remembered(self, seq: int) -> str | None:
        """The event id first received with ``seq``, while it is remembered."""
        for seen, runs in ((self.seen, self.runs), self.old):
            known = seen.get(seq)
            if known is not None:
                return known
            # runs start at increasing seq numbers (each at the next expected one)
            k = bisect_right(runs, seq, key=_FIRST) - 1
            if k >= 0:
                first, ids = runs[k]
                if seq < first + len(ids):
                    return ids[seq - first]
        return None

    def note(self, seq: int, event_id: str) -> None:
        """``seq`` taken singly, as ``event_id``."""
        self.seen[seq] = event_id
        self.remember_id(event_id)
        self.count += 1

    def renumbered(self, ev: Event) -> bool:
        """``ev``'s id already taken, or waiting, under another seq (while remembered)."""
        event_id = ev.event_id
        if event_id not in self.remembered_ids():
            return False
        waiting = self.held.get(ev.seq)
        return self.remembered(ev.seq) != event_id and (
            waiting is None or waiting[0].event_id != event_id)

    def age(self, window: int) -> None:
        """Past ``window`` seq numbers, the remembered ones become the old generation."""
        if self.count > window:
            self.old, self.seen, self.runs, self.count = (self.seen, self.runs), {}, [], 0
            self.exact = None  # gathered again when needed


class Sequencer:
    """Hand each table's events on in ``seq`` order, once each (see the module).

    ``original(event)`` returns the event already received with that ``event_id`` when it
    is still at hand (its hand is being audited), so a redelivered copy's contents can be
    compared; without it, or once the original is gone, a copy with the same ``seq`` and
    ``event_id`` counts as a redelivery.
    """

    def __init__(self, hold: int = 10_000, window: int = 4096,
                 original: Original | None = None) -> None:
        self.hold = hold
        self.window = window
        self.original = original
        self.tables: dict[str, _Table] = {}
        self.findings: list[Finding] = []
        self.duplicates = 0
        self.distinct = 0

    def start_at(self, table_id: str, seq: int) -> None:
        """Expect ``seq`` next from ``table_id`` (resuming after earlier events)."""
        self.tables.setdefault(table_id, _Table()).expect = seq

    def take_run(self, table_id: str, events: Sequence[Event]) -> bool:
        """Take a batch of one table's events in one go when they simply continue its
        sequence (``seq`` = next expected, +1, +2...) and nothing waits; ``False`` (and
        nothing taken) otherwise."""
        t = self.tables.get(table_id)
        if t is None:
            t = self.tables[table_id] = _Table()
        n = len(events)
        first = t.expect
        if t.held or events[0].seq != first:
            return False
        if (events[-1].seq != first + n - 1
                or list(map(_SEQ, events)) != list(range(first, first + n))):
            return False
        ids = list(map(_ID, events))
        if not t.take_ids(ids):
            return False  # an id seen before (a copy under another seq), or one twice
        t.runs.append((first, ids))
        t.count += n
        t.expect = first + n
        self.distinct += n
        t.age(self.window)
        return True

    def push(self, ev: Event, position: Any, process: Process) -> None:
        """Take one event; call ``process(event, position)`` for each event it lets go on,
        in order (often just this one)."""
        t = self.tables.get(ev.table_id)
        if t is None:
            t = self.tables[ev.table_id] = _Table()
        seq = ev.seq
        if t.renumbered(ev):
            self.duplicates += 1  # a copy under another seq: the event is counted once
            return
        if seq == t.expect:
            self.distinct += 1
            t.note(seq, ev.event_id)
            t.expect = seq + 1
            process(ev, position)
            if t.held:
                self._drain(t, process)
            t.age(self.window)
            return
        if seq < t.expect:
            prior = t.remembered(seq)
            if prior is not None:
                self._again(ev, prior, None, position)
            elif seq < t.expect - self.window:
                self.duplicates += 1  # older than what is remembered: taken as a redelivery
            else:  # late: a gap finding already declared it missing
                self.distinct += 1
                t.note(seq, ev.event_id)
                process(ev, position)
            return
        waiting = t.held.get(seq)
        if waiting is not None:
            self._again(ev, waiting[0].event_id, waiting[0], position)
            return
        self.distinct += 1
        t.held[seq] = (ev, position)
        t.remember_id(ev.event_id)
        if len(t.held) > self.hold:
            self._skip_gap(ev.table_id, t, process)

    def release_all(self, process: Process) -> None:
        """Declare every waiting table's missing ``seq`` numbers a gap and let what waits
        go on (at the end of the stream, or when idle in follow mode)."""
        for table_id, t in self.tables.items():
            while t.held:
                self._skip_gap(table_id, t, process)

    def waiting_positions(self) -> list[Any]:
        return [pos for t in self.tables.values() for _, pos in t.held.values()]

    def next_seq(self) -> dict[str, int]:
        return {table_id: t.expect for table_id, t in self.tables.items()}

    # ----------------------------------------------------------------------- internals

    def _again(self, ev: Event, prior_id: str, prior: Event | None, position: Any) -> None:
        if prior_id == ev.event_id:
            if prior is None and self.original is not None:
                prior = self.original(ev)
            if prior is None or prior == ev:
                self.duplicates += 1
                return
        self.findings.append(sequence_conflict(
            ev.table_id, ev.seq, ev.event_id, prior_id, ev.hand_id, ev.occurred_at, position,
            same_id=prior_id == ev.event_id))

    def _drain(self, t: _Table, process: Process) -> None:
        held = t.held
        while t.expect in held:
            ev, pos = held.pop(t.expect)
            t.note(t.expect, ev.event_id)
            t.expect += 1
            process(ev, pos)

    def _skip_gap(self, table_id: str, t: _Table, process: Process) -> None:
        first = min(t.held)
        ev, pos = t.held[first]
        self.findings.append(sequence_gap(table_id, t.expect, first, ev.event_id,
                                          ev.occurred_at, pos))
        t.expect = first
        self._drain(t, process)

