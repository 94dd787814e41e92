"""The hidden-information gain of each seat-hand, and its moments under honest play.

For a decision with chosen action c and the other action a, and any dealer cards H,

    f(H) = V_H(c) - V_H(a)       (what choosing c was worth, the dealer's cards known)

(``values``: V is the mean over the unseen board cards). A player's *observation* O is
their hole cards and the board they had seen at their last decision of the hand. Honest
play chooses from O (and chance) alone, and given O the dealer's cards are a uniform draw
from the cards O leaves; so given O the actual holding H is exchangeable with holdings H'
drawn the same way, and the hand's total T(H) = sum of f(H) over its decisions is
distributed like T(H'). The hand's gain is

    g = T(H) - mean of T(H'_1..H'_M)

(the value of the decisions with the hidden cards known, minus the same from legal
information: the mean over holdings the player could not tell apart), with conditional
mean 0 and variance var(T(H'))(1 + 1/M) whatever the player's skill or style. A player who
sees the dealer's cards chooses c where f(H) is large: their gains keep growing.

Three versions of T: both dealer cards known (``both``), or only the first (``one_a``) or
the second (``one_b``) of the two the table dealt, each against its own null draws (the
same M holdings; one card of each for the one-card versions).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from events.protection.draws import KeyedDraws
from events.protection.values import (
    MAX_MULTIPLE,
    VISIBLE,
    Completions,
    completions,
    one_card_strengths,
    unseen_cards,
    value_both,
    value_one,
)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
NULL_HOLDINGS = 9  # M: holdings drawn per seat-hand for the null moments
COMPLETIONS = (40, 12, 1)  # K per street (the river's board is complete: exact)
HOLDINGS_CHUNK = 65_536  # seat-hands whose null holdings are drawn at once
CHUNK = 384  # decisions per vectorized pass (bounds the (N, Q, K, 7) working set)
HOLDINGS_STREAM = 1  # the keyed draws' streams: the null holdings, then one per street
COMPLETIONS_STREAM = 2


@dataclass(frozen=True)
class Decisions:
    """Decisions to score: each with its seat-hand, street, and raise multiple (0 for a
    check or fold)."""

    hand: IntArray  # (N,) index of the seat-hand
    street: IntArray  # (N,) 0 preflop, 1 flop, 2 river
    multiple: IntArray  # (N,)


@dataclass(frozen=True)
class Gains:
    """Per seat-hand: gains and null variances of the three versions; per decision: the
    legal-information value of raising over checking (antes)."""

    both: FloatArray
    var_both: FloatArray
    one_a: FloatArray
    one_b: FloatArray
    var_one: FloatArray
    legal_value: FloatArray  # (N,) E[V(raise m) - V(check) | O], m as in ``values``
    # (N,) E[V(raise the street's largest multiple) - V(check) | O]: legal_value except
    # after a smaller raise (3x preflop), valued on the same draws
    legal_max: FloatArray
    # the sign test of informative decisions, per seat-hand (H, 12), column street * 3 +
    # version (both, first, second): [the decision was the right one with the hidden
    # card(s) known] minus its chance under honest play, and that chance's variance; the
    # last three columns (street 3): the hand's decisions on every street together, the
    # count of right ones minus its mean over the null holdings, and that count's
    # variance over them (a hand's streets share the dealer's cards: their signs are not
    # independent, so the hand's count is standardized as one)
    signs: FloatArray | None = None
    sign_var: FloatArray | None = None


SIGN_TESTS = 12  # streets x versions, then every street together x versions


def _right(f: FloatArray) -> FloatArray:
    """1 where a decision's worth is positive (it was the right choice), 1/2 at a tie."""
    out: FloatArray = (f > 0) + 0.5 * (f == 0)
    return out


