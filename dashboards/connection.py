"""One read-only connection shared by the page runs of a dashboards process, let go of
as soon as the pages are idle or a load wants the file.

Opening a DuckDB database costs tens of milliseconds (a new database instance each time),
which a page pays on every click. So a connection opened for one page run lingers for
``LINGER`` seconds (``UTH_DASHBOARDS_LINGER``; 0 turns lingering off) and the runs that
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
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import duckdb

LINGER = float(os.environ.get("UTH_DASHBOARDS_LINGER", "1.0"))
MAX_AGE = 30.0

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
        with _lock:
            entry = _pool.get(self.path)
            if entry is not None and (LINGER <= 0 or time.monotonic() - entry.opened > MAX_AGE
                                      or load_running(self.path)):
                _retire(entry)
                entry = None
            if entry is None:
                entry = _Shared(self.path, self.opener)
                if LINGER > 0 and not load_running(self.path):
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
        with _lock:
            entry.users -= 1
            if entry.users > 0:
                return
            if entry.retired:
                entry.close()
            else:
                entry.timer = threading.Timer(LINGER, _expire, (entry,))
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
