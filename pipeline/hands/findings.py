"""``audit_findings`` rows: the auditor's findings as Arrow, and the table-level sequence
findings (gaps and conflicts in a table's ``seq``) computed over the whole ``events`` table.

Sequence findings are made here rather than by the per-hand audit because a load audits
only the hands its new events touched; their wording and ids are the auditor's
(``events.audit.sequence``), so ``uth audit`` and the warehouse name the same finding alike:

- ``sequence_conflict``: the same table ``seq`` carried by two different events; the one
  received first (lowest log position) is kept, the other is the finding's event.
- ``sequence_gap``: ``seq`` numbers missing between two events of a table (from 0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import duckdb
import pyarrow as pa

from events.findings import (
    SEQUENCE_CONFLICT,
    SEQUENCE_GAP,
    Finding,
    finding_id,
    sequence_conflict,
    sequence_gap,
)

FINDINGS_SCHEMA = pa.schema([
    ("finding_id", pa.string()), ("kind", pa.string()), ("hand_id", pa.string()),
    ("table_id", pa.string()), ("dealer_id", pa.string()), ("seat", pa.int32()),
    ("spot", pa.string()), ("expected", pa.int64()), ("recorded", pa.int64()),
    ("detail", pa.string()), ("occurred_at", pa.string()), ("event_id", pa.string()),
    ("position", pa.string()),
])
TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def findings_table(findings: Sequence[Finding]) -> pa.Table:
    """Findings as the Arrow table that ``audit_findings`` is loaded from."""
    cols: dict[str, list[object]] = {name: [] for name in FINDINGS_SCHEMA.names}
    for f in findings:
        cols["finding_id"].append(f.finding_id)
        for name in FINDINGS_SCHEMA.names[1:]:
            value = getattr(f, name)
            cols[name].append(None if value is None else
                              str(value) if name == "position" else value)
    return pa.table([pa.array(cols[n], FINDINGS_SCHEMA.field(n).type)
                     for n in FINDINGS_SCHEMA.names], schema=FINDINGS_SCHEMA)


# Temp table ``seq_tables(table_id, from_seq)``: recompute each table's findings from its
# lowest new seq (NULL: the whole table). Findings below the last seq ``s0`` before
# ``from_seq`` cannot change (every new event is above it); the recomputed region starts at
# ``s0`` so the first gap can be seen, and the gap ending at ``s0`` itself is left alone.
START_SQL = """
CREATE OR REPLACE TEMP TABLE seq_starts AS
SELECT t.table_id, t.from_seq,
       (SELECT max(e.seq) FROM events e
        WHERE e.table_id = t.table_id AND e.seq < t.from_seq) AS s0
FROM seq_tables t
"""

# Each recomputed region's count of events and of distinct seqs, and its lowest and highest
# seq: a region holds no finding when every seq from its start to its highest is there
# once (a hash aggregate, several times cheaper than the windows below, which then look
# only at the other regions, in temp table ``seq_suspect``)
REGIONS_SQL = """
SELECT s.table_id, count(*), count(DISTINCT e.seq), min(e.seq), max(e.seq), any_value(s.s0)
FROM events e JOIN seq_starts s ON e.table_id = s.table_id
WHERE s.s0 IS NULL OR e.seq >= s.s0
GROUP BY s.table_id
"""

def sequence_sql(source: str, at_text: str, ordered: bool = True) -> str:
    """The gap and conflict rows of the events in ``source`` (a relation with table_id, seq,
    event_id, hand_id, position, occurred_at and ``s0``, the seq a recomputed region starts
    at, NULL for a whole table), by windows over each table's ``seq``: the one text DuckDB
    (the warehouse) and Spark (``uth reaudit --engine spark``) both run. ``at_text``: the
    engine's SQL for ``occurred_at`` as ``TIME_FORMAT``; ``ordered``: sorted (Spark's global
    sort costs a job of its own, and the findings' order does not matter to a table).
    :func:`sequence_rows` words them."""
    return f"""
WITH ev AS (
    SELECT table_id, seq, event_id, hand_id, position, s0, occurred_at,
           row_number() OVER w AS rn, first_value(event_id) OVER w AS winner
    FROM {source} src
    WINDOW w AS (PARTITION BY table_id, seq ORDER BY length(position), position)
), firsts AS (
    SELECT *, lag(seq) OVER (PARTITION BY table_id ORDER BY seq) AS prev FROM ev WHERE rn = 1
)
SELECT 'conflict' AS what, table_id, seq, event_id, hand_id, {at_text} AS at_text, position,
       winner, CAST(NULL AS BIGINT) AS expect
FROM ev WHERE rn > 1
UNION ALL
SELECT 'gap', table_id, seq, event_id, CAST(NULL AS STRING), {at_text}, position,
       CAST(NULL AS STRING), coalesce(prev, -1) + 1
