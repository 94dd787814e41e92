"""A missing, unset, foreign, blank or empty warehouse: every page says what to do, and
shows no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dashboards.conftest import PAGES, no_failure


def messages(at) -> str:  # type: ignore[no-untyped-def]
    return " ".join(m.value for m in [*at.info, *at.warning, *at.success])


@pytest.mark.parametrize("page", PAGES)
def test_empty_warehouse(app, empty_warehouse: Path, page: str) -> None:
    at = app(empty_warehouse, page)
    no_failure(at)
    assert "has no hands loaded yet" in messages(at)
    assert "uth load" in messages(at)
    assert not at.dataframe


@pytest.mark.parametrize("page", PAGES)
def test_blank_duckdb_file(app, blank_warehouse: Path, page: str) -> None:
    at = app(blank_warehouse, page)
    no_failure(at)
    assert "`hands`" in messages(at) and "table yet" in messages(at)


@pytest.mark.parametrize("page", ["floor", "hand_audit"])
def test_missing_file(app, tmp_path: Path, page: str) -> None:
    at = app(tmp_path / "nowhere.duckdb", page)
    no_failure(at)
    assert "No warehouse at" in messages(at) and "uth simulate" in messages(at)
    assert not (tmp_path / "nowhere.duckdb").exists()  # read-only: never created


@pytest.mark.parametrize("page", ["floor", "findings"])
def test_unset(app, page: str) -> None:
    at = app(None, page)
    no_failure(at)
    assert "UTH_WAREHOUSE" in messages(at)


def test_not_a_duckdb_file(app, tmp_path: Path) -> None:
    bogus = tmp_path / "events.jsonl"
    bogus.write_text('{"type": "HandStarted"}\n' * 100)
    at = app(bogus, "dealers")
    no_failure(at)
    assert "not a DuckDB warehouse" in messages(at)
