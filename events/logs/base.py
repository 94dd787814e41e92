"""The one small interface every event log implements (SQLite, Kafka, JSON Lines).

A log holds records ``(key, value)``: key = the table's ``table_id``, value = the event's
raw JSON bytes, exactly as received. Records live in numbered *partitions* (SQLite and
JSON Lines have one, partition 0; a Kafka topic has several) at increasing *offsets*:

- SQLite: the row id (from 1), JSON Lines: the line number (from 1), Kafka: the offset.

A :data:`Cursor` maps partition -> the next offset to read; ``{}`` means "from the start".
After handling a record ``r``, ``advance(cursor, r)`` moves past it. Named consumers keep
their cursor in the log (:meth:`EventLog.commit` / :meth:`EventLog.committed`), so a reader
resumes where it stopped; commit only after the work done with the records is durable.

>>> c: Cursor = {}
>>> advance(c, Record(0, 41, "T1", b"{}"))
{0: 42}
"""

from __future__ import annotations

import hashlib
import json
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from types import TracebackType

    from events.contract.codec import Position, Rejection

Cursor = dict[int, int]


class Record(NamedTuple):
    """One stored record: where it is, its key (``table_id``) and its raw bytes."""

    partition: int
    offset: int
    key: str
    value: bytes


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What :meth:`EventLog.append` stored (durably, once it returns).

    ``duplicates`` counts records the log itself recognised as already stored (SQLite:
    same ``event_id``); ``end`` is the cursor just past the last record written.
    """

    written: int
    duplicates: int = 0
    end: Cursor = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A named consumer's committed cursor and the free-form note stored with it."""

    cursor: Cursor
    metadata: str = ""
    #: when the source changed under the stored cursor (a file replaced at the same path)
    #: and ``cursor`` was set back to its start: what happened, for the reader to say
    note: str = ""


class LogError(Exception):
    """A log that cannot do what was asked; the message says what and where."""


class LogUnavailable(LogError):
    """The log cannot be reached or opened (broker down, file missing, bad URL)."""


class LogWriteError(LogError):
    """An append that did not complete: none of that batch may be counted as written."""


def advance(cursor: Cursor, record: Record) -> Cursor:
    """Move ``cursor`` (in place) past ``record``; returns it."""
    if record.offset >= cursor.get(record.partition, 0):
        cursor[record.partition] = record.offset + 1
    return cursor


def advance_all(cursor: Cursor, records: Sequence[Record]) -> Cursor:
    """``advance`` past every record of a batch (no Python step per record when the batch
    is of one partition, as every read of a file or SQLite log is)."""
    partitions = set(map(_PARTITION, records))
    if len(partitions) == 1:
        partition = partitions.pop()
        offset = max(map(_OFFSET, records))
        if offset >= cursor.get(partition, 0):
            cursor[partition] = offset + 1
        return cursor
    for record in records:
        if record.offset >= cursor.get(record.partition, 0):
            cursor[record.partition] = record.offset + 1
    return cursor


def reached(cursor: Cursor, until: Cursor) -> bool:
    """True when ``cursor`` is at or past ``until`` in every partition ``until`` names."""
    return all(cursor.get(p, 0) >= offset for p, offset in until.items())


_PARTITION = attrgetter("partition")
_OFFSET = attrgetter("offset")


StopFlag = Callable[[], bool]


def never() -> bool:
    return False


