"""Every page's header says how current the warehouse is: the newest loaded event's time,
the last load's, how far behind its log (events and seconds); a warning once the
warehouse is more than ``UTH_STALE_SECONDS`` behind."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from events.logs import open_log, source_key
from tests.dashboards import warehouse_data
from tests.dashboards.conftest import PAGES, no_failure


def _said(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [c.value for c in at.caption if c.value.startswith("Newest loaded event ")]


def _stale(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [w.value for w in at.warning if "may be stale" in w.value]


def _loaded_from_log(tmp_path: Path, unloaded: int, minutes_ago: int = 0) -> Path:
    """The hand-made warehouse, its position on a SQLite log that holds ``unloaded``
    records past it, its last load ``minutes_ago``."""
    url = f"sqlite:///{tmp_path / 'log.db'}"
    with open_log(url) as log:
        log.append([("T1", json.dumps({"n": n}).encode()) for n in range(18)])
        position = json.dumps({str(p): o for p, o in log.end().items()})
        if unloaded:
            log.append([("T1", json.dumps({"n": n}).encode()) for n in range(unloaded)])
    path = warehouse_data.build(tmp_path / "warehouse.duckdb")
    con = duckdb.connect(str(path))
    try:
        con.execute("UPDATE load_positions SET source = ?, position = ?, updated_at = "
                    "CAST(now() AS TIMESTAMP) - to_minutes(CAST(? AS BIGINT))",
                    [source_key(url), position, minutes_ago])
    finally:
        con.close()
    return path


@pytest.mark.parametrize("page", PAGES)
def test_every_page_says_how_current_the_warehouse_is(app, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                      page: str) -> None:
    at = app(_loaded_from_log(tmp_path, 0), page)
    no_failure(at)
    said = _said(at)
    assert len(said) == 1, [c.value for c in at.caption]
    assert "; last load " in said[0] and "behind the log: 0 events, 0 s." in said[0]
    assert not _stale(at)


@pytest.mark.parametrize("page", ["floor", "findings", "live"])
def test_a_stale_warehouse_is_said_on_every_page(app, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                 page: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_STALE_SECONDS", "60")
    at = app(_loaded_from_log(tmp_path, 25, minutes_ago=10), page)
    no_failure(at)
    said = _said(at)
    assert len(said) == 1 and "behind the log: 25 events, " in said[0], said
    stale = _stale(at)
    assert len(stale) == 1 and "25 events not loaded" in stale[0], stale
