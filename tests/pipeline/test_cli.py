"""``uth load``: what it prints, a second run that changes nothing, clear failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.cli import main
from tests.pipeline import streams
from tests.pipeline.conftest import write_log


def test_uth_load_prints_what_it_loaded(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    log = write_log(tmp_path / "floor.jsonl", streams.floor_lines())
    wh = tmp_path / "w.duckdb"
    assert main(["load", "--source", str(log), "--warehouse", str(wh), "-q"]) == 0
    out = capsys.readouterr().out
    assert "loaded 84 new events from 86 records (1 duplicate ignored, 1 rejected to " \
           "dead_letters)" in out
    assert "audited 5 hands (1 finding, 1 sequence finding in 2 tables)" in out
    assert "check no_sequence_gaps: WARN (gaps=1, tables_with_gaps=1, first_gaps=Table T2" in out
    assert "check recorded_payouts_balance: ok" in out
    assert "warehouse: events 84, hands 5, wagers 19, audit_findings 2, table_hold_daily 3" in out

    assert main(["load", "--source", str(log), "--warehouse", str(wh)]) == 0
    again = capsys.readouterr().out
    assert "nothing new: the log has no record after the last one loaded (line " in again
    assert "events: committed" not in again  # nothing was written
    # the checks are run and told as after the first load
    assert "check no_sequence_gaps: WARN (gaps=1, tables_with_gaps=1, first_gaps=Table T2" \
        in again
    assert "warehouse: events 84, hands 5, wagers 19, audit_findings 2, table_hold_daily 3" \
        in again


def test_uth_load_failures_are_clear(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wh = tmp_path / "w.duckdb"
    assert main(["load", "--source", str(tmp_path / "none.jsonl"), "--warehouse", str(wh)]) == 1
    assert "step ingest_events failed" in capsys.readouterr().err
    assert main(["load", "--source", "x.jsonl", "--warehouse", str(wh),
                 "--gaming-day-start", "6 am"]) == 2
    assert "is not HH:MM" in capsys.readouterr().err
