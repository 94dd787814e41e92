"""``table_hold_daily``: per table and gaming day, what the table took and kept.

Definitions (money in cents):

- ``hands``: hands dealt to the end (settled or voided) whose gaming day (by start) it is.
- ``drop``: sum of ``ChipsPurchased.amount`` at the table that gaming day.
- ``handle``: sum of all wager amounts (ante, blind, play, trips) of the settled hands
  (a voided hand's wagers are returned, so they are not handle).
- ``house_win``: minus the sum of the recorded results of all the day's wagers (resolved
  dispute adjustments included by the auditor): what the table actually kept.
- ``hold_pct`` = house_win / drop; ``win_to_handle_pct`` = house_win / handle (NULL when
  the denominator is 0).
- ``theoretical_win``: ante handle x the base game's house edge per ante + trips handle x
  the ruleset's exact trips house edge (settled hands), rounded to the cent.
- ``hands_per_hour``: hands / hours dealing, where hours add up the table's sessions (a
  pause of more than 30 minutes between hands ends a session) from the first hand's start
  to the last hand's end.
- ``hold_ci_low``/``hold_ci_high``: 95% control limits of ``hold_pct`` around the
  theoretical hold: (theoretical_win +- 1.96 x s x sqrt(n)) / drop, with n the seat-hands
  settled that day and s the sample standard deviation of the house's result per
  seat-hand (NULL with fewer than two seat-hands or no drop).

With each table-day, in the same transaction, its quarter-hours: ``hold_quarters`` (hands,
handle and house win by the local quarter-hour of each hand's start, and its currency) and
``drop_quarters`` (the buy-ins by the local quarter-hour of their time), local to the
warehouse's zone (``meta.timezone``). The hold report by shift sums them
(dashboards/hold_queries.py) instead of every wager: the same figures, for any shifts that
start on a quarter-hour. A warehouse built before them gets them all on its next load.
"""

from __future__ import annotations

import duckdb

from pipeline.analytics.common import DUCKDB, Z95, Dialect, rebuild_pending, sessions_sql
from pipeline.warehouse import CONFLICT_LOSERS, HOLD_QUARTERS_MARK, META, local_sql

# the (table_id, gaming_day) a full rebuild covers: every day with hands or buy-ins
HOLD_KEYS = """SELECT table_id, gaming_day FROM hands UNION
    SELECT table_id, gaming_day FROM events WHERE type = 'ChipsPurchased'"""


