"""A full disk and a read-only file under the logs and the warehouse: a clear error, a
non-zero exit, nothing half-written reported as done, and a rerun that completes the job
with nothing repeated.

The full disk is ``RLIMIT_FSIZE`` in the child process (no file may grow past the limit:
writes fail with ``EFBIG`` as on a full disk; Python ignores ``SIGXFSZ``). A read-only file
is ``chmod 0444`` for a normal user and, for root (who ignores file modes), the immutable
attribute (``chattr +i``), removed again afterwards; without either the test skips.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from events.contract.codec import Rejection, decode_line
from events.logs import open_log
from tests.reliability import corpus
from tests.reliability.helpers import (
    ROOT,
    UTH,
    floor,
    load_in_process,
    source_log,
    uth,
    uth_env,
)


def fsize_limit(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def _report(stdout: str) -> dict[str, Any]:
    lines = [ln for ln in stdout.strip().splitlines() if ln.startswith("{")]
    return json.loads(lines[-1]) if lines else {}


def _clear_error(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr[-2000:]
    assert stderr.strip(), "failed without saying why"


@contextlib.contextmanager
def read_only(*paths: Path) -> Iterator[None]:
    """Make files read-only for this process's children, whoever runs the tests."""
    if os.geteuid() != 0:
        for p in paths:
            p.chmod(0o444)
        try:
            yield
        finally:
            for p in paths:
                p.chmod(0o644)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", *map(str, paths)],
                                        capture_output=True).returncode != 0:
        pytest.skip("running as root without chattr +i: cannot make a file read-only")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", *map(str, paths)], check=True)


def _source(tmp_path: Path, tables: int) -> tuple[Path, list[dict[str, Any]]]:
    events = floor(tables, "disk")
    path = tmp_path / "floor.jsonl"
    path.write_bytes(b"".join(corpus.encode(e) + b"\n" for e in events))
    return path, events


def _stored(url: str) -> list[bytes]:
    with open_log(url) as log:
        return [r.value for b in log.read() for r in b]


@pytest.mark.parametrize("sink_kind", ["sqlite", "jsonl"])
def test_fault_full_disk_under_the_ingest_sink(
    tmp_path: Path, ledger: Any, sink_kind: str
) -> None:
    source, events = _source(tmp_path, 12)  # 780 events, about 200 KB
    sink = (f"sqlite:///{tmp_path / 'floor.db'}" if sink_kind == "sqlite"
            else str(tmp_path / "out" / "floor.jsonl"))
    first = subprocess.run(
        [*UTH, "ingest", "--source", str(source), "--sink", sink, "--batch", "50",
         "--json"], cwd=ROOT, env=uth_env(), text=True, capture_output=True, timeout=120,
        preexec_fn=fsize_limit(96 * 1024),
    )
    assert first.returncode != 0, "the disk filled up but ingest said it succeeded"
    _clear_error(first.stderr)
    assert any(w in first.stderr.lower() for w in ("full", "too large", "no space", "disk")), \
        first.stderr[-500:]
    report = _report(first.stdout)
    stored = _stored(sink)
    decoded = [decode_line(v, i) for i, v in enumerate(stored, 1)]
    torn = [d for d in decoded if isinstance(d, Rejection)]
    assert torn == [], f"half-written records in the sink: {torn[:2]}"
    assert 0 < len(stored) < len(events), "the limit should stop it part-way"
    if report:
        assert report["written"] == len(stored), "reported written != what is durable"
        assert not report["accounted"]
    # disk space back: the rerun finishes the job and repeats nothing
    second = uth("ingest", "--source", str(source), "--sink", sink, "--batch", "50", "--json")
    assert second.returncode == 0, second.stderr
    stored = _stored(sink)
    ids = [json.loads(v)["event_id"] for v in stored]
    assert len(ids) == len(set(ids)) == len(events)
    assert all(not isinstance(decode_line(v, i), Rejection) for i, v in enumerate(stored, 1))
    ledger.record("fault", f"full disk under the {sink_kind} log", sent=len(events),
                  processed=len(set(ids)), note=f"first run stopped at {len(decoded)}")


