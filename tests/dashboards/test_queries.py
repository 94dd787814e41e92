"""The query layer: read-only, parameterized (SQL-injection strings through every filter),
and patient with a loader holding the file."""

from __future__ import annotations

import subprocess
import sys
import threading
from dataclasses import fields
from datetime import date, datetime
from pathlib import Path

import duckdb
import pytest

from dashboards import queries
from dashboards.queries import Filters
from tests.dashboards.conftest import no_failure

INJECTIONS = [
    "' OR '1'='1",
    "T1' OR 1=1 --",
    "T1'; DROP TABLE hands; --",
    '"; DELETE FROM wagers; --',
    "T1') OR ('1'='1",
    "'; ATTACH '/tmp/uth-injected.duckdb' AS x; --",
    "'; COPY hands TO '/tmp/uth-leak.csv'; --",
    "' UNION SELECT * FROM read_csv('/etc/passwd') --",
    "H1%",
    "Ｈ１",
]


def table_counts(path: Path) -> dict[str, int]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]  # type: ignore[index]
                for t in queries.TABLES}
    finally:
        con.close()


def every_query(con: duckdb.DuckDBPyConnection, f: Filters, text: str) -> dict[str, int]:
    """Rows each query returns for filters ``f`` and free text ``text``."""
    out = {
        "floor_rows": len(queries.floor_rows(con, f)),
        "floor_totals": len(queries.floor_totals(con, f)),
        "floor_series": len(queries.floor_series(con, f)),
        "trips_ruleset": len(queries.trips_summary(con, f, by_table=False)),
        "trips_table": len(queries.trips_summary(con, f)),
        "trips_hits": len(queries.trips_hits(con, f)),
        "findings": len(queries.findings(con, f)),
        "dealers": len(queries.dealers(con, f)),
        "dealer_daily": len(queries.dealer_daily(con, f)),
        "hand": int(queries.hand(con, text) is not None),
        "hand_events": len(queries.hand_events(con, {"hand_id": text})),
        "table_opened": len(queries.table_opened_before(con, text, 10**6)),
        "hand_events_window": len(queries.hand_events(con, {
            "hand_id": text, "started_at": datetime(2026, 11, 28), "ended_at": None})),
        "hand_wagers": len(queries.hand_wagers(con, text)),
        "hand_findings": len(queries.hand_findings(con, text)),
    }
    for by in queries.FINDING_GROUPS:
        out[f"findings_by_{by}"] = len(queries.findings_totals(con, f, by))
    for name in ("hand_id", "table_id", "dealer_id"):
        out[f"find_{name}"] = len(queries.find_hands(con, **{name: text}))
    return out


@pytest.mark.parametrize("text", INJECTIONS)
def test_injection_through_every_filter(handmade_warehouse: Path, text: str) -> None:
    before = table_counts(handmade_warehouse)
    with queries.open_warehouse(handmade_warehouse) as con:
        for field in fields(Filters):
            if field.name.startswith("day_"):
                continue
            got = every_query(con, Filters(**{field.name: (text,)}), text)
            # a value that matches nothing selects nothing: no query was widened by the text
            widened = {k: v for k, v in got.items() if v and k in {
                "floor_rows", "findings", "dealer_daily", "hand", "hand_events",
                "hand_wagers", "hand_findings", "find_table_id", "find_dealer_id"}}
            if field.name in ("tables", "rulesets", "dealers", "kinds", "shifts"):
                applies = {"tables": {"floor_rows", "findings"}, "rulesets": {"floor_rows"},
                           "dealers": {"findings", "dealer_daily"}, "kinds": {"findings"},
                           "shifts": {"findings"}}[field.name]
                assert not (applies & widened.keys()), (field.name, widened)
            assert not {"hand", "hand_events", "find_table_id", "find_dealer_id"} & widened.keys()
    assert table_counts(handmade_warehouse) == before
    assert not Path("/tmp/uth-injected.duckdb").exists()
    assert not Path("/tmp/uth-leak.csv").exists()


def test_shifts_follow_the_gaming_day_start(handmade_warehouse: Path) -> None:
    assert queries.shifts(6 * 60) == ("day 06:00-14:00", "swing 14:00-22:00",
                                      "graveyard 22:00-06:00")
    assert queries.shifts(7 * 60 + 30)[2] == "graveyard 23:30-07:30"
    with queries.open_warehouse(handmade_warehouse) as con:
        assert queries.day_start(con) == 360  # no meta table: the contract's 06:00
        # F2 at 02:30, F3 at 10:00, F1 21:10, F4 15:00; with the day starting at 03:00
        got = queries.findings(con, Filters(), start=3 * 60)
        assert dict(zip(got["finding_id"], got["shift"], strict=True)) == {
            "F1": "graveyard 19:00-03:00",
            "F2": "graveyard 19:00-03:00", "F3": "day 03:00-11:00", "F4": "swing 11:00-19:00"}


