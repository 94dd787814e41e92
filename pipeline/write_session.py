"""One write connection for a whole load, let go whenever a reader asks.

Each ``writing()`` used to open the warehouse, run its transaction and close it: a dozen
connections a load, and on a large warehouse each open and close (a checkpoint) costs
tens to hundreds of milliseconds, whatever the load adds. Inside :func:`held` every
``writing(path)`` of this process is a transaction on a cursor of the one connection the
load holds, and every ``reading(path)`` a cursor of it (which sees what was committed).
Each transaction still commits on its own, so a load killed anywhere leaves what it
committed, exactly as before.

Readers in other processes must never wait out a whole load, nor see a lock error. The
protocol, both sides in :mod:`pipeline.warehouse` and here:

- a reader refused the file (DuckDB's lock) touches ``<warehouse>.wait`` and retries (for
  up to its timeout, every 20-200 ms);
- before each transaction or read, when none is open, the load looks at the marker: when
  it was touched within the last :data:`ASKED` seconds, the load closes its connection,
  waits until no reader has asked for :data:`QUIET` s (at most :data:`YIELD_MAX` s), and
  opens it again (waiting, as any writer, while readers hold the file).

So a reader waits at most for the transaction under way (one batch of a load), as when
every transaction had its own connection. The marker is never deleted (its time says
everything); a load never waits for it when nobody reads.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from pipeline.warehouse import (
    DDL_SCRIPT,
    HELD,
    WRITE_TIMEOUT,
    Connection,
    _connect,
)

ASKED = 1.0  # a marker touched this recently: a reader is waiting now
QUIET = 0.3  # the readers got in: none has asked for longer than its longest retry wait
YIELD_MAX = 2.0  # the longest a load lets readers have the file at one boundary


class WriteSession:
    """The connection a load holds; see the module."""

    def __init__(self, path: Path, timeout: float) -> None:
        self.path, self.timeout = path, timeout
        self.marker = Path(f"{path}.wait")
        self.lock = threading.Lock()
        self.open_cursors = 0
        self.yields = 0  # how often readers were let in (the load's report may say)
        self.con: Connection | None = None
        self._open()

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = _connect(self.path, read_only=False, timeout=self.timeout)
        try:
            con.execute(DDL_SCRIPT)
        except BaseException:
            con.close()
            raise
        self.con = con

    def _asked(self) -> float | None:
        """When a reader last asked for the file, or None (never)."""
        try:
            return self.marker.stat().st_mtime
        except FileNotFoundError:
            return None

    def _let_readers_in(self) -> None:
        asked = self._asked()
        if asked is None or time.time() - asked > ASKED or self.con is None:
            return
        self.con.close()
        self.con = None
        self.yields += 1
        until = time.monotonic() + YIELD_MAX
        while time.monotonic() < until:
            last = self._asked()
            if last is None or time.time() - last > QUIET:
                break
            time.sleep(0.05)
        self._open()

    @contextlib.contextmanager
    def cursor(self) -> Iterator[Connection]:
        """A cursor of the held connection (at a boundary, readers let in first)."""
        with self.lock:
            if self.open_cursors == 0:
                self._let_readers_in()
            if self.con is None:
                self._open()
            assert self.con is not None
            cur = self.con.cursor()
            self.open_cursors += 1
        try:
            yield cur
        finally:
            with self.lock:
                self.open_cursors -= 1
            cur.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One transaction: committed on success, rolled back on error."""
        with self.cursor() as con:
            con.execute("BEGIN TRANSACTION")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None


@contextlib.contextmanager
def held(path: str | Path, timeout: float = WRITE_TIMEOUT) -> Iterator[WriteSession]:
    """Hold one write connection to the warehouse at ``path`` for this block (this process's
    ``writing`` and ``reading`` of that path use it); nested, the outer one serves."""
    key = str(Path(path).resolve())
    if key in HELD:
        yield HELD[key]
        return
    session = WriteSession(Path(path), timeout)
    HELD[key] = session
    try:
        yield session
    finally:
        del HELD[key]
        session.close()
