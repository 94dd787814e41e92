"""Lookup tables behind ``events.game.evaluation``, built from first principles at first use.

A five-card hand class is a tuple ``(category, tie-break ranks...)``; sorting the 7,462
classes gives every hand a strength 0..7461 (higher is better). Seven cards are looked up
through three additive per-card keys packed in one uint64, so a batch needs only a gather
and a sum per card:

* ranks 0..6 counted in base 5 (bits 0..16), ranks 7..12 counted in base 5 (bits 17..30):
  two small tables turn those into a row and a column of the non-flush table;
* suits counted in base 8 (bits 31..42): a table names the suit with five or more cards.

A flush cannot coexist with quads or a full house among seven cards (it leaves only two
other cards), so when a suit has five cards the flush table alone decides.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
ROYAL_FLUSH = 9

LO_RANKS = 7  # ranks 0..6 in the low key
LO_BITS = 17  # 5**7 = 78,125 < 2**17
HI_BITS = 14  # 5**6 = 15,625 < 2**14
SUIT_SHIFT = LO_BITS + HI_BITS
SUIT_BITS = 12  # four base-8 digits
_STRAIGHT_MASKS = [(0b11111 << low, low + 4) for low in range(8, -1, -1)] + [(0b1000000001111, 3)]

HandClass = tuple[int, ...]


def _straight_top(mask: int) -> int:
    """Top rank of the best straight in a 13-bit rank mask, or -1 (wheel tops at five)."""
    for bits, top in _STRAIGHT_MASKS:
        if mask & bits == bits:
            return top
    return -1


def best_nonflush(counts: tuple[int, ...]) -> HandClass:
    """Best five-card class that a multiset of ranks (5..7 cards) makes, ignoring suits."""
    ranks_desc = [r for r in range(12, -1, -1) if counts[r]]
    by_count = {n: [r for r in ranks_desc if counts[r] >= n] for n in (2, 3, 4)}

    def kickers(exclude: set[int], n: int) -> list[int]:
        return [r for r in ranks_desc if r not in exclude][:n]

    if by_count[4]:
        quad = by_count[4][0]
        return (QUADS, quad, *kickers({quad}, 1))
    if by_count[3]:
        trip = by_count[3][0]
        pairs = [r for r in by_count[2] if r != trip]
        if pairs:
            return (FULL_HOUSE, trip, pairs[0])
    mask = sum(1 << r for r in ranks_desc)
    top = _straight_top(mask)
    if top >= 0:
        return (STRAIGHT, top)
    if by_count[3]:
        trip = by_count[3][0]
        return (TRIPS, trip, *kickers({trip}, 2))
    if len(by_count[2]) >= 2:
        high, low = by_count[2][:2]
        return (TWO_PAIR, high, low, *kickers({high, low}, 1))
    if by_count[2]:
        pair = by_count[2][0]
        return (PAIR, pair, *kickers({pair}, 3))
    return (HIGH_CARD, *ranks_desc[:5])


def best_flush(mask: int) -> HandClass:
    """Best five-card class among the cards of one suit (a 13-bit mask with 5+ ranks)."""
    top = _straight_top(mask)
    if top >= 0:
        return (STRAIGHT_FLUSH, top)
    return (FLUSH, *[r for r in range(12, -1, -1) if mask >> r & 1][:5])


def _rank_multisets(size: int, ranks: int) -> Iterator[tuple[int, ...]]:
    """Every count vector over ``ranks`` ranks (each 0..4) that sums to ``size``."""
    if ranks == 0:
        if size == 0:
            yield ()
        return
    for here in range(min(4, size) + 1):
        for rest in _rank_multisets(size - here, ranks - 1):
            yield (here, *rest)


def _base5(counts: tuple[int, ...]) -> int:
    return sum(c * 5**i for i, c in enumerate(counts))


@dataclass(frozen=True)
class Tables:
    card_key: npt.NDArray[np.int64]  # (52,) packed additive key per card index (43 bits)
    lo_row: npt.NDArray[np.int32]  # base-5 low key -> row offset into nonflush
    hi_col: npt.NDArray[np.int32]  # base-5 high key -> column
    nonflush: npt.NDArray[np.int16]  # flattened (rows * cols) strength table
    flush_suit: npt.NDArray[np.int8]  # base-8 suit counts -> suit with 5+ cards, or -1
    flush: npt.NDArray[np.int16]  # 13-bit rank mask -> strength (-1 below five cards)
    category: npt.NDArray[np.int8]  # strength -> category 0..9
    classes: tuple[HandClass, ...]  # strength -> five-card class


@cache
def tables() -> Tables:
    """Build every table (about a second, once per process)."""
    nonflush_classes = {
        c: best_nonflush(c) for size in (5, 6, 7) for c in _rank_multisets(size, 13)
    }
    flush_classes = {m: best_flush(m) for m in range(1 << 13) if m.bit_count() >= 5}
    classes = sorted(set(nonflush_classes.values()) | set(flush_classes.values()))
    strength = {cls: i for i, cls in enumerate(classes)}

    lo_patterns = [c for n in range(8) for c in _rank_multisets(n, LO_RANKS)]
    hi_patterns = [c for n in range(8) for c in _rank_multisets(n, 13 - LO_RANKS)]
    n_cols = len(hi_patterns)
    lo_row = np.full(5**LO_RANKS, -1, dtype=np.int32)
    hi_col = np.full(5 ** (13 - LO_RANKS), -1, dtype=np.int32)
    for i, c in enumerate(lo_patterns):
        lo_row[_base5(c)] = i * n_cols
    for j, c in enumerate(hi_patterns):
        hi_col[_base5(c)] = j
    nonflush = np.full(len(lo_patterns) * n_cols, -1, dtype=np.int16)
    for counts, cls in nonflush_classes.items():
        lo, hi = counts[:LO_RANKS], counts[LO_RANKS:]
        nonflush[lo_row[_base5(lo)] + hi_col[_base5(hi)]] = strength[cls]

    flush = np.full(1 << 13, -1, dtype=np.int16)
    for mask, cls in flush_classes.items():
        flush[mask] = strength[cls]

    flush_suit = np.full(1 << SUIT_BITS, -1, dtype=np.int8)
    for key in range(1 << SUIT_BITS):
        for suit in range(4):
            if (key >> (3 * suit)) & 7 >= 5:
                flush_suit[key] = suit

    card_key = np.zeros(52, dtype=np.int64)
    for card in range(52):
        rank, suit = card >> 2, card & 3
        rank_part = 5**rank if rank < LO_RANKS else 5 ** (rank - LO_RANKS) << LO_BITS
        card_key[card] = rank_part + (8**suit << SUIT_SHIFT)

    category = np.array(
        [ROYAL_FLUSH if cls == (STRAIGHT_FLUSH, 12) else cls[0] for cls in classes],
        dtype=np.int8,
    )
    return Tables(card_key, lo_row, hi_col, nonflush, flush_suit, flush, category, tuple(classes))


def five_card_combinations() -> npt.NDArray[np.uint8]:
    """All 2,598,960 five-card hands as (N, 5) card indices, lexicographic."""
    return np.array(list(combinations(range(52), 5)), dtype=np.uint8)
