"""The hold report's SQL (part of :mod:`dashboards.queries`, which re-exports it): drop,
handle and house win by table, pit, shift or week. By table, pit or week they are sums of
``table_hold_daily``; by shift they are computed from ``hands``, ``wagers`` and the
``ChipsPurchased`` events with that table's definitions
(pipeline/analytics/hold/transforms.py): hands settled or voided, handle of the settled
hands, house win minus the recorded results of every wager, drop the buy-ins.

- A pit is a set of tables: ``UTH_PITS`` (``main=T01,T02;high-limit=T03``); a table in
  none is in no pit.
- A shift is by local time (``UTH_TIMEZONE``, ``UTH_SHIFTS``): a hand's by its start, a
  buy-in's by its time. When every shift starts on a quarter-hour (the default shifts
  do, and any ``HH:00``, ``HH:15``...), the report sums the load's quarter-hour rollups
  (``hold_quarters``, ``drop_quarters``: the same definitions, kept with
  ``table_hold_daily``), a few rows per table-day instead of every wager; otherwise, or on
  a warehouse built before them and not loaded since, it reads hands and wagers.
- A week is the Monday-to-Sunday week of the gaming day.
"""

from __future__ import annotations

import os
from datetime import date
from typing import Any

import duckdb
import pandas as pd

from events import localtime
from pipeline.warehouse import CONFLICT_LOSERS, HOLD_QUARTERS_MARK

PITS_VAR = "UTH_PITS"
HOLD_GROUPS = ("table", "pit", "shift", "week")


class PitsError(ValueError):
    """``UTH_PITS`` that cannot be read, with what to write."""


def pits() -> dict[str, list[str]]:
    """``UTH_PITS`` as pit -> its tables (read now)."""
    text = os.environ.get(PITS_VAR, "").strip()
    out: dict[str, list[str]] = {}
    for part in (p.strip() for p in text.split(";") if p.strip()):
        name, sep, tables = part.partition("=")
        members = [t.strip() for t in tables.split(",") if t.strip()]
        if not sep or not name.strip() or not members:
            raise PitsError(f"{PITS_VAR}: {part!r} is not pit=TABLE,TABLE "
                            "(e.g. main=T01,T02;high-limit=T03)")
        out.setdefault(name.strip(), []).extend(members)
    return out


def _pit_sql(column: str) -> tuple[str, list[Any]]:
    mapping = pits()
    if not mapping:
        return "CAST(NULL AS VARCHAR)", []
    cases = " ".join(f"WHEN list_contains(?::VARCHAR[], {column}) THEN ?" for _ in mapping)
    return f"CASE {cases} END", [x for name, tables in mapping.items()
                                 for x in (tables, name)]


def _from_rollup(con: duckdb.DuckDBPyConnection, by: str, day_from: date | None,
                 day_to: date | None) -> pd.DataFrame:
    """By table, pit or week the daily rollup has every figure (and is small)."""
    pit, pit_params = _pit_sql("table_id")
    group = {"table": "table_id", "pit": pit,
             "week": "CAST(date_trunc('week', gaming_day) AS DATE)::VARCHAR"}[by]
    params = pit_params if by == "pit" else []
    days, day_params = [], []
    for op, value in ((">=", day_from), ("<=", day_to)):
        if value is not None:
            days.append(f"gaming_day {op} ?")
            day_params.append(value)
    where = ("WHERE " + " AND ".join(days)) if days else ""
    return con.execute(f"""
        SELECT "group", currency, hands, "drop", handle, house_win,
               CASE WHEN "drop" > 0 THEN house_win / "drop" END AS hold_pct,
               CASE WHEN handle > 0 THEN house_win / handle END AS win_to_handle_pct
        FROM (SELECT "group", currency, sum(hands)::BIGINT AS hands,
                     sum("drop")::BIGINT AS "drop", sum(handle)::BIGINT AS handle,
                     sum(house_win)::BIGINT AS house_win
              FROM (SELECT {group} AS "group", coalesce(currency, '') AS currency, hands,
                           "drop", handle, house_win FROM table_hold_daily {where})
              GROUP BY "group", currency)
        ORDER BY "group" NULLS LAST, currency""", [*params, *day_params]).df()


def _days(column: str, day_from: date | None, day_to: date | None) -> tuple[str, list[Any]]:
    """`` AND column >= ? AND column <= ?`` for the bounds given, and their values."""
    where, params = "", []
    for op, value in ((">=", day_from), ("<=", day_to)):
        if value is not None:
            where += f" AND {column} {op} ?"
            params.append(value)
    return where, params


def quarters_ready(con: duckdb.DuckDBPyConnection, day_start: int) -> bool:
    """Whether the quarter-hour rollups give each shift's figures exactly: every shift
    starts on a quarter-hour, and the load has built every table-day's quarter-hours."""
    if any(s.start % 15 for s in localtime.shifts(day_start)):
        return False
    try:
        return bool(con.execute("SELECT 1 FROM meta WHERE key = ?",
                                [HOLD_QUARTERS_MARK]).fetchall())
    except duckdb.Error:  # no meta table: a warehouse not built by `uth load`
        return False