def _sign_test(f_actual: FloatArray, f_null: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Per decision: right(actual) - the share of null holdings where the same choice was
    right (its expectation under honest play: given what the player saw, the actual
    holding is one more draw like the nulls), and the variance of that difference,
    estimated without bias from the m nulls: q(1 - q)(1 + 1/m), with E[q'(1 - q')] =
    q(1 - q)(1 - 1/m). A decision every holding agrees on (q 0 or 1) weighs nothing: the
    test is carried by the informative decisions."""
    m = f_null.shape[1]
    q = _right(f_null).mean(axis=1)
    return _right(f_actual) - q, q * (1 - q) * (1 + 1 / m) / (1 - 1 / m)


def null_holdings(rng: np.random.Generator | KeyedDraws, hole: IntArray, board: IntArray,
                  visible: IntArray, dealer: IntArray, m: int, stream: int = HOLDINGS_STREAM
                  ) -> IntArray:
    """(H, m + 1, 2): the actual dealer cards, then m holdings drawn uniformly from the
    cards each seat-hand's observation leaves (with :class:`KeyedDraws`, from each
    seat-hand's own key and ``stream``)."""
    out = np.empty((len(hole), m + 1, 2), dtype=np.int64)
    out[:, 0] = dealer
    for v in np.unique(visible).tolist():
        seat_hands = np.flatnonzero(visible == v)
        # a slice at a time: the draws' keys take m * 52 floats a seat-hand, which for a
        # whole floor's seat-hands at once would not fit in memory (the same draws: the
        # generator fills the keys in order whatever the slices)
        for lo in range(0, len(seat_hands), HOLDINGS_CHUNK):
            rows = seat_hands[lo:lo + HOLDINGS_CHUNK]
            pool = unseen_cards(np.concatenate([hole[rows], board[rows, :v]], axis=1))
            if isinstance(rng, KeyedDraws):
                picks = rng.rows(rows).distinct(stream, (m,), 2, pool.shape[1])
            else:
                keys = rng.random((len(rows), m, pool.shape[1]))
                picks = np.argpartition(keys, 2, axis=2)[:, :, :2]
            out[rows, 1:] = pool[np.arange(len(rows))[:, None, None], picks]
    return out


def score(rng: np.random.Generator | KeyedDraws, hole: IntArray, board: IntArray, dealer: IntArray,
          decisions: Decisions, m: int = NULL_HOLDINGS,
          ks: tuple[int, int, int] = COMPLETIONS) -> Gains:
    """The gains of H seat-hands (hole (H, 2), board (H, 5) in deal order, dealer (H, 2))
    from their decisions. ``rng``: one generator for all, or :class:`KeyedDraws` with a
    key per seat-hand (the draws of each seat-hand its own: ``draws``)."""
    h = len(hole)
    visible = np.zeros(h, dtype=np.int64)
    if len(decisions.hand):
        np.maximum.at(visible, decisions.hand, np.asarray(VISIBLE)[decisions.street])
    holdings = null_holdings(rng, hole, board, visible, dealer, m)
    seen = np.concatenate([holdings[:, :1, 0], holdings[:, :1, 1], holdings[:, 1:, 0]], axis=1)
    t_both = np.zeros((h, m + 1))
    t_one = np.zeros((h, m + 2))
    signs = np.zeros((h, SIGN_TESTS))
    sign_var = np.zeros((h, SIGN_TESTS))
    r_both = np.zeros((h, m + 1))  # right decisions per hand, actual then null holdings
    r_one = np.zeros((h, m + 2))
    legal = np.zeros(len(decisions.hand))
    legal_max = np.zeros(len(decisions.hand))
    for street in range(3):
        idx = np.flatnonzero(decisions.street == street)
        for lo in range(0, len(idx), CHUNK):
            part = idx[lo:lo + CHUNK]
            sh = decisions.hand[part]
            chosen = decisions.multiple[part]
            valued = np.where(chosen > 0, chosen, MAX_MULTIPLE[street])
            sign = np.where(chosen > 0, 1.0, -1.0)
            strengths = None
            if street == 0 and isinstance(rng, KeyedDraws):  # the hole cards' own
                pairs = hole_pair(hole[sh])
                comp, one_card = preflop_completions(ks[0], pairs)
                strengths = one_card[pairs[:, None], seen[sh]]
            else:
                draws = rng.rows(sh) if isinstance(rng, KeyedDraws) else rng
                comp = completions(draws, street, hole[sh], board[sh], ks[street],
                                   COMPLETIONS_STREAM + street)
            f_both = sign[:, None] * value_both(street, valued, comp, holdings[sh])
            f_one = sign[:, None] * value_one(street, valued, comp, seen[sh], strengths)
            np.add.at(t_both, sh, f_both)
            np.add.at(t_one, sh, f_one)
            np.add.at(r_both, sh, _right(f_both))
            np.add.at(r_one, sh, _right(f_one))
            col = 3 * street
            for v, (actual, null) in enumerate(((f_both[:, 0], f_both[:, 1:]),
                                                (f_one[:, 0], f_one[:, 2:]),
                                                (f_one[:, 1], f_one[:, 2:]))):
                x, var = _sign_test(actual, null)
                np.add.at(signs[:, col + v], sh, x)
                np.add.at(sign_var[:, col + v], sh, var)
            legal[part] = sign * f_both[:, 1:].mean(axis=1)
            legal_max[part] = legal[part]
            smaller = np.flatnonzero(valued != MAX_MULTIPLE[street])
            if smaller.size:  # what the largest raise was worth instead (no new draws)
                largest = np.full(smaller.size, MAX_MULTIPLE[street], dtype=np.int64)
                d_max = value_both(street, largest, _rows(comp, smaller), holdings[sh[smaller]])
                legal_max[part[smaller]] = d_max[:, 1:].mean(axis=1)
    inflate = 1.0 + 1.0 / m
    every = 3 * 3  # the columns of every street together
    for v, (actual, null) in enumerate(((r_both[:, 0], r_both[:, 1:]),
                                        (r_one[:, 0], r_one[:, 2:]),
                                        (r_one[:, 1], r_one[:, 2:]))):
        signs[:, every + v] = actual - null.mean(axis=1)
        sign_var[:, every + v] = null.var(axis=1, ddof=1) * inflate
    null_one = t_one[:, 2:]
    mean_one = null_one.mean(axis=1)
    return Gains(
        both=t_both[:, 0] - t_both[:, 1:].mean(axis=1),
        var_both=t_both[:, 1:].var(axis=1, ddof=1) * inflate,
        one_a=t_one[:, 0] - mean_one,
        one_b=t_one[:, 1] - mean_one,
        var_one=null_one.var(axis=1, ddof=1) * inflate,
        legal_value=legal,
        legal_max=legal_max,
        signs=signs,
        sign_var=sign_var,
    )


