"""How current the warehouse is: the time of the newest loaded event, the time of the last
load, and how far it is behind the log (records not loaded yet, and seconds), with a
warning past a threshold (``UTH_STALE_SECONDS``, default 60)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

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

    @property
    def stale(self) -> bool:
        return self.behind_seconds > stale_seconds()


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
    now = now or datetime.now(UTC).replace(tzinfo=None)
    seconds = 0.0
    if behind and newest is not None:
        seconds = max(0.0, (now - newest).total_seconds())
    return Freshness(newest, last_load, behind, seconds)


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
