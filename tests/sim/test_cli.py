"""``uth simulate``: the same seed gives the same bytes into every sink; a paced run stopped
by SIGTERM finishes its hands, closes its tables and exits 0."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from events.contract.schemas import HandEnded, HandStarted, HandVoided, TableClosed, decode_event
from events.logs import open_log
from pipeline.cli import main

ARGS = ["simulate", "--tables", "3", "--hands", "120", "--mispay-rate", "0.05",
        "--void-rate", "0.02", "--dispute-rate", "0.03", "--quiet"]


def test_same_seed_same_bytes_and_truth(tmp_path: Path) -> None:
    outs = []
    for name in ("a", "b"):
        sink, truth = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.truth.jsonl"
        assert main([*ARGS, "--seed", "5", "--sink", str(sink), "--truth", str(truth)]) == 0
        outs.append((sink.read_bytes(), truth.read_bytes()))
    assert outs[0] == outs[1]
    assert outs[0][0].count(b"\n") > 3 * 120 * 20 and outs[0][1]
    rows = [json.loads(line) for line in outs[0][1].splitlines()]
    assert {"hand_id", "seat", "spot", "kind", "expected", "recorded"} <= set(rows[0])
    # a different seed, different events; a rerun into the same file rewrites it
    other = tmp_path / "c.jsonl"
    assert main([*ARGS, "--seed", "6", "--sink", str(other)]) == 0
    assert other.read_bytes() != outs[0][0]
    assert main([*ARGS, "--seed", "5", "--sink", str(other)]) == 0
    assert other.read_bytes() == outs[0][0]


def test_the_sqlite_log_holds_the_same_events_keyed_by_table(tmp_path: Path) -> None:
    sink = tmp_path / "a.jsonl"
    assert main([*ARGS, "--seed", "8", "--sink", str(sink)]) == 0
    db = tmp_path / "log.db"
    assert main([*ARGS, "--seed", "8", "--sink", f"sqlite:///{db}"]) == 0
    with open_log(f"sqlite:///{db}") as log:
        records = list(log.records())
    assert [r.value for r in records] == sink.read_bytes().splitlines()
    assert all(decode_event(r.value).table_id == r.key for r in records)


def test_bad_arguments_are_clear_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    assert main(["simulate", "--hands", "2", "--ruleset", "nope",
                 "--sink", str(tmp_path / "x.jsonl")]) == 2
    assert "unknown ruleset 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "--hands", "2", "--mispay-rate", "1.5", "--sink", "x.jsonl"])
    with pytest.raises(SystemExit):
        main(["simulate", "--hands", "2", "--pace", "40", "--fast", "--sink", "x.jsonl"])


def test_a_paced_run_stops_on_sigterm_after_finishing_its_hands(tmp_path: Path) -> None:
    sink = tmp_path / "live.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "simulate", "--tables", "3", "--hands",
         "100000", "--pace", "20000", "--ruleset", "charlevoix-2011", "--sink", str(sink)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ})
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # wait for hands to be on their way
            if sink.exists() and sink.read_bytes().count(b'"HandEnded"') >= 3:
                break
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert b"stopped early" in err
    events = [decode_event(line) for line in sink.read_bytes().splitlines()]
    by_table: dict[str, list[object]] = {}
    for e in events:
        by_table.setdefault(e.table_id, []).append(e)
    assert len(by_table) == 3
    for table_events in by_table.values():
        assert [e.seq for e in table_events] == list(range(len(table_events)))  # type: ignore[attr-defined]
        assert isinstance(table_events[-1], TableClosed)
        started = {e.hand_id for e in table_events if isinstance(e, HandStarted)}  # type: ignore[attr-defined]
        ended = {e.hand_id for e in table_events if isinstance(e, HandEnded | HandVoided)}  # type: ignore[attr-defined]
        assert started == ended and started


@pytest.mark.kafka
def test_kafka_gets_the_same_events_keyed_by_table(tmp_path: Path, kafka_url: str) -> None:
    sink = tmp_path / "a.jsonl"
    assert main([*ARGS, "--seed", "9", "--sink", str(sink)]) == 0
    assert main([*ARGS, "--seed", "9", "--sink", kafka_url]) == 0
    with open_log(kafka_url) as log:
        records = list(log.records())
    lines = sink.read_bytes().splitlines()
    assert sorted(r.value for r in records) == sorted(lines)
    per_table: dict[str, list[int]] = {}
    for r in records:  # a table's events stay in order (one key, one partition)
        e = decode_event(r.value)
        assert e.table_id == r.key
        per_table.setdefault(r.key, []).append(e.seq)
    assert all(seqs == sorted(seqs) for seqs in per_table.values())
