"""The player tables of a re-audit (``player_ratings``, ``player_alerts``,
``player_alert_dealers``, ``dealer_alerts``): the warehouse's own players step's core run
on each table's whole history apart, the groups' sums merged, the tables written from the
merged sums by the warehouse's own writer.

Why a table's whole history is the group: game protection keeps its sums per player across
tables, and a player who sends no pseudonym is a *seat session*, the same seat over
consecutive hands of one table, named by its first hand (``events.protection.assess.
player_keys``); a session may run across a gaming day's start, so a group of one table's
day could split it. Within a table the step folds the hands in ``seq`` order, as the
warehouse does. A group is scored by the step's own core
(:class:`pipeline.players.scored.HandScorer`, fed as a step rebuilding from every event
feeds it: no private warehouse, whose schema, queries and throw-away player tables cost
about 250 ms a table), and its sums are written as the rows the warehouse keeps
(``events.protection.state``). The groups' sums
are merged exactly and in any order (:meth:`events.protection.tally.Tally.merge`): counts
and sums add, the strongest hands merge. Each seat-hand's Monte Carlo draws are seeded by
its table, hand and seat (``events.protection.draws``), so a group's figures do not depend
on the hands scored with it: the tables equal the warehouse's.

Spark's workers call :func:`sums_arrow` (``groupBy("table_id").applyInArrow``); the DuckDB
engine calls :func:`group_sums` table by table on its own connection. Either merges on
the driver (:func:`merged`): its memory is the sums, per player, dealer and player-day,
not the hands.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import duckdb
import pyarrow as pa

from pipeline.reaudit.groups import DAY_START, EVENT_COLUMNS
from pipeline.warehouse import CONFLICT_LOSERS, DDL_SCRIPT, TABLES

PLAYER_TABLES = ("player_ratings", "player_alerts", "player_alert_dealers", "dealer_alerts")
# a group's sums: the kinds of ``events.protection.state`` rows a merge needs (not the
# seats' last sessions, nor the tables' hand counts: a group has its table's whole history)
SUMS_SCHEMA = pa.schema([("group_table", pa.string()), ("kind", pa.string()),
                         ("key", pa.string()), ("value", pa.string())])
SUMS_KINDS = ("player", "dealer", "table", "slip", "totals")


def _warehouse() -> duckdb.DuckDBPyConnection:
    """A private in-memory warehouse (its tables, empty)."""
    con = duckdb.connect(":memory:", config={"threads": 1, "memory_limit": "512MB"})
    con.execute(DDL_SCRIPT)
    return con


def group_sums(con: duckdb.DuckDBPyConnection, relation: str, params: dict[str, Any],
               day_start_minutes: int) -> pa.Table:
    """The sums of one table's hands, as ``kind, key, value`` rows of the kinds a merge
    needs: ``relation`` (with ``params``) holds the table's events as the warehouse's
    ``events`` does, less the sequence conflicts' losers. The players step's own core
    (:class:`pipeline.players.scored.HandScorer`), fed as a rebuilding step feeds it: the
    resolved disputes read first, then the hands' events and the table's openings in
    ``seq`` order; the sums written as its rows (``events.protection.state``)."""
    from events.contract.schemas import DisputeResolved
    from events.protection.hands import Adjustments
    from events.protection.state import load, rows_of
    from pipeline.hands.transforms import stored_events
    from pipeline.players.scored import HandScorer
    from pipeline.players.transforms import BATCH, EVENT_COLUMNS_SQL

    def batches(where: str) -> Any:
        return con.sql(f"SELECT {EVENT_COLUMNS_SQL} FROM {relation} WHERE {where} "
                       "ORDER BY seq, length(position), position", params=params
                       ).to_arrow_reader(BATCH)

    adjustments = Adjustments()
    for batch in batches("type = 'DisputeResolved' AND hand_id IS NOT NULL"):
        for ev in stored_events(batch):
            if isinstance(ev, DisputeResolved):
                adjustments.add(ev)
    hands = HandScorer(day_start_minutes, adjustments)
    for batch in batches("type <> 'DisputeResolved' AND (hand_id IS NOT NULL "
                         "OR type = 'TableOpened')"):
        if batch.num_rows:
            hands.feed(stored_events(batch))
    hands.finish()
    tally, _ = load(())
    tally.merge(hands.new)  # as a rebuilding step adds them to its (empty) kept sums
    rows = [r for r in rows_of(tally, {}, seats=()) if r[0] in SUMS_KINDS]
    return pa.table({"kind": pa.array([r[0] for r in rows], pa.string()),
                     "key": pa.array([r[1] for r in rows], pa.string()),
                     "value": pa.array([r[2] for r in rows], pa.string())})


def _group_rows(sums: pa.Table, table: str | None) -> pa.Table:
    return pa.table([pa.array([table] * sums.num_rows, pa.string()), *sums.columns],
                    schema=SUMS_SCHEMA)


def table_sums(events: pa.Table, day_start_minutes: int) -> pa.Table:
    """The sums of one table's hands (``events``: every event of the table a sequence
    conflict did not leave out, archive columns), as :data:`SUMS_SCHEMA` rows: the
    events typed as the warehouse's ``events`` in a private in-memory table, then
    :func:`group_sums`."""
    con = duckdb.connect(":memory:", config={"threads": 1, "memory_limit": "512MB"})
    try:
        columns = ", ".join(EVENT_COLUMNS)
        con.execute(f"CREATE TABLE events ({TABLES['events']})")
        con.register("group_events", events.select(list(EVENT_COLUMNS)))
        con.execute(f"INSERT INTO events ({columns}) SELECT {columns} FROM group_events")
        con.unregister("group_events")
        sums = group_sums(con, "events", {}, day_start_minutes)
    finally:
        con.close()
    table = events.column("table_id")[0].as_py() if events.num_rows else None
    return _group_rows(sums, table)


def sums_arrow(table):
    """Spark's ``applyInArrow`` function: one table's events -> its sums. Left unannotated:
    pyspark reads annotations as a request for another calling form."""
    day_start = int(table.column(DAY_START)[0].as_py()) if table.num_rows else 360
    return table_sums(table, day_start)


def merged(rows: pa.Table) -> Any:
    """The :class:`~events.protection.tally.Tally` of every group's sums rows, merged."""
    from events.protection.state import load
    from events.protection.tally import Tally

    by_group: dict[str | None, list[tuple[str, str, str]]] = {}
    for group, kind, key, value in zip(*(rows.column(c).to_pylist() for c in
                                         SUMS_SCHEMA.names), strict=True):
        by_group.setdefault(group, []).append((kind, key, value))
    tally = Tally()
    for group_rows in by_group.values():
        tally.merge(load(group_rows)[0])
    return tally


