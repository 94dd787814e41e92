"""Decision values against the engine's settlement and strategy, computed independently:
exact on the river (both dealer cards, or the mean over the second card), within Monte
Carlo error on the flop; and players: pseudonyms or seat sessions ended by a gap."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from events.game.evaluation import category, evaluate5, evaluate6, evaluate7, evaluate_split
from events.game.rulesets import load_ruleset
from events.game.settlement import settle_batch
from events.protection.scoring import _parts, _PreflopTable
from events.protection.values import completions, unseen_cards, value_both, value_one

RS = load_ruleset("charlevoix-2011")
ANTE = 200  # blind pays 3:2 without rounding


def _net(hole: np.ndarray, board: np.ndarray, dealer: np.ndarray, play: int) -> np.ndarray:
    """Ante + blind + play in antes, by ``settle_batch`` (a fold when ``play`` is 0)."""
    ps = evaluate7(np.concatenate([hole, board], axis=1))
    ds = evaluate7(np.concatenate([dealer, board], axis=1))
    out = settle_batch(RS, ANTE, play * ANTE, 0, play == 0, ps, category(ps), ds, category(ds))
    return sum(out[s][1] for s in ("ante", "blind", "play")) / ANTE


def _deals(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    deck = np.argsort(np.random.default_rng(seed).random((n, 52)), axis=1)
    return deck[:, :2], deck[:, 2:7], deck[:, 7:9]


def test_river_value_with_both_cards_is_the_settlement() -> None:
    hole, board, dealer = _deals(400, 1)
    comp = completions(np.random.default_rng(0), 2, hole, board, 1)
    got = value_both(2, np.ones(400, np.int64), comp, dealer[:, None, :])[:, 0]
    want = _net(hole, board, dealer, 1) - _net(hole, board, dealer, 0)
    assert np.array_equal(got, want) and len(set(got.tolist())) > 3


def test_river_value_with_one_card_is_the_mean_over_the_other() -> None:
    hole, board, dealer = _deals(30, 2)
    comp = completions(np.random.default_rng(0), 2, hole, board, 1)
    got = value_one(2, np.ones(30, np.int64), comp, dealer[:, :1])[:, 0]
    for i in range(30):
        pool = unseen_cards(np.concatenate([hole[i:i + 1], board[i:i + 1]], axis=1))[0]
        others = [c for c in pool.tolist() if c != dealer[i, 0]]
        assert len(others) == 44
        pairs = np.array([[dealer[i, 0], c] for c in others])
        h, b = np.repeat(hole[i:i + 1], 44, axis=0), np.repeat(board[i:i + 1], 44, axis=0)
        want = (_net(h, b, pairs, 1) - _net(h, b, pairs, 0)).mean()
        assert got[i] == pytest.approx(want, abs=1e-12)


def _calls(hole: np.ndarray, board: np.ndarray) -> np.ndarray:
    """The continuation's river call: the hole cards raise the board's category, or play
    in a straight or better of the board's category."""
    ps, bs = evaluate7(np.concatenate([hole, board], axis=1)), evaluate5(board)
    pc, bc = category(ps), category(bs)
    return (pc > bc) | ((pc == bc) & (pc >= 4) & (ps > bs))


def test_split_evaluation_is_the_seven_card_evaluation() -> None:
    deck = np.argsort(np.random.default_rng(8).random((5000, 52)), axis=1)
    want = evaluate7(deck[:, :7])
    for cut in (1, 2):
        got = evaluate_split(deck[:, None, :cut], deck[:, None, cut:7])[:, 0, 0]
        assert np.array_equal(got, want)
    assert (category(want) >= 5).sum() > 100  # flushes and better were among them


def test_flop_value_is_the_mean_over_turn_and_river() -> None:
    """Raise 2x against check-then-(call by the continuation's rule, else fold), both
    dealer cards known: the Monte Carlo mean within 4 standard errors of the exact mean
    over all 990 turn and river cards."""
    hole, board, dealer = _deals(6, 3)
    k = 3000
    comp = completions(np.random.default_rng(5), 1, hole, board, k)
    got = value_both(1, np.full(6, 2, np.int64), comp, dealer[:, None, :])[:, 0]
    for i in range(6):
        seen = np.concatenate([hole[i], board[i, :3], dealer[i]])
        rest = [c for c in range(52) if c not in set(seen.tolist())]
        boards = np.array([[*board[i, :3], t, r] for t, r in combinations(rest, 2)])
        n = len(boards)
        h, d = np.repeat(hole[i:i + 1], n, axis=0), np.repeat(dealer[i:i + 1], n, axis=0)
        calls = _calls(h, boards)
        check = np.where(calls, _net(h, boards, d, 1), _net(h, boards, d, 0))
        diff = _net(h, boards, d, 2) - check
        assert n == 990
        assert abs(got[i] - diff.mean()) < 4 * diff.std() / np.sqrt(k) + 1e-9, i


def test_split_evaluation_of_five_and_six_cards() -> None:
    """A board's part summed once with each card beside it (``dealer_outs_batch``) is the
    six-card evaluation, flushes included; five cards alike."""
    deck = np.argsort(np.random.default_rng(9).random((5000, 52)), axis=1)
    six = evaluate_split(deck[:, None, :5], deck[:, 5:9, None])
    for j in range(4):
        want = evaluate6(np.concatenate([deck[:, :5], deck[:, 5 + j:6 + j]], axis=1))
        assert np.array_equal(six[:, 0, j], want)
    assert np.array_equal(evaluate_split(deck[:, None, :2], deck[:, None, 2:5])[:, 0, 0],
                          evaluate5(deck[:, :5]))
    assert (category(evaluate6(deck[:, :6])) >= 5).sum() > 100  # flushes among them


def test_preflop_completions_of_some_pairs_are_their_rows_of_all() -> None:
    """A pair's preflop completions are worked out when it first comes: the same rows
    whichever pairs came with it or before it (a small load's, a whole floor's)."""
    whole = _PreflopTable(3)
    whole.fill(np.arange(1326))
    parts = _PreflopTable(3)
    rng = np.random.default_rng(10)
    order = rng.permutation(1326)
    for lo, hi in ((0, 7), (7, 300), (300, 1326)):
        parts.fill(np.concatenate([order[lo:hi], order[:lo:5]]))  # some asked again
    assert whole.comp is not None and parts.comp is not None
    assert parts.done.all()
    for a, b in zip(_parts(whole.comp), _parts(parts.comp), strict=True):
        assert np.array_equal(a, b)
    assert np.array_equal(whole.one_card, parts.one_card)
