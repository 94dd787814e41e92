"""The Live page: each table's last hand, hands this hour, the newest findings, the ones
that arrived since the last refresh marked. Hand-made warehouse: the floor's clock is its
newest finding, F4 at 15:00 on 2026-11-29 (hand H4 started at 14:58)."""

from __future__ import annotations

import time
from datetime import date, datetime
from pathlib import Path

import duckdb
import pytest

from tests.dashboards import warehouse_data
from tests.dashboards.conftest import no_failure


@pytest.fixture
def own_warehouse(tmp_path: Path) -> Path:
    return warehouse_data.build(tmp_path / "live.duckdb")


def _writer(path: Path) -> duckdb.DuckDBPyConnection:
    """A write connection once the dashboards' lingering reader has let the file go."""
    deadline = time.monotonic() + 20
    while True:
        try:
            return duckdb.connect(str(path))
        except duckdb.ConnectionException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_each_tables_last_hand_and_this_hour(app, handmade_warehouse: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UTH_TIMEZONE", raising=False)
    at = app(handmade_warehouse, "live")
    no_failure(at)
    tables = at.dataframe[0].value.set_index("Table")
    last = {}
    for h in warehouse_data.HANDS:  # the latest start per table, from the test's rows
        if h[1] not in last or h[7] > last[h[1]][7]:
            last[h[1]] = h
    assert {t: tables.loc[t, "Last hand"] for t in tables.index} == {
        t: h[0] for t, h in last.items()}
    assert tables.loc["T3", "Dealer"] == "D3"
    assert tables.loc["T3", "Hands in the last 60 min"] == "1"  # H4 at 14:58
    assert tables.loc["T3", "Hands this hour"] == "0"  # nothing since 15:00
    shown = {m.label: m.value for m in at.metric}
    assert shown["Hands in the last 60 min"] == "1" and shown["Tables"] == "3"
    assert any("Floor clock 2026-11-29 15:00:00.000 (UTC)" in c.value for c in at.caption)


def test_newest_findings_marked_as_they_arrive(app, own_warehouse: Path) -> None:
    at = app(own_warehouse, "live")
    no_failure(at)
    found = at.dataframe[1].value
    assert found["Detail"].iloc[0] == "ante paid twice"  # F4, the newest
    assert dict(zip(found["Detail"], found["New"], strict=True))["ante paid twice"] == "● new"
    assert list(found["New"]).count("● new") == 1  # the first view: its last ten minutes
    with _writer(own_warehouse) as con:  # a load adds a finding
        con.execute("INSERT INTO audit_findings VALUES ('F5', 'mispay', 'H4', 'T3', 'D3', 1, "
                    "'blind', 1000, 0, 'blind not paid', ?, ?)",
                    [datetime(2026, 11, 29, 15, 5), date(2026, 11, 29)])
    at.run()
    no_failure(at)
    found = at.dataframe[1].value
    assert list(found["Detail"])[:2] == ["blind not paid", "ante paid twice"]
    assert list(found["New"])[:2] == ["● new", ""]  # F4 was seen at the last refresh
    assert [t.value for t in at.toast] == ["1 new finding"]


def test_the_page_refreshes_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    import ast

    source = (Path(__file__).resolve().parents[2] / "dashboards" / "app_pages" / "live.py")
    tree = ast.parse(source.read_text())
    fragments = [d for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                 for d in node.decorator_list if isinstance(d, ast.Call)
                 and getattr(d.func, "attr", "") == "fragment"]
    assert fragments and any(k.arg == "run_every" for k in fragments[0].keywords)


def test_the_page_says_how_current_the_warehouse_is(app, own_warehouse: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The newest loaded event's time and the last load's; a warning once no load came
    for longer than UTH_STALE_SECONDS."""
    monkeypatch.delenv("UTH_TIMEZONE", raising=False)
    monkeypatch.setenv("UTH_STALE_SECONDS", "3600")
    at = app(own_warehouse, "live")
    no_failure(at)
    said = [c.value for c in at.caption if "last load" in c.value]
    assert said and said[0].startswith("Newest loaded event ") and not at.warning
    monkeypatch.setenv("UTH_STALE_SECONDS", "0")
    time.sleep(1.1)
    at = app(own_warehouse, "live")
    assert any("may be stale" in w.value for w in at.warning)


def test_a_hand_in_play_is_shown_in_play(app, own_warehouse: Path) -> None:
    """A hand not ended whose table has not moved on (``in_play``, issue 31): in play in
    its table's row and counted, not a finding."""
    con = _writer(own_warehouse)
    try:
        con.execute("UPDATE hands SET status = 'in_play' WHERE hand_id = 'H4'")
    finally:
        con.close()
    at = app(own_warehouse, "live")
    no_failure(at)
    tables = at.dataframe[0].value.set_index("Table")
    assert tables.loc["T3", "Last hand"] == "H4" and tables.loc["T3", "Status"] == "in play"
    assert {m.label: m.value for m in at.metric}["Hands in play"] == "1"
