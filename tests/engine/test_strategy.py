"""Practical basic strategy: the 500 preflop raises, flop and river cases worked by hand,
and the exact river decision against a hand-by-hand settlement over 990 dealer holdings."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from events.game.cards import DECK, RANKS
from events.game.evaluation import evaluate_hand
from events.game.rulesets import load_ruleset
from events.game.settlement import Wagers, net, settle
from events.game.strategy import (
    basic_strategy_multiples,
    dealer_outs,
    flop_raise,
    flop_raise_batch,
    hidden_pair_or_better,
    preflop_raise,
    preflop_raise_batch,
    preflop_table,
    river_decision_exact,
    river_raise,
)

ALL_HOLES = list(combinations(range(52), 2))


def test_preflop_raises_exactly_500_of_1326() -> None:
    assert len(ALL_HOLES) == 1326
    raised = [h for h in ALL_HOLES if preflop_raise(list(h))]
    assert len(raised) == 500  # 37.7%
    # by class: 12 pairs x 6 + 32 suited x 4 + 25 offsuit x 12 = 72 + 128 + 300
    classes = set()
    for a, b in raised:
        hi, lo = sorted((RANKS[a >> 2], RANKS[b >> 2]), key=RANKS.index, reverse=True)
        kind = "" if hi == lo else ("s" if (a & 3) == (b & 3) else "o")
        classes.add(hi + lo + kind)
    assert len(classes) == 69
    assert sum(1 for c in classes if len(c) == 2) == 12
    assert sum(1 for c in classes if c.endswith("s")) == 32
    assert sum(1 for c in classes if c.endswith("o")) == 25


@pytest.mark.parametrize(("hole", "raise_"), [
    ("3c3d", True), ("2c2d", False), ("Ac2d", True), ("As2s", True),
    ("Kh2h", True), ("Kh4d", False), ("Kh5d", True),
    ("Qh6h", True), ("Qh5h", False), ("Qh8d", True), ("Qh7d", False),
    ("Jh8h", True), ("Jh7h", False), ("JhTd", True), ("Jh9d", False),
    ("Th9h", False), ("9h8h", False), ("7c2d", False),
])
def test_preflop_cases(hole: str, raise_: bool) -> None:
    assert preflop_raise(hole) is raise_
    assert preflop_raise(hole[2:] + hole[:2]) is raise_


def test_preflop_vectorized_matches_scalar() -> None:
    holes = np.array(ALL_HOLES + [(b, a) for a, b in ALL_HOLES])
    batch = preflop_raise_batch(holes)
    assert batch.sum() == 1000
    assert all(batch[i] == preflop_raise(list(h)) for i, h in enumerate(holes[:1326]))
    assert preflop_table().shape == (52, 52) and not preflop_table()[5, 5]


@pytest.mark.parametrize(("hole", "flop", "raise_", "why"), [
    ("2c2d", "Kh9s4d", False, "pocket deuces are the exception"),
    ("3c3d", "Kh9s4d", True, "hidden pair"),
    ("Kc7d", "Kh9s4d", True, "hidden pair of kings"),
    ("2c7d", "Kh9s2d", True, "a deuce paired with the board is not pocket deuces"),
    ("9c8d", "4h4s2d", False, "the pair is on the board"),
    ("Jc3d", "7h7s7d", False, "trips on the board are not hidden"),
    ("Jc7c", "7h7s2d", True, "trips with a hole card"),
    ("9c4d", "9h4sKd", True, "two pair"),
    ("2c2d", "7h7sKd", True, "two pair (sevens and pocket deuces)"),
    ("Th4c", "KhQh2h", True, "four hearts with a hidden ten"),
    ("9h4c", "KhQh2h", False, "four hearts but the hidden heart is a nine"),
    ("4h3h", "Kh8h2c", False, "four hearts, hidden hearts below ten"),
    ("Th4c", "Kc9h2h", False, "only three hearts"),
    ("Jh5h", "Kh9h2h", True, "a made flush"),
    ("Jc9d", "Th8s2c", False, "an open-ended straight draw is not enough"),
    ("Jc9d", "Th8s7c", True, "a made straight"),
])
def test_flop_cases(hole: str, flop: str, raise_: bool, why: str) -> None:
    assert flop_raise(hole, flop) is raise_, why


def test_flop_batch_matches_scalar() -> None:
    rng = np.random.default_rng(5)
    cards = np.argsort(rng.random((300, 52)), axis=1)[:, :5]
    batch = flop_raise_batch(cards[:, :2], cards[:, 2:5])
    for row, want in zip(cards, batch, strict=True):
        assert flop_raise([DECK[c] for c in row[:2]], [DECK[c] for c in row[2:]]) == want


def test_dealer_outs_worked_by_hand() -> None:
    # Player Td3c on AsQh8d6c4s plays A-Q-T-8-6. The dealer beats it with a card pairing
    # the board (5 ranks x 3 = 15), a king (4) or a jack (4): 23. A ten (3 left) only
    # ties: not an out. 23 >= 21: fold.
    assert dealer_outs("Td3c", "AsQh8d6c4s") == 23
    assert not river_raise("Td3c", "AsQh8d6c4s")
    # Player Jc8d on 4h4sKdQc2h plays 4-4-K-Q-J. Outs: K 3, Q 3, 2 3 (two pair), 4 2
    # (trips), A 4 (kicker) = 15; a jack ties, an eight does not pair the board. Raise.
    assert dealer_outs("Jc8d", "4h4sKdQc2h") == 15
    assert not hidden_pair_or_better("Jc8d", "4h4sKdQc2h")
    assert river_raise("Jc8d", "4h4sKdQc2h")


def test_river_hidden_hands() -> None:
    assert hidden_pair_or_better("Kc7d", "Kh9s4d2c3h") and river_raise("Kc7d", "Kh9s4d2c3h")
    # a straight made with the hole cards over a board pair
    assert hidden_pair_or_better("7h6c", "5d4s3cKdKh")
    # a straight on the board that the hole cards do not improve: not hidden; the dealer
    # beats it only with a ten (4 outs), so raise anyway
    assert not hidden_pair_or_better("Jc3d", "9c8d7h6s5c")
    assert dealer_outs("Jc3d", "9c8d7h6s5c") == 4
    assert river_raise("Jc3d", "9c8d7h6s5c")
    # two pair: pocket eights replace the board's fives (hidden); a deuce pairing the board
    # under kings and fives does not play (not hidden) and leaves 40 outs: fold
    assert hidden_pair_or_better("8c8d", "KsKd5h5c2s")
    assert not hidden_pair_or_better("2c3d", "KsKd5h5c2s")
    assert dealer_outs("2c3d", "KsKd5h5c2s") == 40
    assert not river_raise("2c3d", "KsKd5h5c2s")


def _ev_by_hand(hole: str, board: str) -> float:
    """Raise-1x EV in antes, settled one dealer holding at a time with ``settle``."""
    rs = load_ruleset("charlevoix-2011")
    seen = {hole[i:i + 2] for i in (0, 2)} | {board[i:i + 2] for i in range(0, 10, 2)}
    unseen = [c for c in DECK if c not in seen]
    p = evaluate_hand(hole + board)
    total = 0
    for a, b in combinations(unseen, 2):
        d = evaluate_hand([a, b] + [board[i:i + 2] for i in range(0, 10, 2)])
        total += net(settle(rs, Wagers(2, 2, play=2), False, p.strength, p.category,
                            d.strength, d.category))
    return total / (2 * 990)


@pytest.mark.parametrize(("hole", "board"), [("Td3c", "AsQh8d6c4s"), ("7h6c", "5d4s3cKdKh")])
def test_exact_river_decision_matches_hand_by_hand(hole: str, board: str) -> None:
    d = river_decision_exact(hole, board, load_ruleset("charlevoix-2011"))
    assert d.wins + d.ties + d.losses == 990
    assert d.ev_fold == -2.0
    assert d.ev_raise == pytest.approx(_ev_by_hand(hole, board), abs=1e-12)
    assert d.raise_ == (d.ev_raise > -2.0)


def test_exact_river_decision_extremes() -> None:
    rs = load_ruleset("charlevoix-2011")
    royal = river_decision_exact("JsTs", "AsKsQs2d7c", rs)
    # a royal flush wins every holding: play 1 + ante 1 (qualifying dealer) or 0, blind 500
    assert royal.raise_ and royal.losses == 0 and royal.ties == 0 and royal.ev_raise > 500
    weak = river_decision_exact("Td3c", "AsQh8d6c4s", rs)
    assert not weak.raise_ and weak.ev_raise < -2.0


def test_whole_hand_multiples() -> None:
    rng = np.random.default_rng(11)
    cards = np.argsort(rng.random((2000, 52)), axis=1)[:, :7]
    mult = basic_strategy_multiples(cards[:, :2], cards[:, 2:7])
    assert set(np.unique(mult).tolist()) <= {0, 1, 2, 4}
    for row, m in zip(cards[:200], mult[:200], strict=True):
        hole, board = [DECK[c] for c in row[:2]], [DECK[c] for c in row[2:]]
        if preflop_raise(hole):
            want = 4
        elif flop_raise(hole, board[:3]):
            want = 2
        else:
            want = 1 if river_raise(hole, board) else 0
        assert m == want
    # 4x on 37.7% of hands: 2,000 draws put it within 0.377 +- 4 sd (sd 0.0108)
    assert abs((mult == 4).mean() - 500 / 1326) < 0.044
