"""One floor per module: loaded into a warehouse (with its archive) by ``uth load``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline.reaudit.summary import parquet
from tests.reaudit.floors import floor_log, load

OUTPUTS = ("hands", "wagers", "audit_findings")


@pytest.fixture(scope="module")
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
