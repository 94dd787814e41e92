"""Over a large-enough run: player hands fall in each category at the exact seven-card
probabilities, and basic-strategy players raise 4x preflop with 500 of 1,326 holdings."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest

from events.contract.schemas import CardsDealt, PlayerDecision, decode_event
from events.game.cards import parse_cards
from events.game.evaluation import category, evaluate7, seven_card_category_counts
from events.game.strategy import (
    flop_raise_batch,
    preflop_raise_batch,
    preflop_table,
    river_raise_batch,
)
from events.sim.simulation import Floor, SimConfig

BASIC_ONLY = SimConfig(tables=3, hands=3000, seed=77, ruleset="charlevoix-2011",
                       profile_weights=(1.0, 0.0, 0.0, 0.0))
SEVEN_CARD_HANDS = math.comb(52, 7)


@pytest.fixture(scope="module")
def dealt() -> dict[str, dict[str, object]]:
    """Per hand: community cards, hole cards per seat, decisions per seat (basic players)."""
    hands: dict[str, dict[str, object]] = defaultdict(lambda: {"holes": {}, "dec": {}})
    for chunk in Floor(BASIC_ONLY).chunks():
        for line in chunk.lines():
            if b'"type":"CardsDealt"' not in line and b'"type":"PlayerDecision"' not in line:
                continue
            e = decode_event(line)
            h = hands[e.hand_id or ""]
            if isinstance(e, CardsDealt):
                if e.payload.target == "community":
                    h["board"] = parse_cards(e.payload.cards)
                elif e.payload.target == "seat":
                    h["holes"][e.payload.seat] = parse_cards(e.payload.cards)  # type: ignore[index]
            elif isinstance(e, PlayerDecision):
                h["dec"].setdefault(e.payload.seat, []).append(e.payload)  # type: ignore[union-attr]
    return dict(hands)


def test_player_hand_categories_match_the_exact_probabilities(dealt: dict) -> None:
    rows = [hole + h["board"] for h in dealt.values() for hole in h["holes"].values()]
    assert len(rows) > 30_000
    cats = category(evaluate7(np.array(rows)))
    observed = np.bincount(cats, minlength=10).astype(float)
    exact = np.array(seven_card_category_counts(), dtype=float) / SEVEN_CARD_HANDS
    assert exact.sum() == pytest.approx(1.0)
    expected = exact * len(rows)
    # each category with a fair expected count: a 4-sigma binomial interval
    for c in range(10):
        sd = math.sqrt(len(rows) * exact[c] * (1 - exact[c]))
        if expected[c] >= 50:
            assert abs(observed[c] - expected[c]) < 4 * sd, (c, observed[c], expected[c])
    # all at once: chi-square with straight flush, royal and quads pooled (df = 7)
    obs = np.append(observed[:7], observed[7:].sum())
    exp = np.append(expected[:7], expected[7:].sum())
    chi2 = float(((obs - exp) ** 2 / exp).sum())
    assert chi2 < 29.9  # the 1e-4 upper tail of chi-square with 7 degrees of freedom


def test_the_strategy_table_raises_500_of_1326_holdings() -> None:
    table = preflop_table()
    assert int(table.sum()) == 2 * 500  # ordered pairs
    assert pytest.approx(0.377, abs=0.0005) == 500 / 1326


def test_basic_players_raise_4x_preflop_37_7_percent_of_the_time(dealt: dict) -> None:
    holes, raised = [], []
    for h in dealt.values():
        for seat, hole in h["holes"].items():
            pre = h["dec"][seat][0]
            assert pre.street == "preflop" and not pre.auto
            holes.append(hole)
            raised.append(pre.action == "raise")
            if pre.action == "raise":
                assert pre.multiple == 4
    n = len(raised)
    rate = sum(raised) / n
    p = 500 / 1326
    assert abs(rate - p) < 4 * math.sqrt(p * (1 - p) / n), rate
    # and decision by decision, exactly the strategy table
    assert np.array_equal(np.array(raised), preflop_raise_batch(np.array(holes)))


def test_basic_players_follow_the_practical_strategy_on_flop_and_river(dealt: dict) -> None:
    flop_rows, flop_raised, river_rows, river_raised = [], [], [], []
    for h in dealt.values():
        for seat, hole in h["holes"].items():
            decisions = h["dec"][seat]
            if decisions[0].action == "raise":
                assert len(decisions) == 1
                continue
            flop_rows.append(hole + h["board"])
            flop_raised.append(decisions[1].action == "raise")
            if decisions[1].action == "raise":
                assert decisions[1].multiple == 2 and len(decisions) == 2
                continue
            river_rows.append(hole + h["board"])
            river_raised.append(decisions[2].action == "raise")
    f, r = np.array(flop_rows), np.array(river_rows)
    assert np.array_equal(np.array(flop_raised), flop_raise_batch(f[:, :2], f[:, 2:5]))
    assert np.array_equal(np.array(river_raised), river_raise_batch(r[:, :2], r[:, 2:]))
    assert 0 < sum(river_raised) < len(river_raised)  # some raise 1x, some fold
