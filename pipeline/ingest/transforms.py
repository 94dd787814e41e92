"""Log records -> ``events`` rows, ``dead_letters`` rows and the stored log position.

Plain functions (no Dagster): the ``events`` asset calls them once per batch read from the
log, and the benchmark calls them directly.

Each record is validated by the contract decoder (``events.contract.codec``); a valid event's
envelope fields become Arrow columns and its payload is re-encoded (so an upcast old event,
or one with unknown extra fields, is stored as the contract reads it). :func:`write_batch`
then does, in one transaction: insert the events not already stored (de-duplicated on
``event_id`` within the batch and against the table), queue the work they make for the
later assets (``pending.*``), keep the rejections, and store the log position reached.
A load killed before the commit stores none of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, NamedTuple

import duckdb
import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from events.contract.codec import MAX_RAW_KEPT, Rejection, decode_all_valid, decode_line
from events.contract.privacy import scrub_all
from events.contract.schemas import EVENT_TYPES, SCHEMA_VERSION, Event
from events.logs.base import Cursor, Record
from pipeline.hands.at_ingest import EarlyHands
from pipeline.hands.transforms import write_hands
from pipeline.ingest.known import KnownEvents
from pipeline.ingest.rotated import store_mark
from pipeline.warehouse import cursor_text, gaming_day_sql, parse_cursor

BATCH_SCHEMA = pa.schema([
    ("ord", pa.int64()), ("event_id", pa.string()), ("type", pa.string()),
    ("table_id", pa.string()), ("hand_id", pa.string()), ("seq", pa.int64()),
    ("occurred_at", pa.string()), ("payload", pa.string()), ("position", pa.string()),
    # the event's exact bytes as its log stores them (after pseudonymization): the leaf of
    # the ledger (events.ledger), kept in ``event_bytes``
    ("stored", pa.binary()),
])
_encoder = msgspec.json.Encoder()
_VALUE = attrgetter("value")
_EVENT_ID, _TABLE_ID, _HAND_ID = (attrgetter(n) for n in ("event_id", "table_id", "hand_id"))
_SEQ, _OCCURRED_AT, _PAYLOAD = (attrgetter(n) for n in ("seq", "occurred_at", "payload"))
_NAME = attrgetter("__name__")
CONFLICTING_COPY = "conflicting-copy"  # the dead letters' code of such a copy


class _Envelope(NamedTuple):
    event_id: str
    table_id: str
    seq: int


@dataclass
class DecodedBatch:
    """One batch of records: valid events (canonical JSON, in log order) and rejections."""

    events: pa.Table
    rejections: list[Rejection] = field(default_factory=list)
    records: int = 0
    duplicates: int = 0  # copies of an event earlier in the same batch
    # the decoded events of ``events``' rows (by ``ord``), until the ingest has audited the
    # hands it can from them (then dropped)
    decoded: list[Event] | None = None


@dataclass
class BatchStats:
    records: int = 0
    new_events: int = 0
    duplicates: int = 0
    rejected: int = 0
    hands_audited: int = 0  # hands audited by the ingest itself
    hand_findings: int = 0  # and their findings
    note: str = ""  # what changed at the source (a file replaced since the last load)

    def add(self, other: BatchStats) -> None:
        self.records += other.records
        self.new_events += other.new_events
        self.duplicates += other.duplicates
        self.rejected += other.rejected
        self.hands_audited += other.hands_audited
        self.hand_findings += other.hand_findings


def decode_records(records: Sequence[Record], where: Callable[[Record], Any],
                   positions: list[str] | None = None) -> DecodedBatch:
    """Validate ``records``; ``where(record)`` names its place (``row 7``) for messages
    (``positions``: ``str(where(r))`` of every record, when the caller has them in bulk).

    Valid events become the ``events`` columns (the payload re-encoded as the contract reads
    it: an upcast old event or unknown extra fields are stored in their v1 form); a copy of
    an event already in the batch is dropped here (the first is kept). A player identifier
    (``player_ref``/``player_refs``) is pseudonymized first as ``uth ingest`` does
    (:func:`events.contract.privacy.scrub`; dropped when no key is set), rejected lines included."""
    # players only as pseudonyms (one search of the batch, not a Python step per record)
    values = list(map(_VALUE, records))
    if (scrubbed := scrub_all(values)) is not values:
        records = [r._replace(value=v) for r, v in zip(records, scrubbed, strict=True)]
    count = len(records)
    if positions is None or len(positions) != count:
        positions = [str(where(r)) for r in records]
    values = list(map(_VALUE, records))
    events = decode_all_valid(values)
    if events is None:
        return _decode_one_by_one(records, positions)
    ids = list(map(_EVENT_ID, events))
    duplicates = len(ids) - len(set(ids))
    rejections: list[Rejection] = []
    if duplicates:  # keep the first copy of each event_id
        first: dict[str, int] = {}
        for i, event_id in enumerate(ids):
            kept = first.setdefault(event_id, i)
            if kept != i and _conflicts(events[kept], events[i]):
                rejections.append(conflicting_copy(events[i], positions[i], records[i].value,
                                                   f"{positions[kept]} of this batch"))
        keep = sorted(first.values())
        events = [events[i] for i in keep]
        positions = [positions[i] for i in keep]
        values = [values[i] for i in keep]
        ids = [ids[i] for i in keep]
        duplicates -= len(rejections)
    # each column in one C-level pass over the events
    batch = _batch(ids, list(map(_NAME, map(type, events))), list(map(_TABLE_ID, events)),
                   list(map(_HAND_ID, events)), list(map(_SEQ, events)),
                   list(map(_OCCURRED_AT, events)),
                   list(map(_encoder.encode, map(_PAYLOAD, events))), positions, values,
                   rejections, count, duplicates)
    batch.decoded = events
    return batch


def _conflicts(kept: Event, copy: Event) -> bool:
    """A copy of an event that is not a redelivery: the same ``seq`` with other contents
    (as the auditor's sequencer judges it; a copy under another ``seq`` is a re-numbered
    redelivery, counted once)."""
    return copy.seq == kept.seq and copy != kept


def conflicting_copy(copy: Any, position: str, raw: bytes, first: str) -> Rejection:
    """The dead letter of ``copy`` (an event, or its envelope as a named tuple), a copy of
    an ``event_id`` (and ``seq``) with other contents: the first copy (at ``first``)
    stands, this one is kept here with the reason."""
    return Rejection(position, CONFLICTING_COPY,
                     f"event {copy.event_id} (table {copy.table_id} seq {copy.seq}) arrived "
                     f"again with other contents; the first copy ({first}) is kept",
                     bytes(raw[:MAX_RAW_KEPT]), copy.event_id, copy.table_id)


def _decode_one_by_one(records: Sequence[Record], places: Sequence[str]) -> DecodedBatch:
    cols: tuple[list[Any], ...] = ([], [], [], [], [], [], [], [], [])
    ids, types, tables, hands, seqs, times, payloads, positions, values = cols
    rejections: list[Rejection] = []
    seen: dict[str, tuple[Event, str]] = {}
    decoded: list[Event] = []
    encode = _encoder.encode
    duplicates = 0
    for record, place in zip(records, places, strict=True):
        ev = decode_line(record.value, place)
        if isinstance(ev, Rejection):
            rejections.append(ev)
            continue
        event_id = ev.event_id
        kept = seen.get(event_id)
        if kept is not None:
            if _conflicts(kept[0], ev):
                rejections.append(conflicting_copy(ev, place, record.value,
                                                   f"{kept[1]} of this batch"))
            else:
                duplicates += 1
            continue
        seen[event_id] = (ev, place)
        decoded.append(ev)
        ids.append(event_id)
        types.append(type(ev).__name__)
        tables.append(ev.table_id)
        hands.append(ev.hand_id)
        seqs.append(ev.seq)
        times.append(ev.occurred_at)
        payloads.append(encode(ev.payload))
        positions.append(place)
        values.append(record.value)
    batch = _batch(ids, types, tables, hands, seqs, times, payloads, positions, values,
                   rejections, len(records), duplicates)
    batch.decoded = decoded
    return batch


def _batch(ids: list[Any], types: list[Any], tables: list[Any], hands: list[Any],
           seqs: list[Any], times: list[Any], payloads: list[Any], positions: list[Any],
           values: list[Any], rejections: list[Rejection], records: int, duplicates: int
           ) -> DecodedBatch:
    n = len(ids)
    table = pa.table([
        pa.array(np.arange(n, dtype=np.int64)), pa.array(ids, pa.string()),
        pa.array(types, pa.string()), pa.array(tables, pa.string()),
        pa.array(hands, pa.string()), pa.array(seqs, pa.int64()),
        pa.array(times, pa.string()), pa.array(payloads, pa.binary()).cast(pa.string()),
        pa.array(positions, pa.string()), pa.array(values, pa.binary())], schema=BATCH_SCHEMA)
    return DecodedBatch(table, rejections, records, duplicates)


def decode_lines(lines: Sequence[bytes]) -> DecodedBatch:
    """:func:`decode_records` for bare lines numbered from 1 (tests, benchmarks)."""
    records = [Record(0, i, "", line) for i, line in enumerate(lines, 1)]
    return decode_records(records, lambda r: f"line {r.offset}")




def stored_position(con: duckdb.DuckDBPyConnection, source: str) -> str | None:
    """The position stored for ``source`` (a :func:`events.logs.source_key`), as text; a
    position stored by an older version under another spelling of the same log is renamed
    to it."""
    rows = con.execute("SELECT position FROM load_positions WHERE source = ?",
                       [source]).fetchall()
    if not rows:
        from events.logs import source_key

        for (other,) in con.execute("SELECT source FROM load_positions").fetchall():
            if other != source and source_key(other) == source:
                con.execute("UPDATE load_positions SET source = ? WHERE source = ?",
                            [source, other])
                return stored_position(con, source)
    return str(rows[0][0]) if rows and rows[0][0] else None


def stored_cursor(con: duckdb.DuckDBPyConnection, source: str) -> Cursor:
    """The position stored for ``source`` as a cursor (see :func:`stored_position`)."""
    return parse_cursor(stored_position(con, source))


def _rejections_table(rejections: Sequence[Rejection]) -> pa.Table:
    raws = []
    for r in rejections:
        try:
            raws.append(r.raw.decode("utf-8"))
        except UnicodeDecodeError:
            raws.append(r.raw.decode("utf-8", errors="backslashreplace"))
    return pa.table({
        "position": pa.array([str(r.position) for r in rejections], pa.string()),
        "reason": pa.array([f"{r.code}: {r.reason}" for r in rejections], pa.string()),
        "raw": pa.array(raws, pa.string()),
    })


def write_batch(con: duckdb.DuckDBPyConnection, batch: DecodedBatch, source: str,
                cursor: Cursor, day_start_minutes: int,
                known: KnownEvents | None = None, early: EarlyHands | None = None,
                position_key: str | None = None,
                file: dict[str, object] | None = None) -> BatchStats:
    """Store one decoded batch and the cursor after it, inside the caller's transaction.
    ``known``: the stored events' id hashes, kept by the caller across its batches (see
    :mod:`pipeline.ingest.known`); without it each batch is joined with ``events``.
    ``early``: the batch's hands audited by the ingest (:mod:`pipeline.hands.at_ingest`),
    written here instead of queued, but for those with an event stored already.
    ``position_key``: what the position is stored under (default ``source``); ``file``:
    the source file's fingerprint, kept with it (:mod:`pipeline.ingest.rotated`)."""
    rows = batch.events
    hashes = None
    conflicts: list[Rejection] = []
    if rows.num_rows:
        # the events already stored (usually none) leave the batch; the rest go straight
        # from Arrow into ``events`` (no intermediate table), in log order
        maybe, hashes = known.candidates(con, rows) if known is not None else (rows, None)
        stored, conflicts = _stored(con, maybe) if maybe.num_rows else ([], [])
        if stored:
            old = pa.array(stored, pa.int64())
            if early is not None:
                dropped = rows.filter(pc.is_in(rows["ord"], old))["hand_id"]
                early = early.without(h for h in dropped.to_pylist() if h is not None)
            keep = pc.invert(pc.is_in(rows["ord"], old))
            rows = rows.filter(keep)
            if hashes is not None:
                hashes = hashes[keep.to_numpy(zero_copy_only=False)]
    new = rows.num_rows
    audited = early.hand_ids if early is not None else []
    if new:
        con.register("ingest_batch", rows)
        con.register("early_hands", pa.table({"hand_id": pa.array(audited, pa.string())}))
        try:
            _insert_new(con, source, day_start_minutes)
        finally:
            con.unregister("ingest_batch")
            con.unregister("early_hands")
        if known is not None and hashes is not None:
            known.added(hashes)
    if early is not None and audited:
        write_hands(con, audited, early.rows, day_start_minutes)
    rejections = batch.rejections + conflicts
    if rejections:
        rej = _rejections_table(rejections)
        con.register("ingest_rejections", rej)
        try:
            con.execute("INSERT INTO dead_letters SELECT ?, position, reason, raw, now() "
                        "FROM ingest_rejections", [source])
        finally:
            con.unregister("ingest_rejections")
    con.execute("""
        INSERT INTO load_positions VALUES (?, ?, ?, now())
        ON CONFLICT (source) DO UPDATE SET position = excluded.position,
            events_loaded = load_positions.events_loaded + excluded.events_loaded,
            updated_at = excluded.updated_at""",
                [position_key or source, cursor_text(cursor), new])
    store_mark(con, position_key or source, file)
    return BatchStats(batch.records, new,
                      batch.events.num_rows - new - len(conflicts) + batch.duplicates,
                      len(rejections), len(audited),
                      early.rows.findings.num_rows if early is not None and audited else 0)


