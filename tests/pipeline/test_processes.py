"""Real processes: a load killed with SIGKILL and run again equals one clean load; a
dashboard-style read during a load gets through (read-only, retrying briefly)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.warehouse import query
from tests.logs.factory import lines as factory_lines
from tests.pipeline.conftest import dump, materialize, write_log

SMALL = ["--batch-size", "1000", "--hands-per-chunk", "100"]


def _uth_load(log: Path, wh: Path, *extra: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "pipeline.cli", "load", "--source", str(log),
           "--warehouse", str(wh), *SMALL, *extra]
    # bytecode caching on: a child compiling Dagster from source costs seconds per run
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=Path(__file__).resolve().parents[2], env=env)


def _kill_after(proc: subprocess.Popen[str], marker: str, count: int) -> list[str]:
    """Read the load's progress until ``count`` lines containing ``marker``, then SIGKILL."""
    seen, out = 0, []
    assert proc.stdout is not None
    for line in proc.stdout:
        out.append(line)
        if marker in line:
            seen += 1
            if seen == count:
                os.kill(proc.pid, signal.SIGKILL)
                break
    proc.wait(timeout=60)
    assert seen == count, "the load ended before the kill point:\n" + "".join(out)
    assert proc.returncode == -signal.SIGKILL
    return out


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kill")
    # 12 tables x 25 hands: 4,512 events; a few redelivered copies thrown in
    data = factory_lines(12, 25)
    data = data + data[100:130]
    return write_log(root / "floor.jsonl", data)


def test_killed_loads_rerun_equal_one_clean_load(stream: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean.duckdb"
    materialize(stream, clean, batch_size=100_000)

    wh = tmp_path / "killed.duckdb"
    _kill_after(_uth_load(stream, wh), "events: committed", 2)  # in the middle of ingest
    loaded = query(wh, "SELECT events_loaded FROM load_positions")[0][0]
    assert 0 < loaded < 4512
    _kill_after(_uth_load(stream, wh), "hands: committed", 1)  # in the middle of the audit
    assert query(wh, "SELECT count(*) FROM pending.hands")[0][0] > 0
    done = subprocess.run(_uth_load(stream, wh).args, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert dump(wh) == dump(clean)
    assert query(wh, "SELECT count(*), count(DISTINCT event_id) FROM events") == [(4512, 4512)]
    # and the Parquet archives hold the same events
    from pipeline.ingest.steps import read_archive

    ids = sorted(read_archive(tmp_path / "killed_archive", ["event_id"])["event_id"].to_pylist())
    assert ids == sorted(read_archive(tmp_path / "clean_archive", ["event_id"])["event_id"]
                         .to_pylist())


def test_dashboard_query_during_a_load(stream: Path, tmp_path: Path) -> None:
    wh = tmp_path / "busy.duckdb"
    proc = _uth_load(stream, wh, "--batch-size", "500", "--hands-per-chunk", "50", "-q")
    while not wh.exists() and proc.poll() is None:
        time.sleep(0.05)
    during: list[int] = []
    while proc.poll() is None:
        n = query(wh, "SELECT count(*) FROM events", timeout=30)[0][0]
        query(wh, """SELECT table_id, sum(house_win), sum(handle) FROM table_hold_daily
                     GROUP BY table_id ORDER BY table_id""", timeout=30)
        if proc.poll() is None:
            during.append(n)
        time.sleep(0.05)
    out = proc.stdout.read() if proc.stdout else ""
    assert proc.returncode == 0, out
    assert during, "no read got in while the load ran"
    assert during == sorted(during)  # each read saw a committed state, never going back
    assert query(wh, "SELECT count(*) FROM events")[0][0] == 4512
