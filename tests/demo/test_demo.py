"""`uth demo` (what `make demo` runs) end to end on a small floor: the report it prints
names exactly the dealer errors the simulator injected."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def test_demo_finds_every_injected_mispay(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "demo", "--dir", str(out), "--tables", "3",
         "--hands", "120", "--mispay-rate", "0.005", "--seed", "11"],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    truth = [json.loads(line) for line in (out / "injected-mispays.jsonl").read_text().splitlines()]
    assert 0 < len(truth) <= 20, "the demo lists up to 20 mispays: inject a few"
    assert f"mispays found: {len(truth)}" in proc.stdout
    for error in truth:
        assert error["hand_id"] in proc.stdout
    for heading in ("1/4 simulate", "2/4 audit", "3/4 load", "4/4 floor report"):
        assert heading in proc.stdout
    assert (out / "warehouse.duckdb").exists()
    # players dispute some hands, so the dashboards' Disputes page has rows too
    import duckdb

    with duckdb.connect(str(out / "warehouse.duckdb"), read_only=True) as con:
        (disputes,) = con.execute(
            "SELECT count(*) FROM events WHERE type = 'DisputeOpened'").fetchone()
    assert disputes > 0
    assert "uth dashboards --warehouse" in proc.stdout
    summary = json.loads((out / "findings.jsonl").read_text().splitlines()[-1])["summary"]
    assert summary["hands"] == 3 * 120
    assert summary["rejected_events"] == 0


def test_kafka_demo_hints_name_what_outlives_it(tmp_path: Path) -> None:
    """`make demo-kafka` stops its local broker when it ends: each "Next:" command must work
    after that (a replay from a stopped broker waits and fails)."""
    import os
    import shlex

    import pytest

    from pipeline.local_broker import broker_binary

    if broker_binary() is None:
        pytest.skip("no local Kafka-protocol broker installed")
    out = tmp_path / "demo"
    env = {k: v for k, v in os.environ.items() if k != "KAFKA_BOOTSTRAP_SERVERS"}
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "demo", "--dir", str(out), "--kafka",
         "--tables", "2", "--hands", "40", "--mispay-rate", "0.02", "--seed", "5"],
        capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    hints = proc.stdout.split("Next:", 1)[1]
    assert "kafka://" not in hints, hints  # the broker is gone
    replay = next(line for line in hints.splitlines() if "uth replay" in line)
    argv = shlex.split(replay.split(":", 1)[1])
    assert argv[0].endswith("uth") and argv[1] == "replay"
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", *argv[1:]],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert argv[2] in done.stdout
    source = argv[argv.index("--source") + 1]
    assert source.startswith("sqlite:///") and Path(source.removeprefix("sqlite://")).is_file()
    dagster = next(line for line in hints.splitlines() if "UTH_SOURCE=" in line)
    assert f"UTH_SOURCE={source} " in dagster
