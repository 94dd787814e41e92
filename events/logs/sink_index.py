"""Every ``(table_id, seq)`` a remote sink (Kafka) holds, with its ``event_id`` and the
digest of its bytes: what ``uth ingest --consumer`` into Kafka compares a re-sent event
with, however old (issue 30, item 3). Kafka records cannot be removed, so a conflict
forwarded once stays in the topic; the sequence tracker remembers only a window of recent
seqs, this index all of them.

The index is a cache of the topic, never its authority: it stores how far it has read each
partition, and each run first reads the topic on from there (the first run, or a lost
index file, reads the whole topic once). The events a run writes are added as they are
acknowledged, so a conflict re-sent later in the same run is recognised too; the first
record of a ``(table_id, seq)`` is the one kept (``INSERT OR IGNORE``), as the topic's
readers keep it. It is a small SQLite file beside the source's stored positions (see
:func:`index_path`); a source without a file (a Kafka topic, standard input) keeps it in
memory, rebuilt from the topic at each start.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path

import msgspec

from events.logs.base import Cursor, EventLog, LogError, LogUnavailable, Record


class Ids(msgspec.Struct, frozen=True):
    event_id: str
    table_id: str
    seq: int


ids_decoder = msgspec.json.Decoder(Ids)

Known = dict[tuple[str, int], tuple[str, bytes]]  # (table, seq) -> (event_id, digest)


def digest(value: bytes) -> bytes:
    """What two copies of an event are compared by: a digest of their stored bytes."""
    return hashlib.blake2b(value, digest_size=16).digest()


def index_path(source: EventLog, consumer: str, sink: EventLog) -> Path | None:
    """Where the index of ``sink`` for ``consumer`` reading ``source`` lives: beside the
    source's file (whose consumer positions it goes with), or None (kept in memory)."""
    path = getattr(source, "path", None)
    if not isinstance(path, Path):
        return None
    tag = hashlib.sha256(f"{consumer}\n{sink.describe()}".encode()).hexdigest()[:12]
    return path.with_name(f"{path.name}.sink-seqs-{tag}.db")


class SinkIndex:
    """The ``(table_id, seq)`` index of one sink (see the module's text)."""

    def __init__(self, path: Path | None, sink_name: str) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(str(path) if path else ":memory:", timeout=30.0)
            self._db.executescript("""
                PRAGMA journal_mode=WAL;
                CREATE TABLE IF NOT EXISTS seqs (table_id TEXT NOT NULL, seq INTEGER NOT NULL,
                    event_id TEXT NOT NULL, digest BLOB NOT NULL,
                    PRIMARY KEY (table_id, seq)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS read_to (part INTEGER PRIMARY KEY, next INTEGER);
                CREATE TABLE IF NOT EXISTS about (key TEXT PRIMARY KEY, value TEXT);
            """)
            row = self._db.execute("SELECT value FROM about WHERE key = 'sink'").fetchone()
            if row is not None and row[0] != sink_name:  # another sink: start again
                self._db.executescript("DELETE FROM seqs; DELETE FROM read_to;")
            self._db.execute("INSERT OR REPLACE INTO about VALUES ('sink', ?)", [sink_name])
            self._db.commit()
        except sqlite3.Error as exc:
            raise LogUnavailable(f"sequence index {path or ':memory:'}: {exc}") from exc

    def catch_up(self, sink: EventLog, *, also_from: Cursor | None = None,
                 each: Callable[[list[Record]], None] | None = None) -> int:
        """Read ``sink`` from where the index stopped to its end; the records read. With
        ``also_from``, from there where it is earlier, and every batch read is handed to
        ``each`` too: a caller that needs the sink's recent records as well reads the
        sink once (the ones the index has already are stored again as no-ops)."""
        start: Cursor = dict(self._db.execute("SELECT part, next FROM read_to").fetchall())
        if also_from is not None:  # a partition the index never read: from its start
            start = {p: min(start.get(p, 0), also_from.get(p, start.get(p, 0)))
                     for p in {*start, *also_from}}
        count = 0
        for batch in sink.read(start or None):
            if each is not None:
                each(batch)
            rows = []
            ends: dict[int, int] = {}
            for record in batch:
                ends[record.partition] = max(ends.get(record.partition, 0), record.offset + 1)
                try:
                    ids = ids_decoder.decode(record.value)
                except (msgspec.ValidationError, msgspec.DecodeError):
                    continue  # not an event: nothing to compare with
                rows.append((ids.table_id, ids.seq, ids.event_id, digest(record.value)))
            self._store(rows, ends)
            count += len(batch)
        return count

    def _store(self, rows: Iterable[tuple[str, int, str, bytes]],
               ends: dict[int, int] | None = None) -> None:
        try:
            with self._db:
                self._db.executemany("INSERT OR IGNORE INTO seqs VALUES (?, ?, ?, ?)", rows)
                for part, nxt in (ends or {}).items():
                    self._db.execute(
                        "INSERT INTO read_to VALUES (?, ?) ON CONFLICT (part) DO UPDATE "
                        "SET next = max(next, excluded.next)", [part, nxt])
        except sqlite3.Error as exc:
            raise LogError(f"sequence index {self.path or ':memory:'}: {exc}") from exc

    def add(self, rows: Iterable[tuple[str, int, str, bytes]]) -> None:
        """Events the sink has acknowledged: ``(table_id, seq, event_id, digest)``."""
        self._store(rows)

    def known(self, pairs: Iterable[tuple[str, int]]) -> Known:
        """What the sink holds at the given ``(table_id, seq)``s (a query per table and
        500 seqs)."""
        by_table: dict[str, set[int]] = {}
        for table_id, seq in pairs:
            by_table.setdefault(table_id, set()).add(seq)
        out: Known = {}
        for table_id, seqs in by_table.items():
            ordered = sorted(seqs)
            for k in range(0, len(ordered), 500):
                chunk = ordered[k:k + 500]
                marks = ",".join("?" * len(chunk))
                for seq, event_id, dig in self._db.execute(
                        f"SELECT seq, event_id, digest FROM seqs WHERE table_id = ? AND seq "
                        f"IN ({marks})", [table_id, *chunk]):
                    out[(table_id, seq)] = (event_id, bytes(dig))
        return out

    def close(self) -> None:
        self._db.close()
