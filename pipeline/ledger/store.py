"""The ledger in the warehouse and the Parquet archive: their seals, their events as
leaves, and their verification (the pure logic is :mod:`events.ledger`).

Each event's leaf is the hash of its exact bytes as its log stores them: the warehouse keeps
them in ``event_bytes`` and the archive in its ``stored`` column, beside the columns the
dashboards read; a verification checks both, the bytes against the seals and the columns
against the bytes.

The warehouse keeps the seals of each source it loads (tables ``seals`` and
``seal_leaves``), copied from the log once the load has read past the log end a seal
names, so a seal never covers events the warehouse has not loaded yet. The archive keeps
them as files, ``<archive>/_seals/<digest>.json`` (one seal with its leaves each, written
once; the leading underscore keeps them out of the Parquet dataset).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import pyarrow as pa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from events.contract.codec import Rejection, decode_line
from events.ledger.canonical import canonical_columns, canonical_event, leaf_hash
from events.ledger.compare import Finding, VerifyReport, ranges, verify_store
from events.ledger.keys import key_id
from events.ledger.logs import read_seals
from events.ledger.seal import LeafRow, SealRecord, blob
from events.ledger.stored import StoredEvent, TableEvents, in_seq_order
from events.ledger.witness import witness_findings
from events.logs import Cursor, EventLog, source_key
from pipeline.warehouse import Connection, parse_cursor, reading, writing

SEALS_DIR = "_seals"
EVENT_COLUMNS = ["event_id", "type", "schema_version", "table_id", "hand_id", "seq",
                 "occurred_at", "payload", "source", "position"]
# where a log put an event, as its ``position`` column says: ``row 12`` (SQLite), ``12``
# or ``line 12`` (JSON Lines), ``topic[3]@12`` (Kafka)
_POSITION = re.compile(r"(?:row |line )?(\d+)|.*\[(\d+)\]@(\d+)")


def parse_position(text: str) -> tuple[int, int]:
    """``row 12`` -> (0, 12); ``uth.table-events[3]@12`` -> (3, 12); unknown: (0, -1)."""
    match = _POSITION.fullmatch(text or "")
    if match is None:
        return 0, -1
    if match.group(1) is not None:
        return 0, int(match.group(1))
    return int(match.group(2)), int(match.group(3))


def covered(seal_through: Cursor, loaded: Cursor) -> bool:
    """True when the load has read every record before the seal's end."""
    return all(loaded.get(p, 0) >= o for p, o in seal_through.items())


def copy_seals(log: EventLog, con: Connection) -> int:
    """Copy into the warehouse (inside the caller's transaction) the log's seals it does
    not hold yet and has loaded the events of; returns how many."""
    source = log.describe()
    rows = con.execute("SELECT position FROM load_positions WHERE source = ?",
                       [source_key(source)]).fetchall()
    loaded = parse_cursor(rows[0][0]) if rows and rows[0][0] else {}
    have = {r[0] for r in con.execute("SELECT digest FROM seals WHERE source = ?",
                                      [source]).fetchall()}
    added = 0
    for seal in read_seals(log):
        digest = seal.digest()
        if digest in have:
            continue
        try:
            body = seal.parsed()
        except ValueError:
            continue  # not a seal: `uth verify` of the log names it
        if not covered(body.through_cursor(), loaded):
            continue
        insert_seal(con, seal, source, body.number)
        have.add(digest)
        added += 1
    return added


def insert_seal(con: Connection, seal: SealRecord, source: str, number: int) -> None:
    digest = seal.digest()
    con.execute("INSERT INTO seals VALUES (?, ?, ?, ?, ?)",
                [source, number, digest, seal.body, seal.signature])
    if seal.leaves:
        con.register("new_leaves", pa.table({
            "source": pa.array([source] * len(seal.leaves), pa.string()),
            "seal_digest": pa.array([digest] * len(seal.leaves), pa.string()),
            "table_id": pa.array([r.table_id for r in seal.leaves], pa.string()),
            "tree_index": pa.array([r.tree_index for r in seal.leaves], pa.int64()),
            "seq": pa.array([r.seq for r in seal.leaves], pa.int64()),
            "event_id": pa.array([r.event_id for r in seal.leaves], pa.string()),
            "leaf": pa.array([r.leaf for r in seal.leaves], pa.binary())}))
        try:
            con.execute("INSERT INTO seal_leaves SELECT * FROM new_leaves")
        finally:
            con.unregister("new_leaves")


