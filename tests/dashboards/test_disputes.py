"""The Disputes page and the hand audit's printable sheet, on a warehouse loaded by ``uth
load`` from the disputes floor (tests/disputes/floor.py, answers known): the page's rows
are what ``uth disputes`` says, the open queue comes first and opens its hand."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from dashboards import evidence, queries
from pipeline.commands.disputes import disputes as cli_disputes
from tests.dashboards.conftest import ROOT, no_failure
from tests.disputes import floor


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("disputes_wh")
    log, warehouse = floor.write(work / "floor.jsonl"), work / "warehouse.duckdb"
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "load", "--source", str(log),
                           "--warehouse", str(warehouse), "--quiet"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return log, warehouse


def test_the_warehouse_query_says_what_uth_disputes_says(loaded: tuple[Path, Path]) -> None:
    log, warehouse = loaded
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = queries.disputes(con)
        totals = queries.dispute_totals(con)
    expected = cli_disputes(str(log))
    assert len(rows) == len(expected) == len(floor.CLAIM)
    for got, want in zip(rows.to_dict("records"), expected, strict=True):
        for key in ("hand_id", "table_id", "seat", "dealer_id", "claim", "status",
                    "resolution", "adjustment", "owed", "adjustment_correct", "note"):
            value = got[key]
            value = None if value is pd.NA or (isinstance(value, float) and value != value) \
                else value
            assert value == want[key], (want["hand_id"], key)
        assert got["opened_at"] == pd.Timestamp(want["opened_at"][:-1])
    assert totals.to_dict("records") == [{"currency": "USD", "open": 1, "resolved": 3,
                                          "owed_open": floor.OWED["T1-A"],
                                          "overpaid_open": 0, "wrong": 1}]


def test_page_open_queue_first_and_adjustments_checked(app, loaded: tuple[Path, Path]) -> None:
    at = app(loaded[1], "disputes")
    no_failure(at)
    shown = {m.label: m.value for m in at.metric}
    assert shown["Open"] == "1" and shown["Wrong adjustments"] == "1"
    assert shown["Owed to players (open)"] == "$5.00"
    queue, resolved = (d.value for d in at.dataframe)
    assert list(queue["Hand"]) == ["hand_audit?hand_id=T1-A"]
    assert list(queue["Owed"]) == ["$5.00"]
    checked = dict(zip(resolved["Hand"].str.removeprefix("hand_audit?hand_id="),
                       resolved["Adjustment checked"], strict=True))
    assert checked == {"T1-B": "✓ equals what was owed", "T1-C": "✓ equals what was owed",
                       "T1-D": "✗ owed -$7.00"}
    assert [b.label for b in at.get("download_button")] == [
        "Download as CSV (1 row)", "Download as CSV (3 rows)"]


def test_a_dispute_opens_its_hand_audit(app, loaded: tuple[Path, Path]) -> None:
    at = app(loaded[1], "disputes")
    at.selectbox(key="disputes_open").select_index(0)
    at.button(key="disputes_go").click().run()
    no_failure(at)
    assert at.query_params["hand_id"] == "T1-A"
    assert at.selectbox(key="audit_chosen").value == "T1-A"


def test_hand_audit_sheet_carries_the_warehouse_positions(loaded: tuple[Path, Path]) -> None:
    _, warehouse = loaded
    with duckdb.connect(str(warehouse), read_only=True) as con:
        row = queries.hand(con, "T1-A")
        assert row is not None
        events_df = queries.hand_events(con, row, None)
        opened = queries.table_opened_before(con, "T1", int(events_df["seq"].min()))
        wagers = queries.hand_wagers(con, "T1-A")
        found = queries.hand_findings(con, "T1-A")
    doc = evidence.document(row, evidence.event_dicts(opened) + evidence.event_dicts(events_df),
                            wagers, found)
    page = evidence.sheet(doc, events_df)
    assert page is not None and "Evidence: hand T1-A" in page and "it matches" in page
    for event_id, position in zip(events_df["event_id"], events_df["position"], strict=True):
        assert event_id in page and f"floor.jsonl:{position}</td>" in page


def test_simulated_floor_query_equals_uth_disputes(simulated_warehouse: Path) -> None:
    log = simulated_warehouse.parent / "events.jsonl"
    with duckdb.connect(str(simulated_warehouse), read_only=True) as con:
        rows = queries.disputes(con)
    expected = cli_disputes(str(log))
    assert expected, "the simulated floor has disputes"
    key = ("hand_id", "seat", "status", "owed", "adjustment")
    assert sorted(tuple(r[k] for k in key) for r in rows.to_dict("records")) == sorted(
        tuple(r[k] for k in key) for r in expected)


def test_owed_and_overpaid_are_two_sums() -> None:
    """An open dispute the house owes 5.00 on and one where the player was overpaid 3.00:
    5.00 owed and 3.00 overpaid, not 2.00 "owed"."""
    rows = pd.DataFrame({"currency": ["USD", "USD", "USD"],
                         "status": ["open", "open", "resolved"],
                         "owed": [500, -300, -700],
                         "adjustment_correct": [None, None, True]})
    totals = queries.dispute_totals(None, rows)  # type: ignore[arg-type]
    assert totals.to_dict("records") == [{"currency": "USD", "open": 2, "resolved": 1,
                                          "owed_open": 500, "overpaid_open": 300, "wrong": 0}]
