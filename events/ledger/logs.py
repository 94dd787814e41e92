"""The ledger of an event log: its events as leaves, and its seals stored beside them.

- SQLite log: tables ``seals`` (body, signature) and ``seal_leaves`` in the same file.
- JSON Lines log: the side file ``<name>.seals.jsonl`` (one seal a line, with its leaves).
- Kafka: the topic ``uth.seals`` on the same brokers (one partition), keyed by the events'
  topic, one message per chunk of a seal's leaves.

A log's events are read once, pseudonymized as the ingest does (a log the ingest wrote holds
pseudonyms already: its bytes stay as they are), decoded by the contract decoder (a line
that is not a valid event is a dead letter, outside the ledger), and the first copy of each
``event_id`` becomes a leaf of its table's tree: the SHA-256 of its exact stored bytes, the
trees in ``seq`` order (see :mod:`events.ledger.stored`).
"""

from __future__ import annotations

import gc
import hashlib
import os
import time
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter, methodcaller
from pathlib import Path
from typing import Any

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from events.contract.codec import Rejection, decode_all_valid, decode_records
from events.contract.privacy import scrub_all
from events.contract.schemas import Event
from events.ledger.canonical import LEAF_PREFIX
from events.ledger.keys import key_id, signature_valid
from events.ledger.seal import LeafRow, SealRecord, SealRefused, blob, make_seal, read_seal_lines
from events.ledger.stored import TableEvents, in_seq_order
from events.logs.base import Cursor, EventLog, LogError, LogWriteError, advance_all
from events.logs.jsonl import JsonlLog
from events.logs.kafka import KafkaLog
from events.logs.sqlite import SqliteLog

_SEAL_SCHEMA = """
CREATE TABLE IF NOT EXISTS seals (
    id INTEGER PRIMARY KEY, body BLOB NOT NULL, signature BLOB NOT NULL,
    recorded_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS seal_leaves (
    seal_id INTEGER NOT NULL, table_id TEXT NOT NULL, tree_index INTEGER NOT NULL,
    seq INTEGER NOT NULL, event_id TEXT NOT NULL, leaf BLOB NOT NULL);
"""


@dataclass
class LogLedger:
    """A log's events as its tables' leaves, read up to ``end``."""

    end: Cursor
    tables: dict[str, TableEvents] = field(default_factory=dict)
    # the stored bytes of the events asked for, by event_id
    kept: dict[str, bytes] = field(default_factory=dict)


def scan(log: EventLog, *, keep: Collection[str] = (), batch: int = 20_000) -> LogLedger:
    """Every event of ``log`` now stored (up to its end when the scan starts); ``keep``:
    the event ids whose stored bytes to keep (for a proof)."""
    before = gc.get_threshold()
    # the leaves kept survive every young collection: collect less often meanwhile (as
    # pipeline.gc_policy does for the loader), else the collector walks them again and again
    gc.set_threshold(100_000, 20, 20)
    try:
        return _scan(log, keep, batch)
    finally:
        gc.set_threshold(*before)


def _scan(log: EventLog, keep: Collection[str], batch: int) -> LogLedger:
    end = log.end()
    ledger = LogLedger(dict(end))
    tables: dict[str, TableEvents] = defaultdict(TableEvents)
    seen: set[str] = set()
    sha = hashlib.sha256
    for partitions, offsets, values in _batches(log, ledger.end, batch):
        # players only as pseudonyms, as the ingest stores them (one search of the batch)
        values = scrub_all(list(values))
        decoded = decode_all_valid(values)  # the common case: one batch call
        if decoded is None:  # some line is no valid event: each one decoded, its reason kept
            decoded = decode_records(list(zip(offsets, values, strict=True)))
        if Rejection in set(map(type, decoded)):  # dead letters: not in the ledger
            valid = [i for i, e in enumerate(decoded) if not isinstance(e, Rejection)]
            partitions = [partitions[i] for i in valid]
            offsets = [offsets[i] for i in valid]
            values = [values[i] for i in valid]
            decoded = [decoded[i] for i in valid]
        events: list[Event] = decoded  # type: ignore[assignment]
        ids = list(map(_EVENT_ID, events))
        if len(set(ids)) != len(ids) or not seen.isdisjoint(ids):
            first = []  # a redelivered copy is no leaf: the first copy of an event stands
            for i, event_id in enumerate(ids):
                if event_id not in seen:
                    seen.add(event_id)
                    first.append(i)
            partitions = [partitions[i] for i in first]
            offsets = [offsets[i] for i in first]
            values = [values[i] for i in first]
            events = [events[i] for i in first]
            ids = [ids[i] for i in first]
        else:
            seen.update(ids)
        # the leaf: the event's exact stored bytes (after pseudonymization)
        # (three C-level maps: no Python step per event)
        leaves = list(map(_DIGEST, map(sha, map(LEAF_PREFIX.__add__, values))))
        seqs = list(map(_SEQ, events))
        table_ids = list(map(_TABLE_ID, events))
        if len(set(table_ids)) == 1:
            tables[table_ids[0]].extend(seqs, ids, leaves, partitions, offsets)
        else:  # each table's events picked out in C (a stable sort, itemgetter), in log order
            order = sorted(range(len(table_ids)), key=table_ids.__getitem__)
            grouped = [table_ids[i] for i in order]
            for table_id in set(table_ids):
                pick = _picker(order[bisect_left(grouped, table_id):
                                     bisect_right(grouped, table_id)])
                tables[table_id].extend(pick(seqs), pick(ids), pick(leaves),
                                        pick(partitions), pick(offsets))
        if keep:
            for event_id, data in zip(ids, values, strict=True):
                if event_id in keep:
                    ledger.kept[event_id] = bytes(data)
    ledger.tables = {t: in_seq_order(events) for t, events in tables.items()}
    return ledger


