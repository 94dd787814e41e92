"""The issue's target: on a floor of 40 players at 8 tables, 400 hands each, where 4 are
hole-carders (2 see both dealer cards, 2 see one) and the honest players range from basic
strategy to reckless, every hole-carder is flagged with the pattern it plays and no honest
player is flagged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from events.protection.assess import THRESHOLD
from pipeline.cli import main
from pipeline.commands.protect import protect_source
from tests.protection.conftest import scored


def _session(row: dict[str, Any]) -> str:
    return f"{row['table_id']}/seat-{row['seat']}/{row['table_id']}-000001"


def test_every_hole_carder_flagged_no_honest_player(
        target_floor: tuple[Path, list[dict[str, Any]]], target_report: Any) -> None:
    players = target_floor[1]
    assert len(players) == 40
    report = target_report
    by_player = {a.player: a for a in report.assessments}
    assert set(by_player) == {_session(r) for r in players}
    hole = [r for r in players if r["hole_carder"]]
    assert sorted(r["profile"] for r in hole) == ["hole_card_both"] * 2 + ["hole_card_one"] * 2
    for r in players:
        a = by_player[_session(r)]
        assert a.hands == 400
        if r["hole_carder"]:
            assert a.flagged, (r, a.score)
            want = "hole-card-both" if r["sees"] == "both" else "hole-card-one"
            assert a.pattern == want, (r, a.z_both, a.z_one)
        else:
            assert not a.flagged and a.pattern is None, (r, a.score)
    # the separation: the weakest hole-carder well above the threshold, every honest below
    weakest = min(by_player[_session(r)].score for r in hole)
    strongest_honest = max(by_player[_session(r)].score for r in players
                           if not r["hole_carder"])
    assert weakest > THRESHOLD + 2 and strongest_honest < THRESHOLD


def test_evidence_and_dealers_of_a_flagged_player(
        target_report: Any, target_floor: tuple[Path, list[dict[str, Any]]]) -> None:
    report = target_report
    flagged = [a for a in report.assessments if a.flagged]
    hand_ids = set(scored(target_floor[0])[0].hand_id)
    for a in flagged:
        assert len(a.evidence) == 5 and set(a.evidence) <= hand_ids
        assert all(h.startswith(a.table_id + "-") for h in a.evidence)
        assert sum(d.hands for d in a.dealers) == a.hands and a.gain > 0
    assert {d.dealer_id for d in report.dealers} == {
        d.dealer_id for a in flagged for d in a.dealers}


def test_cli_json_one_object_per_player(target_floor: tuple[Path, list[dict[str, Any]]],
                                        capsys: Any) -> None:
    sink = target_floor[0]
    assert main(["protect", "--source", str(sink), "--json", "--min-hands", "300"]) == 0
    objects = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(objects) == 40
    keys = {"player", "table_id", "seats", "hands", "decisions", "score", "flagged", "pattern",
            "evidence"}
    assert all(keys <= set(o) for o in objects)
    assert sum(o["flagged"] for o in objects) == 4
    assert {o["pattern"] for o in objects} == {None, "hole-card-both", "hole-card-one"}
    flagged = [o for o in objects if o["flagged"]]
    assert all(o["dealers"] and len(o["evidence"]) == 5 for o in flagged)
    assert main(["protect", "--source", str(sink), "--min-hands", "401"]) == 0
    assert "Assessed 0 players" in capsys.readouterr().out
    assert main(["protect", "--source", str(sink)]) == 0
    text = capsys.readouterr().out
    assert text.count("FLAGGED") == 4 and "Dealers the flagged players' gains" in text


def test_a_hole_carder_who_sees_only_one_dealer_is_flagged_with_that_dealer(
        tmp_path: Path) -> None:
    """Hole-carders who see the cards only when the table's first (or second) dealer deals,
    a third of their hands: flagged over that dealer's hands alone, the dealer named."""
    from tests.protection.conftest import write_floor

    roster = ("hole_card_both@1", "hole_card_one@2", "basic", "random", "basic", "weak",
              "always_raise", "loose")
    sink, players = write_floor(tmp_path, 2, 400, roster, seed=5)
    report = protect_source(str(sink))
    by_player = {a.player: a for a in report.assessments}
    for r in players:
        a = by_player[_session(r)]
        if r["hole_carder"]:
            assert a.flagged and a.only_with_dealer == r["only_with_dealer"], (r, a.score)
            assert a.pattern == ("hole-card-both" if r["sees"] == "both" else "hole-card-one")
            assert a.dealers[0].dealer_id == r["only_with_dealer"]
        else:
            assert not a.flagged, (r, a.score)
