"""Dealers flagged on their own statistic: the dealer who flashes (hole-carders see only
when that dealer deals) is flagged with the pattern ``flashes``; on the issue's floor
(hole-carders who see with every dealer) no dealer is flagged, and their tables' dealers
carry the note ``hosts-hole-carders``, which is not a flag; on honest floors none is flagged
(tests/protection/test_false_alarms.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from events.protection.assess import THRESHOLD
from pipeline.cli import main
from pipeline.commands.protect import protect_source
from tests.protection.conftest import write_floor


def test_the_dealer_who_flashes_is_flagged(tmp_path: Path) -> None:
    roster = ("hole_card_both@1", "hole_card_one@2", "basic", "random", "basic", "weak",
              "always_raise", "loose")
    sink, players = write_floor(tmp_path, 2, 400, roster, seed=5)
    report = protect_source(str(sink))
    flashers = {r["only_with_dealer"] for r in players if r["hole_carder"]}
    assert len(flashers) == 2 and len(report.dealer_alerts) == 6
    flagged = {d.dealer_id: d for d in report.dealer_alerts if d.flagged}
    assert set(flagged) == flashers
    for d in flagged.values():
        assert d.pattern == "flashes" and d.contrast >= 2.0 and d.score >= THRESHOLD
        hole = next(r for r in players if r.get("only_with_dealer") == d.dealer_id)
        assert d.players[0][0] == f"{hole['table_id']}/seat-{hole['seat']}/" \
                                  f"{hole['table_id']}-000001"
        assert len(d.evidence) == 5 and all(h.startswith(d.tables[0]) for h in d.evidence)
    for d in report.dealer_alerts:
        if not d.flagged:
            assert d.pattern is None and d.score < THRESHOLD


def test_hole_carders_who_see_every_dealer_flag_no_dealer(
        target_floor: tuple[Path, list[dict[str, Any]]], target_report: Any) -> None:
    """Hole-carders who see with every dealer: their informed decisions do not concentrate
    on one dealer's hands, so no dealer is flagged (the old statistic flagged their
    tables' dealers as hosts); those dealers carry the note, which is not a flag."""
    hole_tables = {r["table_id"] for r in target_floor[1] if r["hole_carder"]}
    assert not [d.dealer_id for d in target_report.dealer_alerts if d.flagged]
    noted = [d for d in target_report.dealer_alerts if d.note is not None]
    assert {t for d in noted for t in d.tables} == hole_tables  # every such table, no other
    assert all(d.note == "hosts-hole-carders" and d.pattern is None
               and d.hosts_score >= THRESHOLD > d.score for d in noted)
    assert len(target_report.dealer_alerts) == 24  # 8 tables x 3 dealers


def test_cli_dealers(target_floor: tuple[Path, list[dict[str, Any]]], capsys: Any) -> None:
    assert main(["protect", "--source", str(target_floor[0]), "--dealers", "--json"]) == 0
    objects = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(objects) == 24
    keys = {"dealer_id", "tables", "hands", "score", "flagged", "pattern", "evidence",
            "contrast", "players", "z", "hosts_score", "note"}
    assert all(keys <= set(o) for o in objects)
    assert {o["pattern"] for o in objects} == {None}
    assert {o["note"] for o in objects} == {None, "hosts-hole-carders"}
    assert main(["protect", "--source", str(target_floor[0]), "--dealers"]) == 0
    text = capsys.readouterr().out
    assert text.count("note: hosts-hole-carders") == sum(o["note"] is not None
                                                        for o in objects)
    assert "FLAGGED" not in text
    assert main(["protect", "--source", str(target_floor[0])]) == 0
    text = capsys.readouterr().out
    assert "Dealers assessed on their own: 24, 0 flagged" in text
