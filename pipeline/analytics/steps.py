"""The rollup steps without Dagster: each rebuilds its pending keys in one transaction."""

from __future__ import annotations

import logging
from pathlib import Path

from pipeline.analytics.dealers.transforms import update_dealers
from pipeline.analytics.hold.transforms import update_hold
from pipeline.analytics.trips.transforms import update_trips
from pipeline.warehouse import writing

log = logging.getLogger("uth.load")

ROLLUPS = {"table_hold_daily": update_hold, "trips_performance": update_trips,
           "dealer_performance": update_dealers}


def update_rollup(warehouse: str | Path, name: str, full: bool = False) -> int:
    with writing(warehouse) as con:
        keys = ROLLUPS[name](con, full)
    if keys:
        log.info("%s: %s %d keys", name, "rebuilt" if full else "updated", keys)
    return keys


def update_rollups(warehouse: str | Path, full: bool = False) -> dict[str, int]:
    return {name: update_rollup(warehouse, name, full) for name in ROLLUPS}
