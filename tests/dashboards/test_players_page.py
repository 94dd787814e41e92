"""The Players page on the hand-made warehouse: rating slips added up over the days as the
rows say, the flagged player first, the game-protection section with evidence hands that
open in the hand audit page and the dealers the alerts concentrate on."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb

from tests.dashboards.conftest import no_failure
from tests.dashboards.test_pages import metrics
from tests.dashboards.warehouse_data import HOLE_CARDER, PSEUDONYM


def test_ratings_and_totals(app, handmade_warehouse: Path) -> None:  # type: ignore[no-untyped-def]
    at = app(handmade_warehouse, "players")
    no_failure(at)
    shown = metrics(at)
    # seat-hands: each player's hands (not the floor's hands, as on every other page)
    assert shown["Players"] == ["2"] and shown["Seat-hands"] == ["260"]
    assert shown["Handle (USD)"] == ["$10,400.00"]  # 360,000 + 320,000 + 360,000 cents
    # the pseudonym's theo is unknown (a ruleset without an exact base edge): left aside, said
    assert shown["Theoretical win (USD)"] == ["$50.00 + 1 unknown"]
    assert shown["Actual win (USD)"] == ["-$230.00"]
    assert shown["Flagged players"] == ["1"]
    slips = at.dataframe[0].value
    assert list(slips["Player"]) == [HOLE_CARDER, PSEUDONYM]  # flagged first
    first = slips.iloc[0]
    assert (first["Days"], first["Hands"], first["Hours"]) == ("2", "200", "5.00")
    assert first["Average ante"] == "$10.00"
    assert first["Average wager"] == "$34.00"  # (120 x $30 + 80 x $40) / 200
    assert first["Decisions' cost"] == "$90.00"
    assert first["Actual − theo"] == "-$490.00"  # -350 - (50 + 90) dollars
    assert first["Protection score"] == "6.20"
    assert first["Dispute adjustments"] == "$10.00"
    second = slips.iloc[1]  # unknown, not zero and not a guess
    assert (second["Theo win"], second["Decisions' cost"], second["Actual − theo"]) == (
        "unknown", "unknown", "unknown")
    daily = at.dataframe[1].value  # the slips as stored, latest day first
    assert list(zip(daily["Gaming day"], daily["Player"], daily["Hands"], strict=True)) == [
        ("2026-11-28", HOLE_CARDER, "80"), ("2026-11-28", PSEUDONYM, "60"),
        ("2026-11-27", HOLE_CARDER, "120")]
    assert list(daily["Average wager"]) == ["$40.00", "$60.00", "$30.00"]
    assert list(daily["Theo base game"]) == ["$18.00", "unknown", "$25.00"]
    assert list(daily["Theo Trips"]) == ["$2.00", "$10.00", "$5.00"]
    assert list(daily["Dispute adjustments"]) == ["$10.00", "$0.00", "$0.00"]


def test_totals_in_each_currency(app, handmade_warehouse: Path,  # type: ignore[no-untyped-def]
                                 tmp_path: Path) -> None:
    """Players in two currencies: each currency's figures, never "several currencies"."""
    copy = tmp_path / "warehouse.duckdb"
    shutil.copyfile(handmade_warehouse, copy)
    con = duckdb.connect(str(copy))
    con.execute("UPDATE player_ratings SET currency = 'EUR' WHERE player = ?", [PSEUDONYM])
    con.close()
    at = app(copy, "players")
    no_failure(at)
    shown = metrics(at)
    assert not [v for vs in shown.values() for v in vs if "several" in v], shown
    assert shown["Handle (USD)"] == ["$6,800.00"] and shown["Handle (EUR)"] == ["€3,600.00"]
    assert shown["Theoretical win (EUR)"] == ["unknown"]


def test_day_filter(app, handmade_warehouse: Path) -> None:  # type: ignore[no-untyped-def]
    at = app(handmade_warehouse, "players")
    at.sidebar.date_input(key="players_days").set_value(
        (at.sidebar.date_input(key="players_days").value[0],) * 2).run()
    no_failure(at)
    slips = at.dataframe[0].value
    assert list(slips["Player"]) == [HOLE_CARDER] and list(slips["Hands"]) == ["120"]


def test_protection_section(app, handmade_warehouse: Path) -> None:  # type: ignore[no-untyped-def]
    at = app(handmade_warehouse, "players")
    no_failure(at)
    alerts, evidence, dealers = (d.value for d in at.dataframe[2:5])
    assert list(alerts["Player"]) == [HOLE_CARDER]
    assert list(alerts["Pattern"]) == ["hole-card-both"]
    assert list(alerts["Streets"]) == ["flop,river"]
    assert list(alerts["Crossed the line on"]) == ["2026-11-02"]
    assert list(alerts["Most with dealer"]) == ["D1"]
    assert list(alerts["Only with dealer"]) == ["D1"]
    assert list(evidence["Hand"]) == ["hand_audit?hand_id=H1", "hand_audit?hand_id=H2"]
    assert list(evidence["Dealer"]) == ["D1", "D1"]  # from the hands table
    assert list(dealers["Dealer"]) == ["D1", "D2"]
    assert list(dealers["Share of the gain"]) == ["84%", "16%"]  # 80 / 95.5, 15.5 / 95.5
    flagged_dealers = at.dataframe[5].value  # flagged on their own statistic, last
    assert list(flagged_dealers["Dealer"]) == ["D1"]
    assert list(flagged_dealers["Pattern"]) == ["flashes"]
    assert list(flagged_dealers["Players"]) == [HOLE_CARDER]
    assert list(flagged_dealers["Evidence hands"]) == ["H1, H2"]
    at.selectbox(key="players_open").set_value(f"H2|{HOLE_CARDER}").run()
    at.button(key="players_go").click().run()
    no_failure(at)
    assert at.title[0].value == "Hand audit"
    assert at.selectbox(key="audit_chosen").value == "H2"