def _stored(con: duckdb.DuckDBPyConnection,
            rows: pa.Table) -> tuple[list[int], list[Rejection]]:
    """The ``ord`` of the rows whose event is stored already, and the dead letters of
    those that carry the stored event's id and ``seq`` with other contents (a conflicting
    copy: the stored one stands)."""
    con.register("ingest_batch", rows)
    try:
        found = con.execute("""
            SELECT b.ord, b.seq = e.seq AND (
                    b.type IS DISTINCT FROM e.type OR b.table_id IS DISTINCT FROM e.table_id
                    OR b.hand_id IS DISTINCT FROM e.hand_id
                    OR CAST(b.occurred_at AS TIMESTAMP) IS DISTINCT FROM e.occurred_at
                    OR CAST(b.payload AS JSON) IS DISTINCT FROM e.payload),
                b.event_id, b.type, b.table_id, b.hand_id, b.seq, b.occurred_at, b.payload,
                b.position, e.source, e.position
            FROM ingest_batch b JOIN events e ON e.event_id = b.event_id""").fetchall()
    finally:
        con.unregister("ingest_batch")
    conflicts = []
    for _, conflict, event_id, kind, table_id, hand_id, seq, at, payload, where, source, \
            first in found:
        if conflict:
            copy = {"event_id": event_id, "type": kind, "schema_version": SCHEMA_VERSION,
                    "table_id": table_id, "hand_id": hand_id, "seq": seq, "occurred_at": at,
                    "payload": json.loads(payload)}
            conflicts.append(conflicting_copy(
                _Envelope(event_id, table_id, seq), where,
                _encoder.encode(copy),  # the copy as the contract reads it
                f"{first} of {source}, already loaded"))
    return [row[0] for row in found], conflicts