Batch = tuple[Sequence[int], Sequence[int], Sequence[bytes]]  # partitions, offsets, values


def _batches(log: EventLog, end: Cursor, batch: int) -> Iterator[Batch]:
    """The log's records as columns, up to its end when the scan began; ``end`` is set to
    the cursor just past the last record read (a broker may under-report its end). A SQLite
    log is read straight from its table (no Record per row: the scan's own cost is what a
    benchmark should see)."""
    if isinstance(log, SqliteLog):
        cursor = log.connection.execute(
            "SELECT pos, CAST(value AS BLOB) FROM events WHERE pos < ? ORDER BY pos",
            (end.get(0, 0),))
        while rows := cursor.fetchmany(batch):
            offsets, values = zip(*rows, strict=True)
            yield [0] * len(rows), offsets, values
        return
    bound = dict(end)
    end.clear()
    for records in log.read(max_batch=batch):
        if isinstance(log, JsonlLog) and records[-1].offset >= bound.get(0, 0):
            # a file read while it grows: what was appended after the scan began waits
            records = [r for r in records if r.offset < bound.get(0, 0)]
            if not records:
                return
        advance_all(end, records)
        yield (list(map(_PARTITION, records)), list(map(_OFFSET, records)),
               list(map(_VALUE, records)))


_VALUE, _OFFSET, _PARTITION = (attrgetter(n) for n in ("value", "offset", "partition"))
_DIGEST = methodcaller("digest")
_EVENT_ID, _SEQ, _TABLE_ID = (attrgetter(n) for n in ("event_id", "seq", "table_id"))


def _picker(indexes: list[int]) -> Callable[[Sequence[Any]], list[Any]]:
    """A function giving the items of a sequence at ``indexes`` as a list (in C)."""
    if len(indexes) == 1:
        at = indexes[0]
        return lambda items: [items[at]]
    get = itemgetter(*indexes)
    return lambda items: list(get(items))


def seals_path(path: Path) -> Path:
    """``floor.jsonl`` -> ``floor.seals.jsonl`` (beside it)."""
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return path.with_name(f"{stem}.seals.jsonl")


def read_seals(log: EventLog) -> list[SealRecord]:
    """The seals stored beside ``log``, oldest first."""
    if isinstance(log, SqliteLog):
        conn = log.connection
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'seals'"
                        ).fetchone() is None:
            return []  # never sealed (and a reader does not write the log's schema)
        leaves: dict[int, list[LeafRow]] = defaultdict(list)
        for seal_id, table_id, index, seq, event_id, leaf in conn.execute(
                "SELECT seal_id, table_id, tree_index, seq, event_id, leaf FROM seal_leaves "
                "ORDER BY seal_id, table_id, tree_index"):
            leaves[seal_id].append(LeafRow(table_id, index, seq, event_id, blob(leaf)))
        return [SealRecord(blob(body), blob(signature), leaves.get(seal_id, []))
                for seal_id, body, signature in conn.execute(
                    "SELECT id, body, signature FROM seals ORDER BY id")]
    if isinstance(log, JsonlLog) and log.path is not None:
        return read_seal_lines(seals_path(log.path))
    if isinstance(log, KafkaLog):
        return _read_kafka_seals(log)
    raise LogError(f"{log.describe()}: seals are kept beside SQLite, JSON Lines and Kafka "
                   "logs only")


def write_seal(log: EventLog, seal: SealRecord) -> None:
    """Store ``seal`` beside ``log``, durably."""
    if isinstance(log, SqliteLog):
        log.connection.executescript(_SEAL_SCHEMA)
        try:
            with log.transaction() as conn:
                cur = conn.execute(
                    "INSERT INTO seals(body, signature, recorded_at) VALUES (?,?,?)",
                    (seal.body, seal.signature, time.time()))
                seal_id = cur.lastrowid
                conn.executemany(
                    "INSERT INTO seal_leaves VALUES (?,?,?,?,?,?)",
                    [(seal_id, *row) for row in seal.leaves])
        except Exception as exc:
            raise LogWriteError(f"{log.describe()}: the seal was not stored: {exc}") from exc
        return
    if isinstance(log, JsonlLog) and log.path is not None:
        append_seal_line(seals_path(log.path), seal)
        return
    if isinstance(log, KafkaLog):
        _write_kafka_seal(log, seal)
        return
    raise LogError(f"{log.describe()}: seals are kept beside SQLite, JSON Lines and Kafka "
                   "logs only")


