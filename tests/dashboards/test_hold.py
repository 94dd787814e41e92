"""The hold report: by table and by week its figures are table_hold_daily's (read back with
the test's own SQL on the simulated warehouse); pits come from UTH_PITS, shifts from local
time; the page shows the hand-made warehouse's wagers."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from dashboards import queries
from dashboards.format import money
from tests.dashboards import warehouse_data
from tests.dashboards.conftest import no_failure


@pytest.fixture(scope="module")
def sim(simulated_warehouse: Path):  # type: ignore[no-untyped-def]
    con = duckdb.connect(str(simulated_warehouse), read_only=True)
    yield con
    con.close()


def figures(df) -> dict:  # type: ignore[no-untyped-def,type-arg]
    return {(r["group"], r["currency"]): (r["hands"], r["drop"], r["handle"], r["house_win"])
            for r in df.to_dict("records")}


def test_by_table_and_week_are_the_daily_rollup(sim) -> None:  # type: ignore[no-untyped-def]
    daily = sim.execute("""SELECT table_id, currency, sum(hands), sum("drop"), sum(handle),
        sum(house_win) FROM table_hold_daily GROUP BY ALL""").fetchall()
    assert figures(queries.hold_report(sim, "table")) == {
        (t, c): (h, d, hd, w) for t, c, h, d, hd, w in daily}
    weekly = sim.execute("""SELECT CAST(date_trunc('week', gaming_day) AS DATE)::VARCHAR,
        currency, sum(hands), sum("drop"), sum(handle), sum(house_win)
        FROM table_hold_daily GROUP BY ALL""").fetchall()
    assert figures(queries.hold_report(sim, "week")) == {
        (k, c): (h, d, hd, w) for k, c, h, d, hd, w in weekly}


def test_pits_and_shifts_share_out_the_floor(sim, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    tables = [r[0] for r in sim.execute(
        "SELECT DISTINCT table_id FROM hands ORDER BY 1").fetchall()]
    monkeypatch.setenv("UTH_PITS", f"first={tables[0]};rest={','.join(tables[1:])}")
    pits = queries.hold_report(sim, "pit")
    by_table = figures(queries.hold_report(sim, "table"))
    assert set(pits["group"]) == {"first", "rest"}
    assert {c: v for (g, c), v in figures(pits).items() if g == "first"} == {
        c: v for (t, c), v in by_table.items() if t == tables[0]}
    for by in ("pit", "shift"):
        got = queries.hold_report(sim, by)
        assert got[["hands", "drop", "handle", "house_win"]].sum().tolist() == [
            sum(v[i] for v in by_table.values()) for i in range(4)], by
    monkeypatch.setenv("UTH_SHIFTS", "early=04:00,late=16:00")
    assert set(queries.hold_report(sim, "shift")["group"]) <= {"early 04:00-16:00",
                                                               "late 16:00-04:00"}
    monkeypatch.setenv("UTH_PITS", "nonsense")
    with pytest.raises(queries.PitsError, match="UTH_PITS"):
        queries.hold_report(sim, "pit")


def test_page_by_table_and_shift(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "hold")
    no_failure(at)
    at.radio(key="hold_by").set_value("table").run()
    shown = at.dataframe[0].value.set_index("Table")
    for table in ("T1", "T2", "T3"):  # the rollup's rows
        rows = [r for r in warehouse_data.HOLD if r[0] == table]
        cur = rows[0][3]
        assert shown.loc[table, "Hands"] == str(sum(r[4] for r in rows))
        assert shown.loc[table, "Drop"] == money(sum(r[5] for r in rows), cur)
        assert shown.loc[table, "House win"] == money(sum(r[7] for r in rows), cur)
    at.radio(key="hold_by").set_value("shift").run()
    no_failure(at)
    shown = at.dataframe[0].value
    # in the order of the gaming day, not by name (day, graveyard, swing)
    assert list(dict.fromkeys(shown["Shift"])) == [
        "day 06:00-14:00", "swing 14:00-22:00", "graveyard 22:00-06:00"]
    # by shift, from the hands and wagers: H1 21:08 and H4 14:58 (swing), H2 12:00 (day),
    # H3 02:28 (graveyard)
    hands = {h[0]: h for h in warehouse_data.HANDS}
    for shift, ids in (("day 06:00-14:00", ["H2"]), ("swing 14:00-22:00", ["H1", "H4"]),
                       ("graveyard 22:00-06:00", ["H3"])):
        wagers = [w for w in warehouse_data.WAGERS if w[0] in ids]
        row = shown.loc[shown["Shift"] == shift]
        assert list(row["Hands"]) == [str(len(ids))] or sorted(row["Currency"]) == sorted(
            {hands[i][3] for i in ids})
        assert sum(int(v) for v in row["Hands"]) == len(ids)
        total = {c: -sum(w[5] for w in wagers if hands[w[0]][3] == c) for c in row["Currency"]}
        assert sorted(row["House win"]) == sorted(money(v, c) for c, v in total.items())


def test_page_pits(app, handmade_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = app(handmade_warehouse, "hold")
    at.radio(key="hold_by").set_value("pit").run()
    assert any("No pit is set" in i.value for i in at.info)
    monkeypatch.setenv("UTH_PITS", "main=T1,T2")
    at = app(handmade_warehouse, "hold")
    at.radio(key="hold_by").set_value("pit").run()
    no_failure(at)
    assert sorted(at.dataframe[0].value["Pit"]) == ["main", "no pit"]
