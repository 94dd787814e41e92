"""One group of hands (a table's hands that start on one gaming day) audited by the
warehouse's own audit step, on its own.

The group's events (every event of its hands, and the ``TableOpened`` in force for each)
are put in a private in-memory DuckDB database with the warehouse's tables; then exactly
what the load's audit step does per chunk runs over them (:func:`read_feed`,
:func:`audit_feed`, :func:`write_hands`), and the ``hands``, ``wagers`` and
``audit_findings`` rows it wrote come back as one Arrow table (an ``output`` column names
each row's table). A hand's rows depend only on its own events and the ``TableOpened`` in
force (``pipeline.hands.transforms``), so whichever engine groups the hands, the rows are
the warehouse's. Spark's workers call :func:`audit_arrow` (an installed module: Spark
pickles the function by reference)."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from pipeline.hands.certified import audit_feed
from pipeline.hands.transforms import read_feed, write_hands
from pipeline.warehouse import PENDING, TABLES

OUTPUTS = ("hands", "wagers", "audit_findings")
# the archive's columns a group needs (the events table's, less its gaming day)
EVENT_COLUMNS = ("event_id", "type", "schema_version", "table_id", "hand_id", "seq",
                 "occurred_at", "payload", "source", "position")
DAY_START = "day_start_minutes"  # a column of the group's rows: when a gaming day starts


def partition_keys(name: str) -> tuple[str, ...]:
    """How output table ``name`` is partitioned: by gaming day and table, as the archive;
    the dealers' rollup by gaming day (it has no table); the alerts not at all (each row
    is a player's or a dealer's whole history)."""
    if name in ("player_alerts", "player_alert_dealers", "dealer_alerts"):
        return ()
    return ("gaming_day",) if name == "dealer_performance" else ("gaming_day", "table_id")

_TYPES = {"VARCHAR": pa.string(), "INTEGER": pa.int32(), "BIGINT": pa.int64(),
          "TIMESTAMP": pa.timestamp("us"), "DATE": pa.date32(), "DOUBLE": pa.float64(),
          "BOOLEAN": pa.bool_(), "SMALLINT": pa.int16()}


def table_schema(name: str) -> pa.Schema:
    """The Arrow schema of a warehouse table (its DDL in ``TABLES``)."""
    fields = []
    for part in TABLES[name].split(","):
        column, kind = part.split()[:2]
        fields.append((column.strip('"'), _TYPES[kind]))
    return pa.schema(fields)


def output_schema() -> pa.Schema:
    """``output`` and the columns of the three tables, each name once (a name the tables
    share has one type in all)."""
    fields: dict[str, pa.DataType] = {"output": pa.string()}
    for name in OUTPUTS:
        for field in table_schema(name):
            if fields.setdefault(field.name, field.type) != field.type:
                raise TypeError(f"{name}.{field.name}: another type in another table")
    return pa.schema(list(fields.items()))


_con: duckdb.DuckDBPyConnection | None = None


def _connection() -> duckdb.DuckDBPyConnection:
    """This process's private database (one per Python worker; a task uses one core)."""
    global _con
    if _con is None:
        con = duckdb.connect(":memory:", config={"threads": 1, "memory_limit": "512MB"})
        for name in ("events", *OUTPUTS):
            con.execute(f"CREATE TABLE {name} ({TABLES[name]})")
        con.execute("CREATE SCHEMA pending")
        for name, columns in PENDING.items():
            con.execute(f"CREATE TABLE pending.{name} ({columns})")
        _con = con
    return _con


def audit_group(events: pa.Table, day_start_minutes: int) -> pa.Table:
    """The warehouse rows of the hands whose events are in ``events`` (archive columns,
    with the ``TableOpened`` in force for each hand), in :func:`output_schema`."""
    con = _connection()
    for name in ("events", *OUTPUTS, *(f"pending.{n}" for n in PENDING)):
        con.execute(f"DELETE FROM {name}")
    columns = ", ".join(EVENT_COLUMNS)
    con.register("group_events", events.select(list(EVENT_COLUMNS)))
    try:
        con.execute(f"INSERT INTO events ({columns}) SELECT {columns} FROM group_events "
                    "ORDER BY table_id, seq, length(position), position")
    finally:
        con.unregister("group_events")
    ids = [r[0] for r in con.execute("SELECT DISTINCT hand_id FROM events WHERE hand_id "
                                     "IS NOT NULL AND type <> 'TableOpened' ORDER BY 1")
           .fetchall()]
    if ids:
        write_hands(con, ids, audit_feed(read_feed(con, ids), ids), day_start_minutes)
    schema = output_schema()
    union = " UNION ALL BY NAME ".join(f"SELECT '{n}' AS output, * FROM {n}" for n in OUTPUTS)
    rows = con.sql(union).to_arrow_table()
    return pa.table([rows[f.name].cast(f.type) if f.name in rows.column_names
                     else pa.nulls(rows.num_rows, f.type) for f in schema], schema=schema)


def audit_arrow(table):
    """Spark's ``applyInArrow`` function: one group's rows -> its warehouse rows. Left
    unannotated: pyspark reads annotations as a request for another calling form."""
    day_start = int(table.column(DAY_START)[0].as_py()) if table.num_rows else 360
    return audit_group(table, day_start)
