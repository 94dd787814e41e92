"""Basic strategy: the Wizard of Odds practical strategy, and an exact river decision.

Preflop, raise 4x with 3-3 or better (any pair but deuces), any ace, any suited king,
K-5 offsuit or better, Q-6 suited / Q-8 offsuit or better, J-8 suited / J-T offsuit or
better; else check (500 of the 1,326 starting hands).

Flop, raise 2x with two pair or better that uses a hole card ("hidden"), a hidden pair
(a hole card paired) except pocket deuces, or four to a flush with a hole card of that suit
ten or better; else check.

River, raise 1x with a hidden pair or better, or when the dealer has fewer than 21 "outs":
unseen cards that, with the board, give the dealer a hand beating the player's; else fold.

A hand is "hidden pair or better" when the hole cards improve on what the board alone
shows: a higher category than the board's (and at least a pair), or in the same
category a better made hand (a different two pair; a higher straight, flush, full house or
straight flush), not merely a better kicker.

>>> preflop_raise(["Ks", "5d"]), preflop_raise("Ks4d"), preflop_raise("2c2d")
(True, False, False)
>>> flop_raise("Th4c", "KhQh2h"), flop_raise("9h4c", "KhQh2h")
(True, False)
>>> dealer_outs("Td3c", "AsQh8d6c4s"), river_raise("Td3c", "AsQh8d6c4s")
(23, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from events.game.cards import parse_cards
from events.game.evaluation import category, evaluate5, evaluate7, evaluate_split
from events.game.rulesets import Ruleset
from events.game.settlement import SPOTS, settle_batch

Cards = Sequence[int | str] | str
IntArray = npt.NDArray[np.integer]
BoolArray = npt.NDArray[np.bool_]
OUTS_THRESHOLD = 21
TEN = 8  # rank index of the ten


def _cards(cards: Cards, n: int) -> npt.NDArray[np.int64]:
    if isinstance(cards, str):
        idx = parse_cards(cards)
    else:
        idx = tuple(parse_cards([c])[0] if isinstance(c, str) else int(c) for c in cards)
    if len(idx) != n:
        raise ValueError(f"expected {n} cards, got {len(idx)}")
    if len(set(idx)) != n:
        raise ValueError("a card is listed twice")
    return np.array([idx], dtype=np.int64)


# ------------------------------------------------------------------------ preflop


def _preflop_rule(hi: int, lo: int, suited: bool) -> bool:
    if hi == lo:
        return hi >= 1  # 3-3 and up
    if hi == 12:
        return True  # any ace
    if hi == 11:
        return suited or lo >= 3  # any suited king, K-5 offsuit and up
    if hi == 10:
        return lo >= (4 if suited else 6)  # Q-6 suited, Q-8 offsuit
    if hi == 9:
        return lo >= (6 if suited else 8)  # J-8 suited, J-T offsuit
    return False


@cache
def preflop_table() -> BoolArray:
    """(52, 52) lookup: ``table[a, b]`` is True when hole cards a, b raise 4x preflop."""
    table = np.zeros((52, 52), dtype=np.bool_)
    for a in range(52):
        for b in range(52):
            if a != b:
                hi, lo = max(a >> 2, b >> 2), min(a >> 2, b >> 2)
                table[a, b] = _preflop_rule(hi, lo, (a & 3) == (b & 3))
    table.setflags(write=False)
    return table


def preflop_raise_batch(hole: IntArray) -> BoolArray:
    """Vectorized :func:`preflop_raise` over an (N, 2) array of hole cards."""
    hole = np.asarray(hole)
    return preflop_table()[hole[:, 0], hole[:, 1]]


def preflop_raise(hole: Cards) -> bool:
    """Raise 4x before the flop?"""
    h = _cards(hole, 2)
    return bool(preflop_table()[h[0, 0], h[0, 1]])


# --------------------------------------------------------------------------- flop


def _rank_counts(cards: IntArray) -> npt.NDArray[np.int64]:
    ranks = np.asarray(cards, dtype=np.int64) >> 2
    counts: npt.NDArray[np.int64] = (ranks[:, :, None] == np.arange(13)).sum(axis=1)
    return counts


def _hidden_paired(hole: IntArray, others: IntArray) -> BoolArray:
    """A hole card's rank appears again among the hole and ``others`` cards."""
    hr = hole >> 2
    orank = others >> 2
    pocket = hr[:, 0] == hr[:, 1]
    with_board = (hr[:, :, None] == orank[:, None, :]).any(axis=(1, 2))
    return np.asarray(pocket | with_board)


