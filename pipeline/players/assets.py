"""The players assets: rating slips and game-protection alerts, after the audit."""

from collections.abc import Iterator

import dagster as dg

from pipeline.load_steps import players as players_step
from pipeline.resources import Warehouse
from pipeline.warehouse import load_lock

GROUP = "players"


@dg.multi_asset(
    specs=[
        dg.AssetSpec("player_ratings", group_name=GROUP, kinds={"duckdb"},
                     deps=["events", "hands"],
                     description="Per player (pseudonym or seat session) and gaming day: "
                                 "hands, hours, average ante and wager, handle, theoretical "
                                 "win, the decisions' cost against basic strategy, actual win."),
        dg.AssetSpec("player_alerts", group_name=GROUP, kinds={"duckdb"},
                     deps=["events", "hands"],
                     description="Players whose decisions depend on the dealer's hidden "
                                 "cards (hole-card play): score, pattern, evidence hands."),
        dg.AssetSpec("player_alert_dealers", group_name=GROUP, kinds={"duckdb"},
                     deps=["events", "hands"],
                     description="The flagged players' hidden-card gains by dealer."),
        dg.AssetSpec("dealer_alerts", group_name=GROUP, kinds={"duckdb"},
                     deps=["events", "hands"],
                     description="Dealers whose hands host hole-card play, flagged on their "
                                 "own statistic: score, pattern (flashes or hosts), evidence."),
    ],
    name="players",
)
def players(context: dg.AssetExecutionContext,
            warehouse: Warehouse) -> Iterator[dg.MaterializeResult]:
    with load_lock(warehouse.path):
        counts = players_step(warehouse.path, warehouse.day_start_minutes)
    context.log.info(f"players: {counts or 'no new events'}")
    for key in ("player_ratings", "player_alerts", "player_alert_dealers", "dealer_alerts"):
        yield dg.MaterializeResult(asset_key=key,
                                   metadata={"rows": counts.get(key, -1),
                                             "rebuilt": bool(counts)})