def test_filters_select_what_they_name(handmade_warehouse: Path) -> None:
    """The counterpart of the injection test: real values do select rows."""
    with queries.open_warehouse(handmade_warehouse) as con:
        got = every_query(con, Filters(tables=("T1",), day_from=date(2026, 11, 28),
                                       day_to=date(2026, 11, 28)), "H1")
        assert got["floor_rows"] == 1 and got["findings"] == 1 and got["hand_events"] == 17
        assert got["hand_wagers"] == 4 and got["hand"] == 1
        assert len(queries.table_opened_before(con, "T1", 500)) == 1
        assert len(queries.table_opened_before(con, "T1", 500, datetime(2026, 11, 28, 21))) == 1


def test_a_hands_events_are_read_in_a_window_around_it(handmade_warehouse: Path) -> None:
    with queries.open_warehouse(handmade_warehouse) as con:
        h1, h2 = queries.hand(con, "H1"), queries.hand(con, "H2")
        assert h1 is not None and h2 is not None
        assert len(queries.hand_events(con, h1)) == 17
        assert len(queries.hand_events(con, h2)) == 0  # its dispute came 12 days later
        late = queries.hand_events(con, h2, late_days=None)
        assert list(late["type"]) == ["DisputeOpened"]
        # H2 ended 2026-11-27 12:02; the dispute came 12 days 8 hours later
        assert len(queries.hand_events(con, h2, late_days=12)) == 0
        assert len(queries.hand_events(con, h2, late_days=13)) == 1
        assert len(queries.hand_wagers(con, "H2", h2["gaming_day"])) == 5
        assert len(queries.find_hands(con, seat=3)) == 1
        assert len(queries.find_hands(con, start=datetime(2026, 11, 29),
                                      end=datetime(2026, 11, 29, 23))) == 2
        with pytest.raises(KeyError):  # a group is a column name: only the known four
            queries.findings_totals(con, Filters(), "kind; DROP TABLE hands")


@pytest.mark.parametrize("text", INJECTIONS[:4])
def test_injection_through_the_audit_page(app, handmade_warehouse: Path, text: str) -> None:
    before = table_counts(handmade_warehouse)
    at = app(handmade_warehouse, "hand_audit", hand_id=text)
    no_failure(at)
    assert any("No hand matches" in i.value for i in at.info)
    for key in ("audit_table", "audit_dealer"):
        at.text_input(key="audit_hand_id").set_value("")
        at.text_input(key=key).set_value(text).run()
        no_failure(at)
        assert any("No hand matches" in i.value for i in at.info)
        at.text_input(key=key).set_value("")
    assert table_counts(handmade_warehouse) == before


def test_connection_is_read_only_and_sealed(handmade_warehouse: Path) -> None:
    with queries.open_warehouse(handmade_warehouse) as con:
        with pytest.raises(duckdb.Error, match="read-only"):
            con.execute("DELETE FROM hands")
        with pytest.raises(duckdb.Error):
            con.execute("SELECT * FROM read_csv('/etc/passwd')")
        with pytest.raises(duckdb.Error):
            con.execute("SET enable_external_access = true")
    assert table_counts(handmade_warehouse)["hands"] == 4


def test_busy_warehouse_is_reported(handmade_warehouse: Path, tmp_path: Path) -> None:
    """A loader holding the file: a message after a few retries, not a traceback."""
    path = tmp_path / "busy.duckdb"
    path.write_bytes(handmade_warehouse.read_bytes())
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
         "print('ready', flush=True); sys.stdin.read()", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(queries.WarehouseUnavailable) as err, \
                queries.open_warehouse(path, timeout=0.1):
            pass
        assert err.value.kind == "busy" and "being written" in str(err.value)
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)
    with queries.open_warehouse(path) as con:  # free again
        assert queries.hand_count(con) == 4


def test_page_runs_in_one_process_share_the_sealed_instance(handmade_warehouse: Path) -> None:
    """Streamlit runs sessions as threads of one process, where connections to one file
    share a database instance: every one must open, and every one stays sealed."""
    errors: list[BaseException] = []

    def page_run() -> None:
        try:
            for _ in range(5):
                with queries.open_warehouse(handmade_warehouse) as con:
                    assert queries.hand_count(con) == 4
                    with pytest.raises(duckdb.Error):
                        con.execute("SELECT * FROM read_csv('/etc/hostname')")
        except BaseException as exc:
            errors.append(exc)

    with queries.open_warehouse(handmade_warehouse) as outer:
        threads = [threading.Thread(target=page_run) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert queries.hand_count(outer) == 4
    assert errors == []
