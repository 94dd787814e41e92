"""The simulator's advantage players decide from the game's own equities, written apart from
the detector's value model (``events.protection`` is not imported here).

At a decision an advantage player knows their hole cards, the board dealt so far and the
dealer card(s) they saw. They value raising (the street's largest multiple) against
checking by the game's settlement (``events.game.settlement.settle_batch``: ante, blind
and play; Trips does not depend on a decision) over the cards they do not know: every
possibility when there are few (the river, or the flop with both dealer cards), else
``SAMPLES`` random ones. After a check they go on by the game's basic strategy
(``events.game.strategy``): the flop rule, then the river rule, or fold on the river.
They raise when raising is worth more.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from events.game.evaluation import category, evaluate7
from events.game.rulesets import Ruleset, load_ruleset
from events.game.settlement import settle_batch
from events.game.strategy import flop_raise_batch, river_raise_batch

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
VISIBLE = (0, 3, 5)  # board cards seen at each street's decision
LARGEST = (4, 2, 1)  # the street's largest raise, in antes
SAMPLES = 200  # unknown-card draws per decision where enumerating them would be more
EXACT_LIMIT = 1_000  # enumerate the unknown cards when there are at most this many sets
ANTE = 100  # units the settlement is computed in (a 3:2 blind pays whole units)
RULESET = "charlevoix-2011"  # the shipped pay tables (the simulator's default ruleset)


@cache
def _ruleset() -> Ruleset:
    return load_ruleset(RULESET)


def _unseen(known: IntArray) -> IntArray:
    """The cards not in each row of ``known``, in index order."""
    mask = np.ones((len(known), 52), dtype=np.bool_)
    np.put_along_axis(mask, known, False, axis=1)
    return np.nonzero(mask)[1].reshape(len(known), 52 - known.shape[1])


@cache
def _combos(pool: int, k: int) -> IntArray:
    return np.array(list(combinations(range(pool), k)), dtype=np.int64).reshape(-1, k)


def _draws(rng: np.random.Generator, n: int, pool: int, k: int) -> IntArray:
    """(n, S, k) positions in ``range(pool)``, distinct per draw: every set when there are
    at most ``EXACT_LIMIT``, else ``SAMPLES`` random ones per row."""
    if k == 0:
        return np.zeros((n, 1, 0), dtype=np.int64)
    every = _combos(pool, k) if _count(pool, k) <= EXACT_LIMIT else None
    if every is not None:
        return np.broadcast_to(every, (n, *every.shape))
    keys = rng.random((n, SAMPLES, pool))
    return np.argpartition(keys, k, axis=2)[:, :, :k]


def _count(pool: int, k: int) -> int:
    from math import comb

    return comb(pool, k)


def _settled(play: IntArray, folded: BoolArray, ps: IntArray, ds: IntArray) -> FloatArray:
    out = settle_batch(_ruleset(), ANTE, play, 0, folded, ps, category(ps).astype(np.int64),
                       ds, category(ds).astype(np.int64))
    total = out["ante"][1] + out["blind"][1] + out["play"][1]
    return np.asarray(total, dtype=np.float64)


def raise_gain(rng: np.random.Generator, street: int, hole: IntArray, board: IntArray,
               seen: IntArray) -> FloatArray:
    """Per row, E[raise] - E[check, then basic strategy], in units of ``ANTE``, over the
    cards the player does not know. ``seen``: (N, 1) or (N, 2) dealer cards known."""
    n, vis, s = len(hole), VISIBLE[street], seen.shape[1]
    if n == 0:
        return np.zeros(0)
    known = np.concatenate([hole, board[:, :vis], seen], axis=1)
    pool = _unseen(known)
    t = 5 - vis  # board cards to come
    k = t + (2 - s)
    picks = _draws(rng, n, pool.shape[1], k)
    samples = picks.shape[1]
    cards = pool[np.arange(n)[:, None, None], picks]  # (n, S, k)
    full = np.concatenate([np.repeat(board[:, None, :vis], samples, axis=1), cards[:, :, :t]],
                          axis=2)
    dealer = np.concatenate([np.repeat(seen[:, None, :], samples, axis=1), cards[:, :, t:]],
                            axis=2)
    holes = np.repeat(hole[:, None, :], samples, axis=1)
    flat_board = full.reshape(-1, 5)
    flat_hole = holes.reshape(-1, 2)
    ps = evaluate7(np.concatenate([flat_hole, flat_board], axis=1)).astype(np.int64)
    ds = evaluate7(np.concatenate([dealer.reshape(-1, 2), flat_board], axis=1)).astype(np.int64)
    m = n * samples
    up = _settled(np.full(m, LARGEST[street] * ANTE), np.zeros(m, np.bool_), ps, ds)
    # after a check: basic strategy on the streets to come
    play = np.zeros(m, dtype=np.int64)
    if street == 0:
        flop_up = flop_raise_batch(flat_hole, flat_board[:, :3])
        play[flop_up] = 2 * ANTE
    if street < 2:
        rest = play == 0
        river_up = np.zeros(m, dtype=np.bool_)
        river_up[rest] = river_raise_batch(flat_hole[rest], flat_board[rest])
        play[river_up] = ANTE
    check = _settled(play, play == 0, ps, ds)
    out: FloatArray = ((up - check).reshape(n, samples).mean(axis=1)) / ANTE
    return out
