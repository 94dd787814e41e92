"""The audit asset: hands touched by new events re-audited from all their events, giving
``hands``, ``wagers`` and ``audit_findings`` (plus the table-level sequence findings)."""


from collections.abc import Iterator

import dagster as dg

from pipeline.hands.steps import update_hands
from pipeline.load_steps import audit_metadata
from pipeline.resources import Warehouse
from pipeline.warehouse import load_lock
from pipeline.write_session import held

GROUP = "audit"


@dg.multi_asset(
    specs=[
        dg.AssetSpec("hands", group_name=GROUP, kinds={"duckdb"}, deps=["events"],
                     description="One row per hand: table, ruleset, dealer, seats, start and "
                                 "end, status (settled, voided, incomplete)."),
        dg.AssetSpec("wagers", group_name=GROUP, kinds={"duckdb"}, deps=["events"],
                     description="One row per wager: recorded outcome and result beside the "
                                 "correct ones computed by the engine."),
        dg.AssetSpec("audit_findings", group_name=GROUP, kinds={"duckdb"}, deps=["events"],
                     description="What the auditor found (same fields as `uth audit --json`)."),
    ],
    name="audit_hands",
)
def audit_hands(context: dg.AssetExecutionContext,
                warehouse: Warehouse) -> Iterator[dg.MaterializeResult]:
    with load_lock(warehouse.path), held(warehouse.path):
        meta = audit_metadata(update_hands(warehouse.path, warehouse.day_start_minutes,
                                           warehouse.hands_per_chunk, warehouse.audit_workers))
    context.log.info(f"audited {meta['hands']['hands_audited']} hands")
    for key in ("hands", "wagers", "audit_findings"):
        yield dg.MaterializeResult(asset_key=key, metadata=meta[key])
