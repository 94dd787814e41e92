"""Poker hand evaluation: a NumPy batch evaluator and a readable single-hand API.

Strengths are integers 0..7461, one per distinct five-card hand class: higher beats lower,
equal is a tie (kickers respected, A-2-3-4-5 the lowest straight). ``category`` maps them to
0 (high card) .. 8 (straight flush), 9 (royal flush).

>>> from events.game.cards import parse_cards
>>> hand = evaluate_hand(["As", "Ks", "Qs", "Js", "Ts", "2d", "2c"])
>>> hand.category, hand.name
(9, 'Royal flush')
>>> evaluate_hand("5d4c3h2sAd9c9h").name
'Straight, five high'
>>> evaluate_hand("KhKdQs9c9d3c2h").name
'Two pair, kings and nines, queen kicker'
>>> low, high = evaluate7(np.array([parse_cards("AhAd7c5s4d3h2s"), parse_cards("AhAd7c5s4dKh9s")]))
>>> bool(low > high)  # the wheel beats a pair of aces
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from events.game import _eval_cache
from events.game._eval_tables import (
    FLUSH,
    FULL_HOUSE,
    HI_BITS,
    HIGH_CARD,
    LO_BITS,
    PAIR,
    QUADS,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    SUIT_BITS,
    SUIT_SHIFT,
    TRIPS,
    TWO_PAIR,
    best_flush,
    best_nonflush,
)
from events.game.cards import RANK_NAMES, RANK_PLURALS, card_index, card_str, parse_cards

__all__ = [
    "CATEGORY_NAMES", "FLUSH", "FULL_HOUSE", "HIGH_CARD", "PAIR", "QUADS", "ROYAL_FLUSH",
    "STRAIGHT", "STRAIGHT_FLUSH", "TRIPS", "TWO_PAIR", "HandValue", "category", "evaluate5",
    "evaluate7", "evaluate_hand", "seven_card_category_counts",
]

CATEGORY_NAMES = (
    "High card", "Pair", "Two pair", "Three of a kind", "Straight", "Flush", "Full house",
    "Four of a kind", "Straight flush", "Royal flush",
)
IntArray = npt.NDArray[np.integer]
_CHUNK = 1 << 15  # rows per pass: keeps the working set in cache
_LO_MASK = (1 << LO_BITS) - 1
_HI_MASK = (1 << HI_BITS) - 1
_SUIT_MASK = (1 << SUIT_BITS) - 1


def _strengths_from_keys(
    keys: npt.NDArray[np.int64],
    cards_t: npt.NDArray[np.uint8] | None,
    suit_masks: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[np.int16]:
    """Strengths from summed card keys. Flush rows read their suit's ranks from the
    transposed cards ``cards_t`` (k, N), or from ``suit_masks`` (four 16-bit rank masks per
    row) when enumerating. ``mode='clip'`` skips bounds checks the keys cannot fail."""
    t = _eval_cache.tables()
    lo = np.bitwise_and(keys, _LO_MASK)
    hi = np.right_shift(keys, LO_BITS)
    np.bitwise_and(hi, _HI_MASK, out=hi)
    index = np.take(t.lo_row, lo, mode="clip")
    index += np.take(t.hi_col, hi, mode="clip")
    out = np.take(t.nonflush, index, mode="clip")
    np.right_shift(keys, SUIT_SHIFT, out=lo)
    suit = np.take(t.flush_suit, lo, mode="clip")
    rows = np.flatnonzero(suit >= 0)
    if rows.size:
        fs = suit[rows].astype(np.int64)
        if suit_masks is not None:
            mask = (suit_masks[rows] >> (fs * 16)) & 0x1FFF
        else:
            assert cards_t is not None
            sub = cards_t[:, rows].astype(np.int64)
            bits = np.where((sub & 3) == fs, np.left_shift(1, sub >> 2), 0)
            mask = bits.sum(axis=0)
        out[rows] = t.flush[mask]
    return out


@cache
def _pair_keys() -> npt.NDArray[np.int64]:
    """Summed keys of every ordered pair of cards, indexed ``52 * a + b`` (21 KiB: stays
    in L1), so seven cards cost four gathers instead of seven."""
    key = _eval_cache.tables().card_key
    return (key[:, None] + key[None, :]).ravel()


def _summed_keys(cards_t: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """Per-row sums of card keys for card-major (k, n) uint8 cards."""
    pair = _pair_keys()
    width = cards_t.shape[0]
    fifty_two = np.uint16(52)
    summed: npt.NDArray[np.int64] = np.take(pair, cards_t[0] * fifty_two + cards_t[1])
    for i in range(2, width - 1, 2):
        summed += np.take(pair, cards_t[i] * fifty_two + cards_t[i + 1])
    if width % 2:
        summed += np.take(_eval_cache.tables().card_key, cards_t[width - 1])
    return summed


def _evaluate(cards: IntArray, width: int) -> npt.NDArray[np.int32]:
    arr = np.asarray(cards)
    if arr.ndim != 2 or arr.shape[1] != width:
        raise ValueError(f"expected an (N, {width}) array of card indices, got {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() > 51):
        raise ValueError("card indices must be 0..51")
    out = np.empty(arr.shape[0], dtype=np.int32)
    for start in range(0, arr.shape[0], _CHUNK):
        # card-major (k, n) uint8 layout: each card position is one contiguous row
        block_t = np.ascontiguousarray(arr[start : start + _CHUNK].T, dtype=np.uint8)
        out[start : start + _CHUNK] = _strengths_from_keys(_summed_keys(block_t), block_t)
    return out


@cache
def _suit_bits() -> npt.NDArray[np.int64]:
    """Per card, its rank's bit in its suit's 16-bit lane (the enumeration's suit masks)."""
    cards = np.arange(52, dtype=np.int64)
    out: npt.NDArray[np.int64] = np.left_shift(1, 16 * (cards & 3) + (cards >> 2))
    return out


def _part_sums(table: npt.NDArray[np.int64], cards: npt.NDArray[np.int64]
               ) -> npt.NDArray[np.int64]:
    """``table[cards]`` summed over the last axis (a few cards: a gather and an add per
    card, faster than a sum over a short axis)."""
    out = table[cards[..., 0]]
    for i in range(1, cards.shape[-1]):
        out += table[cards[..., i]]
    return out


def evaluate_split(left: IntArray, right: IntArray) -> npt.NDArray[np.int32]:
    """Strengths of every left part (N, Q, a) with every right part (N, K, b) of the same
    row, a + b = 7 (or 5 or 6: the best five of them): (N, Q, K). Distinct cards' key and
    suit masks are the sums of their parts', so each part is summed once, not each of the
    Q x K hands. A left and a right part that share a card give a meaningless strength
    there, never an error."""
    lc, rc = np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64)
    if not 5 <= lc.shape[2] + rc.shape[2] <= 7 or lc.shape[0] != rc.shape[0]:
        raise ValueError("the two parts must make five to seven cards, row by row")
    key, bit = _eval_cache.tables().card_key, _suit_bits()
    n, q, k = lc.shape[0], lc.shape[1], rc.shape[1]
    keys = np.add(_part_sums(key, lc)[:, :, None], _part_sums(key, rc)[:, None, :]).ravel()
    masks = np.add(_part_sums(bit, lc)[:, :, None], _part_sums(bit, rc)[:, None, :]).ravel()
    out = np.empty(keys.size, dtype=np.int32)
    for start in range(0, keys.size, _CHUNK):
        stop = start + _CHUNK
        out[start:stop] = _strengths_from_keys(keys[start:stop], None, masks[start:stop])
    return out.reshape(n, q, k)


