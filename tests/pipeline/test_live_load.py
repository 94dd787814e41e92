"""A load from a log the tables are still writing reads up to the log's end as it was when
the load began, loads that and ends (issue 31); the next load takes what came meanwhile,
and every event arrives once."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from events.logs import open_log
from events.sim.simulation import SimConfig, simulate
from pipeline.ingest.steps import load_events
from pipeline.warehouse import parse_cursor, query

FIRST = 1500  # records in the log before the load starts


def _floor(tmp_path: Path) -> list[bytes]:
    path = tmp_path / "floor.jsonl"
    simulate(SimConfig(tables=4, hands=200, seed=31), str(path))
    return path.read_bytes().splitlines(keepends=True)


def _key(line: bytes) -> str:
    return str(json.loads(line)["table_id"])


class _Writer(threading.Thread):
    """Appends a few records every tenth of a second, as dealing tables do, until told to
    stop (or out of records)."""

    def __init__(self, url: str, lines: list[bytes]) -> None:
        super().__init__(daemon=True)
        self.url, self.lines = url, lines
        self.done = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with open_log(self.url) as log:
                for i in range(0, len(self.lines), 10):
                    if self.done.wait(0.1):
                        return
                    log.append([(_key(x), x) for x in self.lines[i:i + 10]])
        except BaseException as exc:
            self.error = exc


def _bounded_load_while_writing(url: str, lines: list[bytes], wh: Path) -> None:
    with open_log(url) as log:
        log.append([(_key(x), x) for x in lines[:FIRST]])
    writer = _Writer(url, lines[FIRST:])
    writer.start()
    try:
        with open_log(url) as log:
            before = log.end()
        load_events(url, wh, batch_size=500)
        # the load ended while the tables still wrote (unbounded, it followed them)
        assert writer.is_alive() and writer.error is None
        stored = parse_cursor(query(wh, "SELECT position FROM load_positions")[0][0])
        assert all(stored.get(p, 0) >= o for p, o in before.items()), (stored, before)
        # (not compared with the log's end now: Tansu reports a partition's end as its
        # last batch's first offset plus one, short of what the load may have read)
        assert sum(stored.values()) < len(lines)  # the rest, written since, is not read
    finally:
        writer.done.set()
        writer.join(30)
    assert writer.error is None
    load_events(url, wh, batch_size=500)  # what was written meanwhile, once
    with open_log(url) as log:
        logged = {json.loads(r.value)["event_id"] for batch in log.read() for r in batch}
    assert len(logged) > FIRST
    stored = query(wh, "SELECT event_id FROM events")
    assert len(stored) == len(logged) and {r[0] for r in stored} == logged


@pytest.mark.kafka
def test_a_kafka_load_ends_while_tables_write(kafka_url: str, tmp_path: Path) -> None:
    _bounded_load_while_writing(f"{kafka_url}?partitions=3", _floor(tmp_path),
                                tmp_path / "w.duckdb")


def test_a_sqlite_load_ends_while_tables_write(tmp_path: Path) -> None:
    _bounded_load_while_writing(f"sqlite:///{tmp_path / 'log.db'}", _floor(tmp_path),
                                tmp_path / "w.duckdb")


def test_read_until_stops_at_the_bound(tmp_path: Path) -> None:
    lines = _floor(tmp_path)[:300]
    path = tmp_path / "part.jsonl"
    path.write_bytes(b"".join(lines[:200]))
    log = open_log(str(path), growing=True)
    until = log.end()
    with open(path, "ab") as f:
        f.write(b"".join(lines[200:]))
    got = [r for batch in log.read_until({0: 50}, until, max_batch=64) for r in batch]
    assert [r.offset for r in got] == list(range(50, 201))


def test_one_source_one_position(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``sqlite:///rel/path`` and its absolute form are one log: the second load reads
    nothing again, and a position an older load stored under the other spelling counts."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    lines = _floor(tmp_path)[:400]
    with open_log("sqlite:///data/events.db") as log:
        log.append([(_key(x), x) for x in lines[:300]])
    wh = tmp_path / "w.duckdb"
    first = load_events("sqlite:///data/events.db", wh)
    assert first.records == 300
    again = load_events(f"sqlite:///{tmp_path / 'data' / 'events.db'}", wh)
    assert again.records == 0
    assert query(wh, "SELECT count(*) FROM load_positions") == [(1,)]
    # as an older version stored it: under the URL as written
    from pipeline.warehouse import writing

    with writing(wh) as con:
        con.execute("UPDATE load_positions SET source = 'sqlite:///data/events.db'")
    with open_log("sqlite:///data/events.db") as log:
        log.append([(_key(x), x) for x in lines[300:]])
    third = load_events(f"sqlite:///{tmp_path / 'data' / 'events.db'}", wh)
    assert third.records == 100 and third.duplicates == 0
    assert query(wh, "SELECT count(*) FROM load_positions") == [(1,)]


def test_source_keys() -> None:
    from events.logs import source_key

    assert source_key("kafka://h1") == source_key("kafka://H1:9092/uth.table-events")
    assert source_key("kafka://a:1,b:2/t?partitions=3") == "kafka://a:1,b:2/t"
    assert source_key("sqlite:////abs/x.db") == "sqlite:////abs/x.db"


def test_load_follow_keeps_up_and_stops_cleanly(tmp_path: Path) -> None:
    """``uth load --follow``: the events written while it runs are loaded by its next
    loads, each followed by a freshness line; SIGTERM ends it with status 0, no traceback."""
    import os
    import signal
    import subprocess
    import sys
    import time

    lines = _floor(tmp_path)[:600]
    url = f"sqlite:///{tmp_path / 'log.db'}"
    with open_log(url) as log:
        log.append([(_key(x), x) for x in lines[:300]])
    wh = tmp_path / "w.duckdb"
    env = {k: v for k, v in os.environ.items() if not k.startswith("UTH_")}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "load", "--source", url,
                             "--warehouse", str(wh), "--follow", "--interval", "0.5"],
                            cwd=Path(__file__).resolve().parents[2], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("uth load --follow: ")
        first = proc.stdout.readline()
        assert first.startswith("newest event ") and "behind the log" in first
        with open_log(url) as log:
            log.append([(_key(x), x) for x in lines[300:]])
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line.startswith("newest event "), line
            if "behind the log 0 records" in line and \
                    query(wh, "SELECT count(*) FROM events") == [(600,)]:
                break
        assert query(wh, "SELECT count(*) FROM events") == [(600,)]
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "stopped after" in out
