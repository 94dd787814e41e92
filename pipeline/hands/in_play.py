"""Hands in play: a hand a load finds not ended is not a finding while its table may still
end it.

The audit settles such a hand as ``incomplete`` with an ``incomplete_hand`` finding (``uth
audit`` of a finished log reports it so). In the warehouse the hand is *in play* instead
(``hands.status = 'in_play'``, shown by the Live page, no ``incomplete_hand`` finding,
queued in ``pending.in_play``) while all of these hold:

- it has no ``HandEnded`` or ``HandVoided``;
- its table has not moved on: no later event of the table (by ``seq``) starts another
  hand, belongs to another hand or closes the table;
- it is not older than :func:`in_play_minutes` (``UTH_IN_PLAY_MINUTES``, default 30): of
  wall time since its last event, nor of table time (the table's newest event after it).

Each load's audit step queues again (``pending.hands``) the hands in play for which one of
these no longer holds: re-audited, each is settled (it ended) or kept as an
``incomplete_hand``. A load with nothing new in the log still runs once a hand in play has
passed its time (``pipeline.ingest.up_to_date``).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import duckdb

IN_PLAY_MINUTES = 30.0


def in_play_minutes() -> float:
    """``UTH_IN_PLAY_MINUTES`` (read when called), else :data:`IN_PLAY_MINUTES`."""
    text = os.environ.get("UTH_IN_PLAY_MINUTES", "").strip()
    try:
        return max(0.0, float(text)) if text else IN_PLAY_MINUTES
    except ValueError:
        return IN_PLAY_MINUTES


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _still_sql(hands: str) -> str:
    """The hands of relation ``hands`` (a ``hand_id`` column) still in play; parameters:
    the oldest last-event time allowed (wall clock), the minutes (table time)."""
    return f"""
WITH last AS (
    SELECT e.hand_id, any_value(e.table_id) AS table_id, max(e.seq) AS last_seq,
           max(e.occurred_at) AS last_at,
           bool_or(e.type IN ('HandEnded', 'HandVoided')) AS ended
    FROM events e SEMI JOIN {hands} c USING (hand_id)
    GROUP BY e.hand_id
)
SELECT l.hand_id FROM last l
WHERE NOT l.ended AND l.last_at >= ?
  AND NOT EXISTS (
    SELECT 1 FROM events x
    WHERE x.table_id = l.table_id AND x.seq > l.last_seq
      AND (x.type IN ('HandStarted', 'TableClosed')
           OR (x.hand_id IS NOT NULL AND x.hand_id <> l.hand_id)
           OR x.occurred_at > l.last_at + to_microseconds(CAST(? * 60e6 AS BIGINT))))
"""


def _params() -> list[object]:
    minutes = in_play_minutes()
    return [_now() - timedelta(minutes=minutes), minutes]


def mark(con: duckdb.DuckDBPyConnection) -> int:
    """Inside ``write_hands``' transaction, after the rows of temp table ``chunk``'s
    hands are written: those left ``incomplete`` that are still in play become
    ``in_play``, their ``incomplete_hand`` findings dropped and their wagers not judged
    (no correct result) until they end; ``pending.in_play`` holds
    exactly the chunk's hands in play. How many."""
    con.execute(f"""CREATE OR REPLACE TEMP TABLE chunk_in_play AS
        {_still_sql("(SELECT hand_id FROM hands SEMI JOIN chunk USING (hand_id) "
                    "WHERE status = 'incomplete')")}""", _params())
    con.execute("UPDATE hands SET status = 'in_play' "
                "WHERE hand_id IN (SELECT hand_id FROM chunk_in_play)")
    con.execute("DELETE FROM audit_findings WHERE kind = 'incomplete_hand' "
                "AND hand_id IN (SELECT hand_id FROM chunk_in_play)")
    # not judged until it ends: the incomplete hand's correct results had no finding left
    # to cover them, and findings_are_reported failed on a hand cut after its payouts
    con.execute("UPDATE wagers SET correct_outcome = NULL, correct_result = NULL "
                "WHERE hand_id IN (SELECT hand_id FROM chunk_in_play)")
    con.execute("DELETE FROM pending.in_play WHERE hand_id IN (SELECT hand_id FROM chunk)")
    con.execute("INSERT INTO pending.in_play SELECT hand_id FROM chunk_in_play")
    n = con.execute("SELECT count(*) FROM chunk_in_play").fetchall()[0][0]
    con.execute("DROP TABLE chunk_in_play")
    return int(n)


def requeue(con: duckdb.DuckDBPyConnection) -> int:
    """Queue for the audit (``pending.hands``) the hands in play that no longer are (they
    ended, their table moved on, or their time passed); how many."""
    if not con.execute("SELECT count(*) FROM pending.in_play").fetchall()[0][0]:
        return 0
    rows = con.execute(f"""SELECT DISTINCT hand_id FROM pending.in_play WHERE hand_id NOT IN
        ({_still_sql("pending.in_play")})""", _params()).fetchall()
    if rows:
        con.executemany("INSERT INTO pending.hands VALUES (?)", rows)
    return len(rows)


def expired(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether a hand in play has passed its time (wall clock) with nothing new loaded."""
    row = con.execute("""SELECT count(*) FROM pending.in_play p
        WHERE (SELECT max(occurred_at) FROM events e WHERE e.hand_id = p.hand_id) < ?""",
                      [_params()[0]]).fetchall()
    return bool(row[0][0])
