"""Every page run by Streamlit's AppTest on the hand-made warehouse: the figures shown are
the warehouse's (read back with the test's own SQL) and the ones worked out by hand."""

from __future__ import annotations

import re
from datetime import date, time
from pathlib import Path

import duckdb
import pytest

from dashboards.format import count, money, pct, probability, share
from tests.dashboards.conftest import no_failure


def texts(elements) -> list[str]:  # type: ignore[no-untyped-def]
    """Element texts with markdown escapes removed (warehouse text is escaped)."""
    return [re.sub(r"\\(.)", r"\1", e.value).replace("\u2060", "") for e in elements]


def hands_offered(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [o.split(" · ")[0] for o in at.selectbox(key="audit_chosen").options]


def metrics(at) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    out: dict[str, list[str]] = {}
    for m in at.metric:
        out.setdefault(m.label, []).append(m.value)
    return out


def one(warehouse: Path, sql: str, *params: object) -> tuple:  # type: ignore[type-arg]
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchone()  # type: ignore[return-value]
    finally:
        con.close()


# ---------------------------------------------------------------- floor
def test_floor_totals_equal_the_warehouse(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "floor")
    no_failure(at)
    shown = metrics(at)
    # by hand: USD drop 12,500+15,000+8,000+9,000 dollars; win 1,900+2,400+3,600-450
    assert "$44,500.00" in shown["Drop"] and "€1,234,567.89" in shown["Drop"]
    assert "$112,000.00" in shown["Handle"]
    assert "$7,450.00" in shown["House win"]
    assert "16.74% of drop" in shown["Hold % (win ÷ drop)"]  # 745,000 / 4,450,000
    assert "6.65% of handle" in shown["Win ÷ handle"]  # 745,000 / 11,200,000
    assert "$2,700.00" in shown["Theoretical win"]
    assert "1 of 4 table-days" in shown["Outside 95% limits"]
    for cur in ("USD", "EUR"):
        drop, handle, win, theo, hands = one(
            handmade_warehouse, 'SELECT sum("drop"), sum(handle), sum(house_win), '
            "sum(theoretical_win), sum(hands) FROM table_hold_daily WHERE currency = ?", cur)
        assert money(drop, cur) in shown["Drop"]
        assert money(handle, cur) in shown["Handle"]
        assert money(win, cur) in shown["House win"]
        assert pct(win / drop, "drop") in shown["Hold % (win ÷ drop)"]
        assert pct(win / handle, "handle") in shown["Win ÷ handle"]
        assert money(theo, cur) in shown["Theoretical win"]
        assert count(hands) in shown["Hands"]


def test_floor_table_puts_the_outlier_first(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "floor")
    table = at.dataframe[0].value
    assert len(table) == 5
    first = table.iloc[0]
    assert (first["Table"], first["Gaming day"], first["95% limits"]) == (
        "T2", "2026-11-28", "⚠ outside")
    assert first["Hold % (win ÷ drop)"] == "45.00%"  # 360,000 / 800,000
    assert (first["Hold limit low"], first["Hold limit high"]) == ("1.00%", "33.00%")
    assert list(table["95% limits"]).count("⚠ outside") == 1
    con = duckdb.connect(str(handmade_warehouse), read_only=True)
    rows = con.execute('SELECT table_id, gaming_day, currency, "drop", handle, house_win, '
                       "theoretical_win, hands, hands_per_hour FROM table_hold_daily").fetchall()
    con.close()
    shown = {(r["Table"], r["Gaming day"]): r for r in table.to_dict("records")}
    assert len(at.dataframe) == 1  # one grid: each table-day once, with its money
    paid = shown
    for t, d, cur, drop, handle, win, theo, hands, hph in rows:
        r, m = shown[(t, d.isoformat())], paid[(t, d.isoformat())]
        assert (m["Drop"], m["Handle"], m["House win"], m["Theoretical win"]) == (
            money(drop, cur), money(handle, cur), money(win, cur), money(theo, cur))
        assert r["Hands"] == count(hands) and r["Hands / hour"] == f"{hph:,.1f}"
    assert paid[("T2", "2026-11-29")]["House win"] == "-$450.00"


def test_floor_filters(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "floor")
    at.multiselect(key="floor_tables").set_value(["T1"]).run()
    no_failure(at)
    assert metrics(at)["Drop"] == ["$27,500.00"]
    assert set(at.dataframe[0].value["Table"]) == {"T1"}
    at.multiselect(key="floor_tables").set_value([]).run()
    at.date_input(key="floor_days").set_value((date(2026, 11, 28), date(2026, 11, 28))).run()
    assert set(at.dataframe[0].value["Gaming day"]) == {"2026-11-28"}
    assert metrics(at)["Drop"] == ["$23,000.00"]  # T1 15,000 + T2 8,000
    at.multiselect(key="floor_rulesets").set_value(["cardroom"]).run()
    assert metrics(at)["Hold % (win ÷ drop)"] == ["45.00% of drop"]


# ---------------------------------------------------------------- trips
def test_trips_hold_against_theory(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "trips")
    no_failure(at)
    by_ruleset = at.dataframe[0].value.set_index("Ruleset")
    c = by_ruleset.loc["charlevoix-2011"]
    assert (c["Trips wagers"], c["Trips handle"], c["Trips win"]) == ("450", "$2,250.00", "-$85.00")
    assert c["Hold (win ÷ Trips handle)"] == "-3.778%"  # -8,500 / 225,000
    assert c["Theoretical hold"] == "3.450%"
    # days combined: sqrt((0.1345 x 100,000)^2 + (0.1245 x 125,000)^2) / 225,000 = 9.142%
    assert (c["95% band low"], c["95% band high"]) == ("-5.692%", "12.592%")
    assert c["Within band"] == "yes"
    wagers, handle, win = one(handmade_warehouse, "SELECT sum(trips_wagers), sum(trips_handle), "
                              "sum(trips_win) FROM trips_performance WHERE ruleset = 'cardroom'")
    r = by_ruleset.loc["cardroom"]
    assert (r["Trips wagers"], r["Trips handle"], r["Trips win"]) == (
        count(wagers), money(handle, "USD"), money(win, "USD"))
    by_table = at.dataframe[1].value
    assert list(zip(by_table["Ruleset"], by_table["Table"], strict=True)) == [
        ("cardroom", "T2"), ("charlevoix-2011", "T1")]


def test_trips_paying_hand_frequencies(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "trips")
    charlevoix = at.dataframe[3].value.set_index("Hand")  # 0, 1: summaries; 2: cardroom
    assert charlevoix.loc["Royal flush", "Frequency (of Trips wagers)"] == (
        "0.2222% (1 of 450 wagers)")
    assert charlevoix.loc["Three of a kind", "Hits"] == "19"
    assert charlevoix.loc["Three of a kind", "Frequency (of Trips wagers)"] == share(19, 450,
                                                                                    "wagers", 4)
    # 6,461,620 of the 133,784,560 seven-card hands
    assert charlevoix.loc["Three of a kind", "Exact probability"] == "4.8299%"
    assert charlevoix.loc["Full house", "Exact probability"] == probability(3473184 / 133784560)
    assert list(charlevoix.index) == ["Royal flush", "Full house", "Flush", "Three of a kind"]


# ---------------------------------------------------------------- hand audit
def test_hand_audit_replays_and_judges_a_hand(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "hand_audit", hand_id="H1")
    no_failure(at)
    assert at.selectbox(key="audit_chosen").value == "H1"
    settlement = at.dataframe[1].value.set_index("Spot")
    assert settlement.loc["blind", "Recorded"] == "win $10.00"
    assert settlement.loc["blind", "Computed"] == "win $15.00"
    assert settlement.loc["blind", "Verdict"] == "✗ underpaid by $5.00"
    assert settlement.loc["trips", "Verdict"] == "✓ correct"
    # the auditor's own replay (events.audit.evidence) names the hands and explains each pay
    assert settlement.loc["trips", "Player's hand"] == "Flush, ace high"
    # the auditor's sentences whole, below the grid (a grid column cut them)
    assert "Why (auditor)" not in settlement.columns
    assert any("seat 2 blind: the player wins with a flush, which pays 3:2 on the blind"
               in m.replace("\\", "") for m in texts(at.markdown))
    # a loss reads as the command line writes it, never "lose -$5.00"
    payouts = list(settlement["Recorded"]) + list(settlement["Computed"])
    assert not [p for p in payouts if p.startswith("lose -")], payouts
    assert any("Three nines" in m and "(qualifies)" in m for m in texts(at.markdown))
    assert any("the house underpaid 5.00" in c for c in texts(at.caption))
    assert [b.label for b in at.get("download_button") if "CSV" not in b.label] == [
        "Download evidence (JSON)", "Download evidence sheet (HTML, printable)"]
    assert [w.value for w in at.warning] == ["Verdict: 1 of 4 wagers settled wrongly."]
    # whole hand shown by default: 17 events, dealer's cards revealed
    assert at.slider(key="audit_step_H1").value == 17
    board = next(m.value for m in at.markdown if "uth-card" in m.value)
    assert 'title="9d"' in board and 'title="Ah"' in board and "(dealt face down)" not in board


def test_hand_audit_steps_through_the_hand(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "hand_audit", hand_id="H1")
    at.slider(key="audit_step_H1").set_value(5).run()
    no_failure(at)
    cards = next(m.value for m in at.markdown if "uth-card" in m.value)
    assert 'title="Ah (dealt face down)"' in cards and 'title="Qh"' not in cards
    assert any("The board is dealt A♥ K♥ 7♥ 2♣ 9♠ (face down)." in m for m in texts(at.markdown))
    at.button(key="audit_fwd").click().run()  # seat 2's cards
    cards = next(m.value for m in at.markdown if "uth-card" in m.value)
    assert 'title="Qh"' in cards and 'title="3h"' in cards
    for _ in range(3):
        at.button(key="audit_fwd").click().run()
    assert at.slider(key="audit_step_H1").value == 9  # the flop is turned
    cards = next(m.value for m in at.markdown if "uth-card" in m.value)
    assert 'title="Ah"' in cards and 'title="2c (dealt face down)"' in cards
    at.button(key="audit_back").click().run()
    assert at.slider(key="audit_step_H1").value == 8


def test_hand_audit_finds_late_events_on_request(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "hand_audit", hand_id="H2")
    no_failure(at)
    assert any("No events of this hand" in i.value for i in at.info)
    at.toggle(key="audit_all_events").set_value(True).run()
    no_failure(at)
    assert any("Seat 3 disputes the hand: my raise was refused" in m for m in texts(at.markdown))


@pytest.mark.parametrize(("field", "value", "expected"), [
    ("audit_dealer", "D2", ["H3"]),
    ("audit_table", "T1", ["H1", "H2"]),
    ("audit_hand_id", "H", ["H4", "H3", "H1", "H2"]),
])
def test_hand_audit_search(app, handmade_warehouse: Path, field, value, expected) -> None:
    at = app(handmade_warehouse, "hand_audit")
    at.text_input(key=field).set_value(value).run()
    no_failure(at)
    assert hands_offered(at) == expected


def test_hand_audit_search_by_seat_and_time(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "hand_audit")
    at.number_input(key="audit_seat").set_value(3).run()
    assert hands_offered(at) == ["H2"]
    at.number_input(key="audit_seat").set_value(None).run()
    at.date_input(key="audit_day").set_value(date(2026, 11, 29)).run()
    assert hands_offered(at) == ["H4", "H3"]
    at.time_input(key="audit_from").set_value(time(14, 0)).run()
    assert hands_offered(at) == ["H4"]
    at.text_input(key="audit_dealer").set_value("nobody").run()
    no_failure(at)
    assert any("No hand matches" in i.value for i in at.info)


# ---------------------------------------------------------------- findings
def test_findings_totals_and_groups(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "findings")
    no_failure(at)
    shown = metrics(at)
    assert shown["Overpaid"] == ["€10.00", "$20.00"]  # F4 ante paid twice; F2 trips on a pair
    assert shown["Underpaid"] == ["€0.00", "$5.00"]  # F1 blind 1:1 on a flush
    assert shown["Findings"] == ["2", "2"] and shown["Mispays"] == ["1", "2"]
    by_dealer = at.dataframe[0].value.set_index("Dealer")
    assert by_dealer.loc["D1", "Underpaid"] == "$5.00"
    assert by_dealer.loc["D2", "Overpaid"] == "$20.00"
    assert by_dealer.loc["—", "Findings"] == "1"  # the sequence gap has no dealer
    at.radio(key="findings_by").set_value("shift").run()
    by_shift = at.dataframe[0].value
    assert sorted(zip(by_shift["Shift"], by_shift["Currency"], by_shift["Findings"],
                      strict=True)) == [
        ("day 06:00-14:00", "EUR", "1"), ("graveyard 22:00-06:00", "USD", "1"),
        ("swing 14:00-22:00", "EUR", "1"), ("swing 14:00-22:00", "USD", "1")]
    over, under = one(handmade_warehouse, "SELECT sum(greatest(recorded - expected, 0)), "
                      "sum(greatest(expected - recorded, 0)) FROM audit_findings "
                      "WHERE table_id IN ('T1', 'T2')")
    assert money(over, "USD") in shown["Overpaid"] and money(under, "USD") in shown["Underpaid"]


def test_findings_filters_and_links(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "findings")
    rows = at.dataframe[1].value
    assert list(rows["Kind"]) == ["mispay", "sequence_gap", "mispay", "mispay"]  # latest first
    assert rows.iloc[0]["Hand"] == "hand_audit?hand_id=H4"
    assert rows.iloc[1]["Hand"] == ""  # no link, and not "None" (test_empty_cells.py)
    at.multiselect(key="findings_kinds").set_value(["sequence_gap"]).run()
    assert metrics(at)["Findings"] == ["1"]
    at.multiselect(key="findings_kinds").set_value([]).run()
    at.multiselect(key="findings_shifts").set_value(["graveyard 22:00-06:00"]).run()
    assert list(at.dataframe[1].value["Hand"]) == ["hand_audit?hand_id=H3"]
    at.multiselect(key="findings_shifts").set_value([]).run()
    at.selectbox(key="findings_open").set_value("F1").run()
    at.button(key="findings_go").click().run()
    no_failure(at)
    assert at.title[0].value == "Hand audit"
    assert at.selectbox(key="audit_chosen").value == "H1"


# ---------------------------------------------------------------- dealers
def test_dealers(app, handmade_warehouse: Path) -> None:
    at = app(handmade_warehouse, "dealers")
    no_failure(at)
    table = at.dataframe[0].value
    assert list(table["Dealer"]) == ["D3", "D2", "D1"]  # most mispays per hand first
    d1 = table.set_index("Dealer").loc["D1"]
    assert (d1["Hands"], d1["Hours"], d1["Hands / hour"]) == ("540", "13.00", "41.5")
    assert d1["Mispays (of hands)"] == "0.185% (1 of 540 hands)"
    assert d1["Mispay net (+ overpaid)"] == "-$5.00"
    assert table.set_index("Dealer").loc["D3", "Mispay net (+ overpaid)"] == "€10.00"
    hands, hours = one(handmade_warehouse, "SELECT sum(hands), sum(hours) FROM dealer_performance")
    assert metrics(at)["Hands"] == [count(hands)]
    assert metrics(at)["Mispay rate"] == ["0.357% of hands"]  # 3 of 840
    assert metrics(at)["Hands / hour (all dealers)"] == [f"{hands / hours:,.1f}"]
    at.multiselect(key="dealers_pick").set_value(["D2"]).run()
    assert list(at.dataframe[0].value["Dealer"]) == ["D2"]
