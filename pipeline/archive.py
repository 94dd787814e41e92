"""The Parquet archive: its layout, and how a load appends its new events to it.

One partition per gaming day and table (hive style), as the load writes it and the ledger
and a rebuild read it. A partition holds one or more files, ``events-<k>.parquet``, where
``k`` is how many of the partition's events the files before it hold: together they hold
each of its events once.

A load appends (:func:`append_new`): the events stored since the last archive, found by
their place in ``events`` (a table that only grows: rows are inserted, never deleted or
updated, so a row's ``rowid`` is where it was appended, and DuckDB reads only the row groups
after the mark), one new file per partition they touch; then, in one transaction, the mark
moves past them, each touched partition's count grows, and ``pending.archive`` is emptied.
Killed between the files and that transaction, the next archive writes the same names
again (the mark and the counts did not move), now with the same events and perhaps later
ones: nothing is archived twice, nothing lost. Its cost is the events added, whatever the
history: the partitions' earlier files are never read or rewritten.

A warehouse with no mark yet (its first archive, one built by a version that rewrote
partitions, or one whose events were restored from the archive) has its queued partitions
rewritten whole first (:func:`pipeline.ingest.steps.archive_pending`), and the mark set
after them.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from pipeline.warehouse import META, Connection, reading, writing

log = logging.getLogger("uth.load")

ARCHIVE_PARTITIONING = ds.partitioning(
    pa.schema([("gaming_day", pa.date32()), ("table_id", pa.string())]), flavor="hive")
MARK = "archived_events"  # meta key: the events (by rowid) below it are archived
APPEND_ROWS = 500_000  # events appended per pass, at most
# how many events each partition's files hold (the next file's name)
PARTITIONS_DDL = """CREATE TABLE IF NOT EXISTS archive_partitions (
    table_id VARCHAR, gaming_day DATE, events BIGINT)"""
# Dictionary-encoded only where values repeat: for the unique ids, payloads and stored
# bytes Parquet's writer builds a dictionary and then abandons it, which cost half the
# archive's write. The stored values are the same either way.
REPEATING = ["type", "schema_version", "table_id", "hand_id", "source"]


def archive_mark(con: Connection) -> int | None:
    """The archive's mark (events with a lower rowid are archived), or None: none yet."""
    rows = con.execute(f"SELECT value FROM {META} WHERE key = ?", [MARK]).fetchall()
    return int(rows[0][0]) if rows else None


def set_mark(con: Connection) -> None:
    """After a whole-partition rewrite left nothing queued: every stored event is archived;
    each partition's count as ``events`` holds it (one scan, once per warehouse)."""
    con.execute(PARTITIONS_DDL)
    con.execute("DELETE FROM archive_partitions")
    con.execute("INSERT INTO archive_partitions SELECT table_id, gaming_day, count(*) "
                "FROM events GROUP BY table_id, gaming_day")
    _put_mark(con, int(con.execute("SELECT count(*) FROM events").fetchall()[0][0]))


def forget_mark(con: Connection) -> None:
    """Events were put back from the archive: their partitions are rewritten whole next."""
    con.execute(f"DELETE FROM {META} WHERE key = ?", [MARK])


def _put_mark(con: Connection, mark: int) -> None:
    con.execute(f"DELETE FROM {META} WHERE key = ?", [MARK])
    con.execute(f"INSERT INTO {META} VALUES (?, ?)", [MARK, str(mark)])


