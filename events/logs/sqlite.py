"""The embedded default log: one SQLite file, durable, one writer and many readers.

``sqlite:///log.db`` (relative path) or ``sqlite:////var/uth/log.db`` (absolute), as in
SQLAlchemy. WAL journal with ``synchronous=FULL``: a batch is on disk when
:meth:`SqliteLog.append` returns, and readers in other processes see it without blocking
the writer. A record's offset is its row id (from 1, never reused). The same file keeps the
named consumers' cursors (``consumers``), the rejected inputs (``dead_letter``), and, for
``events.logs.publisher``, the next ``seq`` of each table (``table_seq``).

When ``event_ids`` are given to :meth:`append`, a unique index on ``event_id`` stores each
event once: a redelivered event is counted in ``AppendResult.duplicates``, not stored again.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from events.logs.base import (
    AppendResult,
    Checkpoint,
    Cursor,
    EventLog,
    LogUnavailable,
    LogWriteError,
    Record,
    StopFlag,
    dead_letter_key,
    never,
    sleep_unless,
)

if TYPE_CHECKING:
    from events.contract.codec import Rejection

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    pos INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    value BLOB NOT NULL,
    event_id TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS events_event_id ON events(event_id)
    WHERE event_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS consumers (
    name TEXT PRIMARY KEY,
    pos INTEGER NOT NULL,
    metadata TEXT NOT NULL DEFAULT '',
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS dead_letter (
    id INTEGER PRIMARY KEY,
    position TEXT NOT NULL,
    code TEXT NOT NULL,
    reason TEXT NOT NULL,
    event_id TEXT,
    table_id TEXT,
    raw BLOB NOT NULL,
    recorded_at REAL NOT NULL,
    source TEXT,
    key TEXT
);
CREATE TABLE IF NOT EXISTS table_seq (
    table_id TEXT PRIMARY KEY,
    next_seq INTEGER NOT NULL
);
"""

Hook = Callable[[sqlite3.Connection], None]


def path_from_url(url: str) -> Path:
    """``sqlite:///rel.db`` -> ``rel.db``; ``sqlite:////abs/x.db`` -> ``/abs/x.db``."""
    if not url.startswith("sqlite:///"):
        raise LogUnavailable(f"{url!r} is not a sqlite:/// URL")
    rest = url[len("sqlite:///"):].split("?", 1)[0]
    if not rest:
        raise LogUnavailable(f"{url!r} names no file")
    return Path(rest)


