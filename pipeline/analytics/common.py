"""What the rollups share: the theory of each ruleset, and the pending-keys protocol.

A rollup is rebuilt per key (``(table_id, gaming_day)`` or ``(dealer_id, gaming_day)``):
the keys waiting in ``pending.<name>`` are read, their rows deleted and recomputed from
``hands``/``wagers``/``events``/``audit_findings``, and the keys taken off the queue, all in
one transaction. A full rebuild (the daily schedule) queues every key first.

Theory per ruleset (table ``ruleset_theory``): the exact trips house edge, standard
deviation and paying-hand probabilities from ``events.game.theory.trips_theory``; the base game's
house edge per ante is the practical-strategy figure ``events.game.theory.PUBLISHED_PRACTICAL_EDGE``
(every ruleset of the contract shares the ante/blind/play game, so the trips table is what
differs). A ruleset the engine does not know gets no theory (theoretical figures NULL).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb

from events.game.rulesets import RulesetError, load_ruleset
from events.game.theory import PUBLISHED_PRACTICAL_EDGE, trips_theory

Z95 = 1.959963984540054
SESSION_GAP_MINUTES = 30  # a longer pause between hands ends a table's (or dealer's) session
PAYING_CATEGORIES = (3, 4, 5, 6, 7, 8, 9)


@dataclass(frozen=True)
class Dialect:
    """The few SQL spellings that differ between DuckDB (the warehouse) and Spark SQL
    (``uth reaudit --engine spark``), so that each rollup's SQL is one text both engines
    read. Each field is a template with ``{0}`` (and ``{1}``) for its arguments."""

    name: str
    epoch_of: str  # seconds since 1970 (DOUBLE) of a TIMESTAMP
    json_text_of: str  # a JSON text column's top-level field {1} as text
    last_non_null_of: str  # the window function: the last non-NULL value of {0} so far

    def epoch(self, expr: str) -> str:
        return self.epoch_of.format(expr)

    def json_text(self, column: str, field: str) -> str:
        return self.json_text_of.format(column, field)

    def last_non_null(self, expr: str) -> str:
        return self.last_non_null_of.format(expr)


DUCKDB = Dialect("duckdb", "epoch({0})", "({0}->>'{1}')", "last_value({0} IGNORE NULLS)")
# Spark reads double-quoted names as names with spark.sql.ansi.doubleQuotedIdentifiers
# (pipeline.reaudit.spark.spark_conf), as DuckDB does
SPARK = Dialect("spark", "(unix_micros(CAST({0} AS TIMESTAMP)) / 1e6)",
                "get_json_object({0}, '$.{1}')", "last({0}, true)")


def ensure_theory(con: duckdb.DuckDBPyConnection) -> None:
    """Add a ``ruleset_theory`` row for every ruleset of ``hands`` that has none yet."""
    names = [r[0] for r in con.execute(
        "SELECT DISTINCT ruleset FROM hands WHERE ruleset IS NOT NULL AND ruleset NOT IN "
        "(SELECT ruleset FROM ruleset_theory) ORDER BY 1").fetchall()]
    for name in names:
        try:
            t = trips_theory(load_ruleset(name))
        except RulesetError:
            continue
        probs = [float(t.hit_rates.get(c, 0.0)) for c in PAYING_CATEGORIES]
        con.execute("INSERT INTO ruleset_theory VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [name, PUBLISHED_PRACTICAL_EDGE, t.house_edge, t.sd, *probs])


def rebuild_pending(con: duckdb.DuckDBPyConnection, queue: str, key_columns: str,
                    rebuild: Callable[[duckdb.DuckDBPyConnection], None]) -> int:
    """Rebuild the keys waiting in ``pending.<queue>`` with ``rebuild(con)`` (which reads
    temp table ``keys``); returns how many keys. Inside the caller's transaction."""
    con.execute(f"""CREATE OR REPLACE TEMP TABLE keys AS
        SELECT DISTINCT {key_columns} FROM pending.{queue}
        WHERE {' AND '.join(f'{c.strip()} IS NOT NULL' for c in key_columns.split(','))}""")
    count = con.execute("SELECT count(*) FROM keys").fetchall()[0][0]
    if count:
        ensure_theory(con)
        rebuild(con)
    con.execute(f"DELETE FROM pending.{queue}")
    con.execute("DROP TABLE IF EXISTS keys")
    return int(count)


def sessions_sql(source: str, partition: str, new_session_when: str = "") -> str:
    """Per hand of ``source`` (hands with started_at/ended_at), a session number within
    ``partition``: a new session starts after a pause of more than SESSION_GAP_MINUTES
    (or when ``new_session_when``, an extra SQL condition, holds)."""
    extra = f" OR ({new_session_when})" if new_session_when else ""
    return f"""
        SELECT *, sum(new_session) OVER (PARTITION BY {partition}
                ORDER BY started_at, hand_id ROWS UNBOUNDED PRECEDING) AS session
        FROM (
            SELECT *, CASE WHEN lag(ended_at) OVER w IS NULL
                        OR started_at - lag(ended_at) OVER w
                           > INTERVAL {SESSION_GAP_MINUTES} MINUTE{extra}
                      THEN 1 ELSE 0 END AS new_session
            FROM {source}
            WINDOW w AS (PARTITION BY {partition} ORDER BY started_at, hand_id)
        )"""