def warehouse_seals(con: Connection) -> list[tuple[str, SealRecord]]:
    """The warehouse's seals, each with the source (as its events name it) it seals."""
    leaves: dict[str, list[LeafRow]] = defaultdict(list)
    for digest, table_id, index, seq, event_id, leaf in con.execute(
            "SELECT seal_digest, table_id, tree_index, seq, event_id, leaf FROM seal_leaves "
            "ORDER BY seal_digest, table_id, tree_index").fetchall():
        leaves[digest].append(LeafRow(table_id, index, seq, event_id, blob(leaf)))
    return [(source, SealRecord(blob(body), blob(signature), leaves.get(digest, [])))
            for source, digest, body, signature in con.execute(
                "SELECT source, digest, body, signature FROM seals ORDER BY source, number"
            ).fetchall()]


@dataclass
class StoredTables:
    """Events stored as columns, as the ledger sees them: source -> table -> events (in
    ``seq`` order), and per source the events whose columns are not what their stored
    bytes say (the columns the dashboards read were changed, the bytes left alone)."""

    tables: dict[str, dict[str, TableEvents]] = field(default_factory=dict)
    mismatched: dict[str, list[Finding]] = field(default_factory=dict)


def stored_events(batches: Iterable[pa.RecordBatch]) -> StoredTables:
    """Events stored as columns (``EVENT_COLUMNS``, and ``stored``, their exact bytes as the
    log stores them) -> each one's leaf: the hash of its stored bytes. Every event's
    columns are checked against its bytes (the contract's reading of both must be the
    same); an event without stored bytes is hashed from its columns (it was not loaded
    from a log: no sealed event is)."""
    out: dict[str, dict[str, list[StoredEvent]]] = defaultdict(lambda: defaultdict(list))
    changed: dict[str, dict[str, list[tuple[str, int]]]] = defaultdict(
        lambda: defaultdict(list))
    for batch in batches:
        names = [*EVENT_COLUMNS, "stored"] if "stored" in batch.schema.names else EVENT_COLUMNS
        cols = [batch.column(name).to_pylist() for name in names]
        if len(cols) == len(EVENT_COLUMNS):
            cols.append([None] * batch.num_rows)
        for event_id, kind, version, table_id, hand_id, seq, at, payload, source, where, \
                stored in zip(*cols, strict=True):
            partition, offset = parse_position(where)
            columns = canonical_columns(event_id, kind, version, table_id, hand_id, seq, at,
                                        payload)
            if stored is None:
                leaf = leaf_hash(columns)
            else:
                leaf = leaf_hash(stored)
                read = _reading(stored)
                if read != columns:
                    changed[source][table_id].append(
                        ("moved" if read is not None and _seq_of(read) != seq else "altered",
                         seq))
            out[source][table_id].append(StoredEvent(seq, event_id, leaf, partition, offset))
    result = StoredTables()
    for source, tables in out.items():
        result.tables[source] = {t: in_seq_order(TableEvents(events))
                                 for t, events in tables.items()}
    for source, tables_changed in changed.items():
        result.mismatched[source] = [
            Finding(f.table_id, f.first_seq, f.last_seq, f.kind, _COLUMNS_DETAIL[f.kind],
                    f.count)
            for table_id in sorted(tables_changed)
            for f in ranges(table_id, tables_changed[table_id])]
    return result


_COLUMNS_DETAIL = {
    "altered": "the stored columns differ from the event's stored bytes",
    "moved": "the stored columns put the event at another seq than its stored bytes",
}


def _reading(stored: bytes) -> bytes | None:
    """The contract's reading of an event's stored bytes (canonical form), or None."""
    event = decode_line(bytes(stored), "stored")
    return None if isinstance(event, Rejection) else canonical_event(event)


def _seq_of(canonical: bytes) -> int:
    return int(msgspec.json.decode(canonical, type=_Seq).seq)


class _Seq(msgspec.Struct):
    seq: int


def _warehouse_batches(con: Connection) -> Iterator[pa.RecordBatch]:
    cols = ", ".join(f"e.{c}" for c in EVENT_COLUMNS)
    reader = con.sql(f"SELECT {cols}, b.stored FROM events e LEFT JOIN event_bytes b "
                     "ON b.event_id = e.event_id").to_arrow_reader(100_000)
    yield from reader


def verify_sources(seals: list[tuple[str, SealRecord]], public: Ed25519PublicKey,
                   events: StoredTables, witnessed: list[SealRecord] | None = None,
                   loaded: dict[str, Cursor] | None = None) -> list[VerifyReport]:
    """One report per source that has events or seals (for a warehouse, also each source
    it loaded that has checkpoints in ``witnessed``: one whose every seal and event is
    gone still has a report).
    ``loaded``: how far the warehouse's load read each source; a witnessed seal beyond it
    is not due yet (the warehouse is behind, not rolled back)."""
    by_source: dict[str, list[SealRecord]] = defaultdict(list)
    for source, seal in seals:
        by_source[source].append(seal)
    named = set(by_source) | set(events.tables)
    if witnessed is not None and loaded is not None:
        named |= _witnessed_sources(witnessed, public, loaded)
    reports = []
    for source in sorted(named) or [""]:
        report = verify_store(source, by_source.get(source, []), public,
                              events.tables.get(source, {}))
        report.findings += events.mismatched.get(source, [])
        if witnessed is not None:
            due = None if loaded is None else _due(
                witnessed, source, loaded.get(source, loaded.get(source_key(source), {})))
            report.findings += witness_findings(by_source.get(source, []), witnessed, public,
                                                {source}, due)
        reports.append(report)
    return reports


