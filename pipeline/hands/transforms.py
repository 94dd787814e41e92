"""Hands touched by new events -> their ``hands``, ``wagers`` and ``audit_findings`` rows.

A hand is recomputed from all of its events, re-read from the ``events`` table (so a
dispute arriving weeks later re-audits its hand), plus the ``TableOpened`` in force when
the hand began (its ruleset and limits). The plain hands are certified from the feed's
columns (:mod:`pipeline.hands.certified`); the auditor (``events.audit.auditor``) does the
others, and these functions feed it and turn its records into Arrow tables.

The feed is built so that a hand's result depends on its own events only, never on which
other hands share the batch: each table's chunk hands are fed one after the other (each
hand's events together, in ``seq`` order), the ``TableOpened`` in force before a hand when
it differs from the one before. The events are read as columns and built from them
(:func:`events.contract.columns.events_of`: no event JSON is rendered or decoded), with
their stored ``seq``, and the auditor takes them in feed order without its sequencer
(``sequenced=False``): gaps and conflicts are table-level findings made once, from the
whole table, in :mod:`pipeline.hands.findings`. The loser of a ``seq`` conflict (the copy
received later) is left out, as ``uth audit`` leaves it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from events.audit.auditor import BULK_HANDS, audit
from events.audit.columns import RowColumns
from events.contract.columns import events_of
from events.contract.schemas import Event
from events.findings import SEQUENCE_CONFLICT, SEQUENCE_GAP
from pipeline.gc_policy import bulk_work
from pipeline.hands import in_play
from pipeline.hands.findings import findings_table
from pipeline.warehouse import CONFLICT_LOSERS

SEQUENCE_KINDS = (SEQUENCE_GAP, SEQUENCE_CONFLICT)
TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"

HANDS_SCHEMA = pa.schema([
    ("hand_id", pa.string()), ("table_id", pa.string()), ("ruleset", pa.string()),
    ("currency", pa.string()), ("dealer_id", pa.string()), ("seats", pa.string()),
    ("seat_count", pa.int32()), ("started_at", pa.timestamp("us")),
    ("ended_at", pa.timestamp("us")), ("status", pa.string()),
    ("dealing_order", pa.string()), ("shoe_id", pa.string()),
])
WAGERS_SCHEMA = pa.schema([
    ("hand_id", pa.string()), ("table_id", pa.string()), ("dealer_id", pa.string()),
    ("ruleset", pa.string()), ("seat", pa.int32()), ("spot", pa.string()),
    ("amount", pa.int64()), ("recorded_outcome", pa.string()),
    ("recorded_result", pa.int64()), ("correct_outcome", pa.string()),
    ("correct_result", pa.int64()), ("player_category", pa.int32()),
])



# An ``events`` row's columns as :func:`events.contract.columns.events_of` takes them
# (its time as the auditor is fed it, ``TIME_FORMAT``), in SQL over ``events``
EVENT_COLUMNS = ("event_id", "type", "schema_version", "table_id", "hand_id", "seq",
                 "occurred_at", "payload")
FEED_COLUMNS = (*EVENT_COLUMNS[:6], f"strftime(occurred_at, '{TIME_FORMAT}') AS occurred_at",
                "CAST(payload AS VARCHAR) AS payload")


def stored_events(table: pa.Table | pa.RecordBatch) -> list[Event]:
    """The events of rows holding :data:`EVENT_COLUMNS` (as ``FEED_COLUMNS`` selects them),
    built from the columns (:func:`events.contract.columns.events_of`)."""
    return events_of(*(table.column(name).to_pylist() for name in EVENT_COLUMNS))


# Where the chunk's events lie in ``events``: the range of their row ids (a scan of the
# ``hand_id`` column alone). The events of pending hands are mostly the latest rows, so
# FEED_SQL reads the other columns of that range only, not of the whole table (1.3 s
# against 0.55 s for 5,000 hands at 8 million stored events).
SPAN_SQL = "SELECT min(e.rowid), max(e.rowid) FROM events e SEMI JOIN chunk c USING (hand_id)"

# The auditor's input for the hands in temp table ``chunk(hand_id)``, whose events lie in
# rows $lo to $hi: each event's columns in feed order, with its position, its time as
# ``TIME_FORMAT`` and its payload's JSON (no event JSON is rendered); its table is the
# hand's (that of its lowest seq: an event of the hand stored at another table is fed
# with the hand, as the hand's; ``tables`` counts the tables the hand's events are at).
# Conflict losers are the events named by a ``sequence_conflict`` finding (made before the
# hands are audited).
FEED_SQL = f"""
WITH he AS (
    SELECT e.* FROM events e SEMI JOIN chunk c ON e.hand_id = c.hand_id
    WHERE e.rowid BETWEEN $lo AND $hi AND e.event_id NOT IN {CONFLICT_LOSERS}
), firsts AS (
    SELECT hand_id, arg_min(table_id, seq) AS table_id, min(seq) AS first_seq,
           count(DISTINCT table_id) AS tables
    FROM he GROUP BY hand_id
), opened AS (
    SELECT f.hand_id, f.table_id, f.first_seq, o.event_id AS opened_id
    FROM firsts f ASOF LEFT JOIN
        (SELECT table_id, seq, event_id FROM events
         WHERE type = 'TableOpened' AND event_id NOT IN {CONFLICT_LOSERS}) o
        ON f.table_id = o.table_id AND f.first_seq > o.seq
), opened_fed AS (
    SELECT * FROM opened
    QUALIFY opened_id IS NOT NULL AND opened_id IS DISTINCT FROM
        lag(opened_id) OVER (PARTITION BY table_id ORDER BY first_seq, hand_id)
), feed AS (
    SELECT o.table_id, o.first_seq AS k1, 0 AS k2, o.hand_id AS k3, e.seq AS k4,
           e.position AS k5, CAST(NULL AS BIGINT) AS tables, e.* EXCLUDE (table_id)
    FROM opened_fed o JOIN events e ON e.event_id = o.opened_id AND e.type = 'TableOpened'
    UNION ALL
    SELECT f.table_id, f.first_seq, 1, e.hand_id, e.seq, e.position, f.tables,
           e.* EXCLUDE (table_id)
    FROM he e JOIN firsts f ON e.hand_id = f.hand_id
)
SELECT position, tables, {", ".join(FEED_COLUMNS)}
FROM feed
ORDER BY table_id, k1, k3, k2, k4, length(k5), k5
"""


@dataclass
class HandRows:
    """What the auditor made of a chunk of hands, as Arrow tables."""

    hands: pa.Table
    wagers: pa.Table
    findings: pa.Table
    events: int = 0


def read_feed(con: duckdb.DuckDBPyConnection, hand_ids: Sequence[str]) -> list[pa.RecordBatch]:
    """The columns (``position``, ``tables`` and :data:`EVENT_COLUMNS`) of the events of
    the hands ``hand_ids`` in the order the auditor reads them, as Arrow batches (none when
    the hands have no event); ``tables``: how many tables the row's hand has events at,
    null on a ``TableOpened`` fed before the hands it is in force for."""
    con.register("chunk_ids", pa.table({"hand_id": pa.array(list(hand_ids), pa.string())}))
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE chunk AS SELECT DISTINCT hand_id FROM chunk_ids")
    finally:
        con.unregister("chunk_ids")
    lo, hi = con.execute(SPAN_SQL).fetchall()[0]
    table = con.sql(FEED_SQL, params={"lo": lo if lo is not None else 0,
                                      "hi": hi if hi is not None else -1}).to_arrow_table()
    con.execute("DROP TABLE IF EXISTS chunk")
    return [batch for batch in table.to_batches() if batch.num_rows]


def audit_events(items: Sequence[tuple[str, Event]], hand_ids: Sequence[str]) -> HandRows:
    """The auditor's rows of the hands ``hand_ids`` (findings other than sequence findings,
    which are table-level) from a feed already decoded: (position, event) in feed order.
    The reference for the hands :mod:`pipeline.hands.certified` does not certify."""
    with bulk_work():  # each table's feed is in order, its seq as stored (see the module)
        report = audit(items, columns=True, batch=BULK_HANDS, sequenced=False)
    wanted = set(hand_ids)
    hands = [h for h in report.hands if h.hand_id in wanted]
    wagers = [w for w in report.wagers if w.hand_id in wanted]
    findings = [f for f in report.findings
                if f.hand_id in wanted and f.kind not in SEQUENCE_KINDS]
    hand_table = _records_table(hands, HANDS_SCHEMA)
    wager_table = _records_table(wagers, WAGERS_SCHEMA)
    if report.columns is not None and len(report.columns):
        plain_hands, plain_wagers = _columns_tables(report.columns, wanted)
        hand_table = pa.concat_tables([hand_table, plain_hands])
        wager_table = pa.concat_tables([wager_table, plain_wagers])
    return HandRows(hand_table, wager_table, findings_table(findings), len(items))


def _columns_tables(columns: RowColumns, wanted: set[str]) -> tuple[pa.Table, pa.Table]:
    """The plain hands' rows (``events.audit.columns``) of the hands in ``wanted``."""
    hand_cols, wager_cols = columns.kept()
    utc = pa.timestamp("us", tz="UTC")
    hands = {name: pa.array(values, pa.string()).cast(utc).cast(HANDS_SCHEMA.field(name).type)
             if name.endswith("_at") else pa.array(values, HANDS_SCHEMA.field(name).type)
             for name, values in hand_cols.items()}
    hand_table = pa.table(hands).select(HANDS_SCHEMA.names).cast(HANDS_SCHEMA)
    wager_table = pa.table({name: pa.array(values, WAGERS_SCHEMA.field(name).type)
                            for name, values in wager_cols.items()}
                           ).select(WAGERS_SCHEMA.names).cast(WAGERS_SCHEMA)
    if not wanted.issuperset(hand_cols["hand_id"]):
        keep = pa.array(sorted(wanted), pa.string())
        hand_table = hand_table.filter(pc.is_in(hand_table["hand_id"], keep))
        wager_table = wager_table.filter(pc.is_in(wager_table["hand_id"], keep))
    return hand_table, wager_table


