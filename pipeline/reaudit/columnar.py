"""``uth reaudit --engine duckdb`` from the archive's columns: no warehouse is restored for
the hands that are plain.

1. The archive's events are read from its Parquet files into one in-memory DuckDB table
   (the envelope and the payload's JSON; not the stored bytes).
2. The tables' sequence gaps and conflicts, by the warehouse's own windows
   (:func:`pipeline.hands.findings.sequence_sql`); the conflicts' losers are left out of
   the hands, as the warehouse leaves them out.
3. Each hand, with the ``TableOpened`` in force (the table's last before the hand's first
   event, as ``FEED_SQL`` joins it), is read as typed columns
   (:mod:`pipeline.hands.hand_columns`) and certified or not by
   :func:`events.audit.certify.certify`, a batch of hands at a time
   (:func:`pipeline.hands.certified.certify_batch`, as ``uth load``'s audits do). A certified hand's
   rows are built from the columns (``events.audit.columns.staked_wagers``).
4. Every other hand (voided, disputed, mispaid, out of the common course, at more than
   one table, without rules) goes to the reference unchanged: the warehouse's audit step
   over its events (:func:`pipeline.reaudit.groups.audit_group`), which words the
   findings.
5. The rows, the sequence findings and the events the rollups read (buy-ins, openings) go
   into an in-memory warehouse, whose rollup steps run as a load runs them; the player
   tables are the players step's, a table at a time, the sums merged
   (:func:`pipeline.reaudit.players.players_duckdb`); the outputs are written as Parquet
   (:func:`pipeline.reaudit.local.write_table`).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pyarrow as pa

from events.contract.columns import events_of
from events.contract.schemas import TableOpened
from events.replay.state import TableContext
from pipeline.gc_policy import bulk_work
from pipeline.hands.certified import certify_batch
from pipeline.hands.findings import (
    TIME_FORMAT,
    findings_table,
    sequence_rows,
    sequence_rows_sql,
    sequence_sql,
)
from pipeline.hands.transforms import HANDS_SCHEMA, WAGERS_SCHEMA
from pipeline.reaudit.groups import EVENT_COLUMNS, OUTPUTS, audit_group
from pipeline.reaudit.players import players_duckdb
from pipeline.warehouse import DDL_SCRIPT, check_meta, check_zone_meta, gaming_day_sql, memory_limit

BATCH_HANDS = 50_000  # hands certified at a time (their payloads' text held at once)

HANDS_SQL = """
CREATE TEMP TABLE hand_index AS
WITH firsts AS (
    SELECT hand_id, arg_min(table_id, seq) AS table_id, min(seq) AS first_seq,
           count(DISTINCT table_id) AS tables
    FROM ev WHERE hand_id IS NOT NULL AND type <> 'TableOpened' GROUP BY hand_id
)
SELECT row_number() OVER (ORDER BY f.hand_id) - 1 AS k, f.*, o.event_id AS opened_id
FROM firsts f ASOF LEFT JOIN
    (SELECT table_id, seq, event_id FROM ev WHERE type = 'TableOpened') o
    ON f.table_id = o.table_id AND f.first_seq > o.seq
"""


def reaudit_columns(archive: str | Path, out: Path, day_start_minutes: int,
                    write: Callable[[duckdb.DuckDBPyConnection, str, Path], None],
                    rollups: tuple[str, ...],
                    stages: dict[str, float] | None = None) -> None:
    """Audit every hand of ``archive`` into ``out`` (see the module); ``write(con, name,
    target)`` writes one output; ``stages``: each stage's seconds, when given."""
    marks = [time.perf_counter()]
    names: list[str] = []

    def done(stage: str) -> None:
        marks.append(time.perf_counter())
        names.append(stage)

    spill = tempfile.TemporaryDirectory(prefix="uth-reaudit-")
    con = duckdb.connect(":memory:")
    try:
        # a large archive's events spill to disk beside the machine's other work
        con.execute(f"SET memory_limit = '{memory_limit()}'")
        con.execute(f"SET temp_directory = '{_quoted(spill.name)}'")
        with bulk_work():
            read_events(con, archive)
            done("read the archive")
            sequence = sequence_findings(con, day_start_minutes)
            done("sequence findings")
            certified, refer = audit_hands(con)
            done("hands certified from columns")
            reference = reference_rows(con, refer, day_start_minutes)
            done("the other hands by the reference")
            rollup(con, certified, reference, sequence, day_start_minutes)
            done("rollups")
            players_duckdb(con, day_start_minutes, kept="ev")  # the conflicts' losers left out
            done("player tables")
            for name in (*OUTPUTS, *rollups):
                write(con, name, out / f"output={name}")
            done("outputs written")
    finally:
        con.close()
        spill.cleanup()
    if stages is not None:
        for stage, a, b in zip(names, marks, marks[1:], strict=False):
            stages[stage] = stages.get(stage, 0.0) + b - a


