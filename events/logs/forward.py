"""Move events from one log to another, validated, once: the engine of ``uth ingest``.

For each batch read from the source: decode and validate every record
(``events.contract.codec``), classify the valid ones per table (``SequenceTracker``: new, late,
duplicate, conflict, gaps), append the new ones to the sink in source order, send each
rejected record with its reason to the sink's dead-letter store, then (with a consumer
name) commit the source position. The commit carries the sink's end as metadata, so after
a crash the records written after the last commit are found again and not repeated.

Exactly-once, per sink:

- SQLite: a unique index on ``event_id`` stores each event once, whatever happens.
- Kafka and JSON Lines: the run remembers what it wrote; a failed batch is retried only
  after reading back what of it reached the sink; on start, the sink is read from the
  end stored with the last commit (or, for files, entirely) to know what is there already.
  With a consumer name the sink's recent records (the tracker's window) are read too, and
  a remote sink's every ``(table_id, seq)`` is kept in an index (``events.logs.sink_index``),
  so a conflict re-sent after a restart, however old, is dead-lettered, not forwarded.
  Without a consumer name there is no stored position: re-running an ingest of the same
  file into Kafka sends it again (downstream consumers still count each ``event_id`` once).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from events.contract.codec import Rejection, decode_records
from events.contract.privacy import scrub_all
from events.logs.base import (
    Cursor,
    EventLog,
    LogError,
    LogWriteError,
    Record,
    StopFlag,
    advance_all,
    never,
    sleep_unless,
)
from events.logs.sequence import SequenceTracker
from events.logs.sink_index import SinkIndex, ids_decoder, index_path
from events.logs.sink_index import digest as _digest


@dataclass
class IngestReport:
    """What an ingest run did. ``accounted`` is True when every record read was written,
    recognised as a duplicate, or rejected with a reason."""

    read: int = 0
    written: int = 0
    duplicates: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    late: int = 0
    gaps: list[tuple[str, int, int]] = field(default_factory=list)
    missing: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    retries: int = 0
    error: str | None = None
    notes: list[str] = field(default_factory=list)  # what changed at the source

    @property
    def rejected_total(self) -> int:
        return sum(self.rejected.values())

    @property
    def accounted(self) -> bool:
        return self.error is None and self.read == (
            self.written + self.duplicates + self.rejected_total)

    def as_dict(self) -> dict[str, Any]:
        return {
            "read": self.read, "written": self.written, "duplicates": self.duplicates,
            "rejected": self.rejected_total, "rejected_by_reason": dict(self.rejected),
            "late": self.late, "gaps": [list(g) for g in self.gaps],
            "missing": {t: [list(r) for r in rs] for t, rs in self.missing.items()},
            "retries": self.retries, "accounted": self.accounted, "error": self.error,
            "notes": list(self.notes),
        }


def _is_local(log: EventLog) -> bool:
    from events.logs.jsonl import JsonlLog
    from events.logs.sqlite import SqliteLog

    return isinstance(log, SqliteLog | JsonlLog)


@dataclass
class Forwarder:
    source: EventLog
    sink: EventLog
    consumer: str | None = None
    follow: bool = False
    stop: StopFlag = never
    batch_size: int = 2000
    retry_limit: int = 3  # failed appends in a row before giving up (without --follow)
    retry_wait: float = 1.0
    on_batch: Callable[[IngestReport], None] | None = None
    window: int = 20_000  # the sequence tracker's (tests make it small)

    def __post_init__(self) -> None:
        self.report = IngestReport()
        self.cursor: Cursor = {}
        self.watermark: Cursor = {}
        # event ids found at the sink past the watermark, with the digest of their bytes
        self.at_sink: dict[str, bytes] = {}
        self.tracker = SequenceTracker(window=self.window)
        self.index: SinkIndex | None = None  # a remote sink's every (table, seq)

    # -- setup ---------------------------------------------------------------------------
    def _start(self) -> None:
        checkpoint = self.source.committed(self.consumer) if self.consumer else None
        if checkpoint is not None:
            self.cursor = dict(checkpoint.cursor)
            if checkpoint.note:
                self.report.notes.append(checkpoint.note)
            meta = _parse_meta(checkpoint.metadata)
            if meta.get("sink") == self.sink.describe():
                self.watermark = {int(p): int(o) for p, o in meta.get("sink_end", {}).items()}
        self.tracker = SequenceTracker(expect_start=not self.cursor, window=self.window)
        if _is_local(self.sink):
            self._scan_sink({}, seed=True)
            self.watermark = self.sink.end()
            return
        end = self.sink.end()
        recent: Cursor | None = None
        if checkpoint is not None and self.watermark:
            # from before the watermark too: the tracker's window of each table's recent
            # seqs, so that a conflict re-sent after a restart is still recognised
            back = self.tracker.window * 4
            recent = {p: max(0, min(self.watermark.get(p, off), off - back))
                      for p, off in end.items()}
        if self.consumer:  # the index's catch-up reads the recent records too: one read
            found: dict[str, bytes] = {}
            self.index = SinkIndex(index_path(self.source, self.consumer, self.sink),
                                   self.sink.describe())
            self.index.catch_up(self.sink, also_from=recent, each=None if recent is None else
                                lambda batch: self._note(batch, found, True, recent))
            self.at_sink |= found
        self.watermark = end if recent is None else self._merge(self.watermark, end)

    def _scan_sink(self, start: Cursor, *, seed: bool) -> dict[str, bytes]:
        """Event ids stored at the sink from ``start`` (with their bytes' digests); with
        ``seed``, feed the tracker."""
        found: dict[str, bytes] = {}
        try:
            for batch in self.sink.read(start):
                self._note(batch, found, seed)
        except LogError:
            if seed and _is_local(self.sink):
                return found  # a sink file that does not exist yet holds nothing
            raise
        if seed:
            self.at_sink |= found
        return found

    def _note(self, batch: list[Record], found: dict[str, bytes], seed: bool,
              start: Cursor | None = None) -> None:
        """Put the events of ``batch`` read from the sink (from ``start``) in ``found``;
        with ``seed``, feed the tracker."""
        from events.logs.sqlite import SqliteLog

        collect = not isinstance(self.sink, SqliteLog)  # SQLite: unique index on event_id
        for record in batch:
            if start is not None and record.offset < start.get(record.partition, 0):
                continue
            try:
                ids = ids_decoder.decode(record.value)
            except (msgspec.ValidationError, msgspec.DecodeError):
                continue
            digest = _digest(record.value)
            if collect:
                found[ids.event_id] = digest
            if seed:
                self.tracker.seed(ids.table_id, ids.seq, ids.event_id, digest)

    @staticmethod
    def _merge(a: Cursor, b: Cursor) -> Cursor:
        out = dict(a)
        for p, o in b.items():
            out[p] = max(out.get(p, 0), o)
        return out

    # -- the loop ------------------------------------------------------------------------
    def run(self) -> IngestReport:
        report = self.report
        try:
            self._start()
            for batch in self.source.read(self.cursor or None, follow=self.follow,
                                          stop=self.stop, max_batch=self.batch_size):
                if batch:
                    self._handle(batch)
                    if self.on_batch is not None:
                        self.on_batch(report)
        except LogError as exc:
            report.error = str(exc)
        finally:
            if self.index is not None:
                self.index.close()
        report.late = self.tracker.late
        report.gaps = list(self.tracker.gap_events)
        report.missing = self.tracker.missing()
        return report

    def _handle(self, batch: list[Record]) -> None:
        report = self.report
        # players only as pseudonyms (no key: the identifier is dropped, the event kept)
        values = [r.value for r in batch]
        if (scrubbed := scrub_all(values)) is not values:
            batch = [r._replace(value=v) for r, v in zip(batch, scrubbed, strict=True)]
        decoded = decode_records([(self.source.where(r), r.value) for r in batch])
        records: list[tuple[str, bytes]] = []
        ids: list[str | None] = []
        sent: list[tuple[Record, Any, bytes]] = []  # with the digest the index keeps
        rejects: list[Rejection] = []
        duplicates = 0
        old = self.index.known((i.table_id, i.seq) for i in decoded
                               if not isinstance(i, Rejection)) if self.index else {}
        for record, item in zip(batch, decoded, strict=True):
            if isinstance(item, Rejection):
                rejects.append(item)
                continue
            digest = _digest(record.value)
            stored = self.at_sink.get(item.event_id)
            if stored is not None:
                if stored == digest:
                    duplicates += 1
                else:
                    rejects.append(self._altered(record, item))
                continue
            verdict, first = self._verdict(item, digest, old.get((item.table_id, item.seq)))
            if verdict == "duplicate":
                duplicates += 1
            elif verdict == "altered":
                rejects.append(self._altered(record, item))
            elif verdict == "conflict":
                rejects.append(Rejection(
                    self.source.where(record), "conflict",
                    f"{type(item).__name__}: {item.table_id} seq {item.seq} is already event "
                    f"{first}; this event {item.event_id} conflicts and was not stored",
                    record.value[:4096], item.event_id, item.table_id))
            else:
                records.append((item.table_id, record.value))
                ids.append(item.event_id)
                sent.append((record, item, digest))
        written, dup_at_sink = self._write(records, ids)
        if self.index is not None and sent:  # acknowledged: recognised however old
            self.index.add((i.table_id, i.seq, i.event_id, d) for _, i, d in sent)
        if dup_at_sink:
            altered = self._altered_at_sink(sent)
            rejects += altered
            dup_at_sink -= len(altered)
        if rejects:
            self._with_retries(lambda: self.sink.dead_letter(rejects, self.source.describe()))
        report.read += len(batch)
        report.written += written
        report.duplicates += duplicates + dup_at_sink
        report.rejected.update(r.code for r in rejects)
        advance_all(self.cursor, batch)
        if self.consumer:
            meta = json.dumps({"sink": self.sink.describe(), "sink_end": self.watermark})
            self._with_retries(lambda: self.source.commit(self.consumer or "", self.cursor, meta))

    def _verdict(self, item: Any, digest: bytes,
                 indexed: tuple[str, bytes] | None) -> tuple[str, str | None]:
        """The tracker's verdict on ``item`` (and the event first stored at its seq), or,
        for a seq the sink holds (``indexed``) that the tracker's window does not, the
        index's: a conflict re-sent however long after is still one."""
        state = self.tracker.tables.get(item.table_id)
        if indexed is not None and (state is None or item.seq not in state.seen):
            if indexed[0] != item.event_id:
                return "conflict", indexed[0]
            return ("duplicate" if indexed[1] == digest else "altered"), None
        verdict = self.tracker.observe(item.table_id, item.seq, item.event_id, digest)
        return verdict, self.tracker.tables[item.table_id].seen.get(item.seq)

    def _altered(self, record: Record, item: Any) -> Rejection:
        return Rejection(
            self.source.where(record), "conflict",
            f"{type(item).__name__}: {item.table_id} seq {item.seq} event {item.event_id} is "
            "already stored with other contents; this copy differs and was not stored",
            record.value[:4096], item.event_id, item.table_id)

    def _altered_at_sink(self, sent: list[tuple[Record, Any, bytes]]) -> list[Rejection]:
        """The records of a batch a SQLite sink skipped as already stored (same
        ``event_id``) whose stored bytes are not theirs: conflicts, not duplicates."""
        from events.logs.sqlite import SqliteLog

        if not isinstance(self.sink, SqliteLog):
            return []
        stored = self.sink.stored_values([item.event_id for _, item, _ in sent])
        return [self._altered(record, item) for record, item, _ in sent
                if stored.get(item.event_id, record.value) != record.value]

    def _write(self, records: list[tuple[str, bytes]], ids: list[str | None]) -> tuple[int, int]:
        """Append durably. After a failed append, learn what of it reached the sink before
        sending the rest again, so a retry repeats nothing."""
        already = 0
        failures = 0
        while records:
            try:
                result = self.sink.append(records, ids)
            except LogWriteError as exc:
                failures = self._failed(exc, failures)
                landed = self._landed(failures)
                keep = [i for i, e in enumerate(ids) if e not in landed]
                already += len(records) - len(keep)
                records = [records[i] for i in keep]
                ids = [ids[i] for i in keep]
                continue
            self.watermark = self._merge(self.watermark, result.end)
            return result.written + already, result.duplicates
        return already, 0

    def _failed(self, exc: LogError, failures: int) -> int:
        """Count a failure; re-raise when out of retries or stopping; else wait."""
        failures += 1
        self.report.retries += 1
        if (failures >= self.retry_limit and not self.follow) or self.stop():
            raise exc
        if sleep_unless(self.stop, self.retry_wait * min(failures, 10)):
            raise LogWriteError(f"stopped while retrying: {exc}") from exc
        return failures

    def _landed(self, failures: int) -> set[str]:
        """Event ids at the sink past the watermark (a failed batch may be partly there);
        keeps trying until the sink can be read (a SQLite sink de-duplicates by itself)."""
        from events.logs.sqlite import SqliteLog

        if isinstance(self.sink, SqliteLog):
            return set()
        while True:
            try:
                found = self._scan_sink(self.watermark, seed=False)
            except LogError as exc:
                failures = self._failed(exc, failures)
                continue
            self.at_sink |= found
            return set(found)

    def _with_retries(self, action: Callable[[], object]) -> None:
        failures = 0
        while True:
            try:
                action()
                return
            except LogWriteError:
                failures += 1
                self.report.retries += 1
                if (failures >= self.retry_limit and not self.follow) or self.stop():
                    raise
                time.sleep(self.retry_wait * min(failures, 10))


def _parse_meta(text: str) -> dict[str, Any]:
    try:
        meta = json.loads(text) if text else {}
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}
