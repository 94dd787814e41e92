"""The DuckDB warehouse: its tables, and connections that share the file politely.

DuckDB lets one process write a database file, and no other process may open it (even to
read) while that process holds it. So:

- A write is one transaction (:func:`writing`). A load holds one write connection for
  its steps (:mod:`pipeline.write_session`), and lets the file go at its next transaction
  whenever a reader asks (``<warehouse>.wait``, touched by a reader refused the file).
- Readers (the dashboards, ``uth`` queries, the sensor) open the file read-only with
  :func:`reading`, and when a load holds it they ask and retry for a short while
  (``timeout``, 10 s by default, doubling waits from 20 ms to 200 ms) before giving up
  with :class:`WarehouseBusy`. A load waits for readers longer (2 minutes).
- Two loads never run at once: :func:`load_lock` is an exclusive ``flock`` on
  ``<warehouse>.lock`` held for the whole load.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "w.duckdb"
>>> with writing(path) as con:
...     _ = con.execute("INSERT INTO load_positions VALUES ('s', '{}', 0, now())")
>>> query(path, "SELECT source FROM load_positions")
[('s',)]
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb

from events.findings import SEQUENCE_CONFLICT

# The events a table's sequence conflict left out: a later event with a ``seq`` the table
# had already used (the finding's event). They stay in ``events``, as received, but no hand,
# rollup or replay reads them, as ``uth audit`` leaves them out.
CONFLICT_LOSERS = ("(SELECT event_id FROM audit_findings "
                   f"WHERE kind = '{SEQUENCE_CONFLICT}' AND event_id IS NOT NULL)")

DEFAULT_TIMEOUT = 10.0  # how long a reader waits for a load to release the file
WRITE_TIMEOUT = 120.0  # how long a load waits for readers: it should wait, not fail
Connection = duckdb.DuckDBPyConnection
# the write connections this process's loads hold (pipeline.write_session), by real path
HELD: dict[str, Any] = {}

# The interface the dashboards read (money BIGINT cents, *_pct DOUBLE fractions). Keys are
# kept unique by the loader (delete-then-insert per hand, anti-join on event_id) and checked
# by asset checks; DuckDB's ART indexes are not declared on the big tables because they make
# bulk inserts four to five times slower.
TABLES: dict[str, str] = {
    "events": """
        event_id VARCHAR NOT NULL, type VARCHAR, schema_version INTEGER, table_id VARCHAR,
        hand_id VARCHAR, seq BIGINT, occurred_at TIMESTAMP, gaming_day DATE, payload JSON,
        source VARCHAR, position VARCHAR""",
    # each event's exact bytes as its log stores them (after pseudonymization), which the
    # ledger's leaves hash (docs/tamper-evidence.md); beside ``events``, not in it, so the
    # tables the dashboards read keep their columns
    "event_bytes": "event_id VARCHAR NOT NULL, stored BLOB",
    "hands": """
        hand_id VARCHAR NOT NULL, table_id VARCHAR, ruleset VARCHAR, currency VARCHAR,
        dealer_id VARCHAR, seats VARCHAR, seat_count INTEGER, started_at TIMESTAMP,
        ended_at TIMESTAMP, gaming_day DATE, status VARCHAR, dealing_order VARCHAR,
        shoe_id VARCHAR""",
    "wagers": """
        hand_id VARCHAR NOT NULL, table_id VARCHAR, gaming_day DATE, dealer_id VARCHAR,
        ruleset VARCHAR, seat INTEGER, spot VARCHAR, amount BIGINT, recorded_outcome VARCHAR,
        recorded_result BIGINT, correct_outcome VARCHAR, correct_result BIGINT,
        player_category INTEGER""",
    "audit_findings": """
        finding_id VARCHAR NOT NULL, kind VARCHAR, hand_id VARCHAR, table_id VARCHAR,
        dealer_id VARCHAR, seat INTEGER, spot VARCHAR, expected BIGINT, recorded BIGINT,
        detail VARCHAR, occurred_at TIMESTAMP, gaming_day DATE, event_id VARCHAR,
        position VARCHAR""",
    "table_hold_daily": """
        table_id VARCHAR, gaming_day DATE, ruleset VARCHAR, currency VARCHAR, hands BIGINT,
        "drop" BIGINT, handle BIGINT, house_win BIGINT, hold_pct DOUBLE,
        win_to_handle_pct DOUBLE, theoretical_win BIGINT, hands_per_hour DOUBLE,
        hold_ci_low DOUBLE, hold_ci_high DOUBLE""",
    # table_hold_daily by local quarter-hour (minutes after local midnight: 0, 15, ...,
    # 1425) of each hand's start and each buy-in's time, kept with it (pipeline/analytics/
    # hold): what the hold report by shift sums, for any shifts starting on quarter-hours
    "hold_quarters": """
        table_id VARCHAR, gaming_day DATE, quarter SMALLINT, currency VARCHAR,
        hands BIGINT, handle BIGINT, house_win BIGINT""",
    "drop_quarters": """
        table_id VARCHAR, gaming_day DATE, quarter SMALLINT, "drop" BIGINT""",
    "trips_performance": """
        ruleset VARCHAR, table_id VARCHAR, gaming_day DATE, trips_wagers BIGINT,
        trips_handle BIGINT, trips_win BIGINT, hold_pct DOUBLE, theoretical_hold_pct DOUBLE,
        ci_low DOUBLE, ci_high DOUBLE""",
    "trips_hits": """
        ruleset VARCHAR, table_id VARCHAR, gaming_day DATE, category INTEGER,
        category_name VARCHAR, hits BIGINT, expected_hits DOUBLE, probability DOUBLE""",
    "dealer_performance": """
        dealer_id VARCHAR, gaming_day DATE, hands BIGINT, hours DOUBLE,
        hands_per_hour DOUBLE, mispays BIGINT, mispay_net BIGINT""",
    "player_ratings": """
        player VARCHAR, gaming_day DATE, table_id VARCHAR, hands BIGINT, hours DOUBLE,
        avg_ante DOUBLE, avg_wager DOUBLE, handle BIGINT, theo_win BIGINT,
        decision_cost BIGINT, actual_win BIGINT, win_minus_theo BIGINT,
        protection_score DOUBLE, flagged BOOLEAN, currency VARCHAR, theo_base BIGINT,
        theo_trips BIGINT, dispute_adjustment BIGINT""",
    "player_alerts": """
        player VARCHAR, table_id VARCHAR, seats VARCHAR, hands BIGINT, decisions BIGINT,
        score DOUBLE, z_both DOUBLE, z_one DOUBLE, pattern VARCHAR, gain_antes DOUBLE,
        evidence VARCHAR, top_dealer VARCHAR, only_with_dealer VARCHAR""",
    "player_alert_dealers": """
        player VARCHAR, dealer_id VARCHAR, hands BIGINT, gain_antes DOUBLE, z DOUBLE""",
    # dealers flagged on their own statistic (events.protection.dealers)
    "dealer_alerts": """
        dealer_id VARCHAR, tables VARCHAR, hands BIGINT, seat_hands BIGINT, score DOUBLE,
        z_both DOUBLE, z_first DOUBLE, z_second DOUBLE, contrast DOUBLE, pattern VARCHAR,
        gain_antes DOUBLE, evidence VARCHAR, players VARCHAR""",
    # game protection's state between loads (pipeline/players): the sums it keeps, the
    # hands it has scored or holds in play, whose slip each seat-hand went to, the
    # resolved disputes applied
    "protection_sums": "kind VARCHAR, key VARCHAR, value VARCHAR",
    "protection_hands": "table_id VARCHAR, hand_id VARCHAR, ordinal BIGINT, ended BOOLEAN",
    "protection_seat_hands": """
        table_id VARCHAR, hand_id VARCHAR, seat INTEGER, player VARCHAR, gaming_day DATE""",
    "protection_disputes": "event_id VARCHAR",
    "load_positions": """
        source VARCHAR PRIMARY KEY, position VARCHAR, events_loaded BIGINT,
        updated_at TIMESTAMP""",
    "dead_letters": """
        source VARCHAR, position VARCHAR, reason VARCHAR, raw VARCHAR, loaded_at TIMESTAMP""",
    # the seals of the sources loaded (events.ledger), copied from their logs, and the
    # leaves each adds: what `uth verify --warehouse` checks the events against
    "seals": """
        source VARCHAR, number BIGINT, digest VARCHAR, body BLOB, signature BLOB""",
    "seal_leaves": """
        source VARCHAR, seal_digest VARCHAR, table_id VARCHAR, tree_index BIGINT, seq BIGINT,
        event_id VARCHAR, leaf BLOB""",
}

# Work queues between the assets (schema ``pending``): a row says "recompute this key".
# Each is filled in the same transaction as the rows that made the work, and emptied in
# the same transaction as the rows that did it, so a load killed anywhere resumes exactly.
PENDING: dict[str, str] = {
    "hands": "hand_id VARCHAR",
    "sequence": "table_id VARCHAR, from_seq BIGINT",  # NULL from_seq: the whole table
    "archive": "table_id VARCHAR, gaming_day DATE",
    "hold": "table_id VARCHAR, gaming_day DATE",
    "trips": "table_id VARCHAR, gaming_day DATE",
    "dealers": "dealer_id VARCHAR, gaming_day DATE",
    "players": "table_id VARCHAR, hand_id VARCHAR",  # hands game protection has to score
    # hands in play (not ended, their table not moved on): audited again once they are
    # not (pipeline.hands.in_play)
    "in_play": "hand_id VARCHAR",
}

META = "meta"  # key/value settings the warehouse was built with (gaming day start...)
# meta keys a warehouse of this version has: each says a migration of an older warehouse
# (done by the next load with work) is complete
HOLD_QUARTERS_MARK = "hold_quarters"  # every table-day's quarter-hours are built
CURRENT_MARKS: tuple[str, ...] = (HOLD_QUARTERS_MARK,)


class WarehouseBusy(RuntimeError):
    """The warehouse stayed locked by a writer for longer than the reader would wait."""


def _ddl() -> list[str]:
    out = [f"CREATE TABLE IF NOT EXISTS {name} ({cols})" for name, cols in TABLES.items()]
    out.append("CREATE SCHEMA IF NOT EXISTS pending")
    out += [f"CREATE TABLE IF NOT EXISTS pending.{n} ({c})" for n, c in PENDING.items()]
    out.append("ALTER TABLE pending.sequence ADD COLUMN IF NOT EXISTS from_seq BIGINT")
    # the rating slips' theo in two parts and the disputes' adjustments (issue 22's second
    # pass); the table is rebuilt whole by the players asset, so old rows only lack them
    out += [f"ALTER TABLE player_ratings ADD COLUMN IF NOT EXISTS {c} BIGINT"
            for c in ("theo_base", "theo_trips", "dispute_adjustment")]
    # game protection II: the test that scored, the streets, the sequential test's day
    out += [f"ALTER TABLE player_alerts ADD COLUMN IF NOT EXISTS {c}"
            for c in ("test VARCHAR", "streets VARCHAR", "crossed_on DATE")]
    out.append(f"CREATE TABLE IF NOT EXISTS {META} (key VARCHAR PRIMARY KEY, value VARCHAR)")
    out.append("""CREATE TABLE IF NOT EXISTS ruleset_theory (ruleset VARCHAR PRIMARY KEY,
        base_edge_per_ante DOUBLE, trips_edge DOUBLE, trips_sd DOUBLE,
        p3 DOUBLE, p4 DOUBLE, p5 DOUBLE, p6 DOUBLE, p7 DOUBLE, p8 DOUBLE, p9 DOUBLE)""")
    return out


DDL_SCRIPT = ";\n".join(_ddl())


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text or "conflicting" in text or "being used by another" in text


MEMORY_LIMIT = "4GB"  # DuckDB's own default is 80% of the machine, beside the loader's


def memory_limit() -> str:
    """What one warehouse connection may hold before DuckDB spills to disk (beside the
    file): ``UTH_DUCKDB_MEMORY`` (e.g. ``8GB``), else :data:`MEMORY_LIMIT`. Bounded, so that
    a load's sorts and joins over a large warehouse never take the memory the loader's own
    work needs."""
    value = os.environ.get("UTH_DUCKDB_MEMORY", MEMORY_LIMIT).strip()
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)? ?[KMGT]i?B", value):
        raise ValueError(f"UTH_DUCKDB_MEMORY={value[:20]!r}: give a size such as 4GB")
    return value


def _connect(path: Path, read_only: bool, timeout: float) -> duckdb.DuckDBPyConnection:
    limit = memory_limit()
    deadline = time.monotonic() + timeout
    wait = 0.02
    while True:
        try:
            con = duckdb.connect(str(path), read_only=read_only)
            # a setting of the database, not a config: a connection opened elsewhere in the
            # process without it (a test, a notebook) must not be refused for differing
            con.execute(f"SET memory_limit = '{limit}'")
            return con
        except duckdb.IOException as exc:
            if read_only and _is_lock_error(exc):  # ask a load holding the file to yield
                Path(f"{path}.wait").touch()
            if not _is_lock_error(exc):
                raise
            if time.monotonic() >= deadline:
                raise WarehouseBusy(
                    f"{path}: a load is writing the warehouse and did not release it within "
                    f"{timeout:g} s; try again" if read_only else f"{path}: other processes "
                    f"kept the warehouse open for more than {timeout:g} s; the load could "
                    "not write") from exc
        time.sleep(min(wait, max(0.0, deadline - time.monotonic())))
        wait = min(wait * 2, 0.2)


@contextlib.contextmanager
def writing(path: str | Path, timeout: float = WRITE_TIMEOUT) -> Iterator[Connection]:
    """A write connection inside one transaction: committed on success, rolled back on
    error, and closed (releasing the file) either way. Creates the tables when missing."""
    path = Path(path)
    held = HELD.get(str(path.resolve()))
    if held is not None:  # this process's load holds a connection: a transaction on it
        with held.transaction() as con:
            yield con
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    con = _connect(path, read_only=False, timeout=timeout)
    try:
        # one call for all the statements: each call gives up the interpreter lock (and
        # waits up to 5 ms for it while the decoding thread runs): 30 calls, 0.1 s
        con.execute(DDL_SCRIPT)
        con.execute("BEGIN TRANSACTION")
        try:
            yield con
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")
    finally:
        con.close()


@contextlib.contextmanager
def reading(path: str | Path, timeout: float = DEFAULT_TIMEOUT) -> Iterator[Connection]:
    """A read-only connection, retried for up to ``timeout`` s while a load writes."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no warehouse here (run `uth load` first)")
    held = HELD.get(str(path.resolve()))
    if held is not None:  # this process's load holds the file: read through it
        with held.cursor() as con:
            yield con
        return
    con = _connect(path, read_only=True, timeout=timeout)
    try:
        yield con
    finally:
        con.close()


