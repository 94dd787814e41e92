"""The false-alarm rate, measured on honest floors of 2,000 player-sessions: every honest
style (basic strategy to reckless, and the styles that lean on what they see: a paired
board, draws, any ace, suited cards, tilting after losses) seated for 60 hands. The
scores are about N(0, 1) (mean, spread and the share above 2 as the normal law says), and
none reaches the threshold, whose stated rate is at most 1e-4 per player
(docs/game-protection.md)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from events.protection.assess import THRESHOLD, false_alarm_bound
from pipeline.commands.protect import protect_source
from tests.protection.conftest import HONEST, write_floor

TABLES, SEATS, HANDS = 400, 5, 60


@pytest.fixture(scope="module")
def honest_report(tmp_path_factory: pytest.TempPathFactory) -> object:
    roster = tuple(HONEST[i % len(HONEST)] for i in range(TABLES * SEATS))
    sink, players = write_floor(tmp_path_factory.mktemp("honest"), TABLES, HANDS, roster,
                                seed=7)
    assert len(players) == 2000 and not any(p["hole_carder"] for p in players)
    return protect_source(str(sink), min_hands=HANDS)


def test_no_honest_player_flagged(honest_report: object) -> None:
    found = honest_report.assessments  # type: ignore[attr-defined]
    assert len(found) == TABLES * SEATS
    assert not [a for a in found if a.flagged]
    assert max(a.score for a in found) < THRESHOLD
    assert false_alarm_bound() == pytest.approx(1e-4)
    # the sign tests of informative decisions (the largest of nine per player): each about
    # N(0, 1), so the share of players with one above 3 at most about 9 x 0.135%
    signs = np.array([a.z_sign for a in found])
    assert (signs > 3).mean() < 0.03
    assert not [a.player for a in found if a.crossed_on]  # nor the sequential test


@pytest.mark.parametrize("version", ["z_both", "z_one"])
def test_scores_are_standard_normal_for_honest_play(honest_report: object,
                                                    version: str) -> None:
    found = honest_report.assessments  # type: ignore[attr-defined]
    if version == "z_both":
        z = np.array([a.z_both for a in found])
        tail = 0.5 * math.erfc(2 / math.sqrt(2))  # P(Z > 2) = 0.0228
    else:  # the larger of the two one-card scores
        z = np.array([a.z_one for a in found])
        tail = None
    if tail is not None:
        assert abs(z.mean()) < 0.12 and 0.88 < z.std() < 1.12
        share = (z > 2).mean()
        assert abs(share - tail) < 4 * math.sqrt(tail * (1 - tail) / len(z))
    else:  # the max of two N(0, 1): mean ~ 0.56 when independent, 0 when equal
        assert -0.1 < z.mean() < 0.7 and (z > 2.5).mean() < 0.02


def test_each_style_has_mean_zero_gain(honest_report: object) -> None:
    found = honest_report.assessments  # type: ignore[attr-defined]
    by_seat = {}
    for a in found:  # roster player i sits at table i % TABLES, seat i // TABLES + 1
        table = int(a.table_id[1:]) - 1
        i = (a.seats[0] - 1) * TABLES + table
        by_seat.setdefault(HONEST[i % len(HONEST)], []).append(a.z_both)
    for style, zs in by_seat.items():
        assert abs(float(np.mean(zs))) < 4 / math.sqrt(len(zs)), style




@pytest.fixture(scope="module")
def honest_dealers(tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """40 tables x 300 hands, 5 honest players each: 120 dealers of about 100 hands."""
    roster = tuple(HONEST[i % len(HONEST)] for i in range(40 * 5))
    sink, _ = write_floor(tmp_path_factory.mktemp("honest-dealers"), 40, 300, roster, seed=41)
    return protect_source(str(sink)).dealer_alerts  # type: ignore[no-any-return]


def test_no_dealer_of_honest_players_flagged(honest_dealers: list[Any]) -> None:
    """Each dealer's self-normalized score over everyone at their hands is about N(0, 1);
    the adjusted score (with each player's score at the dealer) stays below 3.72."""
    assert len(honest_dealers) == 120
    assert not [d for d in honest_dealers if d.flagged or d.pattern is not None]
    assert max(d.score for d in honest_dealers) < THRESHOLD
    z = np.array([d.z[0] for d in honest_dealers])
    assert abs(z.mean()) < 4 / math.sqrt(len(z)) and 0.8 < z.std() < 1.2
