"""The Disputes page's SQL (part of :mod:`dashboards.queries`, which re-exports it).

The warehouse keeps disputes as events (``DisputeOpened``, ``DisputeResolved``) and the
auditor's settlement of their hands as ``wagers`` rows, so a dispute's verdict is read, not
recomputed: a ``DisputeResolved`` closes the oldest open dispute of its hand and seat (as
``events.audit.records.disputes_of`` pairs them), and

- ``owed`` = the seat's correct net (sum of ``correct_result``; unknown when any is) minus
  its recorded net before adjustments (the sum of ``recorded_result``, which the auditor
  lays the seat's adjustments on, minus those adjustments): what ``uth disputes`` says;
- ``adjustment_correct``: whether the seat's adjustments so far equal ``owed``;
- a seat that placed no wager on a hand that ended (settled or voided) was owed nothing
  when nothing was paid to it: ``owed`` 0 (as ``uth disputes`` says, and as the auditor's
  ``adjustment_mismatch`` rule holds), ``note`` ``no wager on this hand``.
"""

from __future__ import annotations

import duckdb
import pandas as pd

from events.audit.disputes import NO_WAGER
from pipeline.warehouse import CONFLICT_LOSERS

DISPUTES_LIMIT = 2000

_DISPUTES = f"""
WITH d AS (
    SELECT hand_id, table_id, type, seq, occurred_at, event_id,
           TRY_CAST(json_extract(payload, '$.seat') AS INTEGER) AS seat,
           json_extract_string(payload, '$.claim') AS claim,
           json_extract_string(payload, '$.resolution') AS resolution,
           TRY_CAST(json_extract(payload, '$.adjustment') AS BIGINT) AS adjustment
    FROM events
    -- the prefix first: DuckDB filters a column by it before the anti-join, by the IN
    -- list after it (six times slower on a large warehouse)
    WHERE starts_with(type, 'Dispute') AND type IN ('DisputeOpened', 'DisputeResolved')
      AND hand_id IS NOT NULL
      AND event_id NOT IN {CONFLICT_LOSERS}),
o AS (SELECT *, row_number() OVER (PARTITION BY hand_id, seat ORDER BY seq) AS k
      FROM d WHERE type = 'DisputeOpened'),
r AS (SELECT *, row_number() OVER (PARTITION BY hand_id, seat ORDER BY seq) AS k,
             sum(coalesce(adjustment, 0)) OVER (PARTITION BY hand_id, seat ORDER BY seq)
                 AS adjusted_so_far
      FROM d WHERE type = 'DisputeResolved'),
p AS (
    SELECT coalesce(o.hand_id, r.hand_id) AS hand_id,
           coalesce(o.table_id, r.table_id) AS table_id, coalesce(o.seat, r.seat) AS seat,
           coalesce(o.claim, r.resolution) AS claim,
           coalesce(o.occurred_at, r.occurred_at) AS opened_at,
           CASE WHEN r.event_id IS NULL THEN 'open' ELSE 'resolved' END AS status,
           r.resolution, r.adjustment, r.occurred_at AS resolved_at, r.adjusted_so_far
    FROM o FULL OUTER JOIN r ON o.hand_id = r.hand_id AND o.seat = r.seat AND o.k = r.k),
adj AS (SELECT hand_id, seat, sum(coalesce(adjustment, 0)) AS total FROM r GROUP BY ALL),
nets AS (
    SELECT hand_id, seat,
           CASE WHEN bool_or(correct_result IS NULL) THEN NULL
                ELSE sum(correct_result) END AS correct_net,
           sum(coalesce(recorded_result, 0)) AS recorded_total,
           bool_or(amount > 0) AS wagered
    FROM wagers WHERE hand_id IN (SELECT hand_id FROM p) GROUP BY ALL),
v AS (
    SELECT p.*, h.dealer_id, coalesce(h.currency, '') AS currency,
           -- no wagers row: the seat neither wagered nor was paid (an adjustment alone
           -- makes a row of stake 0): on a hand that ended, nothing was due
           CASE WHEN n.hand_id IS NULL AND h.status IN ('settled', 'voided') THEN 0
                ELSE n.correct_net - (n.recorded_total - coalesce(adj.total, 0))
           END::BIGINT AS owed,
           CASE WHEN h.status IN ('settled', 'voided') AND NOT coalesce(n.wagered, false)
                THEN '{NO_WAGER}' END AS note
    FROM p
    LEFT JOIN hands h ON h.hand_id = p.hand_id
    LEFT JOIN nets n ON n.hand_id = p.hand_id AND n.seat = p.seat
    LEFT JOIN adj ON adj.hand_id = p.hand_id AND adj.seat = p.seat)
SELECT hand_id, table_id, seat, dealer_id, claim, opened_at, status, resolution, adjustment,
       owed,
       CASE WHEN status = 'resolved' AND owed IS NOT NULL THEN adjusted_so_far = owed END
           AS adjustment_correct,
       resolved_at, currency, note
FROM v"""


def disputes(con: duckdb.DuckDBPyConnection, status: str | None = None,
             limit: int | None = DISPUTES_LIMIT) -> pd.DataFrame:
    """Disputes with their verdict: open ones oldest first, then resolved ones latest
    first; ``status`` ``open`` or ``resolved`` keeps only those."""
    where = "WHERE status = ?" if status else ""
    params: list[object] = [status] if status else []
    return con.execute(f"""SELECT * FROM ({_DISPUTES}) {where}
        ORDER BY status = 'resolved',
                 CASE WHEN status = 'open' THEN epoch(opened_at) ELSE -epoch(opened_at) END,
                 hand_id, seat
        LIMIT ?""", [*params, limit if limit is not None else 2**62]).df()


def dispute_totals(con: duckdb.DuckDBPyConnection,
                   rows: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per currency: open and resolved disputes, what the house owes the players of the
    open ones and what it overpaid them (two sums: one direction never offsets the other),
    wrong adjustments;
    from ``rows`` (every dispute, :func:`disputes` without a limit) when given, which
    saves reading the events again."""
    if rows is None:
        rows = disputes(con, limit=None)
    if rows.empty:
        return pd.DataFrame(columns=["currency", "open", "resolved", "owed_open",
                                     "overpaid_open", "wrong"])
    is_open = rows["status"] == "open"
    owed = rows["owed"].where(is_open, 0).fillna(0).astype(int)
    wrong = rows["adjustment_correct"].astype("boolean").eq(False).fillna(False)
    frame = pd.DataFrame({"currency": rows["currency"], "open": is_open.astype(int),
                          "resolved": (~is_open).astype(int),
                          "owed_open": owed.clip(lower=0).astype(int),
                          "overpaid_open": (-owed).clip(lower=0).astype(int),
                          "wrong": wrong.astype(int)})
    return frame.groupby("currency", as_index=False, sort=True).sum()