def append_new(warehouse: str | Path, root: str | Path) -> int:
    """Append the events stored since the mark (see the module); the partitions written.
    The caller made sure the warehouse has a mark."""
    root = Path(root)
    written = 0
    while True:
        with reading(warehouse) as con:
            mark = archive_mark(con)
            assert mark is not None
            stored = int(con.execute("SELECT count(*) FROM events").fetchall()[0][0])
            if stored <= mark:
                break
            until = min(stored, mark + APPEND_ROWS)
            rows = _with_bytes(con, mark, until, stored)
            keys = rows.group_by(["gaming_day", "table_id"]).aggregate([([], "count_all")])
            con.register("archive_new", keys)
            before = {(d, t): n for t, d, n in con.execute(
                """SELECT k.table_id, k.gaming_day, coalesce(p.events, 0) FROM archive_new k
                   LEFT JOIN archive_partitions p ON p.table_id IS NOT DISTINCT FROM k.table_id
                    AND p.gaming_day IS NOT DISTINCT FROM k.gaming_day""").fetchall()}
            con.unregister("archive_new")
        _write_files(rows, root, before)
        with writing(warehouse) as con:
            con.register("archive_new", keys)
            con.execute("""UPDATE archive_partitions p SET events = p.events + k.count_all
                FROM archive_new k WHERE p.table_id IS NOT DISTINCT FROM k.table_id
                AND p.gaming_day IS NOT DISTINCT FROM k.gaming_day""")
            con.execute("""INSERT INTO archive_partitions SELECT k.table_id, k.gaming_day,
                    k.count_all FROM archive_new k ANTI JOIN archive_partitions p
                ON p.table_id IS NOT DISTINCT FROM k.table_id
                AND p.gaming_day IS NOT DISTINCT FROM k.gaming_day""")
            con.unregister("archive_new")
            _put_mark(con, until)
            if until == stored:
                con.execute("DELETE FROM pending.archive")
        written += keys.num_rows
        log.info("archive: appended %d events to %d partitions under %s", rows.num_rows,
                 keys.num_rows, root)
    with writing(warehouse) as con:  # nothing new, but a queue left by a restore or a kill
        if con.execute("SELECT count(*) FROM pending.archive").fetchall()[0][0]:
            con.execute("DELETE FROM pending.archive")
    return written


def _with_bytes(con: Connection, mark: int, until: int, stored: int) -> pa.Table:
    """The events of rows ``mark`` to ``until``, each with its stored bytes (the ledger's
    leaf), byte for byte the log's, in partition order.

    Their bytes are looked for among the ``event_bytes`` rows stored since as many rows
    as there were then: both tables only grow, and an event's bytes are stored with it
    or never (so the events stored without bytes, ``stored`` minus the bytes, bound how
    far back the bytes of an event at ``mark`` can be). Not a join with every stored
    event's bytes; an event none were found for there is looked for among all of them."""
    (with_bytes,), = con.execute("SELECT count(*) FROM event_bytes").fetchall()
    since = max(0, mark - (stored - int(with_bytes)))
    rows = con.sql(f"""SELECT e.*, b.stored FROM
            (SELECT * FROM events WHERE rowid >= {mark} AND rowid < {until}) e
        LEFT JOIN (SELECT event_id, stored FROM event_bytes WHERE rowid >= {since}) b
            ON b.event_id = e.event_id
        ORDER BY e.gaming_day, e.table_id, e.seq, length(e.position), e.position
        """).to_arrow_table()
    missing = rows.filter(pc.is_null(rows["stored"]))["event_id"]
    if not len(missing) or not since:
        return rows
    con.register("archive_missing", pa.table({"event_id": missing}))
    try:
        found = dict(con.execute("""SELECT event_id, stored FROM event_bytes
            WHERE event_id IN (SELECT event_id FROM archive_missing)""").fetchall())
    finally:
        con.unregister("archive_missing")
    if not found:
        return rows
    column = [found.get(i, b) for i, b in zip(rows["event_id"].to_pylist(),
                                               rows["stored"].to_pylist(), strict=True)]
    at = rows.column_names.index("stored")
    return rows.set_column(at, "stored", pa.array(column, rows.schema.field("stored").type))


def _write_files(rows: pa.Table, root: Path, before: dict[tuple[object, object], int]) -> None:
    """One file per partition: ``events-<events its files held before>.parquet``."""
    days, tables = rows["gaming_day"].to_pylist(), rows["table_id"].to_pylist()
    start = 0
    body = rows.drop_columns(["gaming_day", "table_id"])
    while start < rows.num_rows:  # rows come ordered by partition
        day, table = days[start], tables[start]
        end = start
        while end < rows.num_rows and days[end] == day and tables[end] == table:
            end += 1
        folder = root / f"gaming_day={_hive(day)}" / f"table_id={_hive(table)}"
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(body.slice(start, end - start),
                       folder / f"events-{before.get((day, table), 0)}.parquet",
                       use_dictionary=[c for c in REPEATING if c in body.column_names],
                       row_group_size=1 << 20)
        start = end


def _hive(value: object) -> str:
    """A partition value as pyarrow's hive partitioning writes it in a folder name."""
    if value is None:
        return "__HIVE_DEFAULT_PARTITION__"
    from urllib.parse import quote

    return quote(str(value), safe="")