def shift_report(con: duckdb.DuckDBPyConnection, shift: tuple[str, list[Any]],
                 day_from: date | None = None, day_to: date | None = None) -> pd.DataFrame:
    """By shift from the quarter-hour rollups; ``shift``: SQL (with parameters) naming the
    shift of the local minute ``quarter``. The same rows as :func:`hold_report`'s from
    the hands and wagers (a drop's currency is its table's, from all its hands)."""
    days, day_params = _days("gaming_day", day_from, day_to)
    sql = f"""
    WITH plays AS (
        SELECT {shift[0]} AS grp, coalesce(currency, '') AS currency, sum(hands) AS hands,
               sum(handle) AS handle, sum(house_win) AS house_win
        FROM hold_quarters WHERE true{days} GROUP BY ALL),
    currencies AS (SELECT table_id, min(currency) AS currency FROM hold_quarters GROUP BY ALL),
    drops AS (
        SELECT {shift[0]} AS grp, coalesce(c.currency, '') AS currency,
               sum(d."drop") AS "drop"
        FROM drop_quarters d LEFT JOIN currencies c USING (table_id)
        WHERE true{days.replace('gaming_day', 'd.gaming_day')} GROUP BY ALL)
    {_FINAL}"""
    return con.execute(sql, [*shift[1], *day_params, *shift[1], *day_params]).df()


_FINAL = """SELECT coalesce(p.grp, d.grp) AS "group", coalesce(p.currency, d.currency) AS currency,
           coalesce(p.hands, 0)::BIGINT AS hands, coalesce(d."drop", 0)::BIGINT AS "drop",
           coalesce(p.handle, 0)::BIGINT AS handle,
           coalesce(p.house_win, 0)::BIGINT AS house_win,
           CASE WHEN d."drop" > 0 THEN coalesce(p.house_win, 0) / d."drop" END AS hold_pct,
           CASE WHEN p.handle > 0 THEN p.house_win / p.handle END AS win_to_handle_pct
    FROM plays p FULL OUTER JOIN drops d
         ON p.grp IS NOT DISTINCT FROM d.grp AND p.currency = d.currency
    ORDER BY "group" NULLS LAST, currency"""


def hold_report(con: duckdb.DuckDBPyConnection, by: str, shift: tuple[str, list[Any]],
                shift_drop: tuple[str, list[Any]], day_from: date | None = None,
                day_to: date | None = None) -> pd.DataFrame:
    """Rows per group (``by`` one of :data:`HOLD_GROUPS`) and currency. ``shift`` and
    ``shift_drop``: SQL (with parameters) naming the shift of ``h.started_at`` and of
    ``e.occurred_at`` (:func:`dashboards.queries.shift_sql`)."""
    if by not in HOLD_GROUPS:
        raise ValueError(f"group by one of {', '.join(HOLD_GROUPS)}")
    if by != "shift":
        return _from_rollup(con, by, day_from, day_to)
    pit_h, pit_h_params = _pit_sql("h.table_id")
    pit_e, pit_e_params = _pit_sql("e.table_id")
    group_h = {"table": ("h.table_id", []), "pit": (pit_h, pit_h_params), "shift": shift,
               "week": ("CAST(date_trunc('week', h.gaming_day) AS DATE)::VARCHAR", [])}[by]
    group_e = {"table": ("e.table_id", []), "pit": (pit_e, pit_e_params),
               "shift": shift_drop,
               "week": ("CAST(date_trunc('week', e.gaming_day) AS DATE)::VARCHAR", [])}[by]
    days, day_params = [], []
    for op, value in ((">=", day_from), ("<=", day_to)):
        if value is not None:
            days.append(f"gaming_day {op} ?")
            day_params.append(value)
    day_where = (" AND " + " AND ".join(days)) if days else ""
    sql = f"""
    WITH h AS (
        SELECT h.hand_id, h.table_id, h.currency, h.status, {group_h[0]} AS grp
        FROM hands h WHERE true{day_where.replace('gaming_day', 'h.gaming_day')}),
    per_hand AS (  -- summed per hand before the join: a join of every wager costs more
        SELECT hand_id, sum(amount) AS handle, -sum(coalesce(recorded_result, 0)) AS win
        FROM wagers WHERE hand_id IN (SELECT hand_id FROM h) GROUP BY hand_id),
    plays AS (
        SELECT h.grp, coalesce(h.currency, '') AS currency,
               count(*) FILTER (h.status IN ('settled', 'voided')) AS hands,
               coalesce(sum(w.handle) FILTER (h.status = 'settled'), 0) AS handle,
               coalesce(sum(w.win), 0) AS house_win
        FROM h LEFT JOIN per_hand w USING (hand_id) GROUP BY ALL),
    currencies AS (SELECT table_id, min(currency) AS currency FROM hands GROUP BY ALL),
    drops AS (
        SELECT {group_e[0]} AS grp, coalesce(c.currency, '') AS currency,
               sum(CAST(e.payload->>'amount' AS BIGINT)) AS "drop"
        FROM events e LEFT JOIN currencies c USING (table_id)
        WHERE e.type = 'ChipsPurchased' AND e.event_id NOT IN {CONFLICT_LOSERS}
              {day_where.replace('gaming_day', 'e.gaming_day')}
        GROUP BY ALL)
    {_FINAL}"""
    params = [*group_h[1], *day_params, *group_e[1], *day_params]
    return con.execute(sql, params).df()


def in_day_order(rows: pd.DataFrame, start: int) -> pd.DataFrame:
    """Rows by shift in the order of the gaming day from its ``start`` (day, swing,
    graveyard), not by name; currencies in order within a shift."""
    if rows.empty:
        return rows
    configured = localtime.shifts(start)
    label = localtime.labels(configured)
    rank = {label[s.name]: (s.start - start) % 1440 for s in configured}
    order = rows["group"].map(lambda g: rank.get(g, 1440))
    return (rows.assign(_order=order).sort_values(["_order", "currency"], kind="stable")
            .drop(columns="_order").reset_index(drop=True))