def _insert_new(con: duckdb.DuckDBPyConnection, source: str, day_start_minutes: int) -> None:
    """Insert the registered ``ingest_batch`` (new events only) and queue the work they
    make for the later assets."""
    at = "CAST(b.occurred_at AS TIMESTAMP)"
    day = gaming_day_sql(at, day_start_minutes)
    con.execute(f"""
        INSERT INTO events
        SELECT b.event_id, b.type, {SCHEMA_VERSION}, b.table_id, b.hand_id, b.seq, {at},
               {day}, b.payload, ?, b.position
        FROM ingest_batch b""", [source])
    con.execute("INSERT INTO event_bytes SELECT event_id, stored FROM ingest_batch")
    queue_work(con, "ingest_batch", day_start_minutes, audited="early_hands")


def queue_work(con: duckdb.DuckDBPyConnection, new: str, day_start_minutes: int,
               audited: str | None = None) -> None:
    """Queue what the new events in table ``new`` (``events`` columns, or the ingest
    batch's) ask of the later assets: their hands (and those after a late
    ``TableOpened``), their tables' sequences, their archive partitions, the hold rollups
    of buy-ins. ``audited``: a table of the hand ids audited already with these events
    (by the ingest), not queued."""
    day = gaming_day_sql("CAST(b.occurred_at AS TIMESTAMP)", day_start_minutes)

    def unaudited(column: str) -> str:
        return f" AND {column} NOT IN (SELECT hand_id FROM {audited})" if audited else ""

    con.execute(f"INSERT INTO pending.hands SELECT DISTINCT hand_id FROM {new} "
                f"WHERE hand_id IS NOT NULL{unaudited('hand_id')}")
    # a TableOpened delivered late: the hands after it were audited without its rules
    con.execute(f"""INSERT INTO pending.hands SELECT DISTINCT e.hand_id
        FROM events e JOIN {new} o ON e.table_id = o.table_id AND e.seq > o.seq
        WHERE o.type = 'TableOpened' AND e.hand_id IS NOT NULL{unaudited('e.hand_id')}""")
    # a queue of hands, each once: a hand whose events span two loads is queued once
    con.execute(f"""INSERT INTO pending.players SELECT DISTINCT n.table_id, n.hand_id
        FROM {new} n WHERE n.hand_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pending.players q
            WHERE q.table_id = n.table_id AND q.hand_id = n.hand_id)""")
    con.execute(f"INSERT INTO pending.sequence SELECT table_id, min(seq) FROM {new} "
                "GROUP BY table_id")
    con.execute(f"INSERT INTO pending.archive SELECT DISTINCT b.table_id, {day} FROM {new} b")
    con.execute(f"INSERT INTO pending.hold SELECT DISTINCT b.table_id, {day} "
                f"FROM {new} b WHERE b.type IN ('ChipsPurchased', 'TableOpened')")


def event_types() -> list[str]:
    return sorted(EVENT_TYPES)
