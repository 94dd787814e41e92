"""The evaluator against exact enumeration, hand-worked kicker cases and its own
independent single-hand path."""

from __future__ import annotations

import numpy as np
import pytest

from events.game._eval_cache import _enumerate_seven_card_categories
from events.game._eval_tables import five_card_combinations
from events.game.cards import parse_cards
from events.game.evaluation import (
    CATEGORY_NAMES,
    category,
    evaluate5,
    evaluate7,
    evaluate_hand,
    strength_of,
)

# Published counts (the multinomial derivations every poker text gives); category order
# high card .. royal flush.
FIVE_CARD_COUNTS = (1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 36, 4)
SEVEN_CARD_COUNTS = (
    23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184,
    224_848, 37_260, 4_324,
)


def strength(cards: str) -> int:
    return int(evaluate7(np.array([parse_cards(cards)]))[0])


def test_all_five_card_hands_by_category() -> None:
    hands = five_card_combinations()
    assert len(hands) == 2_598_960
    strengths = evaluate5(hands)
    assert tuple(np.bincount(category(strengths), minlength=10)) == FIVE_CARD_COUNTS
    assert len(np.unique(strengths)) == 7_462  # every distinct hand class is reachable


def test_all_seven_card_hands_by_category() -> None:
    counts = _enumerate_seven_card_categories()  # fresh enumeration, not the disk cache
    assert sum(counts) == 133_784_560
    assert counts == SEVEN_CARD_COUNTS


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("AhAd7c5s4d9h2s", "AhAd7c5s4d8h2s"),  # pair of aces: 9 kicker beats 8 kicker
        ("KhKd5c5s2dAh3s", "KhKd5c5s2dQh3s"),  # two pair: ace kicker beats queen
        ("KhKd5c5s3d3hQs", "KhKd5c5s4d4hJs"),  # third pair plays no part: Q kicker beats J
        ("6h5d4c3s2dKhKs", "5h4d3c2sAd9h9s"),  # six-high straight beats the wheel
        ("5h4d3c2sAd9h8s", "KhKdKc9s8d3h2s"),  # the wheel beats trips
        ("9h9d9c4s4dAhKs", "8h8d8cAsAdKhQs"),  # full house ranked by the trips
        ("AhQh9h5h3h2c2d", "AdJd9d5d3d2c2s"),  # flush: queen second card beats jack
        ("7c7d7h7s2cAhKs", "6c6d6h6sAcAhAs"),  # quads by rank
        ("AhKhQhJhTh2c3d", "KdQdJdTd9d2c3d"),  # royal beats king-high straight flush
    ],
)
def test_kickers_and_ranking(better: str, worse: str) -> None:
    assert strength(better) > strength(worse)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("AhKdQc9s7d2h3s", "AsKcQd9h7c2d4s"),  # same five best cards: split
        ("2h3dAcKsQdJhTs", "4h5dAdKcQsJcTd"),  # board straight plays for both
        ("KhKd5c5s2dAh3s", "KcKs5h5d4dAc3d"),  # same two pair, same kicker
    ],
)
def test_split_pots(a: str, b: str) -> None:
    assert strength(a) == strength(b)


def test_quads_on_board_kicker_decides() -> None:
    assert strength("AhAdAcAsKd3h4s") > strength("AhAdAcAsQd3h4s")
    assert strength("AhAdAcAs5d3h4s") == strength("AhAdAcAs5c2h2s")


@pytest.mark.parametrize(
    ("cards", "cat", "name", "five"),
    [
        ("AsKsQsJsTs2d2c", 9, "Royal flush", ("As", "Ks", "Qs", "Js", "Ts")),
        ("5d4c3h2sAd9c9h", 4, "Straight, five high", ("5d", "4c", "3h", "2s", "Ad")),
        ("KhKdKc9s9d3c2h", 6, "Full house, kings full of nines", ("Kh", "Kd", "Kc", "9s", "9d")),
        ("9h8h7h6h5h4c2d", 8, "Straight flush, nine high", ("9h", "8h", "7h", "6h", "5h")),
        ("QcQd7h6s2h4c9d", 1, "Pair of queens, nine, seven, six kickers",
         ("Qd", "Qc", "9d", "7h", "6s")),
    ],
)
def test_single_hand_names_and_cards(
    cards: str, cat: int, name: str, five: tuple[str, ...]
) -> None:
    hand = evaluate_hand(cards)
    assert (hand.category, hand.name) == (cat, name)
    assert hand.best_five == five
    assert CATEGORY_NAMES[hand.category].split()[0] in name or cat == 1


def test_batch_and_single_hand_agree_on_a_million_hands() -> None:
    rng = np.random.default_rng(20261130)
    n = 1_000_000
    hands = rng.random((n, 52)).argpartition(7, axis=1)[:, :7]
    batch = evaluate7(hands)
    single = np.fromiter((strength_of(row) for row in hands.tolist()), np.int32, n)
    mismatches = np.flatnonzero(batch != single)
    assert mismatches.size == 0, hands[mismatches[:5]].tolist()


def test_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match=r"\(N, 7\)"):
        evaluate7(np.zeros((3, 6), dtype=np.int64))
    with pytest.raises(ValueError, match=r"0\.\.51"):
        evaluate7(np.full((1, 7), 52))
    with pytest.raises(ValueError, match="distinct"):
        evaluate_hand("AsAsKdQc2h3h4h")
