"""What a decision is worth, in antes, under given dealer cards: vectorized over decisions,
dealer holdings and board completions.

A decision on street s (0 preflop, 1 flop, 2 river) chooses between raising ``m`` times
the ante and checking (folding on the river). Its *raise-minus-check* value

    D = V(raise m) - V(check)

counts ante, blind and play (Trips does not depend on a decision). After a check the
player is assumed to go on by a fixed rule that uses only what the player may see: on the
flop the practical strategy's flop rule, on the river :func:`river_call` (cheap, and any
rule of the player's legal information keeps the statistic's null mean at zero, see
``events.protection.scoring``).

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
from typing import Any

import numpy as np
import numpy.typing as npt

from events.game.evaluation import category, evaluate5, evaluate7, evaluate_split
from events.game.strategy import flop_raise_batch
from events.protection.draws import KeyedDraws

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
VISIBLE = (0, 3, 5)  # board cards the player has seen at each street's decision
MAX_MULTIPLE = (4, 2, 1)
STRAIGHT = 4
PAIR_STRENGTH = 1277  # the weakest pair's strength: the dealer qualifies from here
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


def distinct_picks(rng: np.random.Generator, shape: tuple[int, int], m: int, u: int
                   ) -> IntArray:
    """``shape + (m,)`` positions in ``range(u)``, distinct along the last axis and each
    set uniform: independent draws, a row with a repeat drawn again (rejection keeps the
    accepted rows uniform)."""
    out = rng.integers(0, u, size=(*shape, m))
    flat = out.reshape(-1, m)
    bad = np.arange(len(flat))
    while True:
        sub = flat[bad]
        srt = np.sort(sub, axis=1)
        bad = bad[(srt[:, 1:] == srt[:, :-1]).any(axis=1)]
        if not bad.size:
            return out
        flat[bad] = rng.integers(0, u, size=(bad.size, m))


def river_call(ps: IntArray, board: IntArray) -> BoolArray:
    """The continuation's river rule: call when the hole cards improve on the board's own
    hand by a category (a hidden pair or better), or play in a made hand of the same
    category from a straight up; fold otherwise. ``ps`` (N,) the player's strengths,
    ``board`` (N, 5)."""
    bs = evaluate5(board)
    pc, bc = category(ps), category(bs)
    out: BoolArray = (pc > bc) | ((pc == bc) & (pc >= STRAIGHT) & (ps > bs))
    return out


def completions(rng: np.random.Generator | KeyedDraws, street: int, hole: IntArray,
                board: IntArray, k: int, stream: int = 0) -> Completions:
    """``k`` completions of each decision's board (``board`` holds at least the visible
    cards in its first columns). On the river every unseen card is one ``extra``. With
    :class:`KeyedDraws` (one key per decision) each decision's completions are drawn from
    its own key and ``stream``."""
    n, vis = len(hole), VISIBLE[street]
    seen = np.concatenate([hole, board[:, :vis]], axis=1)
    pool = unseen_cards(seen)  # (N, U)
    t = 5 - vis
    if t == 0:
        k = pool.shape[1]
        picks = np.arange(k)[None, :, None].repeat(n, axis=0)
    elif isinstance(rng, KeyedDraws):
        picks = rng.distinct(stream, (k,), t + 1, pool.shape[1])
    else:
        picks = distinct_picks(rng, (n, k), t + 1, pool.shape[1])
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
        river_r = river_call(ps.reshape(-1), flat).reshape(n, k)
        if street == 0:
            flop_r = flop_raise_batch(holes, flat[:, :3]).reshape(n, k)
    return Completions(full, drawn, extra, ps, blind, flop_r, river_r)


def raise_minus_check(street: int, multiple: IntArray, comp: Completions,
                      ds: npt.NDArray[np.integer[Any]]
                      ) -> npt.NDArray[np.floating[Any]]:
    """``D`` per (decision, holding, completion) given the dealer strengths ``ds``
    (N, Q, K); ``multiple`` (N,) is the raise valued (its street's largest for a check).

    Where the check goes on with a play wager of ``c`` antes (2 on the flop, 1 on the
    river), ante, blind and dealer qualification settle alike on both sides and ``D`` is
    ``(m - c)`` won or lost; where it folds (-2 antes) ``D`` is the raise's own result + 2.

    Given a decision and a completion, ``D`` takes one of six values, by the outcome (the
    player loses, ties or wins) and whether the dealer qualifies: they are worked out per
    (decision, completion) and each holding picks its own (one gather), rather than
    computed over every holding. The dealer qualifies with a pair or better (a holding that
    collides with the completion has a meaningless strength, -1, left out of the mean:
    counted as the category table counts it, so that every figure is the same). The
    figures are small multiples of half an ante: exact in single precision, and half the
    memory to go through."""
    f32 = np.float32
    n, k = comp.ps.shape
    m = multiple.astype(f32)[:, None]
    table = np.empty((n, k, 6), dtype=f32)  # by 2 x outcome (lose, tie, win) + qualifies
    blind = (comp.blind + 2.0).astype(f32)
    if street < 2:
        c: npt.NDArray[np.float32] = np.where(comp.river_raise, f32(1.0), f32(0.0))
        if street == 0:
            c = np.where(comp.flop_raise, f32(2.0), c)
        played, gain = c > 0, m - c
    for qualifies in (0, 1):
        a = m + f32(qualifies)
        lose, win = f32(1.0) - a, a + blind
        if street < 2:  # a play wager goes on where the check is followed by a raise
            table[:, :, qualifies] = np.where(played, -gain, lose)
            table[:, :, 2 + qualifies] = np.where(played, f32(0.0), f32(2.0))
            table[:, :, 4 + qualifies] = np.where(played, gain, win)
        else:
            table[:, :, qualifies] = lose
            table[:, :, 2 + qualifies] = f32(2.0)
            table[:, :, 4 + qualifies] = win
    ps = comp.ps[:, None, :].astype(ds.dtype)
    pick = (ps > ds).view(np.uint8) + (ps >= ds).view(np.uint8)
    pick += pick
    pick += ((ds >= PAIR_STRENGTH) | (ds < 0)).view(np.uint8)
    where = (np.arange(n * k, dtype=np.int32) * 6).reshape(n, 1, k) + pick
    out: npt.NDArray[np.float32] = table.reshape(-1).take(where)
    return out.astype(np.float64) if street == 2 else out


def _mean_valid(d: npt.NDArray[np.floating[Any]], valid: BoolArray) -> FloatArray:
    """Mean over completions of the valid ones (all of them when none is). With fewer
    than 256 completions (the scoring's) the count is taken in bytes and the sum in
    ``d``'s own precision: its figures are multiples of half an ante, a few hundred at
    most, so that such a sum is exact in single precision too."""
    if d.shape[2] < 256:
        count = valid.view(np.uint8).sum(axis=2, dtype=np.uint8)
        total = np.where(valid, d, d.dtype.type(0)).sum(axis=2).astype(np.float64)
    else:
        count = valid.sum(axis=2)
        total = np.where(valid, d, d.dtype.type(0)).sum(axis=2, dtype=np.float64)
    out: FloatArray = total / np.maximum(count, 1)
    none = count == 0
    if none.any():
        out[none] = d[none].mean(axis=1, dtype=np.float64)
    return out


def _card_masks(cards: IntArray) -> IntArray:
    """Each row's cards (last axis) as one 52-bit mask."""
    out: IntArray = np.left_shift(np.int64(1), cards[..., 0])
    for i in range(1, cards.shape[-1]):  # a few columns: faster than a sum over them
        out += np.left_shift(np.int64(1), cards[..., i])
    return out


def value_both(street: int, multiple: IntArray, comp: Completions, holdings: IntArray
               ) -> FloatArray:
    """Mean ``D`` with both dealer cards known, for each of Q holdings (N, Q, 2): (N, Q)."""
    if street == 2:  # the river: one board, exact
        comp = Completions(comp.board[:, :1], comp.drawn[:, :1], comp.extra[:, :1],
                           comp.ps[:, :1], comp.blind[:, :1], comp.flop_raise[:, :1],
                           comp.river_raise[:, :1])
    ds = evaluate_split(holdings, comp.board)
    d = raise_minus_check(street, multiple, comp, ds)
    if street == 2:
        out: FloatArray = d[:, :, 0].astype(np.float64)
        return out
    hits = (_card_masks(comp.drawn)[:, None, :] & _card_masks(holdings)[:, :, None]) != 0
    return _mean_valid(d, ~hits)


def one_card_strengths(comp: Completions, seen: IntArray) -> npt.NDArray[np.int32]:
    """The dealer's strength with each seen card (N, P) and each completion's second card
    and board: (N, P, K)."""
    rest = np.concatenate([comp.extra[:, :, None], comp.board], axis=2)  # (N, K, 6)
    return evaluate_split(seen[:, :, None], rest)


def value_one(street: int, multiple: IntArray, comp: Completions, seen: IntArray,
              strengths: npt.NDArray[np.int32] | None = None) -> FloatArray:
    """Mean ``D`` with one dealer card known, for each of P such cards (N, P): (N, P).
    ``strengths``: :func:`one_card_strengths`, when already known."""
    ds = one_card_strengths(comp, seen) if strengths is None else strengths
    d = raise_minus_check(street, multiple, comp, ds)
    taken = _card_masks(np.concatenate([comp.extra[:, :, None], comp.drawn], axis=2))
    hits = (taken[:, None, :] & np.left_shift(np.int64(1), seen)[:, :, None]) != 0
    return _mean_valid(d, ~hits)
