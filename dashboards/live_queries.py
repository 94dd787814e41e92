"""The Live page's SQL (part of :mod:`dashboards.queries`, which re-exports it).

The floor's clock is its newest hand start or finding (a live floor: now; a floor loaded
from an old log: where it stopped), so "this hour" means the same on both: the clock hour
(in the casino's zone) of that newest time, and the hour up to it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import duckdb
import pandas as pd

from pipeline.warehouse import local_sql

LIVE_FINDINGS = 25


def floor_clock(con: duckdb.DuckDBPyConnection) -> datetime | None:
    """The newest hand start or finding time (UTC, as stored)."""
    row = con.execute("""SELECT greatest((SELECT max(started_at) FROM hands),
                                         (SELECT max(occurred_at) FROM audit_findings))
                      """).fetchone()
    return row[0] if row else None


def live_tables(con: duckdb.DuckDBPyConnection, clock: datetime, hour_start: datetime,
                zone: str) -> pd.DataFrame:
    """Per table: its last hand (id, dealer, start in local time, status), the hands
    started since ``hour_start`` (UTC; the top of the local hour) and in the hour up to
    ``clock``."""
    return con.execute(f"""
        SELECT table_id,
               arg_max(hand_id, started_at) AS last_hand,
               arg_max(dealer_id, started_at) AS dealer_id,
               {local_sql('max(started_at)', zone)} AS last_started,
               arg_max(status, started_at) AS status,
               count(*) FILTER (started_at >= ?) AS hands_this_hour,
               count(*) FILTER (started_at > ?) AS hands_last_60_min,
               any_value(currency) AS currency
        FROM hands WHERE started_at IS NOT NULL
        GROUP BY table_id ORDER BY table_id""",
                       [hour_start, clock - timedelta(hours=1)]).df()


def newest_findings(con: duckdb.DuckDBPyConnection, zone: str,
                    limit: int = LIVE_FINDINGS) -> pd.DataFrame:
    """The latest findings, newest first, their time local."""
    return con.execute(f"""
        SELECT f.finding_id, f.occurred_at AS occurred_utc,
               {local_sql('f.occurred_at', zone)} AS occurred_at, f.kind, f.table_id,
               f.dealer_id, f.hand_id, f.seat, f.spot, f.expected, f.recorded, f.detail,
               coalesce(h.currency, '') AS currency
        FROM audit_findings f LEFT JOIN hands h USING (hand_id)
        ORDER BY f.occurred_at DESC NULLS LAST, f.finding_id LIMIT ?""", [int(limit)]).df()


def freshness(con: duckdb.DuckDBPyConnection) -> tuple[datetime | None, datetime | None]:
    """How current the warehouse is: the newest loaded event's time and the last load's
    (both UTC, as stored; None when the warehouse has neither)."""
    names = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables "
                                       "WHERE table_schema = 'main'").fetchall()}
    newest = last = None
    if "events" in names:
        newest = con.execute("SELECT max(occurred_at) FROM events").fetchall()[0][0]
    if "load_positions" in names:
        last = con.execute("SELECT max(updated_at) FROM load_positions").fetchall()[0][0]
    return newest, last
