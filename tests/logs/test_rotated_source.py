"""Issue 30 (4): a JSON Lines source rotated or replaced at the same path is recognised, said,
and read from its first line; nothing of the new file is skipped."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from events.logs.sqlite import SqliteLog
from pipeline.cli import main
from tests.logs.factory import encode, table_events


def _lines(table: str, hands: int) -> bytes:
    return b"".join(encode(e) + b"\n" for e in table_events(table, hands))


def _ingest(src: Path, sink: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["ingest", "--source", str(src), "--sink", sink, "--consumer", "fwd",
                 "--json"]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("how", ["shorter-in-place", "longer-renamed", "rewritten-same-size"])
def test_a_replaced_source_is_read_again_from_its_start_and_said(
        how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "floor.jsonl"
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    src.write_bytes(_lines("T1", 3))  # 1 + 3 x 15 events
    first = _ingest(src, sink, capsys)
    assert first["written"] == 46 and first["notes"] == []
    if how == "shorter-in-place":
        src.write_bytes(_lines("T2", 1))  # 16 lines of another table, same file
        expected = 16
    elif how == "longer-renamed":
        os.rename(src, tmp_path / "floor.jsonl.1")
        (tmp_path / "new.jsonl").write_bytes(_lines("T3", 5))  # 76 lines
        os.rename(tmp_path / "new.jsonl", src)
        expected = 76
    else:
        data = _lines("T4", 3)
        assert len(data) == src.stat().st_size
        src.write_bytes(data)
        expected = 46
    report = _ingest(src, sink, capsys)
    (note,) = report["notes"]  # type: ignore[misc]
    assert "rotated or replaced" in note and "line 47" in note and "fwd" in note
    assert (report["read"], report["written"]) == (expected, expected)
    with SqliteLog(sink) as log:
        assert log.count() == 46 + expected
    # the text report says it too
    again = tmp_path / "again.jsonl"
    again.write_bytes(_lines("T5", 1))
    os.replace(again, src)
    assert main(["ingest", "--source", str(src), "--sink", sink, "--consumer", "fwd"]) == 0
    assert "note: " in capsys.readouterr().out


def test_a_grown_source_resumes_where_it_stopped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "floor.jsonl"
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    data = _lines("T1", 4)
    cut = data.index(b"\n", len(data) // 2) + 1
    src.write_bytes(data[:cut])
    first = _ingest(src, sink, capsys)
    with src.open("ab") as f:
        f.write(data[cut:])
    report = _ingest(src, sink, capsys)
    assert report["notes"] == [] and report["duplicates"] == 0
    assert first["written"] + report["written"] == 61  # type: ignore[operator]


@pytest.mark.parametrize("how", ["renamed", "cut"])
def test_a_followed_source_rotated_under_the_reader_is_said(tmp_path: Path, how: str) -> None:
    """While ``--follow`` waits for more lines, the file is rotated (another file at the
    path) or cut: the ingest stops and says so rather than waiting on a file nobody writes."""
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parents[2]
    src = tmp_path / "floor.jsonl"
    src.write_bytes(_lines("T1", 2))
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "ingest", "--source", str(src), "--sink", sink,
         "--follow", "--quiet"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with SqliteLog(sink) as log:
                if log.count() == 31:
                    break
            time.sleep(0.1)
        if how == "renamed":
            os.rename(src, tmp_path / "floor.jsonl.1")
            src.write_bytes(_lines("T2", 1))
        else:
            src.write_bytes(_lines("T2", 1)[:100])
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    assert "while it was followed" in err
    assert ("replaced by another file" if how == "renamed" else "was cut to") in err