def hold_sql(d: Dialect = DUCKDB) -> str:
    """``table_hold_daily``'s rows for the keys in ``keys``, in dialect ``d``: one text
    for the warehouse (DuckDB) and ``uth reaudit --engine spark`` (Spark SQL)."""
    return f"""
WITH h AS (
    SELECT * FROM hands SEMI JOIN keys USING (table_id, gaming_day)
), w AS (
    SELECT w.*, h.status FROM wagers w JOIN h USING (hand_id)
), counts AS (
    SELECT table_id, gaming_day,
           count(*) FILTER (WHERE status IN ('settled', 'voided')) AS hands
    FROM h GROUP BY ALL
), rules AS (
    SELECT table_id, gaming_day, ruleset, currency FROM (
        SELECT table_id, gaming_day, ruleset, currency,
               row_number() OVER (PARTITION BY table_id, gaming_day
                                  ORDER BY n DESC, ruleset, currency NULLS LAST) AS pick
        FROM (SELECT table_id, gaming_day, ruleset, currency, count(*) AS n
              FROM h WHERE ruleset IS NOT NULL GROUP BY ALL) counted) ranked
    WHERE pick = 1
), money AS (
    SELECT w.table_id, w.gaming_day,
           sum(amount) FILTER (WHERE status = 'settled') AS handle,
           -sum(coalesce(recorded_result, 0)) AS house_win,
           sum(CASE WHEN status <> 'settled' THEN 0
                    WHEN spot = 'ante' THEN amount * t.base_edge_per_ante
                    WHEN spot = 'trips' THEN amount * t.trips_edge ELSE 0 END) AS theo
    FROM w LEFT JOIN ruleset_theory t ON t.ruleset = w.ruleset
    GROUP BY ALL
), seat_results AS (
    SELECT table_id, gaming_day, hand_id, seat, -sum(coalesce(recorded_result, 0)) AS r
    FROM w WHERE status = 'settled' GROUP BY ALL
), spread AS (
    SELECT table_id, gaming_day, count(*) AS n, stddev_samp(r) AS s
    FROM seat_results GROUP BY ALL
), drops AS (
    SELECT table_id, gaming_day,
           sum(CAST({d.json_text("payload", "amount")} AS BIGINT)) AS "drop"
    FROM events SEMI JOIN keys USING (table_id, gaming_day)
    WHERE type = 'ChipsPurchased' AND event_id NOT IN {CONFLICT_LOSERS} GROUP BY ALL
), timed AS (
    {sessions_sql("(SELECT * FROM h WHERE status IN ('settled', 'voided') AND "
                  "started_at IS NOT NULL AND ended_at IS NOT NULL)", "table_id, gaming_day")}
), hours AS (
    SELECT table_id, gaming_day, sum(secs) / 3600.0 AS hours
    FROM (SELECT table_id, gaming_day, session,
                 {d.epoch("max(ended_at)")} - {d.epoch("min(started_at)")} AS secs
          FROM timed GROUP BY ALL) sessions
    GROUP BY ALL
), opened AS (
    -- per key, the table's last TableOpened of that gaming day or before (by seq)
    SELECT table_id, gaming_day, {d.json_text("payload", "ruleset")} AS ruleset,
           {d.json_text("payload", "currency")} AS currency
    FROM (SELECT table_id, gaming_day, is_key,
                 {d.last_non_null("payload")} OVER (PARTITION BY table_id
                     ORDER BY gaming_day, is_key, seq ROWS UNBOUNDED PRECEDING) AS payload
          FROM (SELECT table_id, gaming_day, 0 AS is_key, seq, payload FROM events
                WHERE type = 'TableOpened' AND event_id NOT IN {CONFLICT_LOSERS}
                UNION ALL
                SELECT table_id, gaming_day, 1, NULL, NULL FROM keys) marks) marked
    WHERE is_key = 1
), rows AS (
    SELECT k.table_id, k.gaming_day,
           coalesce(r.ruleset, o.ruleset) AS ruleset, coalesce(r.currency, o.currency) AS currency,
           coalesce(c.hands, 0) AS hands, coalesce(d."drop", 0) AS "drop",
           coalesce(m.handle, 0) AS handle, coalesce(m.house_win, 0) AS house_win,
           CAST(round(coalesce(m.theo, 0)) AS BIGINT) AS theoretical_win,
           hr.hours, sp.n, sp.s,
           (c.hands IS NOT NULL OR d."drop" IS NOT NULL) AS has_data
    FROM (SELECT DISTINCT table_id, gaming_day FROM keys) k
    LEFT JOIN counts c USING (table_id, gaming_day)
    LEFT JOIN rules r USING (table_id, gaming_day)
    LEFT JOIN money m USING (table_id, gaming_day)
    LEFT JOIN drops d USING (table_id, gaming_day)
    LEFT JOIN hours hr USING (table_id, gaming_day)
    LEFT JOIN spread sp USING (table_id, gaming_day)
    LEFT JOIN opened o USING (table_id, gaming_day)
)
SELECT table_id, gaming_day, ruleset, currency, hands, "drop", handle, house_win,
       CASE WHEN "drop" > 0 THEN house_win / "drop" END AS hold_pct,
       CASE WHEN handle > 0 THEN house_win / handle END AS win_to_handle_pct,
       theoretical_win,
       CASE WHEN hours > 0 THEN hands / hours END AS hands_per_hour,
       CASE WHEN "drop" > 0 AND n >= 2 AND theoretical_win IS NOT NULL
            THEN (theoretical_win - {Z95} * s * sqrt(n)) / "drop" END AS hold_ci_low,
       CASE WHEN "drop" > 0 AND n >= 2 AND theoretical_win IS NOT NULL
            THEN (theoretical_win + {Z95} * s * sqrt(n)) / "drop" END AS hold_ci_high
FROM rows WHERE has_data
ORDER BY table_id, gaming_day
"""


HOLD_SQL = hold_sql(DUCKDB)


