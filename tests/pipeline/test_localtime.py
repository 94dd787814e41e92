"""Local time: UTH_TIMEZONE puts the warehouse's gaming days on the casino's clock
(UTH_GAMING_DAY_START is local), a warehouse counted in one zone refuses another, and
UTH_SHIFTS names the shifts. The floor (tests/disputes/floor.py) starts at 10:59 UTC, one
minute before 06:00 in Toronto (UTC-5 in November): its hands start on Toronto's gaming
day 2026-11-29, while in UTC the whole floor is on 2026-11-30."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from events import localtime
from pipeline.hands.steps import update_hands
from pipeline.ingest.steps import load_events
from pipeline.warehouse import query
from tests.disputes import floor

START = "2026-11-30T10:59:00"
SIX = 360


def load(tmp_path: Path, name: str = "w.duckdb") -> Path:
    log = floor.write(tmp_path / "floor.jsonl", start=START)
    warehouse = tmp_path / name
    load_events(str(log), warehouse, day_start_minutes=SIX)
    update_hands(warehouse, SIX)
    return warehouse


def test_gaming_days_in_the_casino_zone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_TIMEZONE", "America/Toronto")
    warehouse = load(tmp_path)
    assert query(warehouse, "SELECT DISTINCT gaming_day FROM hands") == [(date(2026, 11, 29),)]
    days = dict(query(warehouse, """SELECT occurred_at < TIMESTAMP '2026-11-30 11:00:00',
        list(DISTINCT gaming_day) FROM events GROUP BY ALL"""))
    assert days == {True: [date(2026, 11, 29)], False: [date(2026, 11, 30)]}
    assert ("timezone", "America/Toronto") in query(warehouse, "SELECT * FROM meta")


def test_utc_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UTH_TIMEZONE", raising=False)
    warehouse = load(tmp_path)
    assert query(warehouse, "SELECT DISTINCT gaming_day FROM events") == [(date(2026, 11, 30),)]
    assert ("timezone", "UTC") in query(warehouse, "SELECT * FROM meta")


def test_a_warehouse_refuses_another_zone(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UTH_TIMEZONE", raising=False)
    warehouse = load(tmp_path)
    monkeypatch.setenv("UTH_TIMEZONE", "Europe/Paris")
    with pytest.raises(ValueError, match="timezone = UTC, not Europe/Paris"):
        load_events(str(tmp_path / "floor.jsonl"), warehouse, day_start_minutes=SIX)


def test_an_older_warehouse_counted_in_utc(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UTH_TIMEZONE", raising=False)
    warehouse = load(tmp_path)
    import duckdb

    with duckdb.connect(str(warehouse)) as con:  # as a warehouse built before the zone
        con.execute("DELETE FROM meta WHERE key = 'timezone'")
    monkeypatch.setenv("UTH_TIMEZONE", "America/Toronto")
    with pytest.raises(ValueError, match="timezone = UTC"):
        load_events(str(tmp_path / "floor.jsonl"), warehouse, day_start_minutes=SIX)


def test_uth_load_refuses_an_unknown_zone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.cli import main

    monkeypatch.setenv("UTH_TIMEZONE", "Mars/Olympus")
    code = main(["load", "--source", str(floor.write(tmp_path / "f.jsonl")), "--warehouse",
                 str(tmp_path / "w.duckdb"), "--quiet"])
    assert code == 2
    assert "UTH_TIMEZONE='Mars/Olympus' is not a known IANA time zone" in capsys.readouterr().err
    assert not (tmp_path / "w.duckdb").exists()


@pytest.mark.parametrize("bad", ["UTC'; DROP TABLE hands; --", "../etc/passwd", "Mars/Olympus"])
def test_zone_names_are_checked(bad: str) -> None:
    with pytest.raises(localtime.LocalTimeError):
        localtime.check_zone(bad)


def test_settings_are_read_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_GAMING_DAY_START", "08:30")
    monkeypatch.delenv("UTH_SHIFTS", raising=False)
    assert localtime.day_start() == 510
    assert [(s.name, localtime.clock(s.start)) for s in localtime.shifts()] == [
        ("day", "08:30"), ("swing", "16:30"), ("graveyard", "00:30")]
    monkeypatch.setenv("UTH_SHIFTS", "day=06:00,swing=14:00,graveyard=22:00")
    shifts = localtime.shifts()
    assert localtime.labels(shifts) == {"day": "day 06:00-14:00", "swing": "swing 14:00-22:00",
                                        "graveyard": "graveyard 22:00-06:00"}
    assert [localtime.shift_of(m, shifts) for m in (0, 359, 360, 839, 840, 1320)] == [
        "graveyard", "graveyard", "day", "day", "swing", "graveyard"]


@pytest.mark.parametrize("bad", ["day", "day=6", "day=25:00", "a=06:00,a=07:00",
                                 "a=06:00,b=06:00", ","])
def test_bad_shifts_say_what_to_write(bad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_SHIFTS", bad)
    with pytest.raises(localtime.LocalTimeError, match="UTH_SHIFTS"):
        localtime.shifts()


def test_to_local_across_daylight_saving() -> None:
    # 2026-11-01 06:30 UTC is 01:30 EST, after the clocks went back at 06:00 UTC
    assert localtime.to_local("2026-11-01T05:30:00Z", "America/Toronto").hour == 1
    assert localtime.to_local("2026-11-01T06:30:00Z", "America/Toronto").hour == 1
    assert localtime.to_local("2026-07-01T12:00:00Z", "America/Toronto").hour == 8


def test_the_daily_rebuild_runs_on_the_casino_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    import dagster as dg

    from pipeline.sensors import make_schedule

    job = dg.define_asset_job("nothing", selection="nothing")
    monkeypatch.setenv("UTH_TIMEZONE", "Europe/Paris")
    schedule = make_schedule(job, "07:00")
    assert (schedule.execution_timezone, schedule.cron_schedule) == ("Europe/Paris", "15 7 * * *")
    assert make_schedule(job, "07:00", zone="UTC").execution_timezone == "UTC"


def test_replay_and_tail_print_the_casino_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.cli import main

    log = floor.write(tmp_path / "f.jsonl")  # T1-A starts at 21:00:01 UTC
    monkeypatch.delenv("UTH_TIMEZONE", raising=False)
    assert main(["replay", "T1-A", "--source", str(log)]) == 0
    assert "  1. [2026-11-29T21:00:01.000Z] Hand T1-A starts" in capsys.readouterr().out
    monkeypatch.setenv("UTH_TIMEZONE", "America/Toronto")
    assert main(["replay", "T1-A", "--source", str(log)]) == 0
    assert "  1. [2026-11-29 16:00:01.000 EST] Hand T1-A starts" in capsys.readouterr().out
    assert main(["tail", "--source", str(log), "-n", "1", "--no-follow"]) == 0
    assert capsys.readouterr().out.startswith("2026-11-29 16:01:38.000 ")  # 21:01:38 UTC
