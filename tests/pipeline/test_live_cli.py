"""The live floor from the command line: ``uth audit --follow`` lines carry time, table,
dealer and hand, and a stop is a sentence; ``uth ingest --follow`` prints its progress at
most every few seconds and only when it changed."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pipeline.commands.audit import follow_line, stop_sentence
from pipeline.commands.ingest import Progress
from tests.disputes import floor

ROOT = Path(__file__).resolve().parents[2]


def test_follow_lines_and_the_stop_sentence(tmp_path: Path) -> None:
    log = floor.write(tmp_path / "floor.jsonl")
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "audit", "--follow",
                             "--source", str(log)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**_env(), "UTH_TIMEZONE": "America/Toronto"})
    try:
        lines = [proc.stdout.readline() for _ in range(4)]  # type: ignore[union-attr]
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    mispay = next(line for line in lines if "mispay" in line and "hand T1-A" in line)
    # the mispay was recorded at 21:00:13 UTC: 16:00:13 in Toronto
    assert mispay.startswith("16:00:13  table T1, dealer D1, hand T1-A, seat ")
    assert proc.returncode == 0
    assert "uth audit stopped: audited 99 events in 4 hands, found 4 findings" in err
    assert "{" not in err


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("UTH_")}


def test_follow_line_for_each_kind() -> None:
    dispute = {"kind": "dispute", "hand_id": "H1", "table_id": "T1", "seat": 2,
               "status": "open", "verdict": "Seat 2 was settled correctly.",
               "occurred_at": "2026-11-29T21:03:11.000Z"}
    assert follow_line("H1", dispute) == (
        "21:03:11  table T1, hand H1, seat 2  dispute (open): Seat 2 was settled correctly.")
    rejected = {"kind": "rejected", "table_id": None, "position": 12, "reason": "bad json"}
    assert follow_line("x", rejected) == "--:--:--  table -  rejected input at 12: bad json"
    assert stop_sentence({"events": 1, "hands": 1, "findings": 0, "published": 2,
                          "commits": 1}).endswith(
        "found 0 findings, rejected 0 input lines, ignored 0 redelivered events; published "
        "2 messages and committed the position 1 time.")


def test_ingest_progress_at_most_every_few_seconds() -> None:
    now = [0.0]
    out: list[str] = []
    shown = Progress(interval=5.0, clock=lambda: now[0],
                     out=SimpleNamespace(write=out.append, flush=lambda: None))

    def report(read: int) -> SimpleNamespace:
        return SimpleNamespace(read=read, written=read, duplicates=0, rejected_total=0)

    printed = []
    for step in range(40):  # a poll every 0.25 s for 10 s, a new event every other poll
        now[0] = step * 0.25
        printed.append(shown(report(step // 2)))
    assert sum(printed) == 2  # at 0.5 s (the first change) and 5.5 s: never more often
    assert [line for line in "".join(out).splitlines() if line] == [
        "read 1  written 1  duplicates 0  rejected 0",
        "read 11  written 11  duplicates 0  rejected 0"]
    now[0] = 20.0
    assert shown(report(19))
    now[0] = 30.0
    assert not shown(report(19))  # nothing new since the last line
    assert shown(report(20))


def test_ingest_follow_on_a_growing_log(tmp_path: Path) -> None:
    lines = (floor.write(tmp_path / "all.jsonl")).read_bytes().splitlines(keepends=True)
    log = tmp_path / "growing.jsonl"
    log.write_bytes(b"".join(lines[:10]))
    sink = f"sqlite:///{tmp_path / 'sink.db'}"
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "ingest", "--source",
                             str(log), "--sink", sink, "--follow"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env())
    try:
        with log.open("ab") as grow:  # a table appending two events every 0.1 s, 4.5 s long
            for i in range(10, len(lines), 2):
                grow.write(b"".join(lines[i:i + 2]))
                grow.flush()
                time.sleep(0.1)
        time.sleep(1.5)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    progress = [line for line in err.splitlines() if line.startswith("read ")]
    assert 1 <= len(progress) <= 2, err  # at most one line per 5 s of following
    assert f"written    {len(lines):>9,}" in out


def test_a_failed_load_in_the_follow_says_why(monkeypatch: Any, capsys: Any) -> None:
    """A load of ``uth load --follow`` that failed a check names the check (it printed only
    the load's own header line, which says nothing of why)."""
    from pipeline.commands import load

    def failing(args: Any) -> int:
        print(f"uth load: {args.source} -> {args.warehouse}")
        print("check recorded_payouts_balance: FAILED (hands_off_balance=1)")
        print("check no_sequence_gaps: ok (gaps=0)")
        stop.set()
        return 1

    import threading

    stop = threading.Event()
    monkeypatch.setattr(load, "load_once", failing)
    monkeypatch.setattr(threading, "Event", lambda: stop)
    monkeypatch.setattr("pipeline.freshness.freshness_line", lambda *a: "fresh")
    args = SimpleNamespace(source="floor.jsonl", warehouse="wh.duckdb", interval=0.0,
                           from_archive="", rebuild_rollups=False)
    assert load.follow(args) == 0  # type: ignore[arg-type]
    out = capsys.readouterr()
    assert "check recorded_payouts_balance: FAILED (hands_off_balance=1)" in out.err
    assert "no_sequence_gaps" not in out.err and "-> wh.duckdb" not in out.err
    assert "stopped after 1 loads (1 failed)" in out.out
