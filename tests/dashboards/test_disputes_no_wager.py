"""A dispute on a seat that placed no wager: ``uth disputes`` and the Disputes page say the
same thing, that the house owed that seat nothing (0, noted "no wager on this hand"), so
an adjustment paid to it is wrong, as the auditor's adjustment_mismatch finding says."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from events.audit.disputes import NO_WAGER
from pipeline.cli import main
from tests.audit.builder import Table, encode_lines, random_hand
from tests.dashboards.conftest import ROOT, no_failure

ADJUSTMENT = 500  # paid to a seat that wagered nothing


def _log(path: Path) -> tuple[Path, int, int]:
    """One settled hand; two seats that placed no wager dispute it: one dispute still open,
    one resolved with an adjustment. Returns the log and the two seats."""
    spec = random_hand(random.Random(5), "T1-X", max_seats=2, ruleset="charlevoix-2011")
    table = Table("T1", start="2026-11-29T21:00:00")
    table.open(currency="USD")
    table.hand(spec)
    seated = {s.seat for s in spec.seats}
    open_seat, paid_seat = [s for s in range(1, 8) if s not in seated][:2]
    table.emit("DisputeOpened", {"seat": open_seat, "claim": "I was not dealt in"}, "T1-X")
    table.emit("DisputeOpened", {"seat": paid_seat, "claim": "my bet was ignored"}, "T1-X")
    table.emit("DisputeResolved", {"seat": paid_seat, "resolution": "paid to settle",
                                   "adjustment": ADJUSTMENT}, "T1-X")
    path.write_bytes(b"\n".join(encode_lines(table.events)) + b"\n")
    return path, open_seat, paid_seat


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, int, int]:
    work = tmp_path_factory.mktemp("no_wager")
    log, open_seat, paid_seat = _log(work / "floor.jsonl")
    warehouse = work / "warehouse.duckdb"
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "load", "--source", str(log),
                           "--warehouse", str(warehouse), "--quiet"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return log, warehouse, open_seat, paid_seat


def test_cli_says_owed_nothing_with_a_note(floor: tuple[Path, Path, int, int],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    log, _, open_seat, paid_seat = floor
    assert main(["disputes", "--source", str(log), "--json"]) == 0
    rows = {r["seat"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows[open_seat]["owed"] == 0 and rows[open_seat]["note"] == NO_WAGER
    assert rows[open_seat]["adjustment_correct"] is None  # still open
    assert rows[paid_seat]["owed"] == 0 and rows[paid_seat]["note"] == NO_WAGER
    assert rows[paid_seat]["adjustment_correct"] is False  # 5.00 paid where 0 was due
    assert main(["disputes", "--source", str(log)]) == 0
    text = capsys.readouterr().out
    lines = [line for line in text.splitlines() if line.startswith(("open ", "resolved "))]
    assert all("0.00" in line and f"({NO_WAGER})" in line for line in lines), lines
    assert "WRONG" in next(line for line in lines if line.startswith("resolved"))
    assert "unknown" not in text


def test_the_warehouse_and_the_page_say_the_same(
        app, floor: tuple[Path, Path, int, int]) -> None:  # type: ignore[no-untyped-def]
    from dashboards import queries
    from pipeline.commands.disputes import disputes as cli_disputes

    log, warehouse, open_seat, paid_seat = floor
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows = queries.disputes(con)
        totals = queries.dispute_totals(con, rows)
        # the auditor's own rule: the adjustment on a seat owed nothing is a mismatch
        mismatches = con.execute("SELECT seat, expected FROM audit_findings "
                                 "WHERE kind = 'adjustment_mismatch'").fetchall()
    assert mismatches == [(paid_seat, 0)]
    got = {r["seat"]: (int(r["owed"]), r["note"]) for r in rows.to_dict("records")}
    want = {r["seat"]: (r["owed"], r["note"]) for r in cli_disputes(str(log))}
    assert got == want == {open_seat: (0, NO_WAGER), paid_seat: (0, NO_WAGER)}
    assert totals.to_dict("records") == [{"currency": "USD", "open": 1, "resolved": 1,
                                          "owed_open": 0, "overpaid_open": 0, "wrong": 1}]

    at = app(warehouse, "disputes")
    no_failure(at)
    queue, resolved = (d.value for d in at.dataframe)
    assert list(queue["Owed"]) == ["$0.00"] and list(queue["Note"]) == [NO_WAGER]
    assert list(resolved["Owed"]) == ["$0.00"] and list(resolved["Note"]) == [NO_WAGER]
    assert list(resolved["Adjustment checked"]) == ["✗ owed $0.00"]
    assert {m.label: m.value for m in at.metric}["Owed to players (open)"] == "$0.00"