@contextlib.contextmanager
def connected(source: str | Path | Connection) -> Iterator[Connection]:
    """``source`` itself when it is a connection (several reads share it), else a
    read-only connection to the warehouse at that path (:func:`reading`)."""
    if isinstance(source, duckdb.DuckDBPyConnection):
        yield source
        return
    with reading(source) as con:
        yield con


def query(path: str | Path, sql: str, params: Sequence[Any] | None = None,
          timeout: float = DEFAULT_TIMEOUT) -> list[tuple[Any, ...]]:
    """Rows of one parameterized query on a read-only connection (retrying while busy)."""
    with reading(path, timeout) as con:
        return con.execute(sql, list(params or [])).fetchall()


def query_df(path: str | Path, sql: str, params: Sequence[Any] | None = None,
             timeout: float = DEFAULT_TIMEOUT) -> Any:  # like query, a pandas DataFrame
    with reading(path, timeout) as con:
        return con.execute(sql, list(params or [])).df()


def table_names(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables "
                                      "WHERE table_schema = 'main'").fetchall()}


@contextlib.contextmanager
def load_lock(path: str | Path, wait: bool = True) -> Iterator[None]:
    """Exclusive lock for one load at a time on this warehouse (``<path>.lock``)."""
    lock_path = Path(f"{path}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        flags = fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB)
        try:
            fcntl.flock(fd, flags)
        except BlockingIOError as exc:
            raise WarehouseBusy(f"{path}: another load is running") from exc
        yield
    finally:
        os.close(fd)


def parse_day_start(text: str) -> int:
    """``"06:00"`` -> minutes after midnight at which a gaming day starts (a ValueError
    names what is wrong)."""
    from events.localtime import parse_clock

    return parse_clock(text, "gaming day start")


def local_sql(column: str, zone: str | None = None) -> str:
    """SQL for a TIMESTAMP column (UTC, as stored) as local wall time in ``zone``
    (``UTH_TIMEZONE`` when None, read now). The zone name is checked against the IANA
    database and its spelling before it is spliced in."""
    from events.localtime import check_zone, zone_name

    name = zone_name() if zone is None else check_zone(zone)
    if name == "UTC":
        return column
    return f"timezone('{name}', timezone('UTC', {column}))"


def gaming_day_sql(column: str, day_start_minutes: int, zone: str | None = None) -> str:
    """SQL for the gaming day of a TIMESTAMP column: the local date (``UTH_TIMEZONE``)
    of the time ``day_start_minutes`` (local) earlier."""
    return f"CAST({local_sql(column, zone)} - INTERVAL {int(day_start_minutes)} MINUTE AS DATE)"


def check_zone_meta(con: duckdb.DuckDBPyConnection, zone: str | None = None) -> None:
    """Record the zone the gaming days are counted in, or refuse a warehouse counted in
    another (one built before the zone was recorded counted in UTC)."""
    from events.localtime import zone_name

    name = zone_name() if zone is None else zone
    stored = con.execute(f"SELECT value FROM {META} WHERE key = 'timezone'").fetchall()
    built = con.execute(f"SELECT 1 FROM {META} WHERE key = 'gaming_day_start'").fetchall()
    if not stored and built:
        con.execute(f"INSERT INTO {META} VALUES ('timezone', 'UTC')")
    check_meta(con, "timezone", name)


def check_meta(con: duckdb.DuckDBPyConnection, key: str, value: str) -> None:
    """Record ``key = value`` the first time; refuse a warehouse built with another value."""
    rows = con.execute(f"SELECT value FROM {META} WHERE key = ?", [key]).fetchall()
    row = rows[0] if rows else None
    if row is None:
        con.execute(f"INSERT INTO {META} VALUES (?, ?)", [key, value])
    elif row[0] != value:
        raise ValueError(
            f"this warehouse was built with {key} = {row[0]}, not {value}: keep {row[0]}, or "
            "rebuild it (delete the file and load again from the log or the Parquet archive)")


# a log cursor (partition -> next offset) as ``load_positions.position`` stores it
def cursor_text(cursor: dict[int, int]) -> str:
    """A log cursor as stored in ``load_positions.position``: ``{"0": 42}``."""
    return json.dumps({str(p): o for p, o in sorted(cursor.items())})


def cursor_words(cursor: dict[int, int], source: str) -> str:
    """The last record a log cursor (partition -> next offset) has read, as a person reads
    it: ``line 114`` of a JSON Lines file, ``row 228,072`` of an SQLite log, ``partition 0
    offset 41, partition 1 offset 7`` of Kafka; ``nothing read`` for an empty cursor."""
    read = {p: o - 1 for p, o in sorted(cursor.items()) if o > 0}
    if not read:
        return "nothing read"
    if source.startswith("kafka://"):
        return ", ".join(f"partition {p} offset {o:,}" for p, o in read.items())
    word = "row" if source.startswith("sqlite:") else "line"
    return ", ".join(f"{word} {o:,}" for o in read.values())


def parse_cursor(text: str | None) -> dict[int, int]:
    if not text:
        return {}
    return {int(p): int(o) for p, o in json.loads(text).items()}
