"""How the dashboards reach the warehouse: read-only (``pipeline.warehouse.reading``,
retried while a load writes), sealed (:data:`SEAL`), and one connection shared by the page
runs of a dashboards process, let go of as soon as the pages are idle or a load wants the
file.

Opening a DuckDB database costs tens of milliseconds (a new database instance each time),
which a page pays on every click. So a connection opened for one page run lingers for
:func:`linger` seconds (``UTH_DASHBOARDS_LINGER``; 0 turns lingering off) and the runs that
come meanwhile use cursors of it. DuckDB lets no writer in while any reader holds the
file, so the linger is short, a connection is retired after ``MAX_AGE`` seconds however
busy the pages are, and while a load runs (every writer holds the exclusive ``flock`` on
``<warehouse>.lock``, see ``pipeline.warehouse.load_lock``) nothing lingers: each page
run opens and closes its own connection, which the loader's retries wait out.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import duckdb

from pipeline.warehouse import WarehouseBusy, reading

LINGER_ENV = "UTH_DASHBOARDS_LINGER"


def linger() -> float:
    """How long an idle shared connection stays open, in seconds (read now, not at import:
    0 turns lingering off)."""
    return float(os.environ.get(LINGER_ENV, "1.0"))
MAX_AGE = 30.0

# no file access (read_csv, COPY, ATTACH...), no extension loading, and no way back
SEAL = ("SET enable_external_access = false", "SET autoload_known_extensions = false",
        "SET lock_configuration = true")

Opener = Callable[[], AbstractContextManager[duckdb.DuckDBPyConnection]]


def load_running(path: Path) -> bool:
    """True while a load holds ``<warehouse>.lock`` (never creates the file)."""
    try:
        fd = os.open(f"{path}.lock", os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


class _Shared:
    def __init__(self, path: Path, opener: Opener) -> None:
        self.path = path
        self.stack = contextlib.ExitStack()
        self.con = self.stack.enter_context(opener())
        self.opened = time.monotonic()
        self.users = 0
        self.retired = False
        self.timer: threading.Timer | None = None

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.stack.close()


_lock = threading.Lock()
_pool: dict[Path, _Shared] = {}


def _retire(entry: _Shared) -> None:
    """Called with ``_lock`` held: stop handing ``entry`` out; close it if unused."""
    entry.retired = True
    if _pool.get(entry.path) is entry:
        del _pool[entry.path]
    if entry.users == 0:
        entry.close()


def _expire(entry: _Shared) -> None:
    with _lock:
        if entry.users == 0:
            _retire(entry)


class lease:  # used like a function: ``with lease(path, opener) as con``
    """A cursor on the shared connection to ``path`` (opened with ``opener`` if needed)."""

    def __init__(self, path: Path, opener: Opener) -> None:
        self.path, self.opener = path, opener
        self.entry: _Shared | None = None
        self.cursor: duckdb.DuckDBPyConnection | None = None

    def __enter__(self) -> duckdb.DuckDBPyConnection:
        wait = linger()
        with _lock:
            entry = _pool.get(self.path)
            if entry is not None and (wait <= 0 or time.monotonic() - entry.opened > MAX_AGE
                                      or load_running(self.path)):
                _retire(entry)
                entry = None
            if entry is None:
                entry = _Shared(self.path, self.opener)
                if wait > 0 and not load_running(self.path):
                    _pool[self.path] = entry
                else:
                    entry.retired = True
            if entry.timer is not None:
                entry.timer.cancel()
                entry.timer = None
            entry.users += 1
            self.entry = entry
            self.cursor = entry.con.cursor()
            return self.cursor

    def __exit__(self, *exc: Any) -> None:
        entry = self.entry
        assert entry is not None and self.cursor is not None
        self.cursor.close()
        wait = linger()
        with _lock:
            entry.users -= 1
            if entry.users > 0:
                return
            if entry.retired:
                entry.close()
            else:
                entry.timer = threading.Timer(wait, _expire, (entry,))
                entry.timer.daemon = True
                entry.timer.start()


def release_all() -> None:
    """Close every idle shared connection now (and retire the busy ones)."""
    with _lock:
        for entry in list(_pool.values()):
            _retire(entry)


def shared_count() -> int:
    with _lock:
        return len(_pool)


class WarehouseUnavailable(Exception):
    """The warehouse cannot be shown; ``str(exc)`` is a message for the floor, ``kind`` one of
    ``unset``, ``missing``, ``busy``, ``invalid``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


BUSY_TIMEOUT = 3.0  # seconds a page waits for a load to release the file
_SEALING = threading.Lock()


def _seal(con: duckdb.DuckDBPyConnection) -> None:
    """Apply :data:`SEAL`. Connections to one file in one process share a database
    instance and its settings, so the first page run seals it for all (under a lock, as
    sessions run in threads) and later ones only check it is sealed."""
    with _SEALING:
        if not _setting(con, "lock_configuration"):
            for setting in SEAL:
                con.execute(setting)
    if _setting(con, "enable_external_access") or not _setting(con, "lock_configuration"):
        raise duckdb.InvalidInputException("the connection could not be sealed read-only")


def _setting(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    value = con.execute("SELECT current_setting(?)", [name]).fetchone()
    return bool(value and value[0])


@contextlib.contextmanager
def _sealed(path: Path, timeout: float) -> Iterator[duckdb.DuckDBPyConnection]:
    with reading(path, timeout) as con:
        _seal(con)
        yield con


@contextlib.contextmanager
def open_warehouse(path: str | Path | None,
                   timeout: float = BUSY_TIMEOUT) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection for one page run: ``pipeline.warehouse.reading`` (retried
    while a load writes), sealed against file access and configuration changes, shared
    with the other page runs of the moment and let go of soon after (see
    this module's docstring), so the next load can proceed."""
    if not path:
        raise WarehouseUnavailable(
            "unset", "No warehouse configured. Start the dashboards with "
            "`uth dashboards --warehouse PATH` or set `UTH_WAREHOUSE` to a DuckDB file.")
    path = Path(path).resolve()
    if not path.is_file():
        raise WarehouseUnavailable(
            "missing", f"No warehouse at `{path}`. Build one with `uth simulate` and `uth load`, "
            "then start the dashboards with `uth dashboards --warehouse PATH`.")
    with contextlib.ExitStack() as stack:
        try:
            con = stack.enter_context(lease(path, lambda: _sealed(path, timeout)))
        except WarehouseBusy as exc:
            raise WarehouseUnavailable(
                "busy", f"The warehouse `{path}` is being written (a load is running). "
                "Reload this page in a moment.") from exc
        except duckdb.Error as exc:
            raise WarehouseUnavailable("invalid", f"`{path}` is not a DuckDB warehouse "
                                       f"({str(exc).splitlines()[0]}).") from exc
        yield con
