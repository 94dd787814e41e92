"""``audit_findings`` rows: the auditor's findings as Arrow, and the table-level sequence
findings (gaps and conflicts in a table's ``seq``) computed over the whole ``events`` table.

Sequence findings are made here rather than by the per-hand audit because a load audits
only the hands its new events touched; their wording and ids are the auditor's
(``events.audit_sequence``), so ``uth audit`` and the warehouse name the same finding alike:

- ``sequence_conflict``: the same table ``seq`` carried by two different events; the one
  received first (lowest log position) is kept, the other is the finding's event.
- ``sequence_gap``: ``seq`` numbers missing between two events of a table (from 0).
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import pyarrow as pa

from events.audit_findings import SEQUENCE_CONFLICT, SEQUENCE_GAP, Finding, finding_id

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


SEQUENCE_SQL = f"""
WITH ev AS (
    SELECT table_id, seq, event_id, hand_id, position,
           strftime(occurred_at, '{TIME_FORMAT}') AS at_text,
           row_number() OVER w AS rn, first_value(event_id) OVER w AS winner
    FROM events WHERE table_id IN (SELECT table_id FROM seq_tables)
    WINDOW w AS (PARTITION BY table_id, seq ORDER BY length(position), position)
), firsts AS (
    SELECT *, coalesce(lag(seq) OVER (PARTITION BY table_id ORDER BY seq), -1) + 1 AS expect
    FROM ev WHERE rn = 1
)
SELECT 'conflict' AS what, table_id, seq, event_id, hand_id, at_text, position, winner,
       NULL::BIGINT AS expect
FROM ev WHERE rn > 1
UNION ALL
SELECT 'gap', table_id, seq, event_id, NULL, at_text, position, NULL, expect
FROM firsts WHERE seq > expect
ORDER BY table_id, seq, what, event_id
"""


def sequence_findings(con: duckdb.DuckDBPyConnection, table_ids: Sequence[str]) -> list[Finding]:
    """The gap and conflict findings of the tables ``table_ids``, from all their events."""
    con.register("seq_tables", pa.table({"table_id": pa.array(list(table_ids), pa.string())}))
    try:
        rows = con.execute(SEQUENCE_SQL).fetchall()
    finally:
        con.unregister("seq_tables")
    out = []
    for what, table_id, seq, event_id, hand_id, at, position, winner, expect in rows:
        if what == "conflict":
            detail = (f"Table {table_id} seq {seq}: event {event_id} conflicts with event "
                      f"{winner} received earlier with the same seq; the first is kept.")
            out.append(Finding(SEQUENCE_CONFLICT, hand_id, table_id, None, None, None, None,
                               None, detail, event_id, at, position))
        else:
            missing = seq - expect
            span = f"seq {expect}" if missing == 1 else f"seq {expect} to {seq - 1}"
            detail = (f"Table {table_id}: {span} never arrived ({missing} event"
                      f"{'' if missing == 1 else 's'} lost before seq {seq}).")
            out.append(Finding(SEQUENCE_GAP, None, table_id, None, None, None, None, None,
                               detail, event_id, at, position))
    return out


def write_sequence_findings(con: duckdb.DuckDBPyConnection, table_ids: Sequence[str],
                            findings: Sequence[Finding], day_start_minutes: int) -> None:
    """Replace the sequence findings of ``table_ids`` and take them off ``pending.sequence``
    (inside the caller's transaction)."""
    from pipeline.warehouse import gaming_day_sql

    con.register("seq_tables", pa.table({"table_id": pa.array(list(table_ids), pa.string())}))
    con.register("new_findings", findings_table(findings))
    at = "CAST(occurred_at AS TIMESTAMP)"
    try:
        con.execute(f"""DELETE FROM audit_findings
            WHERE kind IN ('{SEQUENCE_GAP}', '{SEQUENCE_CONFLICT}')
              AND table_id IN (SELECT table_id FROM seq_tables)""")
        con.execute(f"""INSERT INTO audit_findings
            SELECT finding_id, kind, hand_id, table_id, dealer_id, seat, spot, expected,
                   recorded, detail, {at}, {gaming_day_sql(at, day_start_minutes)},
                   event_id, position
            FROM new_findings""")
        con.execute("DELETE FROM pending.sequence "
                    "WHERE table_id IN (SELECT table_id FROM seq_tables)")
    finally:
        con.unregister("seq_tables")
        con.unregister("new_findings")


__all__ = [
    "FINDINGS_SCHEMA",
    "finding_id",
    "findings_table",
    "sequence_findings",
    "write_sequence_findings",
]
