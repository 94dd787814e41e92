"""Monte Carlo draws seeded per seat-hand: a seat-hand's numbers depend on its table, hand,
seat and the analysis's seed only, never on the other seat-hands scored with it. So a
score does not depend on how the hands were sliced, in which order they were read, or
where a warehouse's load boundaries fell: ``uth protect`` over a log and the warehouse's
players step over the same events, loaded at once or in pieces, draw the same numbers.

The numbers are a counter-based generator (SplitMix64 of the seat-hand's key, a stream
number and a counter), vectorized over rows: row ``i`` of :meth:`KeyedDraws.uniform` is a
function of ``keys[i]``, the stream and the column only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
KeyArray = npt.NDArray[np.uint64]
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_STREAM = np.uint64(0xD1B54A32D192ED03)


def _mix(z: KeyArray) -> KeyArray:
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    out: KeyArray = z ^ (z >> np.uint64(31))
    return out


def seat_hand_keys(table_ids: Sequence[str], hand_ids: Sequence[str], seats: Sequence[int],
                   seed: int) -> KeyArray:
    """One 64-bit key per seat-hand, from its table, hand and seat and ``seed``."""
    out = np.empty(len(hand_ids), dtype=np.uint64)
    for i, (t, h, s) in enumerate(zip(table_ids, hand_ids, seats, strict=True)):
        digest = hashlib.blake2b(f"{seed}\x1f{t}\x1f{h}\x1f{s}".encode(), digest_size=8)
        out[i] = int.from_bytes(digest.digest(), "little")
    return out


class KeyedDraws:
    """Uniform numbers per row, each row from its own key."""

    def __init__(self, keys: KeyArray) -> None:
        self.keys = keys

    def __len__(self) -> int:
        return len(self.keys)

    def rows(self, idx: IntArray) -> KeyedDraws:
        return KeyedDraws(self.keys[idx])

    def uniform(self, stream: int, count: int) -> FloatArray:
        """(rows, count) uniform numbers in [0, 1) of stream ``stream``."""
        with np.errstate(over="ignore"):
            base = _mix(self.keys ^ (np.uint64(stream + 1) * _STREAM))
            j = np.arange(1, count + 1, dtype=np.uint64) * _GOLDEN
            bits = _mix(base[:, None] + j[None, :])
        out: FloatArray = (bits >> np.uint64(11)).astype(np.float64) * (2.0 ** -53)
        return out

    def distinct(self, stream: int, shape: tuple[int, ...], m: int, u: int) -> IntArray:
        """(rows, *shape, m) positions in ``range(u)``, distinct along the last axis, each
        ordered set uniform (sequential sampling without replacement)."""
        size = int(np.prod(shape)) if shape else 1
        draws = self.uniform(stream, size * m).reshape(len(self), size, m)
        out = np.empty((len(self), size, m), dtype=np.int64)
        for i in range(m):
            pick = np.minimum((draws[:, :, i] * (u - i)).astype(np.int64), u - i - 1)
            # the i-th pick among the positions not taken yet: step over the taken ones
            # in increasing order
            taken = np.sort(out[:, :, :i], axis=2)
            for j in range(i):
                pick = pick + (pick >= taken[:, :, j])
            out[:, :, i] = pick
        return out.reshape(len(self), *shape, m)