def evaluate7(cards: IntArray) -> npt.NDArray[np.int32]:
    """Strengths of the best five of seven cards, for an (N, 7) array of card indices.

    Cards in a row must be distinct (the caller deals them); that is not re-checked here.
    """
    return _evaluate(cards, 7)


def evaluate5(cards: IntArray) -> npt.NDArray[np.int32]:
    """Strengths of (N, 5) five-card hands."""
    return _evaluate(cards, 5)


def evaluate6(cards: IntArray) -> npt.NDArray[np.int32]:
    """Strengths of the best five of six cards."""
    return _evaluate(cards, 6)


def category(strengths: IntArray) -> npt.NDArray[np.int8]:
    """Category 0 (high card) .. 8 (straight flush), 9 (royal flush) of each strength."""
    return _eval_cache.tables().category[np.asarray(strengths)]


@dataclass(frozen=True)
class HandValue:
    """One evaluated hand: its strength, category, a name and the five cards it uses."""

    strength: int
    category: int
    name: str
    best_five: tuple[str, ...]

    def beats(self, other: HandValue) -> bool:
        return self.strength > other.strength


def _name(cls: tuple[int, ...]) -> str:
    cat, ranks = cls[0], cls[1:]
    one = [RANK_NAMES[r] for r in ranks]
    many = [RANK_PLURALS[r] for r in ranks]
    if cat == STRAIGHT_FLUSH and ranks[0] == 12:
        return "Royal flush"
    if cat in (STRAIGHT, STRAIGHT_FLUSH):
        return f"{CATEGORY_NAMES[cat]}, {one[0]} high"
    if cat == FULL_HOUSE:
        return f"Full house, {many[0]} full of {many[1]}"
    if cat == QUADS:
        return f"Four {many[0]}, {one[1]} kicker"
    if cat == TRIPS:
        return f"Three {many[0]}, {one[1]} and {one[2]} kickers"
    if cat == TWO_PAIR:
        return f"Two pair, {many[0]} and {many[1]}, {one[2]} kicker"
    if cat == PAIR:
        return f"Pair of {many[0]}, {', '.join(one[1:])} kickers"
    return f"{CATEGORY_NAMES[cat]}, {one[0]} high"


