"""What a decision is worth, in antes, under given dealer cards: vectorized over decisions,
dealer holdings and board completions.

A decision on street s (0 preflop, 1 flop, 2 river) chooses between raising ``m`` times
the ante and checking (folding on the river). Its *raise-minus-check* value

    D = V(raise m) - V(check)

counts ante, blind and play (Trips does not depend on a decision). After a check the
player is assumed to go on by a fixed rule that uses only what the player may see: on the
flop the practical strategy's flop rule, on the river "raise with a hidden pair or better"
(cheap, and any rule of the player's legal information keeps the statistic's null mean at
zero, see ``events.protection.scoring``).

Unseen board cards are averaged over ``K`` completions drawn once per decision from the
cards the player has not seen, and shared by every dealer holding the decision is valued
for: a completion that collides with a holding is left out of that holding's average
(conditioning a uniform draw on not colliding leaves it uniform, so the average stays
exact in expectation). With one dealer card ``x`` known, each completion also carries a
second dealer card ``y`` drawn beside it. On the river the board is complete: ``D`` with
both dealer cards known is exact, and with one known it is the exact mean over the 44 or
45 possible second cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from events.evaluation import category, evaluate7
from events.strategy import flop_raise_batch, hidden_pair_or_better_batch

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
VISIBLE = (0, 3, 5)  # board cards the player has seen at each street's decision
MAX_MULTIPLE = (4, 2, 1)
STRAIGHT = 4
_PLACEHOLDER = np.arange(7)  # seven distinct cards, evaluated in place of a collision
# the blind table of every seed (royal, straight flush, quads, full house, flush, straight)
BLIND_PAYS = np.array([0, 0, 0, 0, 1, 1.5, 3, 10, 50, 500], dtype=np.float64)


def unseen_cards(seen: IntArray) -> IntArray:
    """The cards not in each row of ``seen`` (N, k), in index order: (N, 52 - k)."""
    mask = np.zeros((len(seen), 52), dtype=np.bool_)
    np.put_along_axis(mask, seen.astype(np.int64), True, axis=1)
    order = np.argsort(mask, axis=1, kind="stable")
    out: IntArray = order[:, : 52 - seen.shape[1]].astype(np.int64)
    return out


@dataclass(frozen=True)
class Completions:
    """K board completions per decision, with the player's side of each evaluated."""

    board: IntArray  # (N, K, 5): visible cards, then drawn ones
    drawn: IntArray  # (N, K, t): the drawn cards only (t = 5 - visible)
    extra: IntArray  # (N, K): a second dealer card, for the one-card value
    ps: IntArray  # (N, K) player strength
    blind: FloatArray  # (N, K) blind pay when the player wins
    flop_raise: BoolArray  # (N, K) the continuation's flop raise (street 0 only)
    river_raise: BoolArray  # (N, K) the continuation's river call


def completions(rng: np.random.Generator, street: int, hole: IntArray, board: IntArray,
                k: int) -> Completions:
    """``k`` completions of each decision's board (``board`` holds at least the visible
    cards in its first columns). On the river every unseen card is one ``extra``."""
    n, vis = len(hole), VISIBLE[street]
    seen = np.concatenate([hole, board[:, :vis]], axis=1)
    pool = unseen_cards(seen)  # (N, U)
    t = 5 - vis
    if t == 0:
        k = pool.shape[1]
        picks = np.arange(k)[None, :, None].repeat(n, axis=0)
    else:
        keys = rng.random((n, k, pool.shape[1]))
        picks = np.argpartition(keys, t, axis=2)[:, :, : t + 1]
    cards = pool[np.arange(n)[:, None, None], picks]
    drawn, extra = cards[:, :, :t], cards[:, :, t]
    full = np.concatenate([np.repeat(board[:, None, :vis], k, axis=1), drawn], axis=2)
    if t == 0:  # one board: evaluate the player's side once
        ps1 = evaluate7(np.concatenate([hole, board[:, :5]], axis=1)).astype(np.int64)
        ps = np.repeat(ps1[:, None], k, axis=1)
    else:
        seven = np.concatenate([np.repeat(hole[:, None, :], k, axis=1), full], axis=2)
        ps = evaluate7(seven.reshape(-1, 7)).astype(np.int64).reshape(n, k)
    blind = np.where(category(ps) >= STRAIGHT, BLIND_PAYS[category(ps)], 0.0)
    flop_r = np.zeros((n, k), dtype=np.bool_)
    river_r = np.zeros((n, k), dtype=np.bool_)
    if street < 2:
        holes = np.repeat(hole, k, axis=0)
        flat = full.reshape(-1, 5)
        river_r = hidden_pair_or_better_batch(holes, flat).reshape(n, k)
        if street == 0:
            flop_r = flop_raise_batch(holes, flat[:, :3]).reshape(n, k)
    return Completions(full, drawn, extra, ps, blind, flop_r, river_r)