_PAIRS = np.stack(np.triu_indices(52, 1), axis=1).astype(np.int64)  # the 1,326 hole pairs
_PAIR_INDEX = np.full((52, 52), -1, dtype=np.int64)
_PAIR_INDEX[_PAIRS[:, 0], _PAIRS[:, 1]] = _PAIR_INDEX[_PAIRS[:, 1], _PAIRS[:, 0]] = np.arange(
    len(_PAIRS))


def hole_pair(hole: IntArray) -> IntArray:
    """Each row's two hole cards (N, 2) as the index of their pair, in either order."""
    out: IntArray = _PAIR_INDEX[hole[:, 0], hole[:, 1]]
    return out


def preflop_completions(k: int, pairs: IntArray
                        ) -> tuple[Completions, npt.NDArray[np.int32]]:
    """``k`` preflop completions of each hole pair of ``pairs`` (indices of the 1,326, one
    per decision), with the player's side evaluated once (strength, blind pay, the
    continuation's flop raise and river call); and the dealer's strength with each of the
    52 cards as the one he shows on each completion, per pair (1326, 52, k; the rows of the
    pairs asked for so far hold it): a preflop decision's one-card values read them,
    evaluated once a process rather than 11 x k times a decision.

    Before the flop a player's observation is their two cards alone, so the completions a
    preflop decision is valued on are drawn per pair of hole cards (from the pair's own
    key), not per seat-hand: every seat-hand holding the pair shares them, and they are
    worked out once a process, when the pair first comes (at most 53,000 boards instead
    of 40 a seat-hand; a small load works out the pairs it deals only). They do not
    depend on the dealer's cards, so a hand's gain keeps its null mean and variance given
    them; nor on the hands scored with it, or the slices and loads they came in."""
    table = _preflop_table(k)
    table.fill(pairs)
    assert table.comp is not None and table.one_card is not None
    return _rows(table.comp, pairs), table.one_card


class _PreflopTable:
    """The preflop completions of the hole pairs worked out so far (each pair's row is
    a function of its own key alone: the same whichever pairs are worked out with it)."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.done = np.zeros(len(_PAIRS), dtype=np.bool_)
        self.comp: Completions | None = None
        self.one_card: npt.NDArray[np.int32] | None = None

    def fill(self, pairs: IntArray) -> None:
        new = np.unique(pairs[~self.done[pairs]])
        if not new.size:
            return
        keys = np.array([int.from_bytes(hashlib.blake2b(f"preflop\x1f{a}\x1f{b}".encode(),
                                                        digest_size=8).digest(), "little")
                         for a, b in _PAIRS[new].tolist()], dtype=np.uint64)
        comp = completions(KeyedDraws(keys), 0, _PAIRS[new], np.zeros((len(new), 5), np.int64),
                           self.k, COMPLETIONS_STREAM)
        every = np.broadcast_to(np.arange(52, dtype=np.int64), (len(new), 52))
        one_card = one_card_strengths(comp, every)
        if self.comp is None or self.one_card is None:
            self.comp = Completions(*(np.zeros((len(_PAIRS), *part.shape[1:]), part.dtype)
                                      for part in _parts(comp)))
            self.one_card = np.zeros((len(_PAIRS), *one_card.shape[1:]), one_card.dtype)
        for whole, part in zip(_parts(self.comp), _parts(comp), strict=True):
            whole[new] = part
        self.one_card[new] = one_card
        self.done[new] = True


@cache
def _preflop_table(k: int) -> _PreflopTable:
    return _PreflopTable(k)


def _parts(comp: Completions) -> list[npt.NDArray[Any]]:
    return [getattr(comp, f.name) for f in fields(Completions)]


def _rows(comp: Completions, rows: IntArray) -> Completions:
    """The completions of some of a chunk's decisions."""
    return Completions(*(part[rows] for part in _parts(comp)))