def flop_raise_batch(hole: IntArray, flop: IntArray) -> BoolArray:
    """Vectorized :func:`flop_raise` over (N, 2) hole and (N, 3) flop arrays."""
    hole, flop = np.asarray(hole, dtype=np.int64), np.asarray(flop, dtype=np.int64)
    five = np.concatenate([hole, flop], axis=1)
    cat = category(evaluate5(five))
    fr = flop >> 2
    flop_trips = (fr[:, 0] == fr[:, 1]) & (fr[:, 1] == fr[:, 2])
    two_pair_plus = (cat >= 2) & ~((cat == 3) & flop_trips)
    hr = hole >> 2
    pocket_deuces = (hr[:, 0] == 0) & (hr[:, 1] == 0)
    hidden_pair = _hidden_paired(hole, flop) & ~(pocket_deuces & (cat == 1))
    suits = five & 3
    suit_count = (suits[:, :, None] == np.arange(4)).sum(axis=1)  # (N, 4)
    hs = hole & 3
    high_hole = hr >= TEN  # (N, 2)
    four_flush = np.zeros(len(hole), dtype=np.bool_)
    for k in range(2):
        four_flush |= high_hole[:, k] & (np.take_along_axis(suit_count, hs[:, k:k + 1],
                                                            axis=1)[:, 0] >= 4)
    return np.asarray(two_pair_plus | hidden_pair | four_flush)


def flop_raise(hole: Cards, flop: Cards) -> bool:
    """Raise 2x on the flop (having checked preflop)?"""
    return bool(flop_raise_batch(_cards(hole, 2), _cards(flop, 3))[0])


# -------------------------------------------------------------------------- river


