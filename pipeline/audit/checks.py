"""Checks on the audit: recorded payouts balance; every mispaid wager reported. Plain
queries, each on a warehouse path or an open connection (see :mod:`pipeline.checks`)."""


from pathlib import Path
from typing import Any

from pipeline.warehouse import CONFLICT_LOSERS, Connection, connected

BALANCE_SQL = f"""
WITH moved AS (
    SELECT hand_id, sum(CAST(CASE type WHEN 'PayoutRecorded' THEN payload->>'amount'
                                       ELSE payload->>'adjustment' END AS BIGINT)) AS amount
    FROM events
    WHERE type IN ('PayoutRecorded', 'DisputeResolved') AND hand_id IN (SELECT hand_id FROM hands)
      AND event_id NOT IN {CONFLICT_LOSERS}
    GROUP BY hand_id
), booked AS (
    SELECT hand_id, sum(coalesce(recorded_result, 0)) AS amount FROM wagers GROUP BY hand_id
)
SELECT hand_id, coalesce(m.amount, 0) AS in_events, coalesce(b.amount, 0) AS in_wagers
FROM moved m FULL JOIN booked b USING (hand_id)
WHERE coalesce(m.amount, 0) <> coalesce(b.amount, 0)
ORDER BY hand_id
"""


# metadata values in cents, one sum per currency ({"EUR": -1250, "USD": 3400}): shown as
# money in each currency, never added across currencies
CENTS_KEYS = frozenset({"sum_recorded_results", "sum_house_win"})


# the load's scope (pipeline.checks.evaluate): its hands; the table-days of its events
_IN_HANDS = "hand_id IN (SELECT hand_id FROM scope_hands)"
_IN_DAYS = "(table_id, gaming_day) IN (SELECT table_id, gaming_day FROM scope_days)"


def payouts_balance(source: str | Path | Connection,
                    scoped: bool = False) -> tuple[bool, dict[str, Any]]:
    """Per hand, the payouts and adjustments recorded in the events equal the wagers'
    recorded results; and, in each currency, the hold rollup's house win equals minus
    their sum. ``scoped``: the load's hands, and the sums over its table-days."""
    with connected(source) as con:
        balance = BALANCE_SQL
        if scoped:
            balance = balance.replace("AND hand_id IN (SELECT hand_id FROM hands)",
                                      f"AND {_IN_HANDS}").replace(
                "FROM wagers GROUP BY hand_id", f"FROM wagers WHERE {_IN_HANDS} GROUP BY hand_id")
        off = con.execute(balance).fetchall()
        days = (" AND (w.table_id, w.gaming_day) IN (SELECT table_id, gaming_day "
                "FROM scope_days)") if scoped else ""
        recorded = dict(con.execute(f"""SELECT coalesce(h.currency, ''), sum(w.recorded_result)
            FROM wagers w LEFT JOIN hands h USING (hand_id)
            WHERE w.gaming_day IS NOT NULL AND w.recorded_result IS NOT NULL{days}
            GROUP BY 1 ORDER BY 1""").fetchall())
        win = dict(con.execute(f"""SELECT coalesce(currency, ''), sum(house_win)
            FROM table_hold_daily WHERE house_win IS NOT NULL{f" AND {_IN_DAYS}" if scoped else ""}
            GROUP BY 1 ORDER BY 1""").fetchall())
    recorded = {c: int(v) for c, v in recorded.items()}
    win = {c: int(v) for c, v in win.items()}
    meta: dict[str, Any] = {"hands_off_balance": len(off), "sum_recorded_results": recorded,
                            "sum_house_win": win}
    if off:
        meta["first_hands_off"] = "\n".join(f"{h}: events {a}, wagers {b}" for h, a, b in off[:10])
    balanced = all(win.get(c, 0) == -recorded.get(c, 0) for c in {*recorded, *win})
    return not off and balanced, meta


def findings_reported(source: str | Path | Connection,
                      scoped: bool = False) -> tuple[bool, dict[str, Any]]:
    """Every touched hand was audited, and every wager whose recorded result differs from
    the correct one has a finding on its hand and seat (``scoped``: the load's hands')."""
    with connected(source) as con:
        pending = con.execute("SELECT (SELECT count(*) FROM pending.hands) + "
                              "(SELECT count(*) FROM pending.sequence)").fetchall()[0][0]
        unreported = con.execute(f"""SELECT count(*) FROM wagers w
            WHERE w.correct_result IS NOT NULL{f" AND w.{_IN_HANDS}" if scoped else ""}
              AND coalesce(w.recorded_result, 0) <> w.correct_result
              AND NOT EXISTS (SELECT 1 FROM audit_findings f WHERE f.hand_id = w.hand_id
                              AND (f.seat = w.seat OR f.seat IS NULL))""").fetchall()[0][0]
        kinds = con.execute("SELECT kind, count(*) FROM audit_findings GROUP BY kind "
                            "ORDER BY kind").fetchall()
    meta: dict[str, Any] = {"hands_waiting": pending, "mispaid_wagers_unreported": unreported,
                            "findings": sum(n for _, n in kinds)}
    meta.update({f"kind_{k}": n for k, n in kinds})
    return pending == 0 and unreported == 0, meta
