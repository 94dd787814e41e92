"""The ingest steps without Dagster: read the log into ``events``; archive as Parquet.

Both hold the write connection only for each batch's transaction; reading and decoding
the log happens with the warehouse released, so readers get in between batches.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds

from events.logs import Cursor, EventLog, Record, advance_all, open_log, source_key
from pipeline.archive import (
    ARCHIVE_PARTITIONING,
    append_new,
    archive_mark,
    forget_mark,
    set_mark,
)
from pipeline.gc_policy import bulk_work
from pipeline.hands.at_ingest import EarlyHands, IngestAudit
from pipeline.ingest.known import KnownEvents
from pipeline.ingest.rotated import (
    file_mark,
    replaced_note,
    resume_from_mark,
    store_mark,
    stored_mark,
)
from pipeline.ingest.transforms import (
    BatchStats,
    DecodedBatch,
    decode_records,
    queue_work,
    stored_position,
    write_batch,
)
from pipeline.terminal import counted
from pipeline.warehouse import (
    Connection,
    check_meta,
    check_zone_meta,
    cursor_text,
    gaming_day_sql,
    parse_cursor,
    reading,
    writing,
)

log = logging.getLogger("uth.load")
Decoded = tuple[DecodedBatch, EarlyHands | None]  # a batch, and its hands audited early

ARCHIVE_CHUNK = 500  # partitions rewritten per pass, at most
ARCHIVE_ROWS = 500_000  # and events per pass (but for a single larger partition)
# Dictionary-encoded only where values repeat: for the unique ids, payloads and stored
# bytes Parquet's writer builds a dictionary and then abandons it, which cost half the
# archive's write. The stored values are the same either way.
_REPEATING = ["type", "schema_version", "table_id", "hand_id", "source"]
_PARQUET_OPTIONS = ds.ParquetFileFormat().make_write_options(use_dictionary=_REPEATING)


def day_start_text(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class Kept:
    """What the ingest knows of the stored events, kept from one load to the next by a
    follow (``uth load --follow``) instead of read again from every stored event each
    load: the events' id hashes (:class:`KnownEvents`, which reads them again whenever
    ``events`` is not as it left it) and the early audit's view (:class:`IngestAudit`),
    used again only when ``events`` holds exactly what it saw, no table's sequence was
    unsettled (so no event it knows of can have become a conflict's loser) and no
    sequence work waits."""

    def __init__(self) -> None:
        self.known = KnownEvents()
        self.view: IngestAudit | None = None
        self.views_reused = 0

    def view_for(self, con: Connection) -> IngestAudit:
        view, self.view = self.view, None
        if view is not None and view.stored >= 0 and not view.unsettled:
            stored = int(con.execute("SELECT count(*) FROM events").fetchall()[0][0])
            waiting = con.execute("SELECT count(*) FROM pending.sequence").fetchall()[0][0]
            if stored == view.stored and not waiting:
                self.views_reused += 1
                return view
        return IngestAudit.load(con)


def load_events(source: str | EventLog, warehouse: str | Path, *, batch_size: int = 100_000,
                day_start_minutes: int = 360, audit_hands: bool = True,
                kept: Kept | None = None) -> BatchStats:
    """Append the log's records after the stored position to ``events`` (see transforms).
    ``audit_hands``: audit the hands a batch holds whole as it is loaded
    (:mod:`pipeline.hands.at_ingest`); the audit step audits the others. ``kept``: what
    the last load of a follow knew of the stored events (:class:`Kept`)."""
    event_log = (open_log(source, create=False, growing=True) if isinstance(source, str)
                 else source)
    stats = BatchStats()
    try:
        name = event_log.describe()  # what the events' ``source`` (and the seals) say
        key = source_key(name)  # what keys the position: one log, one position
        with writing(warehouse) as con:
            check_zone_meta(con)  # before the day start: an old warehouse counted in UTC
            check_meta(con, "gaming_day_start", day_start_text(day_start_minutes))
            position = stored_position(con, key)
            cursor = parse_cursor(position)
            mark = stored_mark(con, key)
            note = replaced_note(event_log, position, mark)
            if note is not None:  # another file at the path: loaded from its first line
                cursor = {}
                con.execute("UPDATE load_positions SET position = ? WHERE source = ?",
                            [cursor_text(cursor), key])
                store_mark(con, key, file_mark(event_log))
                log.warning(note)
                stats.note = note
            else:
                resume_from_mark(event_log, mark)  # read from the line start kept with it
            view = (None if not audit_hands else kept.view_for(con) if kept is not None
                    else IngestAudit.load(con))
        # the log's end as it is now: a load reads up to it and ends, however fast the
        # tables keep writing (what they write meanwhile is the next load's)
        until = event_log.end()
        started = time.perf_counter()
        with bulk_work():
            _load_batches(event_log, warehouse, (name, key), cursor, until, batch_size,
                          day_start_minutes, stats, started, view,
                          kept.known if kept is not None else KnownEvents())
        if kept is not None:
            kept.view = view
    finally:
        if isinstance(source, str):
            event_log.close()
    return stats


def _load_batches(event_log: EventLog, warehouse: str | Path, names: tuple[str, str],
                  cursor: Cursor,
                  until: Cursor, batch_size: int, day_start_minutes: int, stats: BatchStats,
                  started: float, view: IngestAudit | None, known: KnownEvents) -> None:
    """Decode (and audit the hands it holds whole) the next batch in a helper thread
    while this one writes the last (DuckDB releases the interpreter while it inserts and
    commits, so on two cores the two overlap). The log itself is read only by this thread
    (a SQLite connection or a Kafka consumer belongs to one), and batches are decoded, and
    written with the cursor after them, in order."""
    batches = (r for r in event_log.read_until(dict(cursor) or None, until,
                                               max_batch=batch_size) if r)

    def decode(records: list[Record], positions: list[str]) -> Decoded:
        batch = decode_records(records, event_log.where, positions)
        early = None
        if view is not None and batch.decoded is not None:
            early = view.audit_batch(batch.events, batch.decoded)
        batch.decoded = None
        return batch, early

    def submit(pool: ThreadPoolExecutor) -> tuple[list[Record], Future[Decoded]] | None:
        records = next(batches, None)
        if records is None:
            return None
        return records, pool.submit(decode, records, event_log.positions(records))

    with ThreadPoolExecutor(1, thread_name_prefix="uth-decode") as pool:
        ahead = submit(pool)
        while ahead is not None:
            records, future = ahead
            decoded, early = future.result()
            ahead = submit(pool)
            advance_all(cursor, records)
            try:
                with writing(warehouse) as con:
                    if view is not None and not view.still_current(con):
                        early = None  # another process wrote events: the audit step does all
                    batch = write_batch(con, decoded, names[0], cursor, day_start_minutes,
                                        known, early, position_key=names[1],
                                        file=file_mark(event_log, cursor))
            except BaseException:
                known.forget()  # its hashes may name events the rollback took away
                raise
            if view is not None:
                view.written(batch.new_events)
            stats.add(batch)
            log.info("events: committed %s (%d new, %s, %d rejected; %s audited), %s so "
                     "far, %.0f records/s", counted(batch.records, "record"), batch.new_events,
                     counted(batch.duplicates, "duplicate"), batch.rejected,
                     counted(batch.hands_audited, "hand"), f"{stats.records:,}",
                     stats.records / max(time.perf_counter() - started, 1e-9))


def _write_partitions(table: pa.Table, root: Path) -> None:
    ds.write_dataset(table, root, format="parquet", partitioning=ARCHIVE_PARTITIONING,
                     existing_data_behavior="delete_matching",
                     basename_template="events-{i}.parquet",
                     max_rows_per_group=1 << 20, file_options=_PARQUET_OPTIONS)


def archive_pending(warehouse: str | Path, root: str | Path) -> int:
    """Archive the events stored since the last archive; how many partitions were written:
    appended (:func:`pipeline.archive.append_new`), or, in a warehouse without the
    archive's mark yet, the queued partitions rewritten whole and the mark set."""
    with reading(warehouse) as con:
        mark = archive_mark(con)
    if mark is not None:
        return append_new(warehouse, root)
    done = _rewrite_pending(warehouse, root)
    with writing(warehouse) as con:
        if not con.execute("SELECT count(*) FROM pending.archive").fetchall()[0][0]:
            set_mark(con)
    return done


def _rewrite_pending(warehouse: str | Path, root: str | Path) -> int:
    """Rewrite the Parquet partitions (gaming day, table) that got new events; returns how
    many. A partition is rewritten whole from the warehouse, so doing it twice is harmless,
    and it leaves the queue only after its files are written."""
    root = Path(root)
    done = 0
    while True:
        with reading(warehouse) as con:
            keys, queued = _next_partitions(con)
            if keys.num_rows == 0:
                return done
            con.register("archive_keys", keys)
            # each event with its stored bytes (the ledger's leaf), byte for byte the log's
            rows = con.sql("""SELECT e.*, b.stored FROM events e SEMI JOIN archive_keys k
                    ON e.table_id = k.table_id AND e.gaming_day = k.gaming_day
                LEFT JOIN event_bytes b ON b.event_id = e.event_id
                ORDER BY e.gaming_day, e.table_id, e.seq, length(e.position), e.position
                """).to_arrow_table()
            con.unregister("archive_keys")
        _write_partitions(rows, root)
        with writing(warehouse) as con:
            con.register("archive_keys", keys)
            con.execute("""DELETE FROM pending.archive p USING archive_keys k
                WHERE p.table_id = k.table_id AND p.gaming_day = k.gaming_day""")
            con.unregister("archive_keys")
        done += keys.num_rows
        log.info("archive: wrote %d partitions (%d events) under %s", keys.num_rows,
                 rows.num_rows, root)
        if keys.num_rows == queued:
            return done  # the queue held no more (a connection less to find it empty)


def _next_partitions(con: Connection) -> tuple[pa.Table, int]:
    """The next queued partitions to rewrite, in (gaming day, table) order: as many as
    hold at most ``ARCHIVE_ROWS`` events together (at least one, however large) and no
    more than ``ARCHIVE_CHUNK``; and how many partitions are queued. Bounded by rows, not
    only by partitions: 500 partitions were the whole of a 200,000-hand floor loaded at
    once, read, sorted and written in one piece (5 GB)."""
    keys = con.sql(f"""WITH queued AS (SELECT DISTINCT table_id, gaming_day FROM pending.archive),
        sized AS (SELECT q.table_id, q.gaming_day, count(e.table_id) AS events
            FROM queued q LEFT JOIN events e
                ON e.table_id = q.table_id AND e.gaming_day = q.gaming_day
            GROUP BY q.table_id, q.gaming_day),
        running AS (SELECT *, sum(events) OVER w AS through,
                row_number() OVER w AS number, count(*) OVER () AS queued
            FROM sized WINDOW w AS (ORDER BY gaming_day, table_id
                                    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))
        SELECT table_id, gaming_day, queued FROM running
        WHERE (through <= {ARCHIVE_ROWS} OR number = 1) AND number <= {ARCHIVE_CHUNK}
        ORDER BY gaming_day, table_id""").to_arrow_table()
    queued = int(keys["queued"][0].as_py()) if keys.num_rows else 0
    return keys.select(["table_id", "gaming_day"]), queued


def read_archive(root: str | Path, columns: Sequence[str] | None = None) -> pa.Table:
    """The archived events (partition columns restored), e.g. to rebuild a warehouse."""
    dataset = ds.dataset(Path(root), format="parquet", partitioning=ARCHIVE_PARTITIONING)
    return dataset.to_table(columns=list(columns) if columns else None)


def restore_archive(root: str | Path, warehouse: str | Path, *,
                    day_start_minutes: int = 360, batch_rows: int = 1_000_000) -> int:
    """Put the archived events back into ``events`` (those not stored already) and queue
    their hands, sequences and rollups as a load does, a batch of rows per transaction;
    returns how many were restored. The archive is the record a rebuild starts from when
    the warehouse file is lost: run the load after it (``uth load --from-archive``), which
    audits the restored hands and reads the log, skipping every event already restored
    (dead letters, which the archive does not hold, come back from the log)."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: no Parquet archive here")
    dataset = ds.dataset(root, format="parquet", partitioning=ARCHIVE_PARTITIONING)
    with writing(warehouse) as con:
        check_zone_meta(con)
        check_meta(con, "gaming_day_start", day_start_text(day_start_minutes))
        forget_mark(con)  # the restored events' partitions are rewritten whole
        columns = [r[0] for r in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'events' "
            "ORDER BY ordinal_position").fetchall()]
    if "stored" in dataset.schema.names:  # the events' stored bytes (the ledger's leaves)
        columns.append("stored")
    restored = 0
    with bulk_work():
        for batch in dataset.to_batches(columns=columns, batch_size=batch_rows):
            rows = pa.Table.from_batches([batch]).select(columns)
            with writing(warehouse) as con:
                restored += _restore_rows(con, rows, day_start_minutes)
            log.info("archive: restored %d events so far from %s", restored, root)
    from pipeline.ledger.store import restore_seals  # the archive's seals, with its events

    with writing(warehouse) as con:
        seals = restore_seals(root, con)
    if seals:
        log.info("archive: restored %d seals from %s", seals, root)
    return restored


def _restore_rows(con: Connection, rows: pa.Table, day_start_minutes: int) -> int:
    con.register("restored", rows)
    try:
        # the gaming day again from the time, by this warehouse's day start
        day = gaming_day_sql("r.occurred_at", day_start_minutes)
        con.execute(f"""CREATE OR REPLACE TEMP TABLE new_events AS
            SELECT r.* REPLACE ({day} AS gaming_day)
            FROM restored r ANTI JOIN events e ON e.event_id = r.event_id
            QUALIFY row_number() OVER (PARTITION BY r.event_id) = 1""")
    finally:
        con.unregister("restored")
    new = int(con.execute("SELECT count(*) FROM new_events").fetchall()[0][0])
    if new:
        stored = "stored" in rows.column_names
        con.execute("INSERT INTO events SELECT * EXCLUDE (stored) FROM new_events "
                    "ORDER BY table_id, seq" if stored else
                    "INSERT INTO events SELECT * FROM new_events ORDER BY table_id, seq")
        if stored:
            con.execute("INSERT INTO event_bytes SELECT event_id, stored FROM new_events "
                        "WHERE stored IS NOT NULL")
        queue_work(con, "new_events", day_start_minutes)
        # credited to the log they came from; its position stays unknown (read from its
        # start next time, every restored event skipped)
        con.execute("""INSERT INTO load_positions
            SELECT source, NULL, count(*), now() FROM new_events GROUP BY source
            ON CONFLICT (source) DO UPDATE SET
                events_loaded = load_positions.events_loaded + excluded.events_loaded""")
    con.execute("DROP TABLE IF EXISTS new_events")
    return new
