"""Whether a load would change nothing: the log has no record after the position the
warehouse stored for it, and nothing else waits. ``uth load`` then skips the Dagster run
(its import, instance and steps are most of a small load's time) and runs only the checks.

The answer is read from the same offset store the load writes (``load_positions``, stored
in the same transaction as the rows), read-only; every doubt says "not up to date", and the
load runs as usual: no warehouse yet, no stored position, a position the log has passed, a
warehouse built with another gaming-day start or zone (the load refuses it, and says why),
a table of this version's schema missing, a source file replaced since its position
(``pipeline.ingest.rotated``), work waiting in ``pending.*`` (a load killed after its
ingest) or player tables built from fewer events (killed before them), or a seal in the
log the warehouse lacks.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from events.ledger.logs import read_seals
from events.localtime import zone_name
from events.logs import open_log, source_key
from pipeline.hands import in_play
from pipeline.ingest.rotated import replaced_note, resume_from_mark, stored_mark
from pipeline.players.transforms import BUILT_FROM, VERSION
from pipeline.warehouse import (
    CURRENT_MARKS,
    META,
    PENDING,
    TABLES,
    WarehouseBusy,
    parse_cursor,
    reading,
)


def _day_start_text(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _settings_match(con: duckdb.DuckDBPyConnection, day_start_minutes: int) -> bool:
    meta = dict(con.execute(f"SELECT key, value FROM {META}").fetchall())
    if meta.get("gaming_day_start") != _day_start_text(day_start_minutes):
        return False
    # a warehouse built before the zone was recorded counted its days in UTC
    return meta.get("timezone", "UTC") == zone_name() and all(
        key in meta for key in CURRENT_MARKS)


def _schema_current(con: duckdb.DuckDBPyConnection) -> bool:
    have = {(s, t) for s, t in con.execute(
        "SELECT table_schema, table_name FROM information_schema.tables").fetchall()}
    want = {("main", t) for t in (*TABLES, META)} | {("pending", t) for t in PENDING}
    return want <= have


def _nothing_pending(con: duckdb.DuckDBPyConnection) -> bool:
    counts = con.execute(" UNION ALL ".join(
        f"SELECT count(*) FROM pending.{name}" for name in PENDING
        if name != "in_play")).fetchall()
    if any(n for (n,) in counts) or in_play.expired(con):  # a hand in play past its time
        return False
    # the player tables' queue is ``pending.players``; their state must be of this version
    built = con.execute(f"SELECT value FROM {META} WHERE key = ?", [BUILT_FROM]).fetchall()
    return bool(built) and built[0][0] == VERSION


def up_to_date(source: str, warehouse: str | Path, day_start_minutes: int) -> str | None:
    """The stored position (as text) when loading ``source`` into ``warehouse`` now would
    change nothing; None when a load has work, or may have."""
    path = Path(warehouse)
    if not path.is_file():
        return None
    log = open_log(source, create=False, growing=True)
    try:
        name = log.describe()
        key = source_key(name)
        try:
            with reading(path, timeout=1.0) as con:
                if not (_schema_current(con) and _settings_match(con, day_start_minutes)
                        and _nothing_pending(con)):
                    return None
                rows = con.execute("SELECT position FROM load_positions WHERE source = ?",
                                   [key]).fetchall()
                if not rows or not rows[0][0]:
                    return None
                position = str(rows[0][0])
                mark = stored_mark(con, key)
                have = {r[0] for r in con.execute(
                    "SELECT digest FROM seals WHERE source = ?", [name]).fetchall()}
        except (WarehouseBusy, duckdb.Error):
            return None  # a load is writing it, or it is not a warehouse of this version
        # the log is read with the warehouse released (a load may want it meanwhile)
        stored = parse_cursor(position)
        if replaced_note(log, position, mark) is not None:
            return None  # another file at the path: the load reads it from its start
        resume_from_mark(log, mark)  # its end counted from the line start kept
        if any(offset > stored.get(p, 0) for p, offset in log.end().items()):
            return None
        if any(seal.digest() not in have for seal in read_seals(log)):
            return None
    finally:
        log.close()
    return position