def write_players(con: duckdb.DuckDBPyConnection, tally: Any) -> None:
    """The player tables written into ``con`` (a warehouse whose ``hands`` give each
    table's currency) from ``tally``, by the warehouse's own writer: every player and
    dealer of the sums, as a load that touched them all writes them."""
    from pipeline.players.scored import Touched
    from pipeline.players.sums import Kept
    from pipeline.players.transforms import write_tables

    touched = Touched()
    touched.players = set(tally.players)
    touched.assessed_dealers = set(tally.dealers)
    write_tables(con, Kept(tally, players=set(tally.players), dealers=set(tally.dealers)),
                  touched)


def player_tables(tally: Any, currencies: Iterable[tuple[str, str]]) -> dict[str, pa.Table]:
    """The player tables of ``tally`` as Arrow, each table's currency from ``currencies``
    (table, currency), as the warehouse's writer writes them."""
    con = _warehouse()
    try:
        # one row per table is all the writer reads of ``hands`` (each table's currency)
        con.executemany("INSERT INTO hands (hand_id, table_id, currency) VALUES ('', ?, ?)",
                        [list(c) for c in currencies])
        write_players(con, tally)
        return {name: con.sql(f"SELECT * FROM {name}").to_arrow_table()
                for name in PLAYER_TABLES}
    finally:
        con.close()


def players_duckdb(con: duckdb.DuckDBPyConnection, day_start_minutes: int,
                   kept: str | None = None) -> None:
    """The DuckDB engine's: each table of the warehouse ``con`` summed apart, merged, and
    the player tables written into it. ``kept``: the relation of the events to sum (by
    default the warehouse's ``events`` less the sequence conflicts' losers)."""
    relation = kept or f"(SELECT * FROM events WHERE event_id NOT IN {CONFLICT_LOSERS})"
    tables = [t for t, in con.execute(f"SELECT DISTINCT table_id FROM {relation} "
                                      "WHERE table_id IS NOT NULL ORDER BY 1").fetchall()]
    sums = [_group_rows(group_sums(con, f"(SELECT * FROM {relation} WHERE table_id = $table)",
                                   {"table": t}, day_start_minutes), t)
            for t in tables]
    write_players(con, merged(pa.concat_tables(sums) if sums else SUMS_SCHEMA.empty_table()))


def players_spark(spark: Any, out: str, archive: str, day_start_minutes: int) -> list[str]:
    """The Spark engine's: the archive's events (less the conflicts' losers, read from the
    outputs' ``audit_findings``) grouped by table and summed by :func:`sums_arrow`, the
    sums merged on the driver, and the player tables written under ``out``
    (``player_ratings`` partitioned by gaming day and table, the alerts in one file each);
    each table's currency from the outputs' ``hands``. Returns the tables' names."""
    from pyspark.sql import functions as F

    from pipeline.reaudit.groups import partition_keys
    from pipeline.reaudit.rollups import read_output
    from pipeline.reaudit.spark import read_archive, spark_schema

    out = str(out).rstrip("/")
    losers = (read_output(spark, out, "audit_findings")
              .where("kind = 'sequence_conflict' AND event_id IS NOT NULL")
              .select("event_id"))
    kept = (read_archive(spark, archive).where("table_id IS NOT NULL")
            .join(F.broadcast(losers), "event_id", "left_anti")
            .select(*EVENT_COLUMNS, F.lit(int(day_start_minutes)).alias(DAY_START)))
    sums = kept.groupBy("table_id").applyInArrow(sums_arrow, spark_schema(SUMS_SCHEMA))
    currencies = (read_output(spark, out, "hands").groupBy("table_id")
                  .agg(F.any_value("currency")).collect())
    tables = player_tables(merged(sums.toArrow()), [(r[0], r[1]) for r in currencies])
    for name, rows in tables.items():
        frame = spark.createDataFrame(rows.to_pylist(), spark_schema(rows.schema))
        (frame.coalesce(1).write.mode("overwrite").partitionBy(*partition_keys(name))
         .parquet(f"{out}/output={name}"))
    return list(tables)
