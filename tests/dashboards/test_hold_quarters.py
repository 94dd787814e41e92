"""The hold report by shift from the load's quarter-hour rollups equals the report computed
here from the hands, wagers and buy-ins themselves, on a simulated floor loaded in two
parts (the second updates table-days the first made) in the casino's zone, its hands
running across the gaming day's start and across shift boundaries; shifts that do not
start on a quarter-hour are computed from the wagers, with the same result; and a
warehouse built before the rollups gets them on its next load."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import defaultdict
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import duckdb
import pytest

from dashboards import hold_queries, queries
from events import localtime
from events.sim.simulation import SimConfig, simulate
from tests.dashboards.conftest import ROOT

ZONE = "America/Toronto"
# 03:00 in Toronto: six hours of hands run across 04:30, the gaming day's 06:00 and 07:45
START = "2026-11-29T08:00:00Z"


def _load(log: Path, warehouse: Path) -> None:
    env = {**os.environ, "UTH_TIMEZONE": ZONE, "UTH_GAMING_DAY_START": "06:00"}
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "load", "--source", str(log),
                           "--warehouse", str(warehouse), "--quiet"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("hold_quarters")
    whole, log, path = work / "whole.jsonl", work / "events.jsonl", work / "warehouse.duckdb"
    simulate(SimConfig(tables=3, hands=240, seed=11, pace=40, start=START, mispay_rate=0.02,
                       void_rate=0.02, dispute_rate=0.02), str(whole))
    lines = whole.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[: len(lines) // 2]))
    _load(log, path)
    shutil.copyfile(whole, log)  # the rest of the floor: the same table-days, and later ones
    _load(log, path)
    return path


def expected(con: duckdb.DuckDBPyConnection, day_start: int, day_from: date | None = None,
             day_to: date | None = None) -> dict[tuple[str, str], tuple[int, ...]]:
    """By shift and currency: hands, drop, handle, house win, from the rows themselves."""
    shifts = localtime.shifts(day_start)
    label = localtime.labels(shifts)

    def shift(at: datetime | None) -> str:
        if at is None:  # no time: the shift that runs over midnight, as in SQL
            return label[max(shifts, key=lambda s: s.start).name]
        local = at.replace(tzinfo=UTC).astimezone(ZoneInfo(ZONE))
        return label[localtime.shift_of(local.hour * 60 + local.minute, shifts)]

    def kept(day: date | None) -> bool:
        return day is not None and (day_from is None or day >= day_from) and (
            day_to is None or day <= day_to)

    money: dict[str, tuple[int, int]] = defaultdict(lambda: (0, 0))
    for hand_id, amount, result in con.execute(
            "SELECT hand_id, amount, recorded_result FROM wagers").fetchall():
        handle, win = money[hand_id]
        money[hand_id] = (handle + amount, win - (result or 0))
    out: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    currency_of: dict[str, str] = {}
    for hand_id, table, currency, status, started, day in con.execute(
            "SELECT hand_id, table_id, currency, status, started_at, gaming_day FROM hands"
            ).fetchall():
        if currency is not None:
            currency_of[table] = min(currency, currency_of.get(table, currency))
        if not kept(day):
            continue
        row = out[(shift(started), currency or "")]
        handle, win = money.get(hand_id, (0, 0))
        row[0] += status in ("settled", "voided")
        row[2] += handle if status == "settled" else 0
        row[3] += win
    for table, at, day, amount in con.execute(
            "SELECT table_id, occurred_at, gaming_day, CAST(payload->>'amount' AS BIGINT) "
            "FROM events WHERE type = 'ChipsPurchased'").fetchall():
        if kept(day):
            out[(shift(at), currency_of.get(table, ""))][1] += amount
    return {k: tuple(v) for k, v in out.items()}


def figures(df: Any) -> dict[tuple[str, str], tuple[int, ...]]:
    return {(r["group"], r["currency"]): (r["hands"], r["drop"], r["handle"], r["house_win"])
            for r in df.to_dict("records")}


@pytest.mark.parametrize("shifts", ["", "early=04:30,day=06:00,late=07:45"])
def test_the_rollups_give_the_report_of_the_wagers(
        warehouse: Path, shifts: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_SHIFTS", shifts)
    with duckdb.connect(str(warehouse), read_only=True) as con:
        start = queries.day_start(con)
        assert queries.zone(con) == ZONE
        assert hold_queries.quarters_ready(con, start)  # the report reads the rollups
        days = sorted(d for (d,) in con.execute(
            "SELECT DISTINCT gaming_day FROM hands").fetchall())
        assert len(days) >= 2  # the floor runs across the gaming day's start
        want = expected(con, start)
        assert len(want) >= 3  # and across shift boundaries
        assert figures(queries.hold_report(con, "shift")) == want
        assert figures(queries.hold_report(con, "shift", days[1], days[-1])) == expected(
            con, start, days[1], days[-1])


def test_shifts_off_the_quarter_hours_read_the_wagers(
        warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_SHIFTS", "dawn=05:07,noon=12:52")
    with duckdb.connect(str(warehouse), read_only=True) as con:
        start = queries.day_start(con)
        assert not hold_queries.quarters_ready(con, start)
        assert figures(queries.hold_report(con, "shift")) == expected(con, start)


def test_a_warehouse_built_before_the_rollups_gets_them(warehouse: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.duckdb"
    shutil.copyfile(warehouse, old)
    with duckdb.connect(str(old)) as con:
        want = con.execute("SELECT * FROM hold_quarters ORDER BY ALL").fetchall()
        assert want
        con.execute("DROP TABLE hold_quarters")
        con.execute("DROP TABLE drop_quarters")
        con.execute("DELETE FROM meta WHERE key = 'hold_quarters'")
    with duckdb.connect(str(old), read_only=True) as con:
        assert not hold_queries.quarters_ready(con, queries.day_start(con))
        before = figures(queries.hold_report(con, "shift"))  # from the wagers meanwhile
    _load(warehouse.parent / "events.jsonl", old)  # nothing new in the log
    with duckdb.connect(str(old), read_only=True) as con:
        assert con.execute("SELECT * FROM hold_quarters ORDER BY ALL").fetchall() == want
        assert hold_queries.quarters_ready(con, queries.day_start(con))
        assert figures(queries.hold_report(con, "shift")) == before
