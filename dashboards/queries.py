"""Every SQL statement the dashboards run, against a read-only DuckDB connection.

Pages never hold SQL: they call the functions here. Every value a user can type or pick
travels as a bound parameter (``?``); the only text spliced into a statement is a column
name chosen from constants in this module. The connection is opened read-only with
external file access disabled and its configuration locked, so even a statement that got
through could neither write nor read anything outside the warehouse. A connection is held
only while one page runs: DuckDB lets a writer in (``uth load``) only when no reader holds
the file (see :mod:`dashboards.connection`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import duckdb
import pandas as pd

from dashboards import connection, dispute_queries, hand_queries, hold_queries, live_queries
from events import localtime
from pipeline.warehouse import local_sql

# connecting (dashboards.connection) and the audit page's SQL (dashboards.hand_queries)
WarehouseUnavailable = connection.WarehouseUnavailable
open_warehouse = connection.open_warehouse
HAND_SEARCH_LIMIT = hand_queries.HAND_SEARCH_LIMIT
LATE_EVENT_DAYS = hand_queries.LATE_EVENT_DAYS
find_hands = hand_queries.find_hands
hand = hand_queries.hand
hand_events = hand_queries.hand_events
hand_findings = hand_queries.hand_findings
hand_proof = hand_queries.hand_proof
hand_wagers = hand_queries.hand_wagers
latest_day = hand_queries.latest_day
table_opened_before = hand_queries.table_opened_before
DISPUTES_LIMIT = dispute_queries.DISPUTES_LIMIT
disputes = dispute_queries.disputes
dispute_totals = dispute_queries.dispute_totals
HOLD_GROUPS = hold_queries.HOLD_GROUPS
floor_clock = live_queries.floor_clock
freshness = live_queries.freshness
live_tables = live_queries.live_tables
newest_findings = live_queries.newest_findings
PitsError = hold_queries.PitsError

TABLES = (
    "events", "hands", "wagers", "audit_findings", "table_hold_daily", "trips_performance",
    "trips_hits", "dealer_performance", "player_ratings", "player_alerts",
    "player_alert_dealers", "dealer_alerts",
)
# The shifts of ``UTH_SHIFTS``, else three eight-hour shifts from the start of the gaming
# day (``meta.gaming_day_start``, 06:00 unless the warehouse says otherwise); a finding's
# shift is from its local time (the warehouse's zone, ``meta.timezone``).
SHIFT_NAMES = localtime.SHIFT_NAMES
DEFAULT_DAY_START = 6 * 60
FINDING_GROUPS = {"dealer": "f.dealer_id", "table": "f.table_id", "shift": "shift",
                  "kind": "f.kind"}
FINDINGS_LIMIT = 2000


@dataclass(frozen=True)
class Filters:
    """What a user picked; empty tuples mean "all"."""

    day_from: date | None = None
    day_to: date | None = None
    tables: tuple[str, ...] = ()
    rulesets: tuple[str, ...] = ()
    dealers: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    shifts: tuple[str, ...] = ()


@dataclass
class Options:
    """The values a page's filters offer, read from the warehouse."""

    first_day: date | None = None
    last_day: date | None = None
    tables: list[str] = field(default_factory=list)
    rulesets: list[str] = field(default_factory=list)
    dealers: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)


