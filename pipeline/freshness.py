"""How current the warehouse is: the time of the newest loaded event, the time of the last
load, and how far it is behind the log (records not loaded yet, and seconds), with a
warning past a threshold (``UTH_STALE_SECONDS``, default 60)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from events.logs import LogError, open_log, source_key
from pipeline.warehouse import WarehouseBusy, parse_cursor, reading

STALE_SECONDS = 60.0


def stale_seconds() -> float:
    """``UTH_STALE_SECONDS`` (read when called), else :data:`STALE_SECONDS`."""
    text = os.environ.get("UTH_STALE_SECONDS", "").strip()
    try:
        return float(text) if text else STALE_SECONDS
    except ValueError:
        return STALE_SECONDS


@dataclass(frozen=True)
class Freshness:
    newest_event: datetime | None  # UTC, naive as stored
    last_load: datetime | None
    behind_records: int | None  # None: the log could not be read
    behind_seconds: float
    sources: tuple[str, ...] = ()  # the logs the warehouse was loaded from

    @property
    def stale(self) -> bool:
        return self.behind_seconds > stale_seconds()

    def since_load(self, now: datetime | None = None) -> float | None:
        """Seconds since the last load (None: no load recorded)."""
        if self.last_load is None:
            return None
        now = now or datetime.now(UTC).replace(tzinfo=None)
        return max(0.0, (now - self.last_load).total_seconds())

    def warning(self, now: datetime | None = None, by_age: bool | None = None) -> str | None:
        """Why the warehouse may be stale, or None: more than ``stale_seconds()`` behind
        the log; or, the log's end unknown, no load for longer than that (``by_age``, by
        default when a source is a live log that could not be asked: a file loaded once
        long ago is not stale)."""
        limit = stale_seconds()
        if self.stale:
            return (f"{self.behind_records or 0:,} events not loaded, the warehouse "
                    f"{self.behind_seconds:,.0f} s behind the log (more than {limit:g} s)")
        age = self.since_load(now)
        if by_age is None:
            by_age = any(s.startswith(LIVE_LOGS) for s in self.sources)
        if by_age and self.behind_records is None and age is not None and age > limit:
            return f"no load for {age:,.0f} s (more than {limit:g} s)"
        return None


LIVE_LOGS = ("sqlite:", "kafka:")  # logs whose end is asked cheaply (a file's: its lines)


def log_end(source: str) -> dict[int, int] | None:
    """The end of the log at the (stored) source, or None when it cannot be asked: not a
    live log (a file would be read through), or not reachable (a broker asked for two
    seconds at most)."""
    if not source.startswith(LIVE_LOGS):
        return None
    url = f"{source}?connect_timeout=2" if source.startswith("kafka:") else source
    try:
        with open_log(url, create=False, growing=True) as log:
            return dict(log.end())
    except (LogError, OSError):
        return None


def of_warehouse(con: Any, end_of: Callable[[str], dict[int, int] | None] = log_end,
                 now: datetime | None = None) -> Freshness:
    """The freshness of the warehouse open at ``con`` against every source it loaded
    from (``load_positions``); the records behind are unknown when a source's end is."""
    names = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() "
                                       "WHERE schema_name = 'main'").fetchall()}
    newest = None
    if "events" in names:
        newest = con.execute("SELECT max(occurred_at) FROM events").fetchall()[0][0]
    rows = con.execute("SELECT source, position, updated_at FROM load_positions"
                       ).fetchall() if "load_positions" in names else []
    last_load = max((r[2] for r in rows if r[2] is not None), default=None)
    behind = _behind(rows, end_of) if rows else None
    return Freshness(newest, last_load, behind, _seconds(behind, newest, last_load, now),
                     tuple(str(r[0]) for r in rows))


def _seconds(behind: int | None, newest: datetime | None, last_load: datetime | None,
             now: datetime | None) -> float:
    """How long the records not loaded may have waited: since the newest loaded event
    (table time), or, when that lies ahead of this clock (a floor replayed, a clock
    ahead), since the last load; 0 with nothing behind."""
    now = now or datetime.now(UTC).replace(tzinfo=None)
    if not behind:
        return 0.0
    since = newest if newest is not None and newest <= now else last_load
    return 0.0 if since is None else max(0.0, (now - since).total_seconds())


def _behind(rows: list[Any], end_of: Callable[[str], dict[int, int] | None]) -> int | None:
    total = 0
    for source, position, _ in rows:
        end = end_of(str(source))
        try:
            at = parse_cursor(position)
        except (ValueError, AttributeError):
            return None  # not a position this version stores
        if end is None:
            return None
        total += sum(max(0, o - at.get(p, 0)) for p, o in end.items())
    return total


def freshness(warehouse: str | Path, source: str, now: datetime | None = None) -> Freshness:
    """The warehouse's freshness against the log at ``source`` (positions compared: the log
    is asked only for its end)."""
    key = None
    end: dict[int, int] | None = None
    try:
        with open_log(source, create=False, growing=True) as log:
            key = source_key(log.describe())
            end = log.end()
    except (LogError, OSError):
        pass
    with reading(warehouse) as con:
        newest = con.execute("SELECT max(occurred_at) FROM events").fetchall()[0][0]
        rows = con.execute("SELECT position, updated_at FROM load_positions WHERE source = ?",
                           [key or source]).fetchall()
    position = parse_cursor(rows[0][0]) if rows and rows[0][0] else {}
    last_load = rows[0][1] if rows else None
    behind = None if end is None else sum(max(0, o - position.get(p, 0))
                                          for p, o in end.items())
    return Freshness(newest, last_load, behind, _seconds(behind, newest, last_load, now),
                     (key or source,))


def freshness_line(warehouse: str | Path, source: str, took: float) -> str:
    """One line for ``uth load --follow``: times in the casino's zone."""
    from events.localtime import to_local

    try:
        f = freshness(warehouse, source)
    except (WarehouseBusy, FileNotFoundError) as exc:
        return f"freshness unknown: {exc}"
    except duckdb.CatalogException:  # the first load was stopped before it made its tables
        return f"freshness unknown: no load has completed into {warehouse} yet"

    def clock(at: datetime | None) -> str:
        return "-" if at is None else to_local(at.replace(tzinfo=UTC)).strftime("%H:%M:%S")

    behind = "?" if f.behind_records is None else f"{f.behind_records:,}"
    line = (f"newest event {clock(f.newest_event)}, last load {clock(f.last_load)} "
            f"({took:.1f} s), behind the log {behind} records, {f.behind_seconds:.0f} s")
    return line + (f"  WARNING: more than {stale_seconds():g} s behind" if f.stale else "")
