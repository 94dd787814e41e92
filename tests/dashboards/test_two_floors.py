"""Two different floors loaded into one warehouse (the same table ids, other events at the
same seq numbers): the load says so loudly, its asset check warns, and every dashboard page
shows a banner, instead of every check reading "ok"."""

from __future__ import annotations

from pathlib import Path

import pytest

from events.sim.simulation import SimConfig, simulate
from pipeline.cli import main
from tests.dashboards.conftest import no_failure


def test_two_floors_in_one_warehouse_are_warned_of(
        app, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    warehouse = tmp_path / "two.duckdb"
    for seed in (1, 2):
        floor = tmp_path / f"floor{seed}.jsonl"
        simulate(SimConfig(tables=2, hands=15, seed=seed), str(floor))
        capsys.readouterr()
        main(["load", "--source", str(floor), "--warehouse", str(warehouse), "-q"])
    out, err = capsys.readouterr()
    check = next(line for line in out.splitlines()
                 if line.startswith("check no_sequence_conflicts:"))
    assert check.startswith("check no_sequence_conflicts: WARN (conflicts=")
    assert "WARNING:" in err and "two different floors" in err
    # loaded again with nothing new (no Dagster run): the warning is said again
    main(["load", "--source", str(floor), "--warehouse", str(warehouse), "-q"])
    out, err = capsys.readouterr()
    assert "nothing new" in out and "check no_sequence_conflicts: WARN" in out
    assert "WARNING:" in err and "two different floors" in err
    for page in ("floor", "findings", "dealers"):
        at = app(warehouse, page)
        no_failure(at)
        banners = [w.value for w in at.warning]
        assert any("reuse a sequence number" in b and "two different floors" in b
                   for b in banners), (page, banners)


def test_one_floor_has_no_banner(app, handmade_warehouse: Path) -> None:  # type: ignore[no-untyped-def]
    at = app(handmade_warehouse, "floor")
    assert not [w for w in at.warning if "sequence number" in w.value]