def _top_two_pairs(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The two highest ranks with two or more cards, as rank+1 (0 when absent)."""
    paired = np.where(counts >= 2, np.arange(1, 14), 0)
    top = np.sort(paired, axis=1)[:, ::-1]
    return top[:, :2]


def hidden_pair_or_better_batch(hole: IntArray, board: IntArray) -> BoolArray:
    """Do the hole cards make a pair or better beyond what the board shows? (N rows)"""
    hole, board = np.asarray(hole, dtype=np.int64), np.asarray(board, dtype=np.int64)
    seven = np.concatenate([hole, board], axis=1)
    ps, bs = evaluate7(seven), evaluate5(board)
    pc, bc = category(ps), category(bs)
    better_category = (pc > bc) & (pc >= 1)
    same = pc == bc
    made_better = same & np.isin(pc, (4, 5, 6, 8, 9)) & (ps > bs)
    two_pair_changed = same & (pc == 2)
    rows = np.flatnonzero(two_pair_changed)  # the ranks counted where they can matter only
    two_pair_changed[rows] = (_top_two_pairs(_rank_counts(seven[rows]))
                              != _top_two_pairs(_rank_counts(board[rows]))).any(axis=1)
    return np.asarray(better_category | made_better | two_pair_changed)


def _unseen(seen: IntArray) -> npt.NDArray[np.int64]:
    """The 52 - k cards not in each row of ``seen`` (N, k), in index order."""
    mask = np.zeros((len(seen), 52), dtype=np.bool_)
    np.put_along_axis(mask, np.asarray(seen, dtype=np.int64), True, axis=1)
    return np.sort(np.where(mask, 99, np.arange(52)), axis=1)[:, : 52 - seen.shape[1]]


def dealer_outs_batch(hole: IntArray, board: IntArray) -> npt.NDArray[np.int64]:
    """Per row, how many of the 45 unseen cards give the dealer (with the board alone) a
    hand that beats the player's."""
    hole, board = np.asarray(hole, dtype=np.int64), np.asarray(board, dtype=np.int64)
    ps = evaluate7(np.concatenate([hole, board], axis=1))
    unseen = _unseen(np.concatenate([hole, board], axis=1))  # (N, 45)
    # the board with each unseen card: the board's part summed once, not 45 six-card rows
    ds = evaluate_split(board[:, None, :], unseen[:, :, None])[:, 0, :]
    return np.asarray((ds > ps[:, None]).sum(axis=1), dtype=np.int64)


def river_raise_batch(hole: IntArray, board: IntArray) -> BoolArray:
    """Vectorized :func:`river_raise` over (N, 2) hole and (N, 5) board arrays."""
    hidden = hidden_pair_or_better_batch(hole, board)
    out = hidden.copy()
    rest = np.flatnonzero(~hidden)
    if rest.size:
        hole_a, board_a = np.asarray(hole), np.asarray(board)
        out[rest] = dealer_outs_batch(hole_a[rest], board_a[rest]) < OUTS_THRESHOLD
    return out


def dealer_outs(hole: Cards, board: Cards) -> int:
    """Unseen cards that, with the board, give the dealer a hand beating the player's."""
    return int(dealer_outs_batch(_cards(hole, 2), _cards(board, 5))[0])


def hidden_pair_or_better(hole: Cards, board: Cards) -> bool:
    return bool(hidden_pair_or_better_batch(_cards(hole, 2), _cards(board, 5))[0])


def river_raise(hole: Cards, board: Cards) -> bool:
    """Raise 1x on the river (having checked twice)? Otherwise fold."""
    return bool(river_raise_batch(_cards(hole, 2), _cards(board, 5))[0])


# ------------------------------------------------------------------ whole hands


def basic_strategy_multiples(hole: IntArray, board: IntArray) -> npt.NDArray[np.int8]:
    """The play wager of each row, in antes, under the practical strategy: 4 (preflop),
    2 (flop), 1 (river) or 0 (fold). ``board`` is the five community cards in deal order
    (the first three are the flop)."""
    hole, board = np.asarray(hole, dtype=np.int64), np.asarray(board, dtype=np.int64)
    mult = np.zeros(len(hole), dtype=np.int8)
    pre = preflop_raise_batch(hole)
    mult[pre] = 4
    rest = np.flatnonzero(~pre)
    flop = flop_raise_batch(hole[rest], board[rest, :3])
    mult[rest[flop]] = 2
    rest = rest[~flop]
    river = river_raise_batch(hole[rest], board[rest])
    mult[rest[river]] = 1
    return mult


@dataclass(frozen=True)
class RiverDecision:
    """The exact river choice: EVs in antes over the 990 equally likely dealer holdings
    (ante, blind and play; trips does not depend on the decision)."""

    raise_: bool
    ev_raise: float
    ev_fold: float
    wins: int
    ties: int
    losses: int


def river_decision_exact(hole: Cards, board: Cards, ruleset: Ruleset) -> RiverDecision:
    """Raise 1x or fold, by the expected value over every dealer holding.

    >>> from events.game.rulesets import load_ruleset
    >>> d = river_decision_exact("Td3c", "AsQh8d6c4s", load_ruleset("charlevoix-2011"))
    >>> d.raise_, d.wins + d.ties + d.losses, d.ev_fold
    (False, 990, -2.0)
    """
    h, b = _cards(hole, 2), _cards(board, 5)
    if len(set(h[0]) | set(b[0])) != 7:
        raise ValueError("hole and board cards must be seven distinct cards")
    unseen = _unseen(np.concatenate([h, b], axis=1))[0]
    pairs = np.array(list(combinations(unseen.tolist(), 2)), dtype=np.int64)  # 990
    ds = evaluate7(np.concatenate([pairs, np.repeat(b, len(pairs), axis=0)], axis=1))
    ps = int(evaluate7(np.concatenate([h, b], axis=1))[0])
    ante = _exact_ante(ruleset)
    out = settle_batch(ruleset, ante, ante, 0, False, ps, category(np.array([ps]))[0], ds,
                       category(ds))
    total = sum(int(out[s][1].sum()) for s in SPOTS if s != "trips")  # the base game
    ev_raise = total / (ante * len(pairs))
    return RiverDecision(ev_raise > -2.0, ev_raise, -2.0, int((ds < ps).sum()),
                         int((ds == ps).sum()), int((ds > ps).sum()))


def _exact_ante(ruleset: Ruleset) -> int:
    """An ante on which every blind pay is a whole number (no rounding in EVs)."""
    den = 1
    for odds in ruleset.blind_table.values():
        den = den * odds.denominator // np.gcd(den, odds.denominator)
    return int(den)