def _records_table(records: Sequence[object], schema: pa.Schema) -> pa.Table:
    columns = [pa.array([getattr(r, name) for r in records], schema.field(name).type)
               for name in schema.names]
    return pa.table(columns, schema=schema)


def write_hands(con: duckdb.DuckDBPyConnection, hand_ids: Sequence[str], rows: HandRows,
                day_start_minutes: int) -> None:
    """Replace the rows of ``hand_ids``, queue the rollups they touch (before and after),
    and take the hands off ``pending.hands``: all inside the caller's transaction."""
    from pipeline.warehouse import gaming_day_sql

    day = gaming_day_sql("coalesce(started_at, ended_at)", day_start_minutes)
    con.register("chunk_ids", pa.table({"hand_id": pa.array(list(hand_ids), pa.string())}))
    con.register("new_hands", rows.hands)
    con.register("new_wagers", rows.wagers)
    con.register("new_findings", rows.findings)
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE chunk AS SELECT DISTINCT hand_id FROM chunk_ids")
        con.execute(f"""CREATE OR REPLACE TEMP TABLE chunk_hands AS
            SELECT hand_id, table_id, ruleset, currency, dealer_id, seats, seat_count,
                   started_at, ended_at, {day} AS gaming_day, status, dealing_order, shoe_id
            FROM new_hands""")
        for stage in ("hands", "chunk_hands"):  # the keys before, then after
            src = stage if stage == "chunk_hands" else \
                "(SELECT * FROM hands SEMI JOIN chunk USING (hand_id))"
            con.execute(f"""INSERT INTO pending.hold SELECT DISTINCT table_id, gaming_day
                FROM {src} WHERE gaming_day IS NOT NULL""")
            con.execute(f"""INSERT INTO pending.trips SELECT DISTINCT table_id, gaming_day
                FROM {src} WHERE gaming_day IS NOT NULL""")
            con.execute(f"""INSERT INTO pending.dealers SELECT DISTINCT dealer_id, gaming_day
                FROM {src} WHERE gaming_day IS NOT NULL AND dealer_id IS NOT NULL""")
            # a dealer's session ends where another dealer's hand begins: the other dealers
            # of those tables and days have their hours changed too
            con.execute(f"""INSERT INTO pending.dealers SELECT DISTINCT h.dealer_id, h.gaming_day
                FROM hands h SEMI JOIN {src} c USING (table_id, gaming_day)
                WHERE h.dealer_id IS NOT NULL""")
        con.execute("DELETE FROM hands WHERE hand_id IN (SELECT hand_id FROM chunk)")
        con.execute("DELETE FROM wagers WHERE hand_id IN (SELECT hand_id FROM chunk)")
        con.execute(f"""DELETE FROM audit_findings WHERE hand_id IN (SELECT hand_id FROM chunk)
            AND kind NOT IN {SEQUENCE_KINDS!r}""")
        con.execute("INSERT INTO hands SELECT * FROM chunk_hands")
        con.execute("""INSERT INTO wagers SELECT w.hand_id, w.table_id, h.gaming_day,
                w.dealer_id, w.ruleset, w.seat, w.spot, w.amount, w.recorded_outcome,
                w.recorded_result, w.correct_outcome, w.correct_result, w.player_category
            FROM new_wagers w LEFT JOIN chunk_hands h USING (hand_id)""")
        at = "CAST(f.occurred_at AS TIMESTAMP)"
        fday = gaming_day_sql(f"coalesce({at}, h.started_at, h.ended_at)", day_start_minutes)
        con.execute(f"""INSERT INTO audit_findings
            SELECT f.finding_id, f.kind, f.hand_id, f.table_id, f.dealer_id, f.seat, f.spot,
                   f.expected, f.recorded, f.detail, {at}, {fday}, f.event_id, f.position
            FROM new_findings f LEFT JOIN chunk_hands h ON f.hand_id = h.hand_id""")
        in_play.mark(con)
        con.execute("DELETE FROM pending.hands WHERE hand_id IN (SELECT hand_id FROM chunk)")
        con.execute("DROP TABLE IF EXISTS chunk")
        con.execute("DROP TABLE IF EXISTS chunk_hands")
    finally:
        for name in ("chunk_ids", "new_hands", "new_wagers", "new_findings"):
            con.unregister(name)