def read_events(con: duckdb.DuckDBPyConnection, archive: str | Path) -> None:
    """Temp table ``ev``: the archive's events (:data:`EVENT_COLUMNS`)."""
    where = str(Path(archive) / "**" / "*.parquet").replace("'", "''")
    columns = ", ".join(EVENT_COLUMNS)
    con.execute(f"""CREATE TEMP TABLE ev AS SELECT {columns} FROM read_parquet('{where}',
        hive_partitioning = true, hive_types = {{'gaming_day': DATE, 'table_id': VARCHAR}})""")


def sequence_findings(con: duckdb.DuckDBPyConnection, day_start_minutes: int) -> pa.Table:
    """The tables' gap and conflict findings as ``audit_findings`` rows; the conflicts'
    losers are taken out of ``ev``. A table whose seqs are 0 to its highest, each once,
    has none (one aggregate), and the windows run over the others only."""
    suspect = [t for t, events, distinct, high in con.execute(
        "SELECT table_id, count(*), count(DISTINCT seq), max(seq) FROM ev GROUP BY table_id "
        "HAVING min(seq) <> 0 OR count(*) <> count(DISTINCT seq) OR max(seq) + 1 <> count(*)"
    ).fetchall() if not (events == distinct == high + 1)]
    found = []
    if suspect:
        con.register("suspect_ids", pa.table({"table_id": pa.array(suspect, pa.string())}))
        try:
            source = ("(SELECT table_id, seq, event_id, hand_id, position, "
                      "CAST(NULL AS BIGINT) AS s0, occurred_at FROM ev "
                      "SEMI JOIN suspect_ids USING (table_id))")
            found = sequence_rows(con.execute(sequence_sql(
                source, f"strftime(occurred_at, '{TIME_FORMAT}')")).fetchall())
        finally:
            con.unregister("suspect_ids")
    con.register("new_findings", findings_table(found))
    try:
        rows = con.sql(sequence_rows_sql(day_start_minutes)).to_arrow_table()
    finally:
        con.unregister("new_findings")
    losers = [f.event_id for f in found if f.kind == "sequence_conflict" and f.event_id]
    con.execute("CREATE TEMP TABLE losers (event_id VARCHAR)")
    if losers:
        con.executemany("INSERT INTO losers VALUES (?)", [[e] for e in losers])
        con.execute("CREATE TEMP TABLE all_ev AS SELECT * FROM ev")  # the rollups' buy-ins
        con.execute("DELETE FROM ev WHERE event_id IN (SELECT event_id FROM losers)")
    return rows


def audit_hands(con: duckdb.DuckDBPyConnection
                ) -> tuple[tuple[pa.Table, pa.Table], list[str]]:
    """The certified hands' (hands, wagers) rows, and the ids of the others."""
    con.execute(HANDS_SQL)
    contexts = _contexts(con)
    hands: list[pa.Table] = []
    wagers: list[pa.Table] = []
    refer: list[str] = []
    total = int(con.execute("SELECT count(*) FROM hand_index").fetchall()[0][0])
    for low in range(0, total, BATCH_HANDS):
        span = {"low": low, "high": low + BATCH_HANDS}
        index = con.sql(
            "SELECT k, hand_id, table_id, tables, opened_id FROM hand_index "
            "WHERE k >= $low AND k < $high ORDER BY k", params=span).to_arrow_table()
        events = con.sql(
            "SELECT x.k, e.type, e.occurred_at, e.payload FROM ev e "
            "JOIN hand_index x USING (hand_id) WHERE x.k >= $low AND x.k < $high "
            "ORDER BY x.k, e.seq", params=span).to_arrow_table()
        batch_hands, batch_wagers, batch_refer = certify_batch(index, events, contexts, low)
        hands.append(batch_hands)
        wagers.append(batch_wagers)
        refer += batch_refer
    return ((pa.concat_tables(hands) if hands else HANDS_SCHEMA.empty_table(),
             pa.concat_tables(wagers) if wagers else WAGERS_SCHEMA.empty_table()), refer)