def _ranks_used(cls: tuple[int, ...]) -> list[tuple[int, int]]:
    """The (rank, how many cards) a five-card class is made of, in reading order."""
    cat, ranks = cls[0], cls[1:]
    if cat in (STRAIGHT, STRAIGHT_FLUSH):
        top = ranks[0]
        return [(12 if r < 0 else r, 1) for r in range(top, top - 5, -1)]
    shape = {
        QUADS: (4, 1), FULL_HOUSE: (3, 2), TRIPS: (3, 1, 1), TWO_PAIR: (2, 2, 1),
        PAIR: (2, 1, 1, 1),
    }.get(cat, (1, 1, 1, 1, 1))
    return list(zip(ranks, shape, strict=True))


@cache
def _strength_of_class() -> dict[tuple[int, ...], int]:
    return {cls: i for i, cls in enumerate(_eval_cache.tables().classes)}


_best_nonflush = cache(best_nonflush)  # 49,205 seven-card rank multisets at most


def _classify(idx: Sequence[int]) -> tuple[tuple[int, ...], list[int]]:
    """The hand's five-card class and the cards it is drawn from (the flush suit's cards
    when there is a flush), straight from rank counts and suits."""
    suits: list[list[int]] = [[], [], [], []]
    counts = [0] * 13
    for c in idx:
        suits[c & 3].append(c)
        counts[c >> 2] += 1
    for suited in suits:
        if len(suited) >= 5:
            return best_flush(sum(1 << (c >> 2) for c in suited)), suited
    return _best_nonflush(tuple(counts)), list(idx)


def strength_of(cards: Sequence[int]) -> int:
    """The strength of one hand of five to seven card indices, by the direct path."""
    return _strength_of_class()[_classify(cards)[0]]


def evaluate_hand(cards: Sequence[int | str] | str) -> HandValue:
    """Evaluate five to seven cards (strings like ``"As"`` or indices) for people.

    This path classifies the hand directly from its rank counts and suits, independently
    of the batch evaluator's packed keys and lookup tables, so each checks the other.
    """
    if isinstance(cards, str):
        idx = list(parse_cards(cards))
    else:
        idx = [c if isinstance(c, int) else card_index(c) for c in cards]
    if not 5 <= len(idx) <= 7 or len(set(idx)) != len(idx) or not all(
        0 <= c < 52 for c in idx
    ):
        raise ValueError("a hand is five to seven distinct cards")
    cls, pool = _classify(idx)
    used: list[int] = []
    for rank, n in _ranks_used(cls):
        used += sorted((c for c in pool if c >> 2 == rank), key=lambda c: -(c & 3))[:n]
    strength = _strength_of_class()[cls]
    return HandValue(
        strength=strength,
        category=int(_eval_cache.tables().category[strength]),
        name=_name(cls),
        best_five=tuple(card_str(c) for c in used),
    )


def seven_card_category_counts() -> tuple[int, ...]:
    """How many of the 133,784,560 seven-card hands fall in each category 0..9.

    Enumerated by this evaluator (a few seconds) and cached on disk beside the tables.
    """
    return _eval_cache.seven_card_category_counts()