def _witnessed_sources(witnessed: list[SealRecord], public: Ed25519PublicKey,
                       loaded: dict[str, Cursor]) -> set[str]:
    """The sources of the witnessed checkpoints signed by this key that the warehouse has
    loaded."""
    mine = key_id(public)
    out = set()
    for record in witnessed:
        try:
            body = record.parsed()
        except ValueError:
            continue
        if body.key_id == mine and (body.source in loaded or source_key(body.source) in loaded):
            out.add(body.source)
    return out


def _due(witnessed: list[SealRecord], source: str, loaded: Cursor) -> int:
    """The highest number of a witnessed seal of ``source`` whose events the load has read
    (0: none)."""
    best = 0
    for record in witnessed:
        try:
            body = record.parsed()
        except ValueError:
            continue
        if body.source == source and covered(body.through_cursor(), loaded):
            best = max(best, body.number)
    return best


def _load_positions(con: Connection) -> dict[str, Cursor]:
    """Each source's loaded position, under its name as the seals spell it too: the
    positions are keyed by :func:`events.logs.source_key`, a seal by the log's URL."""
    positions = {source: parse_cursor(position) for source, position in con.execute(
        "SELECT source, position FROM load_positions").fetchall()}
    named = {r[0] for r in con.execute("SELECT DISTINCT source FROM seals").fetchall()}
    for name in named:
        if name not in positions and source_key(name) in positions:
            positions[name] = positions[source_key(name)]
    return positions


def verify_warehouse(path: str | Path, public: Ed25519PublicKey,
                     witnessed: list[SealRecord] | None = None) -> list[VerifyReport]:
    with reading(path) as con:
        seals = warehouse_seals(con)
        events = stored_events(_warehouse_batches(con))
        loaded = _load_positions(con)
    return verify_sources(seals, public, events, witnessed, loaded)


def write_archive_seals(warehouse: str | Path, root: str | Path) -> int:
    """Write the warehouse's seals the archive does not hold yet; returns how many. Each
    file is one seal as a JSON Lines log keeps it, with the source it seals."""
    directory = Path(root) / SEALS_DIR
    with reading(warehouse) as con:
        seals = warehouse_seals(con)
    written = 0
    for source, seal in seals:
        path = directory / f"{seal.digest()}.json"
        if not path.exists():
            directory.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".tmp")
            line = json.loads(seal.to_line())
            tmp.write_text(json.dumps({"source": source, **line}) + "\n")
            tmp.replace(path)
            written += 1
    return written


def archive_seals(root: str | Path) -> list[tuple[str, SealRecord]]:
    out: list[tuple[str, SealRecord]] = []
    for path in sorted((Path(root) / SEALS_DIR).glob("*.json")):
        text = path.read_bytes()
        try:
            source = str(json.loads(text).get("source", ""))
            seal = SealRecord.from_line(text)
        except (ValueError, AttributeError):
            source, seal = "", SealRecord(text, b"", [])  # fails its signature: a finding
        out.append((source, seal))
    return out


def verify_archive(root: str | Path, public: Ed25519PublicKey,
                   witnessed: list[SealRecord] | None = None) -> list[VerifyReport]:
    import pyarrow.dataset as ds

    from pipeline.archive import ARCHIVE_PARTITIONING

    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no Parquet archive here")
    dataset = ds.dataset(root, format="parquet", partitioning=ARCHIVE_PARTITIONING)
    names = EVENT_COLUMNS + (["stored"] if "stored" in dataset.schema.names else [])
    events = stored_events(dataset.to_batches(columns=names, batch_size=100_000))
    return verify_sources(archive_seals(root), public, events, witnessed)


def copy_log_seals(log: EventLog, warehouse: str | Path) -> int:
    """:func:`copy_seals` in its own transaction."""
    with writing(warehouse) as con:
        return copy_seals(log, con)


def restore_seals(root: str | Path, con: Connection) -> int:
    """Put the archive's seals the warehouse lacks back into it (a warehouse rebuilt from
    its archive verifies as the lost one did); returns how many."""
    have = {r[0] for r in con.execute("SELECT digest FROM seals").fetchall()}
    restored = 0
    for source, seal in archive_seals(root):
        if seal.digest() in have:
            continue
        try:
            number = seal.parsed().number
        except ValueError:
            continue  # not a seal: `uth verify --archive` names it
        insert_seal(con, seal, source, number)
        have.add(seal.digest())
        restored += 1
    return restored