def _df(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> pd.DataFrame:
    return con.execute(sql, list(params)).df()


def missing_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The interface tables the warehouse lacks (all of them for an empty file)."""
    present = {r[0] for r in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'").fetchall()}
    return [t for t in TABLES if t not in present]


def sequence_conflicts(con: duckdb.DuckDBPyConnection,
                       missing: Sequence[str]) -> tuple[int, int]:
    """(events that reuse a seq of their table, tables with such events): many of them
    mean two different floors (or table systems) were loaded into one warehouse.
    ``missing``: the warehouse's missing tables, as :func:`missing_tables` found them."""
    if "audit_findings" in missing:
        return 0, 0
    row = con.execute("SELECT count(*), count(DISTINCT table_id) FROM audit_findings "
                      "WHERE kind = 'sequence_conflict'").fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def hand_count(con: duckdb.DuckDBPyConnection) -> int:
    return int(con.execute("SELECT count(*) FROM hands").fetchone()[0])  # type: ignore[index]


def _where(f: Filters, *, day: str | None = "gaming_day", table: str | None = "table_id",
           ruleset: str | None = None, dealer: str | None = None, kind: str | None = None,
           shift: str | None = None) -> tuple[str, list[Any]]:
    """A WHERE clause over the given (constant) columns; every value is a parameter."""
    clauses: list[str] = []
    params: list[Any] = []
    if day and f.day_from is not None:
        clauses.append(f"{day} >= ?")
        params.append(f.day_from)
    if day and f.day_to is not None:
        clauses.append(f"{day} <= ?")
        params.append(f.day_to)
    for column, values in ((table, f.tables), (ruleset, f.rulesets), (dealer, f.dealers),
                           (kind, f.kinds), (shift, f.shifts)):
        if column and values:
            clauses.append(f"list_contains(?::VARCHAR[], {column})")
            params.append([str(v) for v in values])
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", params


def _options(con: duckdb.DuckDBPyConnection, table: str, columns: dict[str, str]) -> Options:
    opts = Options()
    row = con.execute(f"SELECT min(gaming_day), max(gaming_day) FROM {table}").fetchone()
    if row:
        opts.first_day, opts.last_day = row
    for attr, column in columns.items():
        values = con.execute(f"SELECT DISTINCT {column} FROM {table} "
                             f"WHERE {column} IS NOT NULL ORDER BY 1").fetchall()
        setattr(opts, attr, [str(v[0]) for v in values])
    return opts


# ---------------------------------------------------------------------------- floor
def floor_options(con: duckdb.DuckDBPyConnection) -> Options:
    return _options(con, "table_hold_daily", {"tables": "table_id", "rulesets": "ruleset"})


def floor_rows(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per table and gaming day, outliers first: outside the 95% control limits, then by
    distance from the centre of the limits in half-widths."""
    where, params = _where(f, ruleset="ruleset")
    return _df(con, f"""
        SELECT table_id, gaming_day, ruleset, currency, hands, "drop", handle, house_win,
               hold_pct, win_to_handle_pct, theoretical_win, hands_per_hour,
               hold_ci_low, hold_ci_high,
               coalesce(hold_pct < hold_ci_low OR hold_pct > hold_ci_high, false) AS outside,
               CASE WHEN hold_ci_high > hold_ci_low THEN abs(hold_pct - (hold_ci_low + hold_ci_high)
                    / 2) / ((hold_ci_high - hold_ci_low) / 2) END AS deviation
        FROM table_hold_daily {where}
        ORDER BY outside DESC, deviation DESC NULLS LAST, gaming_day DESC, table_id""", params)


_MONEY_TOTALS = """sum(hands)::BIGINT AS hands, sum("drop")::BIGINT AS "drop",
    sum(handle)::BIGINT AS handle, sum(house_win)::BIGINT AS house_win,
    sum(theoretical_win)::BIGINT AS theoretical_win,
    CASE WHEN sum("drop") > 0 THEN sum(house_win) / sum("drop") END AS hold_pct,
    CASE WHEN sum(handle) > 0 THEN sum(house_win) / sum(handle) END AS win_to_handle_pct"""


def floor_totals(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """One row per currency over the filtered table-days."""
    where, params = _where(f, ruleset="ruleset")
    return _df(con, f"""SELECT currency, {_MONEY_TOTALS}, count(*) AS table_days,
               sum(CASE WHEN hold_pct < hold_ci_low OR hold_pct > hold_ci_high THEN 1 ELSE 0 END)
                   ::BIGINT AS outside
        FROM table_hold_daily {where} GROUP BY currency ORDER BY currency""", params)


def floor_series(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per gaming day and currency, for the time series."""
    where, params = _where(f, ruleset="ruleset")
    return _df(con, f"""SELECT gaming_day, currency, {_MONEY_TOTALS}
        FROM table_hold_daily {where} GROUP BY gaming_day, currency
        ORDER BY gaming_day, currency""", params)


# ---------------------------------------------------------------------------- trips
def trips_options(con: duckdb.DuckDBPyConnection) -> Options:
    return _options(con, "trips_performance", {"tables": "table_id", "rulesets": "ruleset"})


def trips_summary(con: duckdb.DuckDBPyConnection, f: Filters,
                  by_table: bool = True) -> pd.DataFrame:
    """Actual against theoretical Trips hold per ruleset (and table). The 95% band of the
    filtered days combines each day's band: days are independent, so the variance of the
    total win is the sum of the days' variances (half-width x handle, squared)."""
    where, params = _where(f, day="p.gaming_day", table="p.table_id", ruleset="p.ruleset")
    keys = "ruleset, table_id" if by_table else "ruleset"
    p_keys = ", ".join(f"p.{k}" for k in keys.split(", "))
    return _df(con, f"""
        WITH agg AS (
          SELECT {p_keys}, coalesce(min(d.currency), '') AS currency,
                 sum(p.trips_wagers)::BIGINT AS trips_wagers,
                 sum(p.trips_handle)::BIGINT AS trips_handle, sum(p.trips_win)::BIGINT AS trips_win,
                 sum(p.theoretical_hold_pct * p.trips_handle) / nullif(sum(p.trips_handle), 0)
                     AS theoretical_hold_pct,
                 sqrt(sum(power((p.ci_high - p.ci_low) / 2 * p.trips_handle, 2)))
                     / nullif(sum(p.trips_handle), 0) AS half_width
          FROM trips_performance p
          LEFT JOIN table_hold_daily d ON d.table_id = p.table_id AND d.gaming_day = p.gaming_day
          {where} GROUP BY {p_keys})
        SELECT *, trips_win / nullif(trips_handle, 0) AS hold_pct,
               theoretical_hold_pct - half_width AS ci_low,
               theoretical_hold_pct + half_width AS ci_high,
               trips_win / nullif(trips_handle, 0) BETWEEN theoretical_hold_pct - half_width
                   AND theoretical_hold_pct + half_width AS within_band
        FROM agg ORDER BY {keys}""", params)


def trips_hits(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per ruleset and paying hand: hits against the exact probability; ``wagers`` is the
    number of Trips wagers in the same filter (the frequency's denominator)."""
    where, params = _where(f, ruleset="ruleset")
    return _df(con, f"""
        WITH h AS (SELECT ruleset, category, min(category_name) AS category_name,
                          sum(hits)::BIGINT AS hits, sum(expected_hits) AS expected_hits,
                          max(probability) AS probability
                   FROM trips_hits {where} GROUP BY ruleset, category),
             w AS (SELECT ruleset, sum(trips_wagers)::BIGINT AS wagers
                   FROM trips_performance {where} GROUP BY ruleset)
        SELECT h.ruleset, h.category, h.category_name, h.hits, coalesce(w.wagers, 0) AS wagers,
               h.hits / nullif(w.wagers, 0) AS frequency, h.probability, h.expected_hits
        FROM h LEFT JOIN w USING (ruleset)
        WHERE h.category >= 3
        ORDER BY h.ruleset, h.category DESC""", params + params)


# ---------------------------------------------------------------------------- hand audit
# in dashboards/hand_queries.py (re-exported here): find_hands, hand, hand_events,
# table_opened_before, hand_wagers, hand_findings


# ---------------------------------------------------------------------------- findings
def findings_options(con: duckdb.DuckDBPyConnection) -> Options:
    return _options(con, "audit_findings",
                    {"tables": "table_id", "dealers": "dealer_id", "kinds": "kind"})


_FINDINGS_FROM = """
    FROM (SELECT f.*, {shift} AS shift,
                 CASE WHEN f.recorded > f.expected THEN f.recorded - f.expected
                      WHEN f.recorded <= f.expected THEN 0 END AS over,
                 CASE WHEN f.recorded < f.expected THEN f.expected - f.recorded
                      WHEN f.recorded >= f.expected THEN 0 END AS under
          FROM audit_findings f) f
    LEFT JOIN (SELECT table_id, gaming_day, min(currency) AS currency FROM table_hold_daily
               GROUP BY ALL) h ON h.table_id = f.table_id AND h.gaming_day = f.gaming_day"""


def day_start(con: duckdb.DuckDBPyConnection) -> int:
    """Minutes after midnight at which the warehouse's gaming day starts."""
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'gaming_day_start'").fetchone()
        hours, minutes = str(row[0]).split(":") if row else ("6", "0")
        start = int(hours) * 60 + int(minutes)
    except (duckdb.Error, ValueError):
        return DEFAULT_DAY_START
    return start if 0 <= start < 1440 else DEFAULT_DAY_START


def zone(con: duckdb.DuckDBPyConnection) -> str:
    """The zone the warehouse counts its gaming days in (``meta.timezone``), else the
    casino's (``UTH_TIMEZONE``): every time a page shows is local to it."""
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'timezone'").fetchone()
    except duckdb.Error:
        row = None
    return localtime.check_zone(str(row[0])) if row else localtime.zone_name()


def shifts(start: int) -> tuple[str, ...]:
    """The shift labels (``UTH_SHIFTS``, else thirds of a gaming day starting ``start``)."""
    return tuple(localtime.labels(localtime.shifts(start)).values())


def shift_sql(column: str, start: int, tz: str) -> tuple[str, list[Any]]:
    """SQL naming the shift label of a (UTC) TIMESTAMP column, and its parameters."""
    at = local_sql(column, tz)
    return shift_of_minute_sql(f"(hour({at}) * 60 + minute({at}))", start)


def shift_of_minute_sql(minute: str, start: int) -> tuple[str, list[Any]]:
    """SQL naming the shift label of a local minute of the day (an SQL expression; NULL
    falls in the last shift, as a time never received does), and its parameters."""
    configured = sorted(localtime.shifts(start), key=lambda s: s.start, reverse=True)
    label = localtime.labels(configured)
    cases = " ".join(f"WHEN {minute} >= ? THEN ?" for _ in configured)
    params: list[Any] = [x for s in configured for x in (s.start, label[s.name])]
    return f"CASE {cases} ELSE ? END", [*params, label[configured[0].name]]


def _findings_where(f: Filters, start: int) -> tuple[str, list[Any]]:
    return _where(f, day="f.gaming_day", table="f.table_id", dealer="f.dealer_id",
                  kind="f.kind", shift="f.shift")


def _findings_from(con: duckdb.DuckDBPyConnection, start: int) -> tuple[str, list[Any]]:
    sql, params = shift_sql("f.occurred_at", start, zone(con))
    return _FINDINGS_FROM.format(shift=sql), params


def findings(con: duckdb.DuckDBPyConnection, f: Filters, limit: int = FINDINGS_LIMIT,
             start: int = DEFAULT_DAY_START) -> pd.DataFrame:
    """Findings, latest first; ``over``/``under``: what the player got beyond / short of
    the correct settlement (cents)."""
    where, params = _findings_where(f, start)
    source, shift_params = _findings_from(con, start)
    return _df(con, f"""SELECT f.finding_id, {local_sql("f.occurred_at", zone(con))}
               AS occurred_at, f.gaming_day, f.shift, f.kind,
               f.table_id, f.dealer_id, f.hand_id, f.seat, f.spot, f.expected, f.recorded,
               f.over, f.under, f.detail, coalesce(h.currency, '') AS currency
        {source} {where}
        ORDER BY f.occurred_at DESC NULLS LAST, f.finding_id LIMIT ?""",
               [*shift_params, *params, int(limit)])


def findings_totals(con: duckdb.DuckDBPyConnection, f: Filters, by: str,
                    start: int = DEFAULT_DAY_START) -> pd.DataFrame:
    """Counts and totals over- and under-paid grouped by dealer, table, shift or kind
    (and currency)."""
    column = FINDING_GROUPS[by]
    where, params = _findings_where(f, start)
    source, shift_params = _findings_from(con, start)
    return _df(con, f"""SELECT {column} AS "group", coalesce(h.currency, '') AS currency,
               count(*) AS findings,
               count(*) FILTER (WHERE f.expected IS DISTINCT FROM f.recorded
                                AND f.expected IS NOT NULL) AS mispays,
               coalesce(sum(f.over), 0)::BIGINT AS overpaid,
               coalesce(sum(f.under), 0)::BIGINT AS underpaid,
               coalesce(sum(f.over) - sum(f.under), 0)::BIGINT AS net
        {source} {where}
        GROUP BY ALL ORDER BY findings DESC, "group" NULLS LAST""", [*shift_params, *params])


# ---------------------------------------------------------------------------- dealers
def dealer_options(con: duckdb.DuckDBPyConnection) -> Options:
    return _options(con, "dealer_performance", {"dealers": "dealer_id"})


def dealers(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    """Per dealer over the filtered days. ``currency`` is that of the tables where the
    dealer's mispays happened (``mixed`` if several); a dealer without any takes the
    floor's currency when the floor has only one."""
    where, params = _where(f, table=None, dealer="dealer_id")
    f_where, f_params = _where(f, day="f.gaming_day", table=None, dealer="f.dealer_id")
    return _df(con, f"""
        WITH d AS (SELECT dealer_id, sum(hands)::BIGINT AS hands, sum(hours) AS hours,
                          sum(mispays)::BIGINT AS mispays, sum(mispay_net)::BIGINT AS mispay_net,
                          count(*) AS days
                   FROM dealer_performance {where} GROUP BY dealer_id),
             c AS (SELECT f.dealer_id, CASE WHEN count(DISTINCT t.currency) = 1
                                            THEN min(t.currency) ELSE 'mixed' END AS currency
                   FROM audit_findings f JOIN (SELECT DISTINCT table_id, gaming_day, currency
                                               FROM table_hold_daily) t
                        ON t.table_id = f.table_id AND t.gaming_day = f.gaming_day
                   {f_where} GROUP BY f.dealer_id),
             floor AS (SELECT CASE WHEN count(DISTINCT currency) = 1 THEN min(currency) END
                              AS currency FROM table_hold_daily)
        SELECT d.dealer_id, d.days, d.hands, d.hours,
               d.hands / nullif(d.hours, 0) AS hands_per_hour, d.mispays, d.mispay_net,
               1000.0 * d.mispays / nullif(d.hands, 0) AS mispays_per_1000,
               coalesce(c.currency, floor.currency, '') AS currency
        FROM d LEFT JOIN c USING (dealer_id) CROSS JOIN floor
        ORDER BY mispays_per_1000 DESC NULLS LAST, d.dealer_id""", params + f_params)


def dealer_daily(con: duckdb.DuckDBPyConnection, f: Filters) -> pd.DataFrame:
    where, params = _where(f, table=None, dealer="dealer_id")
    return _df(con, f"""SELECT dealer_id, gaming_day, hands, hours, hands_per_hour, mispays,
               mispay_net FROM dealer_performance {where} ORDER BY gaming_day, dealer_id""",
               params)


def hold_report(con: duckdb.DuckDBPyConnection, by: str, day_from: date | None = None,
                day_to: date | None = None) -> pd.DataFrame:
    """Drop, handle and house win by table, pit, shift or week (see hold_queries)."""
    start, tz = day_start(con), zone(con)
    if by == "shift" and hold_queries.quarters_ready(con, start):
        rows = hold_queries.shift_report(con, shift_of_minute_sql("quarter", start),
                                         day_from, day_to)
    else:
        rows = hold_queries.hold_report(con, by, shift_sql("h.started_at", start, tz),
                                        shift_sql("e.occurred_at", start, tz), day_from, day_to)
    return hold_queries.in_day_order(rows, start) if by == "shift" else rows