def _outcome(m: float | FloatArray, win: BoolArray, lose: BoolArray, dq: FloatArray,
             blind: FloatArray) -> FloatArray:
    """Net of ante, blind and a play wager of ``m`` antes."""
    out: FloatArray = win * (m + dq + blind) - lose * (m + dq + 1.0)
    return out


def raise_minus_check(street: int, multiple: IntArray, comp: Completions, ds: IntArray
                      ) -> FloatArray:
    """``D`` per (decision, holding, completion) given the dealer strengths ``ds``
    (N, Q, K); ``multiple`` (N,) is the raise valued (its street's largest for a check)."""
    ps = comp.ps[:, None, :]
    win, lose = ps > ds, ps < ds
    dq = (category(ds) >= 1).astype(np.float64)
    blind = comp.blind[:, None, :]
    raised = _outcome(multiple[:, None, None].astype(np.float64), win, lose, dq, blind)
    if street == 2:
        return raised + 2.0
    call = np.where(comp.river_raise[:, None, :], _outcome(1.0, win, lose, dq, blind), -2.0)
    if street == 0:
        call = np.where(comp.flop_raise[:, None, :], _outcome(2.0, win, lose, dq, blind), call)
    out: FloatArray = raised - call
    return out


def _mean_valid(d: FloatArray, valid: BoolArray) -> FloatArray:
    """Mean over completions of the valid ones (all of them when none is)."""
    count = valid.sum(axis=2)
    total = np.where(valid, d, 0.0).sum(axis=2)
    out: FloatArray = np.where(count > 0, total / np.maximum(count, 1), d.mean(axis=2))
    return out


def value_both(street: int, multiple: IntArray, comp: Completions, holdings: IntArray
               ) -> FloatArray:
    """Mean ``D`` with both dealer cards known, for each of Q holdings (N, Q, 2): (N, Q)."""
    n, q = holdings.shape[:2]
    if street == 2:  # the river: one board, exact
        comp = Completions(comp.board[:, :1], comp.drawn[:, :1], comp.extra[:, :1],
                           comp.ps[:, :1], comp.blind[:, :1], comp.flop_raise[:, :1],
                           comp.river_raise[:, :1])
    k = comp.board.shape[1]
    seven = np.concatenate([np.broadcast_to(holdings[:, :, None, :], (n, q, k, 2)),
                            np.broadcast_to(comp.board[:, None], (n, q, k, 5))], axis=3)
    if street == 2:
        ds = evaluate7(seven.reshape(-1, 7)).astype(np.int64).reshape(n, q, k)
        return raise_minus_check(street, multiple, comp, ds)[:, :, 0]
    drawn = comp.drawn[:, None, :, :, None]  # (N, 1, K, t, 1)
    hits = (drawn == holdings[:, :, None, None, :]).any(axis=(3, 4))
    seven[hits] = _PLACEHOLDER  # a colliding row is left out; evaluate distinct cards
    ds = evaluate7(seven.reshape(-1, 7)).astype(np.int64).reshape(n, q, k)
    return _mean_valid(raise_minus_check(street, multiple, comp, ds), ~hits)


def value_one(street: int, multiple: IntArray, comp: Completions, seen: IntArray
              ) -> FloatArray:
    """Mean ``D`` with one dealer card known, for each of P such cards (N, P): (N, P)."""
    n, p = seen.shape
    k = comp.board.shape[1]
    dealer = np.stack([np.broadcast_to(seen[:, :, None], (n, p, k)),
                       np.broadcast_to(comp.extra[:, None, :], (n, p, k))], axis=3)
    seven = np.concatenate([dealer, np.broadcast_to(comp.board[:, None], (n, p, k, 5))],
                           axis=3)
    hits = comp.extra[:, None, :] == seen[:, :, None]
    if comp.drawn.shape[2]:
        hits |= (comp.drawn[:, None, :, :] == seen[:, :, None, None]).any(axis=3)
    seven[hits] = _PLACEHOLDER
    ds = evaluate7(seven.reshape(-1, 7)).astype(np.int64).reshape(n, p, k)
    return _mean_valid(raise_minus_check(street, multiple, comp, ds), ~hits)