class EventLog(ABC):
    """Append batches, read from a cursor, remember named consumers' cursors."""

    url: str
    #: What this log calls a record's place, for messages ("line", "row", "offset").
    position_word: str = "offset"

    @abstractmethod
    def append(
        self, records: Sequence[tuple[str, bytes]], event_ids: Sequence[str | None] | None = None
    ) -> AppendResult:
        """Store ``records`` in order, durably, before returning; raises LogWriteError.

        ``event_ids`` (one per record, or None) lets a log that can (SQLite) skip a record
        whose event it already holds.
        """

    @abstractmethod
    def read(
        self, start: Cursor | None = None, *, follow: bool = False, stop: StopFlag = never,
        max_batch: int = 2000,
    ) -> Iterator[list[Record]]:
        """Batches of records from ``start`` (default: the beginning), in offset order per
        partition. Without ``follow`` it ends at the end of the log; with ``follow`` it
        waits for more and yields an empty batch whenever it is idle, so the caller can
        commit and check its own shutdown flag; ``stop()`` true ends it."""

    def read_until(
        self, start: Cursor | None, until: Cursor, *, max_batch: int = 2000,
    ) -> Iterator[list[Record]]:
        """The records of :meth:`read` from ``start`` up to (not including) ``until``,
        a cursor taken earlier with :meth:`end`: a bounded read of a log that others keep
        writing, which ends however fast they write. A partition ``until`` does not name
        is not read."""
        cursor = dict(start or {})
        if reached(cursor, until):
            return
        for batch in self.read(start, max_batch=max_batch):
            kept = [r for r in batch if r.offset < until.get(r.partition, 0)]
            if kept:
                advance_all(cursor, kept)
                yield kept
            if len(kept) < len(batch) or reached(cursor, until):
                return

    @abstractmethod
    def committed(self, consumer: str) -> Checkpoint | None:
        """The consumer's last committed checkpoint, or None when it never committed."""

    @abstractmethod
    def commit(self, consumer: str, cursor: Cursor, metadata: str = "") -> None:
        """Store the consumer's cursor (durably): it resumes there next time."""

    @abstractmethod
    def dead_letter(self, rejections: Sequence[Rejection], source: str = "") -> int:
        """Keep rejected inputs with their reasons beside the log, each once: an input
        rejected again at the same place of the same ``source`` (a rerun, a restart after
        a kill) is not stored twice (:func:`dead_letter_key`). Returns how many were new."""

    @abstractmethod
    def end(self) -> Cursor:
        """The cursor just past the last record now stored."""

    def where(self, record: Record) -> Position:
        """The record's place as a person reads it (``line 12``, ``row 7``...)."""
        return f"{self.position_word} {record.offset}"

    def positions(self, records: Sequence[Record]) -> list[str]:
        """``str(where(r))`` of each record (logs whose place is a number do it in bulk)."""
        where = self.where
        return [str(where(r)) for r in records]

    def records(
        self, start: Cursor | None = None, *, follow: bool = False, stop: StopFlag = never
    ) -> Iterator[Record]:
        """Record by record (see :meth:`read`)."""
        for batch in self.read(start, follow=follow, stop=stop):
            yield from batch

    def close(self) -> None:  # noqa: B027 - optional for logs without resources
        """Release connections and files."""

    def describe(self) -> str:
        """The URL without credentials, for messages."""
        return self.url

    def __enter__(self) -> EventLog:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def sleep_unless(stop: StopFlag, seconds: float, step: float = 0.05) -> bool:
    """Sleep up to ``seconds`` in small steps; True when ``stop()`` turned true meanwhile."""
    deadline = time.monotonic() + seconds
    while True:
        if stop():
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(step, left))


def dead_letter_key(source: str, rejection: Rejection) -> str:
    """What makes a dead letter the same one: the source, the place in it and the bytes
    kept (a hex digest, so it holds nothing of the input in clear)."""
    digest = hashlib.sha256()
    for part in (source.encode(), str(rejection.position).encode(), rejection.raw):
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()[:32]


def new_dead_letters(rejections: Sequence[Rejection], source: str,
                     known: set[str]) -> list[tuple[Rejection, dict[str, object]]]:
    """The rejections not among the ``known`` keys (which take theirs in), each with its
    JSON-ready form for a store of JSON documents, key and source included."""
    out = []
    for r in rejections:
        key = dead_letter_key(source, r)
        if key not in known:
            known.add(key)
            out.append((r, {**r.to_dict(), "source": source, "key": key}))
    return out


def stored_keys(documents: Iterable[bytes]) -> set[str]:
    """The ``key`` of each stored dead letter (JSON documents; others are passed over)."""
    keys: set[str] = set()
    for document in documents:
        try:
            entry = json.loads(document)
        except ValueError:
            continue  # a line torn by a crash holds no key to repeat
        if isinstance(entry, dict) and isinstance(entry.get("key"), str):
            keys.add(entry["key"])
    return keys
