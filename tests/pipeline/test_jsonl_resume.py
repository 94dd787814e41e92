"""A load of a grown JSON Lines file reads (and counts) it from a line start kept with the
stored position, not from its first byte: its cost is what the file gained, not its size.
A file replaced at the path is still read from its first line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import events.logs.jsonl as jsonl
from events.sim.simulation import SimConfig, simulate
from pipeline.ingest.steps import load_events
from pipeline.warehouse import query


def _spied(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    hints: list[Any] = []
    batches = jsonl.line_batches

    def spy(*args: Any, **kwargs: Any) -> Any:
        hints.append(kwargs.get("hint"))
        return batches(*args, **kwargs)

    monkeypatch.setattr(jsonl, "line_batches", spy)
    return hints


def test_a_grown_file_is_read_from_the_line_start_kept(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    full = tmp_path / "full.jsonl"
    simulate(SimConfig(tables=3, hands=40, seed=4), str(full))
    lines = full.read_bytes().splitlines(keepends=True)
    cut = len(lines) * 9 // 10
    log, wh = tmp_path / "floor.jsonl", tmp_path / "w.duckdb"
    log.write_bytes(b"".join(lines[:cut]))
    load_events(str(log), wh, batch_size=500)
    first_part = log.stat().st_size
    with log.open("ab") as f:
        f.write(b"".join(lines[cut:]))
    hints = _spied(monkeypatch)
    stats = load_events(str(log), wh, batch_size=500)
    assert stats.new_events == len(lines) - cut and stats.duplicates == 0
    assert hints and hints[0] is not None
    line, offset = hints[0]
    assert line > cut - 500 and offset > first_part * 0.8  # near the end, not the start
    assert line <= cut + 1 and offset <= first_part
    assert query(wh, "SELECT count(*), count(DISTINCT event_id) FROM events") == [
        (len(lines), len(lines))]

    # the file replaced by another: read from its first line, no hint
    other = tmp_path / "other.jsonl"
    simulate(SimConfig(tables=1, hands=3, seed=9), str(other))
    other.replace(log)
    hints.clear()
    load_events(str(log), wh, batch_size=500)
    assert hints == [None]
