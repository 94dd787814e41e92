"""``dealer_performance``: per dealer and gaming day, pace and mispays.

- ``hands``: hands the dealer dealt to the end (settled or voided) that gaming day;
- ``hours``: the dealer's sessions added up. A session is a run of consecutive hands of one
  dealer at one table (another dealer taking over, or a pause of more than 30 minutes,
  ends it), from its first hand's start to its last hand's end;
- ``hands_per_hour`` = hands / hours;
- ``mispays``: ``mispay`` findings on the dealer's hands of that day, and ``mispay_net`` the
  sum of recorded - expected over them (positive: the table overpaid).
"""

from __future__ import annotations

import duckdb

from pipeline.analytics.common import DUCKDB, Dialect, rebuild_pending, sessions_sql

# the (dealer_id, gaming_day) a full rebuild covers
DEALER_KEYS = "SELECT dealer_id, gaming_day FROM hands WHERE dealer_id IS NOT NULL"


def dealers_sql(d: Dialect = DUCKDB) -> str:
    """``dealer_performance``'s rows for the keys in ``keys``, in dialect ``d``: one text
    for the warehouse (DuckDB) and ``uth reaudit --engine spark`` (Spark SQL)."""
    return f"""
WITH td AS (
    SELECT DISTINCT table_id, gaming_day FROM hands SEMI JOIN keys USING (dealer_id, gaming_day)
), h AS (
    SELECT * FROM hands SEMI JOIN td USING (table_id, gaming_day)
    WHERE status IN ('settled', 'voided') AND dealer_id IS NOT NULL
), timed AS (
    {sessions_sql("(SELECT * FROM h WHERE started_at IS NOT NULL AND ended_at IS NOT NULL)",
                  "table_id, gaming_day",
                  "lag(dealer_id) OVER w IS DISTINCT FROM dealer_id")}
), hours AS (
    SELECT dealer_id, gaming_day, sum(secs) / 3600.0 AS hours
    FROM (SELECT table_id, gaming_day, session, any_value(dealer_id) AS dealer_id,
                 {d.epoch("max(ended_at)")} - {d.epoch("min(started_at)")} AS secs
          FROM timed GROUP BY ALL) sessions
    GROUP BY ALL
), counts AS (
    SELECT dealer_id, gaming_day, count(*) AS hands FROM h GROUP BY ALL
), mis AS (
    SELECT h.dealer_id, h.gaming_day, count(*) AS mispays,
           sum(coalesce(f.recorded, 0) - coalesce(f.expected, 0)) AS mispay_net
    FROM audit_findings f JOIN hands h USING (hand_id)
    WHERE f.kind = 'mispay' AND h.dealer_id IS NOT NULL
    GROUP BY ALL
)
SELECT k.dealer_id, k.gaming_day, coalesce(c.hands, 0) AS hands, coalesce(hr.hours, 0) AS hours,
       CASE WHEN hr.hours > 0 THEN c.hands / hr.hours END AS hands_per_hour,
       coalesce(m.mispays, 0) AS mispays, coalesce(m.mispay_net, 0) AS mispay_net
FROM (SELECT DISTINCT dealer_id, gaming_day FROM keys) k
LEFT JOIN counts c USING (dealer_id, gaming_day)
LEFT JOIN hours hr USING (dealer_id, gaming_day)
LEFT JOIN mis m USING (dealer_id, gaming_day)
WHERE c.hands IS NOT NULL OR m.mispays IS NOT NULL
ORDER BY k.dealer_id, k.gaming_day
"""


DEALERS_SQL = dealers_sql(DUCKDB)


def rebuild_dealers(con: duckdb.DuckDBPyConnection) -> None:
    """Recompute ``dealer_performance`` for the (dealer_id, gaming_day) in ``keys``."""
    con.execute("DELETE FROM dealer_performance t USING keys k "
                "WHERE t.dealer_id = k.dealer_id AND t.gaming_day = k.gaming_day")
    con.execute(f"INSERT INTO dealer_performance {DEALERS_SQL}")


def update_dealers(con: duckdb.DuckDBPyConnection, full: bool = False) -> int:
    if full:
        con.execute(f"""INSERT INTO pending.dealers {DEALER_KEYS} UNION
            SELECT dealer_id, gaming_day FROM dealer_performance""")
    return rebuild_pending(con, "dealers", "dealer_id, gaming_day", rebuild_dealers)
