"""Per-table sequence checks for a stream of events: duplicates, conflicts, gaps, late ones.

Each table numbers its events ``seq`` = 0, 1, 2... (contract). :class:`SequenceTracker`
looks at ``(table_id, seq, event_id)`` as they arrive and classifies each one:

- ``new``: store it. A ``seq`` beyond the next expected one opens a *gap* (recorded);
  a ``seq`` that fills an open gap is ``late`` (stored; reported as out of order);
- ``duplicate``: same ``seq`` and same ``event_id`` as one already seen: count it once;
- ``altered``: same ``seq`` and ``event_id`` as one already seen but other bytes (when
  both digests are known): not stored, reported (the first one stays);
- ``conflict``: same ``seq`` as an event already seen but a different ``event_id``: not
  stored, reported (the first one stays).

Memory is bounded: per table it remembers the last ``window`` seqs and at most
``max_gaps`` missing numbers; older redeliveries are passed as ``new`` (a SQLite sink still
stores them once by ``event_id``).

>>> t = SequenceTracker(expect_start=True)
>>> [t.observe("T1", s, e) for s, e in [(0, "a"), (2, "c"), (2, "c"), (1, "b"), (1, "x")]]
['new', 'new', 'duplicate', 'late', 'conflict']
>>> t.missing()
{}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Verdict = Literal["new", "late", "duplicate", "conflict", "altered"]


@dataclass
class _Table:
    next_seq: int
    seen: dict[int, str] = field(default_factory=dict)
    digests: dict[int, bytes] = field(default_factory=dict)
    gaps: set[int] = field(default_factory=set)
    gaps_overflow: int = 0


@dataclass
class SequenceTracker:
    """Classify events per table; ``expect_start``: a table's first event should be seq 0."""

    expect_start: bool = False
    window: int = 20_000
    max_gaps: int = 10_000
    tables: dict[str, _Table] = field(default_factory=dict)
    gap_events: list[tuple[str, int, int]] = field(default_factory=list)  # table, first, last
    late: int = 0
    conflicts: int = 0
    duplicates: int = 0

    def observe(self, table_id: str, seq: int, event_id: str,
                digest: bytes | None = None) -> Verdict:
        state = self.tables.get(table_id)
        if state is None:
            state = _Table(0 if self.expect_start else seq)
            self.tables[table_id] = state
        known = state.seen.get(seq)
        if known is not None:
            if known == event_id:
                first = state.digests.get(seq)
                if digest is not None and first is not None and first != digest:
                    self.conflicts += 1
                    return "altered"
                self.duplicates += 1
                return "duplicate"
            self.conflicts += 1
            return "conflict"
        verdict: Verdict = "new"
        if seq > state.next_seq:
            self.gap_events.append((table_id, state.next_seq, seq - 1))
            for missing in range(state.next_seq, seq):
                if len(state.gaps) >= self.max_gaps:
                    state.gaps_overflow += seq - missing
                    break
                state.gaps.add(missing)
        if seq < state.next_seq:
            verdict = "late"
            self.late += 1
            state.gaps.discard(seq)
        state.seen[seq] = event_id
        if digest is not None:
            state.digests[seq] = digest
        if seq >= state.next_seq:
            state.next_seq = seq + 1
            if len(state.seen) > self.window * 2:
                floor = state.next_seq - self.window
                state.seen = {s: e for s, e in state.seen.items() if s >= floor}
                state.digests = {s: d for s, d in state.digests.items() if s >= floor}
        return verdict

    def seed(self, table_id: str, seq: int, event_id: str, digest: bytes | None = None) -> None:
        """Record an event already stored at the sink (before this run): no verdict kept."""
        counts = (self.late, self.duplicates, self.conflicts, len(self.gap_events))
        self.observe(table_id, seq, event_id, digest)
        self.late, self.duplicates, self.conflicts = counts[:3]
        del self.gap_events[counts[3]:]

    def missing(self) -> dict[str, list[tuple[int, int]]]:
        """Still-open gaps per table as (first, last) ranges, in order."""
        out: dict[str, list[tuple[int, int]]] = {}
        for table_id, state in sorted(self.tables.items()):
            if not state.gaps:
                continue
            ranges: list[tuple[int, int]] = []
            for s in sorted(state.gaps):
                if ranges and ranges[-1][1] == s - 1:
                    ranges[-1] = (ranges[-1][0], s)
                else:
                    ranges.append((s, s))
            out[table_id] = ranges
        return out
