"""``uth load --follow`` stops on SIGTERM even when the signal comes while a load's Dagster
run is under way (found by the live floor's end-to-end test: Dagster's own handler took the
signal, the run ended "interrupted", and the follow went on loading for ever)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from events.sim.simulation import SimConfig, simulate

ROOT = Path(__file__).resolve().parents[2]


def test_sigterm_during_a_load_stops_the_follow(tmp_path: Path) -> None:
    log = tmp_path / "floor.jsonl"
    simulate(SimConfig(tables=10, hands=150, seed=8), str(log))
    wh = tmp_path / "w.duckdb"
    env = {k: v for k, v in os.environ.items() if not k.startswith("UTH_")}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "load", "--source", str(log),
                             "--warehouse", str(wh), "--follow", "--interval", "0.5"],
                            cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not wh.exists():  # the first load's run is writing
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=300)  # the run ends at its next step boundary
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "stopped after 1 loads (0 failed)" in out, (out, err)  # a stop, not a failure
    assert "Traceback" not in err


def test_freshness_before_the_first_load_completed(tmp_path: Path) -> None:
    """A warehouse file whose first load was stopped before it made its tables: the
    follow's freshness line says so (it raised a CatalogException, a traceback, exit 1)."""
    import duckdb

    from pipeline.freshness import freshness_line

    wh = tmp_path / "w.duckdb"
    duckdb.connect(str(wh)).close()
    line = freshness_line(wh, str(tmp_path / "log.jsonl"), 0.5)
    assert line.startswith("freshness unknown:") and "no load has completed" in line


def test_a_sigterm_a_library_swallowed_still_stops_the_follow() -> None:
    """A SIGTERM during a load raises KeyboardInterrupt in the step under way; where a
    library catches it and the load ends as if nothing came, the follow loop is still told
    (it kept loading, deaf to the signal, until killed: seen in the live-floor test)."""
    from pipeline.commands.load import _sigterm_interrupts

    told: list[bool] = []
    with _sigterm_interrupts(lambda: told.append(True)):
        try:  # a library that swallows the interrupt
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
        except KeyboardInterrupt:
            pass
    assert told == [True]


def test_a_duckdb_query_the_signal_interrupted_is_a_stop_not_a_failure(
        capsys: pytest.CaptureFixture[str]) -> None:
    """DuckDB's Python module answers a signal during a query with a plain RuntimeError
    "Query interrupted"; the live-floor test's follow counted that load as failed."""
    from types import SimpleNamespace

    from pipeline.commands.load import INTERRUPTED, report

    try:
        try:
            raise RuntimeError("Query interrupted")
        except RuntimeError as inner:
            raise ValueError("step players") from inner
    except ValueError as wrapped:
        error = wrapped
    for exc in (RuntimeError("Query interrupted"), error):
        stopped = SimpleNamespace(failed="players", error=exc, meta={})
        assert report(stopped, "w.duckdb") == INTERRUPTED
        assert "interrupted (Ctrl-C or SIGTERM)" in capsys.readouterr().err
    failed = SimpleNamespace(failed="players", error=RuntimeError("disk full"), meta={})
    assert report(failed, "w.duckdb") == 1
    assert "players failed: disk full" in capsys.readouterr().err
