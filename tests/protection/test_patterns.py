"""The issue's harder floor: 10 tables of 300 hands, 44 honest players of every style, and
one advantage player of each pattern (one card at the river only, one card preflop only,
both cards only from one flashing dealer (six dealers a table: a sixth of the hands), both
cards with a third of decisions played
plainly, and the plain one- and two-card players), who decide from the game's own equities
(``events.sim.cheats``, not the detector's model). Every pattern is flagged, the flashing
dealer is named and flagged as flashing, no other dealer is flagged (the dealers of the
plain hole-carders, who see whoever deals, only carry a note), and no honest player is
flagged."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pipeline.commands.protect import protect_source
from tests.protection.conftest import HONEST, write_floor

TABLES, SEATS, DEALERS = 10, 5, 6
CHEATS = ("hole_card_one_river", "hole_card_one_preflop", "hole_card_both@2",
          "hole_card_both_camo", "hole_card_one", "hole_card_both")


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, list[dict[str, Any]]]:
    honest = [HONEST[i % len(HONEST)] for i in range(TABLES * SEATS - len(CHEATS))]
    random.Random(5).shuffle(honest)
    seats = [[*CHEATS[t:t + 1]] for t in range(TABLES)]
    for table in seats:
        while len(table) < SEATS:
            table.append(honest.pop())
    # the roster's entry i sits at table i % TABLES
    roster = tuple(seats[t][s] for s in range(SEATS) for t in range(TABLES))
    sink, players = write_floor(tmp_path_factory.mktemp("patterns"), TABLES, 300, roster,
                                seed=5, dealers=DEALERS)
    return protect_source(str(sink)), players


def _name(p: dict[str, Any]) -> str:
    return f"{p['table_id']}/seat-{p['seat']}/{p['table_id']}-000001"


def test_every_pattern_is_flagged_and_no_honest_player(floor: tuple[Any, Any]) -> None:
    report, players = floor
    by = {a.player: a for a in report.assessments}
    cheats = {p["profile"]: by[_name(p)] for p in players if p["hole_carder"]}
    assert len(cheats) == 5 and sum(p["hole_carder"] for p in players) == 6
    for p in players:
        a = by[_name(p)]
        assert a.flagged == p["hole_carder"], (p["profile"], a.score)
        if p["hole_carder"]:
            assert a.pattern == ("hole-card-both" if p["sees"] == "both" else "hole-card-one")
            assert a.only_with_dealer == p["only_with_dealer"], p["profile"]
    river = cheats["hole_card_one_river"]
    assert river.streets == ("river",) and river.test == "sign river"
    assert "preflop" in cheats["hole_card_one_preflop"].streets


def test_the_flashing_dealer_is_flagged_as_flashing(floor: tuple[Any, Any]) -> None:
    report, players = floor
    flasher = next(p["only_with_dealer"] for p in players if p["only_with_dealer"])
    flashing = [d.dealer_id for d in report.dealer_alerts if d.pattern == "flashes"]
    assert flashing == [flasher]
    assert [d.dealer_id for d in report.dealer_alerts if d.flagged] == [flasher]
    alert = next(d for d in report.dealer_alerts if d.dealer_id == flasher)
    cheat = next(p for p in players if p["only_with_dealer"] == flasher)
    assert alert.players[0][0] == _name(cheat)
    # a sixth of the hands: the flasher dealt about 300 / 6 of his table's
    assert 30 <= alert.hands <= 80


def test_a_dealer_who_merely_dealt_to_hole_carders_is_not_flagged(
        floor: tuple[Any, Any]) -> None:
    """The plain hole-carders see whoever deals: their tables' dealers host hole-card play
    (the note, its score past the line for some), and none of them is flagged."""
    report, players = floor
    plain = {p["table_id"] for p in players if p["hole_carder"] and not p["only_with_dealer"]}
    theirs = [d for d in report.dealer_alerts if set(d.tables) <= plain]
    assert len(theirs) >= 4 * DEALERS - 4
    assert not [d.dealer_id for d in theirs if d.flagged]
    assert [d for d in theirs if d.note == "hosts-hole-carders" and d.hosts_score >= 3.72]