FROM firsts WHERE seq > coalesce(prev, -1) + 1 AND (prev IS NOT NULL OR s0 IS NULL)
{"ORDER BY table_id, seq, what, event_id" if ordered else ""}
"""


SEQUENCE_SQL = sequence_sql(
    """(SELECT e.table_id, e.seq, e.event_id, e.hand_id, e.position, s.s0, e.occurred_at
        FROM events e JOIN seq_suspect s ON e.table_id = s.table_id
        WHERE s.s0 IS NULL OR e.seq >= s.s0)""",
    f"strftime(occurred_at, '{TIME_FORMAT}')")


# the old findings the recomputation replaces
STALE_SQL = f"""
DELETE FROM audit_findings WHERE finding_id IN (
    SELECT f.finding_id FROM audit_findings f
    JOIN seq_starts s ON f.table_id = s.table_id
    LEFT JOIN (SELECT event_id, seq FROM events
               WHERE table_id IN (SELECT table_id FROM seq_starts)) e
        ON e.event_id = f.event_id
    WHERE f.kind IN ('{SEQUENCE_GAP}', '{SEQUENCE_CONFLICT}')
      AND (s.s0 IS NULL OR e.seq > s.s0
           OR (f.kind = '{SEQUENCE_CONFLICT}' AND e.seq = s.s0)))
"""


def _register(con: duckdb.DuckDBPyConnection, tables: Mapping[str, int | None]) -> None:
    con.register("seq_tables_arrow", pa.table({
        "table_id": pa.array(list(tables), pa.string()),
        "from_seq": pa.array(list(tables.values()), pa.int64())}))
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE seq_tables AS SELECT * FROM seq_tables_arrow")
    finally:
        con.unregister("seq_tables_arrow")
    con.execute(START_SQL)


def sequence_findings(con: duckdb.DuckDBPyConnection,
                      tables: Mapping[str, int | None]) -> list[Finding]:
    """The gap and conflict findings of each table at or after its ``from_seq`` (all of them
    when None), from the events."""
    _register(con, tables)
    suspect = [table_id for table_id, events, distinct, low, high, s0
               in con.execute(REGIONS_SQL).fetchall()
               if not _in_order(events, distinct, low, high, s0)]
    if not suspect:
        return []
    con.register("suspect_ids", pa.table({"table_id": pa.array(suspect, pa.string())}))
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE seq_suspect AS "
                    "SELECT * FROM seq_starts SEMI JOIN suspect_ids USING (table_id)")
    finally:
        con.unregister("suspect_ids")
    rows = con.execute(SEQUENCE_SQL).fetchall()
    con.execute("DROP TABLE seq_suspect")
    return sequence_rows(rows)


def sequence_rows(rows: Sequence[Sequence[Any]]) -> list[Finding]:
    """The findings of :func:`sequence_sql`'s rows, worded as the auditor words them."""
    out = []
    for what, table_id, seq, event_id, hand_id, at, position, winner, expect in rows:
        if what == "conflict":
            out.append(sequence_conflict(table_id, seq, event_id, winner, hand_id, at,
                                         position))
        else:
            out.append(sequence_gap(table_id, expect, seq, event_id, at, position))
    return out


def _in_order(events: int, distinct: int, low: int, high: int, s0: int | None) -> bool:
    """True when a recomputed region has no gap and no conflict: each seq once, none
    missing between its lowest and highest, and a whole table (``s0`` None) from 0 (a
    region from ``s0`` begins at that event, and the gap before it is not recomputed)."""
    return events == distinct == high - low + 1 and (s0 is not None or low == 0)


def sequence_rows_sql(day_start_minutes: int, zone: str | None = None) -> str:
    """``audit_findings`` rows of the sequence findings in ``new_findings``
    (:func:`findings_table`), each with the gaming day of its event."""
    from pipeline.warehouse import gaming_day_sql

    at = "CAST(occurred_at AS TIMESTAMP)"
    return f"""SELECT finding_id, kind, hand_id, table_id, dealer_id, seat, spot, expected,
               recorded, detail, {at} AS occurred_at,
               {gaming_day_sql(at, day_start_minutes, zone)} AS gaming_day, event_id, position
        FROM new_findings"""


def write_sequence_findings(con: duckdb.DuckDBPyConnection, tables: Mapping[str, int | None],
                            findings: Sequence[Finding], day_start_minutes: int) -> None:
    """Replace the sequence findings of the recomputed regions and take the tables off
    ``pending.sequence`` (inside the caller's transaction, after :func:`sequence_findings`
    on the same connection)."""
    con.register("new_findings", findings_table(findings))
    try:
        con.execute(STALE_SQL)
        con.execute(f"INSERT INTO audit_findings {sequence_rows_sql(day_start_minutes)}")
        con.execute("DELETE FROM pending.sequence "
                    "WHERE table_id IN (SELECT table_id FROM seq_tables)")
        con.execute("DROP TABLE IF EXISTS seq_tables")
        con.execute("DROP TABLE IF EXISTS seq_starts")
    finally:
        con.unregister("new_findings")


__all__ = [
    "FINDINGS_SCHEMA",
    "finding_id",
    "findings_table",
    "sequence_findings",
    "write_sequence_findings",
]
