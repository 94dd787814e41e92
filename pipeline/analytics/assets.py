"""Rollup assets: daily hold per table, Trips performance, dealer performance.

Each rebuilds only the keys (table or dealer, gaming day) that new hands or buy-ins
touched; with ``full_rebuild`` (the daily schedule) every key."""


from collections.abc import Iterator

import dagster as dg

from pipeline.load_steps import rollup
from pipeline.resources import Warehouse
from pipeline.warehouse import load_lock

GROUP = "analytics"


class RollupConfig(dg.Config):
    full_rebuild: bool = False


def _run(name: str, warehouse: Warehouse, config: RollupConfig) -> int:
    with load_lock(warehouse.path):
        return rollup(warehouse.path, name, config.full_rebuild)


@dg.asset(deps=["hands", "wagers", "events"], group_name=GROUP, kinds={"duckdb"},
          description="Per table and gaming day: hands, drop, handle, house win, hold % "
                      "(win / drop), win / handle, theoretical win, hands per hour, and the "
                      "95% control limits of the hold.")
def table_hold_daily(config: RollupConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    keys = _run("table_hold_daily", warehouse, config)
    return dg.MaterializeResult(metadata={"keys_rebuilt": keys,
                                          "full_rebuild": config.full_rebuild})


@dg.multi_asset(
    specs=[
        dg.AssetSpec("trips_performance", group_name=GROUP, kinds={"duckdb"},
                     deps=["hands", "wagers"],
                     description="Per ruleset, table and gaming day: trips wagers, handle, "
                                 "win, hold against the exact theoretical hold and its 95% "
                                 "band."),
        dg.AssetSpec("trips_hits", group_name=GROUP, kinds={"duckdb"}, deps=["hands", "wagers"],
                     description="Trips hits per paying hand category against expectation."),
    ],
    name="trips_rollup",
)
def trips_rollup(config: RollupConfig, warehouse: Warehouse) -> Iterator[dg.MaterializeResult]:
    keys = _run("trips_performance", warehouse, config)
    yield dg.MaterializeResult(asset_key="trips_performance", metadata={"keys_rebuilt": keys})
    yield dg.MaterializeResult(asset_key="trips_hits", metadata={"keys_rebuilt": keys})


@dg.asset(deps=["hands", "audit_findings"], group_name=GROUP, kinds={"duckdb"},
          description="Per dealer and gaming day: hands, hours, hands per hour, mispays and "
                      "their net (recorded - expected: positive when overpaid).")
def dealer_performance(config: RollupConfig, warehouse: Warehouse) -> dg.MaterializeResult:
    keys = _run("dealer_performance", warehouse, config)
    return dg.MaterializeResult(metadata={"keys_rebuilt": keys,
                                          "full_rebuild": config.full_rebuild})


ROLLUP_OPS = ("table_hold_daily", "trips_rollup", "dealer_performance")


def full_rebuild_config() -> dict[str, object]:
    """Run config that makes every rollup asset rebuild all its keys."""
    return {"ops": {op: {"config": {"full_rebuild": True}} for op in ROLLUP_OPS}}