def test_fault_read_only_sqlite_sink(tmp_path: Path, ledger: Any) -> None:
    source, events = _source(tmp_path, 2)
    db = tmp_path / "floor.db"
    sink = f"sqlite:///{db}"
    with open_log(sink):
        pass  # the file exists (empty log)
    with read_only(db):
        done = uth("ingest", "--source", str(source), "--sink", sink, "--json")
        assert done.returncode != 0
        _clear_error(done.stderr)
        assert any(w in done.stderr.lower() for w in (
            "read-only", "readonly", "permission", "not permitted")), done.stderr[-500:]
        report = _report(done.stdout)
        assert not report or report["written"] == 0
    assert _stored(sink) == []
    again = uth("ingest", "--source", str(source), "--sink", sink, "--json")
    assert again.returncode == 0, again.stderr
    assert len(_stored(sink)) == len(events)
    ledger.record("fault", "read-only sqlite log", sent=len(events), processed=len(events))


def test_append_after_a_torn_line_keeps_new_records_whole(tmp_path: Path) -> None:
    """A crash mid-write leaves a torn last line: the next append starts on a new line, so
    the fragment is one rejected line and no new record is glued to it."""
    events = [corpus.encode(e) for e in floor(1, "torn")[:4]]
    path = tmp_path / "log.jsonl"
    path.write_bytes(events[0] + b"\n" + events[1][:30])
    with open_log(str(path)) as log:
        result = log.append([("", events[2]), ("", events[3])])
        assert result.end == {0: 5}
    lines = path.read_bytes().split(b"\n")
    assert lines == [events[0], events[1][:30], events[2], events[3], b""]
    assert [isinstance(decode_line(x, i), Rejection) for i, x in enumerate(lines[:4], 1)] == [
        False, True, False, False]


# ---------------------------------------------------------------------------- the warehouse

def _load_args(url: str, warehouse: Path) -> list[str]:
    return ["load", "--source", url, "--warehouse", str(warehouse), "--batch-size", "1000",
            "--hands-per-chunk", "60"]


def _says_why(stderr: str, *words: str) -> str:
    last = [ln for ln in stderr.strip().splitlines() if ln.startswith("uth load:")]
    assert last, f"no 'uth load:' error line: {stderr[-1500:]}"
    assert any(w in last[-1].lower() for w in words), last[-1]
    return last[-1]


@contextlib.contextmanager
def soft_fsize_limit(limit: int) -> Iterator[None]:
    """RLIMIT_FSIZE (soft) on this process for the block: no file may grow past ``limit``.
    Only the soft limit changes, so it can be raised back afterwards."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def test_fault_full_disk_under_the_warehouse(
    tmp_path: Path, ledger: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The WAL cannot grow past 600 KB: the load fails part-way with the reason; what it
    committed is consistent (positions stored with the rows they produced)."""
    import duckdb

    url, valid, _ = source_log(tmp_path / "log.db")
    warehouse = tmp_path / "w.duckdb"
    with soft_fsize_limit(600 * 1024):
        code, out, err = load_in_process(capsys, *_load_args(url, warehouse))
    assert code != 0, "the disk filled up but the load said it succeeded"
    why = _says_why(err, "too large", "no space", "disk", "full")
    assert "loaded " not in out, "a failed load reported what it loaded"
    with duckdb.connect(str(warehouse), read_only=True) as con:
        events = con.execute("SELECT count(*), count(DISTINCT event_id) FROM events").fetchone()
        dead = con.execute("SELECT count(*) FROM dead_letters").fetchone()[0]
        positions = con.execute("SELECT position, events_loaded FROM load_positions").fetchall()
    assert events[0] == events[1], "events repeated"
    if positions:
        (position, loaded), = positions
        assert loaded == events[0], "load_positions and the events table disagree"
        # every record before the stored position is in events or dead_letters, no more
        assert json.loads(position)["0"] - 1 == events[0] + dead
    else:
        assert events[0] == 0 and dead == 0
    assert events[0] < valid
    ledger.record("fault", "full disk under the warehouse", sent=events[0] + dead,
                  processed=events[0], rejected=dead,
                  note=f"stopped at {events[0]} of {valid}: {why.rsplit(': ', 1)[-1]}")


def test_fault_read_only_warehouse_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import hashlib

    from pipeline.warehouse import writing

    url, _, _ = source_log(tmp_path / "log.db")
    warehouse = tmp_path / "w.duckdb"
    with writing(warehouse):
        pass  # an empty warehouse with its tables
    before = hashlib.sha256(warehouse.read_bytes()).hexdigest()
    with read_only(warehouse):
        code, out, err = load_in_process(capsys, *_load_args(url, warehouse))
    assert code != 0
    _says_why(err, "read-only", "readonly", "permission", "not permitted")
    assert "loaded " not in out
    assert hashlib.sha256(warehouse.read_bytes()).hexdigest() == before