def quarter_sql(column: str, zone: str | None) -> str:
    """SQL for the local quarter-hour of a TIMESTAMP column (UTC): minutes after local
    midnight, rounded down to 0, 15, 30 or 45 past the hour."""
    at = local_sql(column, zone)
    return f"CAST((hour({at}) * 60 + minute({at})) // 15 * 15 AS SMALLINT)"


def _zone(con: duckdb.DuckDBPyConnection) -> str | None:
    """The zone the warehouse counts in (``meta.timezone``; None: ``UTH_TIMEZONE``)."""
    rows = con.execute(f"SELECT value FROM {META} WHERE key = 'timezone'").fetchall()
    return str(rows[0][0]) if rows else None


def quarters_sql(zone: str | None) -> tuple[str, str]:
    """The rows of ``hold_quarters`` and of ``drop_quarters`` for the keys in ``keys``: the
    hold report's definitions (hands settled or voided, handle of the settled hands, house
    win minus every wager's recorded result, the buy-ins)."""
    hands = f"""
    WITH h AS (
        SELECT hand_id, table_id, gaming_day, currency, status,
               {quarter_sql("started_at", zone)} AS quarter
        FROM hands SEMI JOIN keys USING (table_id, gaming_day)
    ), per_hand AS (
        SELECT hand_id, sum(amount) AS handle, -sum(coalesce(recorded_result, 0)) AS win
        FROM wagers WHERE hand_id IN (SELECT hand_id FROM h) GROUP BY hand_id
    )
    SELECT h.table_id, h.gaming_day, h.quarter, h.currency,
           count(*) FILTER (h.status IN ('settled', 'voided')) AS hands,
           coalesce(sum(w.handle) FILTER (h.status = 'settled'), 0) AS handle,
           coalesce(sum(w.win), 0) AS house_win
    FROM h LEFT JOIN per_hand w USING (hand_id) GROUP BY ALL"""
    drops = f"""
    SELECT table_id, gaming_day, {quarter_sql("occurred_at", zone)} AS quarter,
           sum(CAST(payload->>'amount' AS BIGINT)) AS "drop"
    FROM events SEMI JOIN keys USING (table_id, gaming_day)
    WHERE type = 'ChipsPurchased' AND event_id NOT IN {CONFLICT_LOSERS}
    GROUP BY ALL"""
    return hands, drops


def rebuild_quarters(con: duckdb.DuckDBPyConnection) -> None:
    """Recompute ``hold_quarters`` and ``drop_quarters`` for the keys in ``keys``."""
    hands, drops = quarters_sql(_zone(con))
    for table, rows in (("hold_quarters", hands), ("drop_quarters", drops)):
        con.execute(f"DELETE FROM {table} t USING keys k "
                    "WHERE t.table_id = k.table_id AND t.gaming_day = k.gaming_day")
        con.execute(f"INSERT INTO {table} {rows}")


def rebuild_hold(con: duckdb.DuckDBPyConnection) -> None:
    """Recompute ``table_hold_daily`` and its quarter-hours for the (table_id, gaming_day)
    in temp table ``keys``."""
    con.execute("DELETE FROM table_hold_daily t USING keys k "
                "WHERE t.table_id = k.table_id AND t.gaming_day = k.gaming_day")
    con.execute(f"INSERT INTO table_hold_daily {HOLD_SQL}")
    rebuild_quarters(con)


def update_hold(con: duckdb.DuckDBPyConnection, full: bool = False) -> int:
    """Rebuild the pending keys (all keys when ``full``, or when the warehouse has no
    quarter-hours yet: it was built before them); returns how many."""
    marked = con.execute(f"SELECT 1 FROM {META} WHERE key = ?",
                         [HOLD_QUARTERS_MARK]).fetchall()
    if full or not marked:
        con.execute(f"""INSERT INTO pending.hold {HOLD_KEYS} UNION
            SELECT table_id, gaming_day FROM table_hold_daily""")
    keys = rebuild_pending(con, "hold", "table_id, gaming_day", rebuild_hold)
    if not marked:
        con.execute(f"INSERT INTO {META} VALUES (?, '1')", [HOLD_QUARTERS_MARK])
    return keys
