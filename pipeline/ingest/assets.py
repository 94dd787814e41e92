"""Ingest assets: the log into ``events`` (with ``dead_letters`` and ``load_positions``),
and the Parquet archive of the events partitioned by gaming day and table."""


from collections.abc import Iterator

import dagster as dg

from pipeline.load_steps import archive, ingest
from pipeline.resources import EventSource, Warehouse
from pipeline.warehouse import load_lock
from pipeline.write_session import held

GROUP = "ingest"


@dg.multi_asset(
    specs=[
        dg.AssetSpec("events", group_name=GROUP, kinds={"duckdb"}, description=(
            "One row per distinct valid event (de-duplicated on event_id), envelope columns "
            "plus the payload as JSON, with the gaming day and the log position. A hand "
            "that one batch holds whole is audited here, from the decoded events (its "
            "hands, wagers and audit_findings rows written with them); the audit step "
            "audits the others.")),
        dg.AssetSpec("dead_letters", group_name=GROUP, kinds={"duckdb"},
                     description="Records of the log that are not valid events, with why."),
        dg.AssetSpec("load_positions", group_name=GROUP, kinds={"duckdb"}, description=(
            "Per source, the log position loaded so far: stored in the same transaction "
            "as the rows it produced, so a load resumes exactly where it stopped.")),
    ],
    name="ingest_events",
)
def ingest_events(context: dg.AssetExecutionContext, source: EventSource,
                  warehouse: Warehouse) -> Iterator[dg.MaterializeResult]:
    with load_lock(warehouse.path), held(warehouse.path):
        meta = ingest(source.url, warehouse.path, source.batch_size,
                      warehouse.day_start_minutes)
    ev = meta["events"]
    context.log.info(f"loaded {ev['new_events']} new events from {ev['records_read']} "
                     f"records ({ev['duplicates']} duplicates, {ev['rejected']} rejected)")
    yield dg.MaterializeResult(asset_key="events", metadata=ev)
    yield dg.MaterializeResult(asset_key="dead_letters", metadata=meta["dead_letters"])
    yield dg.MaterializeResult(asset_key="load_positions", metadata={"source": source.url})


@dg.asset(
    deps=["events", "seals"], group_name=GROUP, kinds={"parquet"},
    description=("The events as Parquet (pyarrow), partitioned gaming_day=/table_id=: the "
                 "record a distributed engine reads, and what a rebuild can start from. "
                 "Each load appends its new events (new files in the partitions they "
                 "touch); the seals are written beside them, under _seals/."),
)
def events_archive(warehouse: Warehouse) -> dg.MaterializeResult:
    with load_lock(warehouse.path), held(warehouse.path):
        return dg.MaterializeResult(metadata=archive(warehouse.path, warehouse.archive_path))
