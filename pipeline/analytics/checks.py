"""Check on ``table_hold_daily``: hold inside its 95% control limits (a warning). A plain
query on a warehouse path or an open connection (see :mod:`pipeline.checks`)."""


from pathlib import Path
from typing import Any

from pipeline.warehouse import Connection, connected


def hold_outliers(source: str | Path | Connection,
                  scoped: bool = False) -> tuple[bool, dict[str, Any]]:
    """Every table-day's hold, scoped or not (a row per table and day: a small table)."""
    with connected(source) as con:
        rows = con.execute("""SELECT table_id, gaming_day, hold_pct, hold_ci_low, hold_ci_high
            FROM table_hold_daily
            WHERE hold_pct IS NOT NULL AND hold_ci_low IS NOT NULL
              AND (hold_pct < hold_ci_low OR hold_pct > hold_ci_high)
            ORDER BY gaming_day, table_id""").fetchall()
        checked = con.execute("SELECT count(*) FROM table_hold_daily "
                              "WHERE hold_ci_low IS NOT NULL").fetchall()[0][0]
    meta: dict[str, Any] = {"table_days_checked": checked, "outside_limits": len(rows)}
    if rows:
        meta["outliers"] = "\n".join(
            f"{t} {d}: hold {h:.2%} outside [{lo:.2%}, {hi:.2%}]" for t, d, h, lo, hi in rows[:20])
    return not rows, meta
