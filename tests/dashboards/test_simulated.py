"""Every page on a real warehouse (``uth simulate`` events loaded by ``uth load``): the
figures shown are the warehouse's, read back here with the test's own SQL."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from dashboards import queries
from dashboards.format import count, money, pct
from tests.dashboards.conftest import PAGES, no_failure


@pytest.fixture(scope="module")
def wh(simulated_warehouse: Path):  # type: ignore[no-untyped-def]
    con = duckdb.connect(str(simulated_warehouse), read_only=True)
    yield con
    con.close()


def metrics(at) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    out: dict[str, list[str]] = {}
    for m in at.metric:
        out.setdefault(m.label, []).append(m.value)
    return out


@pytest.mark.parametrize("page", PAGES)
def test_every_page_runs(app, simulated_warehouse: Path, page: str) -> None:
    at = app(simulated_warehouse, page)
    no_failure(at)
    assert at.dataframe, page


def test_floor(app, simulated_warehouse: Path, wh) -> None:  # type: ignore[no-untyped-def]
    at = app(simulated_warehouse, "floor")
    shown = metrics(at)
    rows = wh.execute('SELECT currency, sum("drop"), sum(handle), sum(house_win), '
                      "sum(theoretical_win), sum(hands) FROM table_hold_daily "
                      "GROUP BY 1").fetchall()
    assert len(rows) == len(shown["Drop"]) >= 2  # the mixed rulesets use several currencies
    for cur, drop, handle, win, theo, hands in rows:
        assert money(drop, cur) in shown["Drop"]
        assert money(handle, cur) in shown["Handle"]
        assert money(win, cur) in shown["House win"]
        assert money(theo, cur) in shown["Theoretical win"]
        assert pct(win / drop, "drop") in shown["Hold % (win ÷ drop)"]
        assert count(hands) in shown["Hands"]
    table = at.dataframe[0].value  # the one grid: hold, money, limits per table-day
    assert len(at.dataframe) == 1  # each table-day once, in one grid
    assert len(table) == wh.execute("SELECT count(*) FROM table_hold_daily").fetchone()[0]
    for t, d, cur, win in wh.execute("SELECT table_id, gaming_day, currency, house_win "
                                     "FROM table_hold_daily").fetchall():
        row = table[(table["Table"] == t) & (table["Gaming day"] == d.isoformat())]
        assert list(row["House win"]) == [money(win, cur)]


def test_trips(app, simulated_warehouse: Path, wh) -> None:  # type: ignore[no-untyped-def]
    at = app(simulated_warehouse, "trips")
    by_ruleset = at.dataframe[0].value.set_index("Ruleset")
    for rs, n, handle, win in wh.execute(
            "SELECT ruleset, sum(trips_wagers), sum(trips_handle), sum(trips_win) "
            "FROM trips_performance GROUP BY 1").fetchall():
        cur = wh.execute("SELECT min(currency) FROM table_hold_daily WHERE ruleset = ?",
                         [rs]).fetchone()[0]
        r = by_ruleset.loc[rs]
        assert (r["Trips wagers"], r["Trips handle"], r["Trips win"]) == (
            count(n), money(handle, cur), money(win, cur))
    total_hits = sum(int(h.replace(",", "")) for df in at.dataframe[2:] for h in df.value["Hits"])
    assert total_hits == wh.execute("SELECT sum(hits) FROM trips_hits").fetchone()[0]


def test_hand_audit_of_a_mispaid_hand(app, simulated_warehouse: Path, wh) -> None:  # type: ignore[no-untyped-def]
    (hand_id,) = wh.execute(
        "SELECT hand_id FROM audit_findings WHERE kind = 'mispay' "
        "GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1").fetchone()
    at = app(simulated_warehouse, "hand_audit", hand_id=hand_id)
    no_failure(at)
    settlement = at.dataframe[1].value
    wrong = wh.execute("SELECT count(*) FROM wagers WHERE hand_id = ? AND "
                       "(recorded_result IS DISTINCT FROM correct_result)", [hand_id]).fetchone()[0]
    assert wrong >= 1
    assert sum(v.startswith("✗") for v in settlement["Verdict"]) == wrong
    assert len(settlement) == wh.execute("SELECT count(*) FROM wagers WHERE hand_id = ?",
                                         [hand_id]).fetchone()[0]
    steps = wh.execute("SELECT count(*) FROM events WHERE hand_id = ?", [hand_id]).fetchone()[0]
    assert at.slider(key=f"audit_step_{hand_id}").value == steps
    assert any("Auditor's replay" in c.value for c in at.caption)
    assert not any("not included" in c.value for c in at.caption)


def test_findings(app, simulated_warehouse: Path, wh) -> None:  # type: ignore[no-untyped-def]
    at = app(simulated_warehouse, "findings")
    assert queries.day_start(wh) == 6 * 60  # written by `uth load` into meta
    shown = metrics(at)
    rows = wh.execute(
        "SELECT d.currency, count(*), sum(greatest(f.recorded - f.expected, 0)), "
        "sum(greatest(f.expected - f.recorded, 0)) FROM audit_findings f JOIN "
        "(SELECT DISTINCT table_id, gaming_day, currency FROM table_hold_daily) d "
        "USING (table_id, gaming_day) GROUP BY 1").fetchall()
    assert len(rows) == len(shown["Findings"])
    for cur, n, over, under in rows:
        assert count(n) in shown["Findings"]
        assert money(over or 0, cur) in shown["Overpaid"]
        assert money(under or 0, cur) in shown["Underpaid"]


def test_dealers(app, simulated_warehouse: Path, wh) -> None:  # type: ignore[no-untyped-def]
    at = app(simulated_warehouse, "dealers")
    table = at.dataframe[0].value.set_index("Dealer")
    for dealer, hands, mispays in wh.execute(
            "SELECT dealer_id, sum(hands), sum(mispays) FROM dealer_performance "
            "GROUP BY 1").fetchall():
        assert (table.loc[dealer, "Hands"], table.loc[dealer, "Mispays"]) == (
            count(hands), count(mispays))


def test_hand_audit_writes_a_loss_as_the_command_line_does(app, simulated_warehouse: Path,  # type: ignore[no-untyped-def]
                                                           wh) -> None:
    """``lose $5.00``, not ``lose -$5.00`` (a double negative); the CSV keeps the sign."""
    hand, currency, result = wh.execute(
        "SELECT w.hand_id, h.currency, w.recorded_result "
        "FROM wagers w JOIN hands h USING (hand_id) "
        "WHERE w.recorded_outcome = 'lose' ORDER BY w.hand_id LIMIT 1").fetchone()
    at = app(simulated_warehouse, "hand_audit", hand_id=hand)
    no_failure(at)
    settlement = at.dataframe[1].value
    losses = [p for p in settlement["Recorded"] if p.startswith("lose")]
    assert losses and not [p for p in losses if p.startswith("lose -")], losses
    assert f"lose {money(-result, currency)}" in losses
