"""``uth reaudit --engine duckdb``: the archive audited again gives the warehouse's hands,
wagers, findings, rollups and player tables row for row, and ``uth audit``'s findings on the
source log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.reaudit.local import ROLLUPS
from tests.reaudit.conftest import (
    OUTPUTS,
    assert_player_tables_equal,
    output_rows,
    warehouse_rows,
)


def test_duckdb_engine_equals_the_warehouse(floor: dict[str, Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = floor["dir"] / "duckdb-out"
    assert main(["reaudit", "--archive", str(floor["archive"]), "--out", str(out),
                 "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for name in (*OUTPUTS, *ROLLUPS):
        want = warehouse_rows(floor["warehouse"], name)
        assert want, name
        assert output_rows(out, name, floor["warehouse"]) == want, name
    assert_player_tables_equal(out, floor["warehouse"])
    # the findings and summary `uth audit` gives on the source log
    assert main(["audit", "--source", str(floor["log"]), "--json"]) == 0
    audited = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    kinds = {f.get("kind") for f in audited}
    assert {"mispay", "sequence_gap", "sequence_conflict"} <= kinds
    ids = sorted(f["finding_id"] for f in audited if "finding_id" in f)
    assert sorted(f["finding_id"] for f in lines if "finding_id" in f) == ids
    summary, want_summary = lines[-1]["summary"], audited[-1]["summary"]
    for key in ("events", "hands", "findings"):
        assert summary[key] == want_summary[key], key


def test_hands_cross_the_gaming_day_boundary(floor: dict[str, Path]) -> None:
    days = warehouse_rows(floor["warehouse"], "SELECT DISTINCT gaming_day FROM hands")
    assert len(days) == 2  # the floor's hands fall on both sides of 06:00


def test_a_missing_archive_is_a_clear_error(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reaudit", "--archive", str(tmp_path / "nowhere")]) == 2
    assert "no Parquet archive here" in capsys.readouterr().err


def test_columns_path_equals_the_restored_warehouse_and_refers_the_unusual_hands(
        floor: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The re-audit from columns gives the rows the archive restored into a warehouse
    gives (the way it went before), row for row; on this floor some hands are certified
    from columns and the others (mispaid, voided, disputed, late) go to the reference."""
    from pipeline.reaudit import columnar
    from pipeline.reaudit.local import reaudit_duckdb, reaudit_restored

    referred: list[str] = []
    reference_rows = columnar.reference_rows

    def spy(con: object, hand_ids: list[str], day_start: int) -> object:
        referred.extend(hand_ids)
        return reference_rows(con, hand_ids, day_start)  # type: ignore[arg-type]

    monkeypatch.setattr(columnar, "reference_rows", spy)
    new, old = floor["dir"] / "columns-out", floor["dir"] / "restored-out"
    stages: dict[str, float] = {}
    reaudit_duckdb(floor["archive"], new, 360, stages=stages)
    reaudit_restored(floor["archive"], old, 360)
    for name in (*OUTPUTS, *ROLLUPS):
        assert output_rows(new, name, floor["warehouse"]) == \
            output_rows(old, name, floor["warehouse"]), name
    hands = len(output_rows(new, "hands", floor["warehouse"]))
    assert 0 < len(referred) < hands / 2
    assert "hands certified from columns" in stages
