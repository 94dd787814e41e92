"""One floor for the directory (both engines' modules): loaded into a warehouse (with its
archive) by ``uth load``; each test writes its outputs in a directory of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline.reaudit.summary import parquet
from tests.reaudit.floors import floor_log, load

OUTPUTS = ("hands", "wagers", "audit_findings")
PLAYER_TABLES = ("player_ratings", "player_alerts", "player_alert_dealers", "dealer_alerts")


@pytest.fixture(scope="session")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    directory = tmp_path_factory.mktemp("reaudit")
    log = floor_log(directory)
    warehouse = directory / "warehouse.duckdb"
    archive = load(log, warehouse)
    yield {"dir": directory, "log": log, "warehouse": warehouse, "archive": archive}


def warehouse_rows(warehouse: Path, name: str) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        sql = name if name.startswith("SELECT") else f"SELECT * FROM {name}"
        return _clean(con.execute(f"{sql} ORDER BY ALL").fetchall())
    finally:
        con.close()


def output_rows(out: Path, name: str, warehouse: Path) -> list[tuple[Any, ...]]:
    """Output table ``name`` read back, in the warehouse table's column order."""
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        columns = ", ".join(f'"{c}"' for c, in con.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name = ? AND table_schema = 'main' "
            "ORDER BY ordinal_position", [name]).fetchall())
        return _clean(con.execute(f"SELECT {columns} FROM {parquet(out, name)} ORDER BY ALL")
                      .fetchall())
    finally:
        con.close()


def _clean(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Doubles to 9 decimals (a sum's last bit depends on the order it was added in)."""
    return [tuple(round(v, 9) if isinstance(v, float) else v for v in row) for row in rows]


def assert_player_tables_equal(out: Path, warehouse: Path) -> None:
    """The re-audit's player tables are the warehouse's, row for row; and the floor has what
    makes them a test of merged sums: alerts, and seat sessions whose slips fall on both
    sides of a gaming day's start (a session split between groups would be two players)."""
    for name in PLAYER_TABLES:
        assert output_rows(out, name, warehouse) == warehouse_rows(warehouse, name), name
    assert warehouse_rows(warehouse, "SELECT player FROM player_ratings GROUP BY player "
                                     "HAVING count(DISTINCT gaming_day) > 1")
    assert warehouse_rows(warehouse, "SELECT player FROM player_alerts "
                                     "WHERE crossed_on IS NOT NULL")
