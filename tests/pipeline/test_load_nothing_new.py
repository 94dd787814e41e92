"""``uth load`` with nothing new in the log: no Dagster run (not even its import), the
warehouse unchanged, the checks still run; and every case where a load has work, or may
have, still runs the Dagster job: new records, work left by a killed load, a new seal, a
warehouse built with other settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from events.ledger.keys import generate, load_private
from events.ledger.logs import seal_log
from events.logs import open_log
from pipeline.cli import main
from pipeline.ingest.steps import load_events
from pipeline.ingest.up_to_date import up_to_date
from pipeline.warehouse import query
from tests.pipeline import streams
from tests.pipeline.conftest import dump, write_log

ROOT = Path(__file__).parents[2]


def _load(log: Path, wh: Path, *extra: str) -> int:
    return main(["load", "--source", str(log), "--warehouse", str(wh), "-q", *extra])


def _half(tmp_path: Path) -> tuple[list[bytes], Path]:
    lines = streams.floor_lines()
    return lines, write_log(tmp_path / "floor.jsonl", lines[: len(lines) // 2])


def test_nothing_new_runs_no_dagster_and_changes_nothing(tmp_path: Path) -> None:
    lines, log = _half(tmp_path)
    wh = tmp_path / "w.duckdb"
    assert _load(log, wh) == 0
    before = dump(wh)
    script = ("import sys; from pipeline.cli import main; "
              f"rc = main(['load', '--source', {str(log)!r}, '--warehouse', {str(wh)!r}]); "
              "print('dagster imported:', 'dagster' in sys.modules); sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "nothing new: the log has no record after the last one loaded" in done.stdout
    assert "dagster imported: False" in done.stdout
    # the checks still run, and say what the last load's run said
    assert "check no_duplicate_events: ok (events=" in done.stdout
    assert "check findings_are_reported: ok" in done.stdout
    assert "warehouse: events " in done.stdout
    assert dump(wh) == before

    # records appended to the log: the next load is a Dagster run again, and loads them
    write_log(log, lines)
    assert up_to_date(str(log), wh, 360) is None
    assert _load(log, wh) == 0
    whole = tmp_path / "whole.duckdb"
    assert _load(write_log(tmp_path / "whole.jsonl", lines), whole) == 0
    got, want = dump(wh), dump(whole)
    for named in ("events", "load_positions", "dead_letters", "seals"):  # name the file
        got.pop(named), want.pop(named)
    assert got == want
    events = "SELECT * EXCLUDE (source) FROM events ORDER BY ALL"
    assert query(wh, events) == query(whole, events)


def test_work_left_by_a_killed_load_is_done(tmp_path: Path) -> None:
    """The ingest committed its events and the log position, and the load died before the
    audit step: the log has nothing new, but the warehouse has work waiting."""
    log = write_log(tmp_path / "floor.jsonl", streams.floor_lines())
    wh = tmp_path / "w.duckdb"
    load_events(str(log), wh, audit_hands=False)
    assert query(wh, "SELECT count(*) FROM pending.hands")[0][0] > 0
    assert up_to_date(str(log), wh, 360) is None
    assert _load(log, wh) == 0
    assert query(wh, "SELECT count(*) FROM hands")[0][0] == 5
    assert query(wh, "SELECT count(*) FROM table_hold_daily")[0][0] == 3
    assert up_to_date(str(log), wh, 360) is not None


def test_player_tables_left_behind_are_rebuilt(tmp_path: Path) -> None:
    """Killed after the rollups, before the player tables: nothing waits in a queue, but
    the player tables were built from fewer events than the warehouse holds."""
    from pipeline.players.transforms import BUILT_FROM
    from pipeline.warehouse import writing

    lines, log = _half(tmp_path)
    wh = tmp_path / "w.duckdb"
    assert _load(log, wh) == 0
    write_log(log, lines)
    assert _load(log, wh) == 0
    want = query(wh, "SELECT * FROM player_ratings ORDER BY ALL")
    with writing(wh) as con:  # as the first load left them
        con.execute("DELETE FROM player_ratings")
        con.execute("UPDATE meta SET value = '1' WHERE key = ?", [BUILT_FROM])
    assert up_to_date(str(log), wh, 360) is None
    assert _load(log, wh) == 0
    assert query(wh, "SELECT * FROM player_ratings ORDER BY ALL") == want
    assert up_to_date(str(log), wh, 360) is not None


def test_a_new_seal_in_the_log_is_copied(tmp_path: Path) -> None:
    log = write_log(tmp_path / "floor.jsonl", streams.floor_lines())
    wh = tmp_path / "w.duckdb"
    assert _load(log, wh) == 0
    private, _ = generate(tmp_path / "keys" / "seal")
    with open_log(str(log), create=False) as event_log:
        seal_log(event_log, load_private(private))
    assert up_to_date(str(log), wh, 360) is None
    assert _load(log, wh) == 0
    assert query(wh, "SELECT count(*) FROM seals")[0][0] == 1
    assert up_to_date(str(log), wh, 360) is not None


def test_other_settings_are_refused_as_before(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    log = write_log(tmp_path / "floor.jsonl", streams.floor_lines())
    wh = tmp_path / "w.duckdb"
    assert _load(log, wh) == 0
    capsys.readouterr()
    assert _load(log, wh, "--gaming-day-start", "07:00") == 1
    assert "built with gaming_day_start = 06:00, not 07:00" in capsys.readouterr().err


def test_only_a_process_of_its_own_freezes_the_collector(tmp_path: Path) -> None:
    """``uth load`` run as a command skips the collector's last passes at exit; called
    from Python (as here) it leaves the caller's collector alone."""
    import gc

    log = write_log(tmp_path / "floor.jsonl", streams.floor_lines())
    frozen = gc.get_freeze_count()
    assert _load(log, tmp_path / "w.duckdb") == 0
    assert gc.get_freeze_count() == frozen
    script = ("import gc, sys; from pipeline import cli; "
              f"sys.argv = ['uth', 'load', '--source', {str(log)!r}, '--warehouse', "
              f"{str(tmp_path / 'p.duckdb')!r}, '-q']; rc = cli.main(); "
              "print('frozen:', gc.get_freeze_count() > 0); sys.exit(rc)")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "frozen: True" in done.stdout and "warehouse: events 84" in done.stdout
