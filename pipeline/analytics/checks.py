"""Asset check on ``table_hold_daily``: hold inside its 95% control limits (a warning)."""


from pathlib import Path
from typing import Any

import dagster as dg

from pipeline.resources import Warehouse
from pipeline.warehouse import reading


def hold_outliers(path: str | Path) -> tuple[bool, dict[str, Any]]:
    with reading(path) as con:
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


@dg.asset_check(asset="table_hold_daily",
                description="Each table-day's hold inside its 95% control limits; a warning.")
def hold_within_control_limits(warehouse: Warehouse) -> dg.AssetCheckResult:
    passed, meta = hold_outliers(warehouse.path)
    return dg.AssetCheckResult(passed=passed, severity=dg.AssetCheckSeverity.WARN,
                               metadata=meta)