def _contexts(con: duckdb.DuckDBPyConnection) -> dict[str, TableContext]:
    """Each ``TableOpened`` in force for a hand, as the auditor reads it."""
    rows = con.execute(f"""SELECT event_id, type, schema_version, table_id, hand_id, seq,
            strftime(occurred_at, '{TIME_FORMAT}'), CAST(payload AS VARCHAR) FROM ev
        WHERE event_id IN (SELECT opened_id FROM hand_index)""").fetchall()
    opened = events_of(*(list(c) for c in zip(*rows, strict=True))) if rows else []
    return {ev.event_id: TableContext.opened(ev) for ev in opened
            if isinstance(ev, TableOpened)}


def _quoted(text: str) -> str:
    return text.replace("'", "''")


def reference_rows(con: duckdb.DuckDBPyConnection, hand_ids: list[str],
                   day_start_minutes: int) -> pa.Table:
    """The rows (:func:`pipeline.reaudit.groups.output_schema`) of the hands ``hand_ids``
    by the warehouse's audit step, over their events and the tables' openings."""
    if not hand_ids:
        return audit_group(con.sql(f"SELECT {', '.join(EVENT_COLUMNS)} FROM ev LIMIT 0")
                           .to_arrow_table(), day_start_minutes)
    con.register("refer_ids", pa.table({"hand_id": pa.array(hand_ids, pa.string())}))
    try:
        events = con.sql(f"""SELECT {', '.join(EVENT_COLUMNS)} FROM ev
            WHERE type = 'TableOpened' OR hand_id IN (SELECT hand_id FROM refer_ids)
            """).to_arrow_table()
    finally:
        con.unregister("refer_ids")
    return audit_group(events, day_start_minutes)


def rollup(con: duckdb.DuckDBPyConnection, certified: tuple[pa.Table, pa.Table],
           reference: pa.Table, sequence: pa.Table, day_start_minutes: int) -> None:
    """The outputs and the rollups in ``con`` as a load leaves them in a warehouse: the
    rows, the findings, the events the rollups read (openings, buy-ins), the keys a load
    queues, then the rollup steps."""
    from pipeline.analytics.dealers.transforms import update_dealers
    from pipeline.analytics.hold.transforms import update_hold
    from pipeline.analytics.trips.transforms import update_trips
    from pipeline.ingest.steps import day_start_text

    con.execute(DDL_SCRIPT)
    check_zone_meta(con)
    check_meta(con, "gaming_day_start", day_start_text(day_start_minutes))
    day = gaming_day_sql("coalesce(started_at, ended_at)", day_start_minutes)
    con.register("certified_hands", certified[0])
    con.register("certified_wagers", certified[1])
    con.register("reference_rows", reference)
    con.register("sequence_rows", sequence)
    try:
        con.execute(f"INSERT INTO hands BY NAME SELECT *, {day} AS gaming_day "
                    "FROM certified_hands")
        for name in OUTPUTS:
            columns = ", ".join(f'"{c}"' for c, in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "AND table_schema = 'main'", [name]).fetchall())
            con.execute(f"INSERT INTO {name} BY NAME SELECT {columns} FROM reference_rows "
                        f"WHERE output = '{name}'")
        con.execute("""INSERT INTO wagers BY NAME SELECT w.*, h.gaming_day
            FROM certified_wagers w JOIN hands h USING (hand_id)""")
        con.execute("INSERT INTO audit_findings BY NAME SELECT * FROM sequence_rows")
    finally:
        for name in ("certified_hands", "certified_wagers", "reference_rows",
                     "sequence_rows"):
            con.unregister(name)
    source = "all_ev" if con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'all_ev'"
    ).fetchall()[0][0] else "ev"
    event_day = gaming_day_sql("occurred_at", day_start_minutes)
    con.execute(f"""INSERT INTO events BY NAME SELECT *, {event_day} AS gaming_day
        FROM {source} WHERE type IN ('ChipsPurchased', 'TableOpened')""")
    con.execute("""INSERT INTO pending.hold SELECT DISTINCT table_id, gaming_day FROM events
        UNION SELECT DISTINCT table_id, gaming_day FROM hands WHERE gaming_day IS NOT NULL""")
    con.execute("INSERT INTO pending.trips SELECT DISTINCT table_id, gaming_day FROM hands "
                "WHERE gaming_day IS NOT NULL")
    con.execute("INSERT INTO pending.dealers SELECT DISTINCT dealer_id, gaming_day FROM hands "
                "WHERE gaming_day IS NOT NULL AND dealer_id IS NOT NULL")
    for update in (update_hold, update_trips, update_dealers):
        update(con)