class SqliteLog(EventLog):
    position_word = "row"

    def __init__(self, url: str, *, create: bool = True, poll_interval: float = 0.1) -> None:
        self.url = url
        self.path = path_from_url(url)
        self.poll_interval = poll_interval
        if not create and not self.path.exists():
            raise LogUnavailable(f"{self.path} does not exist")
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            self._conn.execute("PRAGMA busy_timeout=30000")
            mode = self._conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise LogUnavailable(f"{self.path}: cannot use WAL journal (got {mode})")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.executescript(_SCHEMA)
            self._add_dead_letter_keys()
        except sqlite3.Error as exc:
            raise LogUnavailable(f"cannot open the SQLite log {self.path}: {exc}") from exc

    def _add_dead_letter_keys(self) -> None:
        """Give a log made before dead letters had keys its ``source`` and ``key`` columns
        and their unique index (a read-only log is left as it is: nothing writes there)."""
        columns = {r[1] for r in self._conn.execute("PRAGMA table_info(dead_letter)")}
        with suppress(sqlite3.OperationalError):  # read-only: no dead letter is written
            for column in ("source", "key"):
                if column not in columns:
                    self._conn.execute(f"ALTER TABLE dead_letter ADD COLUMN {column} TEXT")
            self._conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS dead_letter_key "
                               "ON dead_letter(key) WHERE key IS NOT NULL")

    @property
    def connection(self) -> sqlite3.Connection:
        return self._conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (durable on exit) or ``ROLLBACK`` on error."""
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise LogWriteError(f"{self.path}: cannot start a write: {exc}") from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    @staticmethod
    def insert(
        conn: sqlite3.Connection, rows: Sequence[tuple[str, bytes, str | None]]
    ) -> tuple[int, Cursor]:
        """Insert (key, value, event_id) rows inside a transaction; (written, end)."""
        before = conn.total_changes
        conn.executemany("INSERT OR IGNORE INTO events(key, value, event_id) VALUES (?,?,?)",
                         rows)
        written = conn.total_changes - before
        row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name='events'").fetchone()
        return written, ({0: int(row[0]) + 1} if row else {})

    def append(
        self, records: Sequence[tuple[str, bytes]], event_ids: Sequence[str | None] | None = None,
        *, hook: Hook | None = None,
    ) -> AppendResult:
        """Append in one transaction; ``hook(conn)`` runs inside it, before the commit."""
        if event_ids is not None and len(event_ids) != len(records):
            raise ValueError("one event_id (or None) per record")
        rows = (
            [(k, v, None) for k, v in records] if event_ids is None
            else [(k, v, e) for (k, v), e in zip(records, event_ids, strict=True)]
        )
        try:
            with self.transaction() as conn:
                written, end = self.insert(conn, rows)
                if hook is not None:
                    hook(conn)
        except sqlite3.Error as exc:
            raise LogWriteError(f"{self.path}: append failed, nothing written: {exc}") from exc
        return AppendResult(written, len(rows) - written, end)

    def read(
        self, start: Cursor | None = None, *, follow: bool = False, stop: StopFlag = never,
        max_batch: int = 2000,
    ) -> Iterator[list[Record]]:
        pos = (start or {}).get(0, 0)
        # CAST: a value written as TEXT (by hand, or by another tool) still reads as its bytes
        query = ("SELECT pos, key, CAST(value AS BLOB) FROM events WHERE pos >= ? "
                 "ORDER BY pos LIMIT ?")
        while not stop():
            try:
                rows = self._conn.execute(query, (pos, max_batch)).fetchall()
            except sqlite3.Error as exc:
                raise LogUnavailable(f"{self.path}: read failed: {exc}") from exc
            if rows:
                pos = rows[-1][0] + 1
                yield [Record(0, p, k, bytes(v)) for p, k, v in rows]
                continue
            if not follow:
                return
            yield []
            if sleep_unless(stop, self.poll_interval):
                return

    def committed(self, consumer: str) -> Checkpoint | None:
        row = self._conn.execute(
            "SELECT pos, metadata FROM consumers WHERE name = ?", (consumer,)).fetchone()
        return None if row is None else Checkpoint({0: int(row[0])}, str(row[1]))

    def commit(self, consumer: str, cursor: Cursor, metadata: str = "") -> None:
        if set(cursor) - {0}:
            raise ValueError(f"a SQLite log has one partition (0), not {sorted(cursor)}")
        try:
            self._conn.execute(
                "INSERT INTO consumers(name, pos, metadata, updated_at) VALUES (?,?,?,?) "
                "ON CONFLICT(name) DO UPDATE SET pos=excluded.pos, metadata=excluded.metadata, "
                "updated_at=excluded.updated_at",
                (consumer, cursor.get(0, 0), metadata, time.time()))
        except sqlite3.Error as exc:
            raise LogWriteError(f"{self.path}: commit of {consumer!r} failed: {exc}") from exc

    def dead_letter(self, rejections: Sequence[Rejection], source: str = "") -> int:
        now = time.time()
        rows = [(str(r.position), r.code, r.reason, r.event_id, r.table_id, r.raw, now,
                 source, dead_letter_key(source, r)) for r in rejections]
        try:
            with self.transaction() as conn:
                before = conn.total_changes
                conn.executemany(
                    "INSERT OR IGNORE INTO dead_letter(position, code, reason, event_id, "
                    "table_id, raw, recorded_at, source, key) VALUES (?,?,?,?,?,?,?,?,?)", rows)
                return conn.total_changes - before
        except sqlite3.Error as exc:
            raise LogWriteError(f"{self.path}: dead-letter write failed: {exc}") from exc

    def dead_letters(self) -> list[dict[str, object]]:
        """Every stored rejection, oldest first (for tests and people)."""
        cur = self._conn.execute(
            "SELECT position, code, reason, event_id, table_id, raw, source FROM dead_letter "
            "ORDER BY id")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def end(self) -> Cursor:
        row = self._conn.execute("SELECT seq FROM sqlite_sequence WHERE name='events'").fetchone()
        return {0: int(row[0]) + 1} if row else {}

    def count(self) -> int:
        return int(self._conn.execute("SELECT count(*) FROM events").fetchone()[0])

    def has_event_ids(self, event_ids: Sequence[str]) -> set[str]:
        """Which of ``event_ids`` are stored already."""
        found: set[str] = set()
        for i in range(0, len(event_ids), 500):
            chunk = list(event_ids[i : i + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._conn.execute(
                f"SELECT event_id FROM events WHERE event_id IN ({marks})", chunk)
            found.update(r[0] for r in rows)
        return found

    def stored_values(self, event_ids: Sequence[str]) -> dict[str, bytes]:
        """The stored bytes of those of ``event_ids`` the log holds."""
        found: dict[str, bytes] = {}
        for i in range(0, len(event_ids), 500):
            chunk = list(event_ids[i : i + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._conn.execute(
                f"SELECT event_id, CAST(value AS BLOB) FROM events WHERE event_id IN ({marks})",
                chunk)
            found.update((r[0], bytes(r[1])) for r in rows)
        return found

    def close(self) -> None:
        self._conn.close()

    def where(self, record: Record) -> str:
        return f"row {record.offset}"
