"""The floor's stream in pieces: :class:`Chunk` (units of JSON Lines text in stream order)
and the per-table buffer of units not handed out yet."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
Text = bytes | memoryview  # a unit's JSON Lines text (a view into its batch's text)


@dataclass(frozen=True)
class Chunk:
    """Units of several tables in stream order: each unit is JSON Lines text (a hand with
    the events before it, a table's opening or closing, or -- for a paced floor -- a single
    event) and, per unit, its events, table, first and last time, hand and whether it ends
    that hand."""

    texts: list[Text]
    counts: IntArray
    tables: IntArray
    times: IntArray  # time of the unit's first event
    last_times: IntArray
    hand_no: IntArray  # the hand the unit's last event belongs to, -1 for none
    ends: IntArray  # 1 when the unit's last event ends its hand
    table_ids: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.texts)

    def data(self, lo: int = 0, hi: int | None = None) -> bytes:
        """Units ``lo:hi`` as JSON Lines text."""
        return b"".join(self.texts[lo:hi])

    def lines(self, lo: int = 0, hi: int | None = None) -> list[bytes]:
        """The events of units ``lo:hi``, one JSON document each."""
        return self.data(lo, hi).split(b"\n")[:-1]

    def keys(self, lo: int = 0, hi: int | None = None) -> list[str]:
        """The table_id of each event of units ``lo:hi`` (the log key)."""
        ids = self.table_ids
        return [ids[t] for t, c in zip(self.tables[lo:hi].tolist(),
                                       self.counts[lo:hi].tolist(), strict=True)
                for _ in range(c)]

    def events(self, lo: int = 0, hi: int | None = None) -> int:
        return int(self.counts[lo:hi].sum())


_FIELDS = ("texts", "counts", "times", "last_times", "hand_no", "ends")
Units = tuple[list[Text], IntArray, IntArray, IntArray, IntArray, IntArray]


def _concat(parts: list[Units]) -> Units:
    if len(parts) == 1:
        return parts[0]
    texts = [x for p in parts for x in p[0]]
    arrays = [np.concatenate([p[i] for p in parts]) for i in range(1, 6)]
    return texts, arrays[0], arrays[1], arrays[2], arrays[3], arrays[4]


class _Buffer:
    """A table's units not handed out yet (``take`` reads from the front)."""

    def __init__(self) -> None:
        self.segments: list[Units] = []
        self.first = 0  # units of segments[0] already taken
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def add(self, units: Units, front: bool = False) -> None:
        if not units[0]:
            return
        if front:
            if self.first:
                f = self.first
                head = self.segments[0]
                self.segments[0] = (head[0][f:], *(a[f:] for a in head[1:]))  # type: ignore[assignment]
                self.first = 0
            self.segments.insert(0, units)
        else:
            self.segments.append(units)
        self.size += len(units[0])

    def count_until(self, horizon: int) -> int:
        """How many units at the front start at or before ``horizon``."""
        n = 0
        for i, seg in enumerate(self.segments):
            t = seg[2][self.first:] if i == 0 else seg[2]
            k = int(np.searchsorted(t, horizon, "right"))
            n += k
            if k < len(t):
                break
        return n

    def front(self) -> Units | None:
        if not self.segments:
            return None
        f, seg = self.first, self.segments[0]
        return (seg[0][f:], *(a[f:] for a in seg[1:]))  # type: ignore[return-value]

    def take(self, k: int) -> Units:
        pieces: list[Units] = []
        while k:
            seg, f = self.segments[0], self.first
            m = min(k, len(seg[0]) - f)
            pieces.append((seg[0][f:f + m], *(a[f:f + m] for a in seg[1:])))  # type: ignore[arg-type]
            k -= m
            self.size -= m
            if f + m == len(seg[0]):
                self.segments.pop(0)
                self.first = 0
            else:
                self.first = f + m
        if not pieces:
            empty = np.zeros(0, np.int64)
            return [], empty, empty, empty, empty, empty
        return _concat(pieces)
