"""Every warehouse connection caps DuckDB's memory (DuckDB's own default is 80% of the
machine, which a load over a large warehouse reached beside its own work)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from pipeline.warehouse import MEMORY_LIMIT, reading, writing


def _limit(con: duckdb.DuckDBPyConnection) -> str:
    return str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])


def test_connections_cap_duckdb_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "w.duckdb"
    monkeypatch.delenv("UTH_DUCKDB_MEMORY", raising=False)
    with writing(path) as con:
        assert _limit(con) == "3.7 GiB"  # 4GB, as DuckDB shows it
    monkeypatch.setenv("UTH_DUCKDB_MEMORY", "1GB")
    with reading(path) as con:
        assert _limit(con) == "953.6 MiB"
    assert MEMORY_LIMIT == "4GB"


def test_a_bad_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_DUCKDB_MEMORY", "4GB'; DROP TABLE events; --")
    with pytest.raises(ValueError, match="UTH_DUCKDB_MEMORY"), writing(tmp_path / "w.duckdb"):
        pass
