"""A store's events as the ledger sees them: per event its ``seq``, ``event_id``, leaf hash
and place in its log; a table's events kept as columns, in ``seq`` order.

A table's tree is over its events in ``seq`` order (ties, a sequence conflict's events at one
``seq``, by ``event_id``), whatever order they arrived in; a seal covers the table's gapless
run from seq 0 (:func:`sealable`): an event beyond a gap waits for the gap to be filled.

:class:`TableEvents` is a sequence of :class:`StoredEvent` that holds its columns as lists,
because a scan of a log of millions of events should not make an object per event: the
common verification needs only the leaves and the offsets (an object is made only for an
event a finding names).

>>> table = TableEvents()
>>> table.extend([0, 1], ["e0", "e1"], [b"a", b"b"], [0, 0], [1, 2])
>>> len(table), table[1], table.leaves
(2, StoredEvent(seq=1, event_id='e1', leaf=b'b', partition=0, offset=2), [b'a', b'b'])
>>> late = TableEvents()
>>> late.extend([0, 2, 1, 4], ["a", "c", "b", "e"], [b"0", b"2", b"1", b"4"], [0] * 4, [1, 2, 3, 4])
>>> ordered = in_seq_order(late)
>>> ordered.seqs, sealable(ordered.seqs)
([0, 1, 2, 4], 3)
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import attrgetter
from typing import NamedTuple, overload


class StoredEvent(NamedTuple):
    """One event as a store holds it: where it sits in its log, and its leaf hash."""

    seq: int
    event_id: str
    leaf: bytes
    partition: int
    offset: int


_COLUMNS = tuple(attrgetter(n) for n in StoredEvent._fields)


class TableEvents(Sequence[StoredEvent]):
    """One table's events as columns (in the order given: a scan gives them in seq order)."""

    __slots__ = ("event_ids", "leaves", "offsets", "partitions", "seqs")

    def __init__(self, events: Iterable[StoredEvent] = ()) -> None:
        items = list(events)
        self.seqs: list[int] = list(map(_COLUMNS[0], items))
        self.event_ids: list[str] = list(map(_COLUMNS[1], items))
        self.leaves: list[bytes] = list(map(_COLUMNS[2], items))
        self.partitions: list[int] = list(map(_COLUMNS[3], items))
        self.offsets: list[int] = list(map(_COLUMNS[4], items))

    def extend(self, seqs: Sequence[int], event_ids: Sequence[str], leaves: Sequence[bytes],
               partitions: Sequence[int], offsets: Sequence[int]) -> None:
        self.seqs.extend(seqs)
        self.event_ids.extend(event_ids)
        self.leaves.extend(leaves)
        self.partitions.extend(partitions)
        self.offsets.extend(offsets)

    def __len__(self) -> int:
        return len(self.seqs)

    @overload
    def __getitem__(self, index: int) -> StoredEvent: ...
    @overload
    def __getitem__(self, index: slice) -> TableEvents: ...
    def __getitem__(self, index: int | slice) -> StoredEvent | TableEvents:
        if isinstance(index, slice):
            out = TableEvents()
            out.extend(self.seqs[index], self.event_ids[index], self.leaves[index],
                       self.partitions[index], self.offsets[index])
            return out
        return StoredEvent(self.seqs[index], self.event_ids[index], self.leaves[index],
                           self.partitions[index], self.offsets[index])

    def __iter__(self) -> Iterator[StoredEvent]:
        return map(StoredEvent, self.seqs, self.event_ids, self.leaves, self.partitions,
                   self.offsets)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TableEvents({list(self)!r})"


def columns(events: Sequence[StoredEvent]) -> tuple[Sequence[int], Sequence[int],
                                                    Sequence[bytes]]:
    """(partitions, offsets, leaves) of ``events``: a table's own lists, or read off."""
    if isinstance(events, TableEvents):
        return events.partitions, events.offsets, events.leaves
    return (list(map(_COLUMNS[3], events)), list(map(_COLUMNS[4], events)),
            list(map(_COLUMNS[2], events)))


def in_seq_order(table: TableEvents) -> TableEvents:
    """``table``'s events in ``seq`` order, ties by ``event_id`` (the same events give the
    same order however they arrived); the table itself when already in order (the common
    case: one C-level pass)."""
    seqs = table.seqs
    if all(map(operator.lt, seqs, seqs[1:])):
        return table
    ids = table.event_ids
    order = sorted(range(len(seqs)), key=lambda i: (seqs[i], ids[i]))
    out = TableEvents()
    out.extend([seqs[i] for i in order], [ids[i] for i in order],
               [table.leaves[i] for i in order], [table.partitions[i] for i in order],
               [table.offsets[i] for i in order])
    return out


def sealable(seqs: Sequence[int], declared: Mapping[int, int] | None = None) -> int:
    """How many of a table's events (``seqs`` in order) form its gapless run from seq 0,
    the part a seal can cover: events at one ``seq`` (a sequence conflict) all count; the
    run ends before the first missing ``seq``, unless an earlier seal declared exactly
    that gap lost (``declared``: first -> last seq of each declared range), which the run
    then steps over."""
    n = len(seqs)
    if n and seqs[0] == 0 and seqs[-1] == n - 1 and all(map(operator.lt, seqs, seqs[1:])):
        return n  # 0 to n - 1, each one more than the last: no gap (one C-level pass)
    declared = declared or {}
    expected = 0
    for at, seq in enumerate(seqs):
        if seq > expected and declared.get(expected) == seq - 1:
            expected = seq  # a gap declared lost by an earlier seal
        if seq == expected:
            expected += 1
        elif seq != expected - 1:
            return at
    return n


def gaps(seqs: Sequence[int]) -> list[tuple[int, int]]:
    """The seqs from 0 to the last of ``seqs`` (in order) that none holds, as maximal
    [first, last] ranges in order.

    >>> gaps([2, 3, 3, 7]), gaps([0, 1]), gaps([])
    ([(0, 1), (4, 6)], [], [])
    """
    out: list[tuple[int, int]] = []
    expected = 0
    for seq in seqs:
        if seq > expected:
            out.append((expected, seq - 1))
        expected = max(expected, seq + 1)
    return out