SEALS_TOPIC = "uth.seals"
KAFKA_CHUNK = 2_000  # leaves per message (a message stays far below the broker's 1 MB)


class _Part(msgspec.Struct, frozen=True):
    part: int = 0
    parts: int = 1


def seals_log(log: KafkaLog) -> KafkaLog:
    """The topic ``uth.seals`` on the events' brokers (one partition: seals stay in order),
    keyed by the events' topic (several event topics may share it)."""
    target = log.target
    return KafkaLog(f"kafka://{','.join(target.servers)}/{SEALS_TOPIC}?partitions=1"
                    f"&replication={target.replication}")


def _write_kafka_seal(log: KafkaLog, seal: SealRecord) -> None:
    """One message per chunk of leaves, each with the body and signature, in one batch;
    a seal missing a chunk (a failed batch) is not read back as a seal."""
    leaves = seal.leaves
    parts = max(1, -(-len(leaves) // KAFKA_CHUNK))
    items = []
    for part in range(parts):
        line = msgspec.json.decode(SealRecord(
            seal.body, seal.signature,
            leaves[part * KAFKA_CHUNK:(part + 1) * KAFKA_CHUNK]).to_line())
        items.append((log.target.topic, msgspec.json.encode(
            {**line, "part": part, "parts": parts})))
    with seals_log(log) as topic:
        topic.append(items)


def _read_kafka_seals(log: KafkaLog) -> list[SealRecord]:
    chunks: dict[bytes, list[tuple[_Part, SealRecord]]] = {}
    with seals_log(log) as topic:
        for batch in topic.read():
            for record in batch:
                if record.key != log.target.topic:
                    continue
                try:
                    part = msgspec.json.decode(record.value, type=_Part)
                    seal = SealRecord.from_line(record.value)
                except ValueError:
                    seal, part = SealRecord(record.value, b"", []), _Part()
                chunks.setdefault(seal.body + seal.signature, []).append((part, seal))
    out = []
    for pieces in chunks.values():
        by_part = {p.part: s for p, s in pieces}
        parts = pieces[0][0].parts
        if sorted(by_part) != list(range(parts)):
            continue  # a seal whose batch did not all arrive was never stored
        first = by_part[0]
        out.append(SealRecord(first.body, first.signature,
                              [r for i in range(parts) for r in by_part[i].leaves]))
    return out


def append_seal_line(path: Path, seal: SealRecord) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, seal.to_line() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)


def write_seal_lines(path: Path, seals: list[SealRecord]) -> None:
    """Replace the file at ``path`` with ``seals`` (written aside, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as out:
        for seal in seals:
            out.write(seal.to_line() + b"\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


def _refuse_damaged(seals: Sequence[SealRecord], key: Ed25519PrivateKey) -> None:
    """A stored seal that is no seal, or one of this key whose signature fails (damaged,
    stored as text, forged): a new seal would chain past it as if it were not there."""
    public = key.public_key()
    mine = key_id(public)
    for position, seal in enumerate(seals, 1):
        try:
            body = seal.parsed()
        except ValueError:
            raise SealRefused(f"stored seal {position} is not a seal; run `uth verify` "
                              "(nothing was sealed)") from None
        if body.key_id == mine and not signature_valid(public, seal.signature, seal.body):
            raise SealRefused(f"seal {body.number}: its signature does not verify (damaged "
                              "or forged); run `uth verify` (nothing was sealed)")


def seal_log(log: EventLog, key: Ed25519PrivateKey, sealed_at: str | None = None,
             past_gaps: bool = False) -> SealRecord:
    """Seal every table of ``log`` as it is now and store the seal beside it; when no
    table has a new event since the last seal, that seal is returned and nothing stored
    (a load after each of which the graph seals adds no empty seals). ``past_gaps``:
    seal each table up to its highest seq, declaring the seqs it lacks lost.

    Raises :class:`events.ledger.seal.SealRefused` when sealed events no longer match the
    last seal (nothing is sealed then)."""
    ledger = scan(log)
    stored = read_seals(log)
    _refuse_damaged(stored, key)
    previous = last_seal(stored, key.public_key())
    seal = make_seal(log.describe(), ledger.tables, ledger.end, previous, key,
                     sealed_at or utc_now(), past_gaps)
    if previous is not None and not seal.leaves and previous.parsed().tables == \
            seal.parsed().tables:
        return previous
    write_seal(log, seal)
    return seal


def last_seal(seals: Sequence[SealRecord],
              public: Ed25519PublicKey | None) -> SealRecord | None:
    """The highest-numbered readable seal, among those whose signature verifies with
    ``public`` when it is given (without it, as a proof is built: the verifier checks
    the signature)."""
    best: tuple[int, SealRecord] | None = None
    for seal in seals:
        try:
            body = seal.parsed()
        except ValueError:
            continue
        if (public is None or signature_valid(public, seal.signature, seal.body)) and (
                best is None or body.number > best[0]):
            best = (body.number, seal)
    return best[1] if best is not None else None


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
