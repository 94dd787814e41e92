"""``trips_performance`` and ``trips_hits``: the Trips side bet per ruleset, table and day.

Over the trips wagers of settled hands (a voided hand returns them):

- ``trips_wagers`` (count), ``trips_handle`` (sum of stakes), ``trips_win`` (minus the sum
  of their recorded results), ``hold_pct`` = trips_win / trips_handle;
- ``theoretical_hold_pct``: the ruleset's exact trips house edge (``ruleset_theory``);
- ``ci_low``/``ci_high``: the 95% band of the hold around theory: edge +- 1.96 x sd x
  sqrt(sum of stake^2) / trips_handle, sd being the exact standard deviation per unit
  (for equal stakes this is edge +- 1.96 sd / sqrt(n));
- ``trips_hits``: per paying category (3 three of a kind .. 9 royal flush) the wagers whose
  player hand was that category (``hits``), against ``trips_wagers x probability``.
"""

from __future__ import annotations

import duckdb

from events.game.evaluation import CATEGORY_NAMES
from pipeline.analytics.common import PAYING_CATEGORIES, Z95, rebuild_pending

_CATEGORIES = ", ".join(f"({c}, '{CATEGORY_NAMES[c]}')" for c in PAYING_CATEGORIES)
_PROB = "CASE c.category " + " ".join(
    f"WHEN {c} THEN t.p{c}" for c in PAYING_CATEGORIES) + " END"

# TRIPS_BASE and PERFORMANCE_SQL are also run by Spark SQL (``uth reaudit --engine spark``,
# pipeline/reaudit/rollups.py): written in SQL both engines read (EXISTS, not SEMI JOIN)
TRIPS_BASE = """
    SELECT w.* FROM wagers w
    JOIN (SELECT hand_id FROM hands h
          WHERE status = 'settled' AND EXISTS (SELECT 1 FROM keys k
              WHERE k.table_id = h.table_id AND k.gaming_day = h.gaming_day)) h
        USING (hand_id)
    WHERE w.spot = 'trips' AND w.ruleset IS NOT NULL
"""

PERFORMANCE_SQL = f"""
SELECT a.ruleset, a.table_id, a.gaming_day, a.n AS trips_wagers, a.handle AS trips_handle,
       a.win AS trips_win, CASE WHEN a.handle > 0 THEN a.win / a.handle END AS hold_pct,
       t.trips_edge AS theoretical_hold_pct,
       t.trips_edge - {Z95} * t.trips_sd * sqrt(a.sq) / a.handle AS ci_low,
       t.trips_edge + {Z95} * t.trips_sd * sqrt(a.sq) / a.handle AS ci_high
FROM (SELECT ruleset, table_id, gaming_day, count(*) AS n, sum(amount) AS handle,
             -sum(coalesce(recorded_result, 0)) AS win,
             sum(CAST(amount AS DOUBLE) * amount) AS sq
      FROM trips_wagers GROUP BY ALL) a
LEFT JOIN ruleset_theory t USING (ruleset)
ORDER BY ruleset, table_id, gaming_day
"""

HITS_SQL = f"""
SELECT g.ruleset, g.table_id, g.gaming_day, c.category, c.category_name,
       count(w.hand_id) AS hits, any_value(g.n) * {_PROB} AS expected_hits,
       {_PROB} AS probability
FROM (SELECT ruleset, table_id, gaming_day, count(*) AS n FROM trips_wagers GROUP BY ALL) g
CROSS JOIN (VALUES {_CATEGORIES}) c(category, category_name)
LEFT JOIN trips_wagers w ON w.ruleset = g.ruleset AND w.table_id = g.table_id
     AND w.gaming_day = g.gaming_day AND w.player_category = c.category
LEFT JOIN ruleset_theory t ON t.ruleset = g.ruleset
GROUP BY g.ruleset, g.table_id, g.gaming_day, c.category, c.category_name, {_PROB}
ORDER BY g.ruleset, g.table_id, g.gaming_day, c.category
"""


def rebuild_trips(con: duckdb.DuckDBPyConnection) -> None:
    """Recompute both tables for the (table_id, gaming_day) in temp table ``keys``."""
    for table in ("trips_performance", "trips_hits"):
        con.execute(f"DELETE FROM {table} t USING keys k "
                    "WHERE t.table_id = k.table_id AND t.gaming_day = k.gaming_day")
    con.execute(f"CREATE OR REPLACE TEMP TABLE trips_wagers AS {TRIPS_BASE}")
    con.execute(f"INSERT INTO trips_performance {PERFORMANCE_SQL}")
    con.execute(f"INSERT INTO trips_hits {HITS_SQL}")
    con.execute("DROP TABLE IF EXISTS trips_wagers")


def update_trips(con: duckdb.DuckDBPyConnection, full: bool = False) -> int:
    if full:
        con.execute("""INSERT INTO pending.trips SELECT table_id, gaming_day FROM hands UNION
            SELECT table_id, gaming_day FROM trips_performance""")
    return rebuild_pending(con, "trips", "table_id, gaming_day", rebuild_trips)
