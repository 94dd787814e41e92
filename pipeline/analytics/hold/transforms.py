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
"""

from __future__ import annotations

import duckdb

from pipeline.analytics.common import Z95, rebuild_pending, sessions_sql
from pipeline.warehouse import CONFLICT_LOSERS

HOLD_SQL = f"""
WITH h AS (
    SELECT * FROM hands SEMI JOIN keys USING (table_id, gaming_day)
), w AS (
    SELECT w.*, h.status FROM wagers w JOIN h USING (hand_id)
), counts AS (
    SELECT table_id, gaming_day, count(*) FILTER (status IN ('settled', 'voided')) AS hands
    FROM h GROUP BY ALL
), rules AS (
    SELECT table_id, gaming_day,
           first(ruleset ORDER BY n DESC, ruleset) AS ruleset,
           first(currency ORDER BY n DESC, ruleset) AS currency
    FROM (SELECT table_id, gaming_day, ruleset, currency, count(*) AS n
          FROM h WHERE ruleset IS NOT NULL GROUP BY ALL)
    GROUP BY ALL
), money AS (
    SELECT w.table_id, w.gaming_day,
           sum(amount) FILTER (status = 'settled') AS handle,
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
    SELECT table_id, gaming_day, sum(CAST(payload->>'amount' AS BIGINT)) AS "drop"
    FROM events SEMI JOIN keys USING (table_id, gaming_day)
    WHERE type = 'ChipsPurchased' AND event_id NOT IN {CONFLICT_LOSERS} GROUP BY ALL
), timed AS (
    {sessions_sql("(SELECT * FROM h WHERE status IN ('settled', 'voided') AND "
                  "started_at IS NOT NULL AND ended_at IS NOT NULL)", "table_id, gaming_day")}
), hours AS (
    SELECT table_id, gaming_day, sum(secs) / 3600.0 AS hours
    FROM (SELECT table_id, gaming_day, session,
                 epoch(max(ended_at)) - epoch(min(started_at)) AS secs
          FROM timed GROUP BY ALL)
    GROUP BY ALL
), opened AS (
    SELECT k.table_id, k.gaming_day, o.payload->>'ruleset' AS ruleset,
           o.payload->>'currency' AS currency
    FROM keys k ASOF LEFT JOIN
        (SELECT table_id, gaming_day, seq, payload FROM events
         WHERE type = 'TableOpened' AND event_id NOT IN {CONFLICT_LOSERS}) o
        ON k.table_id = o.table_id AND k.gaming_day >= o.gaming_day
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


def rebuild_hold(con: duckdb.DuckDBPyConnection) -> None:
    """Recompute ``table_hold_daily`` for the (table_id, gaming_day) in temp table ``keys``."""
    con.execute("DELETE FROM table_hold_daily t USING keys k "
                "WHERE t.table_id = k.table_id AND t.gaming_day = k.gaming_day")
    con.execute(f"INSERT INTO table_hold_daily {HOLD_SQL}")


def update_hold(con: duckdb.DuckDBPyConnection, full: bool = False) -> int:
    """Rebuild the pending keys (all keys when ``full``); returns how many."""
    if full:
        con.execute("""INSERT INTO pending.hold
            SELECT table_id, gaming_day FROM hands UNION
            SELECT table_id, gaming_day FROM events WHERE type = 'ChipsPurchased' UNION
            SELECT table_id, gaming_day FROM table_hold_daily""")
    return rebuild_pending(con, "hold", "table_id, gaming_day", rebuild_hold)
