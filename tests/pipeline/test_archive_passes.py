"""The Parquet archive is rewritten in passes bounded by events, not only by partitions, so
that a large load's archive is not read, sorted and written in one piece; the archive is
the same however many passes it takes."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

import pipeline.ingest.steps as steps
from events.sim.simulation import SimConfig, simulate
from pipeline.ingest.steps import archive_pending, load_events, read_archive
from pipeline.warehouse import query

ORDER = [("gaming_day", "ascending"), ("table_id", "ascending"), ("seq", "ascending")]
WRITE = steps._write_partitions


def _loaded(tmp_path: Path, name: str) -> Path:
    log = tmp_path / "floor.jsonl"
    if not log.exists():
        simulate(SimConfig(tables=3, hands=25, seed=8), str(log))
    wh = tmp_path / f"{name}.duckdb"
    load_events(str(log), wh, audit_hands=False)
    return wh


def _archived(wh: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], pa.Table]:
    """Archive ``wh``; the events written by each pass, and the archive read back."""
    passes: list[int] = []

    def counted(table: pa.Table, root: Path) -> None:
        passes.append(table.num_rows)
        WRITE(table, root)

    monkeypatch.setattr(steps, "_write_partitions", counted)
    root = wh.with_name(wh.stem + "_archive")
    done = archive_pending(wh, root)
    assert done == len(query(wh, "SELECT DISTINCT table_id, gaming_day FROM events"))
    assert query(wh, "SELECT count(*) FROM pending.archive") == [(0,)]
    return passes, read_archive(root).sort_by(ORDER)


def test_each_pass_holds_at_most_the_row_budget_or_one_partition(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole, one_pass = _archived(_loaded(tmp_path, "whole"), monkeypatch)
    sizes = query(tmp_path / "whole.duckdb", """SELECT count(*) FROM events
        GROUP BY gaming_day, table_id ORDER BY gaming_day, table_id""")
    assert len(sizes) >= 3  # enough partitions to tell one pass from several
    assert whole == [sum(n for (n,) in sizes)]  # the default budget: all in one pass

    monkeypatch.setattr(steps, "ARCHIVE_ROWS", 1)  # every partition is over it: one a pass
    single, each_alone = _archived(_loaded(tmp_path, "single"), monkeypatch)
    assert single == [n for (n,) in sizes]

    budget = max(n for (n,) in sizes) + 1  # the largest fits, all of them do not
    monkeypatch.setattr(steps, "ARCHIVE_ROWS", budget)
    bounded, in_budget = _archived(_loaded(tmp_path, "bounded"), monkeypatch)
    assert all(n <= budget for n in bounded) and sum(bounded) == sum(whole)
    assert len(bounded) > 1

    assert each_alone.equals(one_pass) and in_budget.equals(one_pass)
