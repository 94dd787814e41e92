"""The hand-audit page's SQL (part of :mod:`dashboards.queries`, which re-exports it).

A large warehouse keeps no index on ``hand_id`` (bulk loads would slow down), so every
lookup of one hand also names what DuckDB can skip row groups by: rows arrive in time
order, so a time window (``occurred_at``, ``gaming_day``) around the hand reads only a
sliver of ``events`` and ``wagers``. Events that come later than the window (a dispute
filed days after) are found by widening it: ``late_days=None`` reads all later events.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Any

import duckdb
import pandas as pd

from events.game.settlement import SPOTS
from pipeline.hands.opened import OPENED_EVENTS
from pipeline.warehouse import CONFLICT_LOSERS

HAND_SEARCH_LIMIT = 200
LATE_EVENT_DAYS = 7  # events of a hand looked for up to this long after it ended
_SLACK = timedelta(hours=1)  # table clocks drift; an event may be stamped a little early
_EVENT_COLUMNS = """event_id, type, schema_version, table_id, hand_id, seq, occurred_at,
    payload::VARCHAR AS payload, source, position"""


def _df(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> pd.DataFrame:
    return con.execute(sql, params).df()


def latest_day(con: duckdb.DuckDBPyConnection) -> date | None:
    row = con.execute("SELECT max(gaming_day) FROM hands").fetchone()
    return row[0] if row else None


def find_hands(con: duckdb.DuckDBPyConnection, *, hand_id: str = "", table_id: str = "",
               dealer_id: str = "", seat: int | None = None, start: datetime | None = None,
               end: datetime | None = None, limit: int = HAND_SEARCH_LIMIT) -> pd.DataFrame:
    """Hands matching every given criterion (hand id by prefix), latest first; with no
    criterion, the hands of the latest gaming day."""
    clauses: list[str] = []
    params: list[Any] = []
    if hand_id:
        clauses.append("starts_with(hand_id, ?)")
        params.append(hand_id)
    for column, value in (("table_id", table_id), ("dealer_id", dealer_id)):
        if value:
            clauses.append(f"{column} = ?")
            params.append(value)
    if seat is not None:
        clauses.append("list_contains(string_split(replace(seats, ' ', ''), ','), ?)")
        params.append(str(int(seat)))
    if start is not None:
        clauses.append("started_at >= ?")
        params.append(start)
    if end is not None:
        clauses.append("started_at <= ?")
        params.append(end)
    if not clauses:
        last = latest_day(con)
        if last is not None:
            clauses.append("gaming_day >= ?")
            params.append(last)
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    return _df(con, f"""SELECT * FROM hands {where}
        ORDER BY started_at DESC NULLS LAST, hand_id LIMIT ?""", [*params, int(limit)])


def hand(con: duckdb.DuckDBPyConnection, hand_id: str) -> dict[str, Any] | None:
    rows = _df(con, "SELECT * FROM hands WHERE hand_id = ?", [hand_id]).to_dict("records")
    return rows[0] if rows else None


def _moment(value: Any) -> datetime | None:
    if value is None or value is pd.NaT or value != value:
        return None
    moment: datetime = pd.Timestamp(value).to_pydatetime()
    return moment


def hand_events(con: duckdb.DuckDBPyConnection, hand: Mapping[str, Any],
                late_days: int | None = LATE_EVENT_DAYS) -> pd.DataFrame:
    """The hand's events in table order, payloads as JSON text: those from its start to
    ``late_days`` after its end (``None``: to the end of the log)."""
    clauses: list[str] = ["hand_id = ?", f"event_id NOT IN {CONFLICT_LOSERS}"]
    params: list[Any] = [str(hand["hand_id"])]
    started = _moment(hand.get("started_at"))
    ended = _moment(hand.get("ended_at")) or started
    if started is not None:
        clauses.append("occurred_at >= ?")
        params.append(started - _SLACK)
        if late_days is not None and ended is not None:
            clauses.append("occurred_at <= ?")
            params.append(ended + _SLACK + timedelta(days=late_days))
    return _df(con, f"SELECT {_EVENT_COLUMNS} FROM events WHERE {' AND '.join(clauses)} "
               "ORDER BY seq", params)


def table_opened_before(con: duckdb.DuckDBPyConnection, table_id: str, seq: int,
                        at: datetime | None = None) -> pd.DataFrame:
    """The ``TableOpened`` in force for a hand (its rules and limits), if loaded: looked for
    in the day before ``at`` first, then in the whole log."""
    base = f"SELECT {_EVENT_COLUMNS} FROM {OPENED_EVENTS} o WHERE table_id = ? AND seq < ?"
    if at is not None:
        found = _df(con, base + " AND occurred_at BETWEEN ? AND ? ORDER BY seq DESC LIMIT 1",
                    [table_id, int(seq), at - timedelta(days=1), at + _SLACK])
        if not found.empty:
            return found
    return _df(con, base + " ORDER BY seq DESC LIMIT 1", [table_id, int(seq)])


def hand_wagers(con: duckdb.DuckDBPyConnection, hand_id: str,
                gaming_day: date | None = None) -> pd.DataFrame:
    if isinstance(gaming_day, datetime):
        gaming_day = gaming_day.date()
    day = " AND gaming_day = ?" if gaming_day is not None else ""
    return _df(con, f"""SELECT seat, spot, amount, recorded_outcome, recorded_result,
               correct_outcome, correct_result, player_category
        FROM wagers WHERE hand_id = ?{day}
        ORDER BY seat, list_position({list(SPOTS)}, spot)""",
               [hand_id] + ([gaming_day] if gaming_day is not None else []))


def hand_findings(con: duckdb.DuckDBPyConnection, hand_id: str) -> pd.DataFrame:
    return _df(con, """SELECT finding_id, kind, seat, spot, expected, recorded, detail,
               occurred_at FROM audit_findings WHERE hand_id = ? ORDER BY seat, spot, kind""",
               [hand_id])


def hand_proof(con: duckdb.DuckDBPyConnection, events: pd.DataFrame,
               opened: pd.DataFrame) -> dict[str, Any] | str:
    """The inclusion proof of the hand's events (and the ``TableOpened`` before them)
    against the latest seal the warehouse holds of their log, or why there is none."""
    from pipeline.ledger.hand_proof import hand_proof as prove

    if events.empty:
        return "no events of the hand are loaded"
    sources = set(events["source"])
    if len(sources) != 1:
        return "the hand's events were loaded from more than one log"
    ids = [str(e) for e in [*opened.get("event_id", []), *events["event_id"]]]
    try:
        return prove(con, str(sources.pop()), str(events["table_id"].iloc[0]), ids)
    except duckdb.CatalogException:  # a warehouse made before seals were kept
        return "this warehouse keeps no seals"
