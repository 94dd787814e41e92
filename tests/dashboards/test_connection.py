"""The shared read-only connection: reused by the page runs of a moment, never kept from a
load."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from dashboards import connection, queries

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def warehouse(handmade_warehouse: Path, tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "w.duckdb"
    path.write_bytes(handmade_warehouse.read_bytes())
    yield path.resolve()
    connection.release_all()


def counting_opener(path: Path, opened: list[int]):  # type: ignore[no-untyped-def]
    @contextlib.contextmanager
    def opener() -> Iterator[duckdb.DuckDBPyConnection]:
        opened.append(1)
        with connection._sealed(path, 1.0) as con:
            yield con
    return opener


def test_page_runs_of_a_moment_share_one_connection(warehouse: Path) -> None:
    opened: list[int] = []
    for _ in range(3):
        with connection.lease(warehouse, counting_opener(warehouse, opened)) as con:
            assert con.execute("SELECT count(*) FROM hands").fetchone() == (4,)
    assert len(opened) == 1 and connection.shared_count() == 1
    connection.release_all()
    assert connection.shared_count() == 0
    with connection.lease(warehouse, counting_opener(warehouse, opened)):
        pass
    assert len(opened) == 2


def test_no_lingering_when_turned_off(warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(connection.LINGER_ENV, "0")  # read when a lease opens
    opened: list[int] = []
    for _ in range(2):
        with connection.lease(warehouse, counting_opener(warehouse, opened)):
            pass
    assert len(opened) == 2 and connection.shared_count() == 0


def test_nothing_lingers_while_a_load_runs(warehouse: Path) -> None:
    opened: list[int] = []
    with connection.lease(warehouse, counting_opener(warehouse, opened)):
        pass
    assert connection.shared_count() == 1
    fd = os.open(f"{warehouse}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # what pipeline.warehouse.load_lock holds
        assert connection.load_running(warehouse)
        with connection.lease(warehouse, counting_opener(warehouse, opened)):
            assert connection.shared_count() == 0  # the idle one retired, the new one not kept
        assert connection.shared_count() == 0 and len(opened) == 2
    finally:
        os.close(fd)
    assert not connection.load_running(warehouse)


def test_idle_connection_expires(warehouse: Path) -> None:
    with connection.lease(warehouse, counting_opener(warehouse, [])):
        pass
    (entry,) = connection._pool.values()
    connection._expire(entry)  # what the linger timer calls
    assert connection.shared_count() == 0


def test_a_load_gets_the_file_after_a_page_run(warehouse: Path) -> None:
    """A page run leaves its connection lingering; a load (load lock, then the write
    connection with its retries) still gets in."""
    with queries.open_warehouse(warehouse) as con:
        assert queries.hand_count(con) == 4
    assert connection.shared_count() == 1
    code = ("import sys; from pipeline.warehouse import load_lock, writing\n"
            "with load_lock(sys.argv[1]), writing(sys.argv[1], timeout=60) as con:\n"
            "    con.execute(\"DELETE FROM dead_letters\")\n")
    done = subprocess.run([sys.executable, "-c", code, str(warehouse)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
