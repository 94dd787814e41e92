"""Ingest assets: the log into ``events`` (with ``dead_letters`` and ``load_positions``),
and the Parquet archive of the events partitioned by gaming day and table."""


from collections.abc import Iterator

import dagster as dg

from pipeline.ingest.steps import archive_pending, load_events
from pipeline.ledger.store import write_archive_seals
from pipeline.resources import EventSource, Warehouse
from pipeline.warehouse import load_lock

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
    with load_lock(warehouse.path):
        stats = load_events(source.url, warehouse.path, batch_size=source.batch_size,
                            day_start_minutes=warehouse.day_start_minutes)
    context.log.info(f"loaded {stats.new_events} new events from {stats.records} records "
                     f"({stats.duplicates} duplicates, {stats.rejected} rejected)")
    meta = {"records_read": stats.records, "new_events": stats.new_events,
            "duplicates": stats.duplicates, "rejected": stats.rejected,
            "hands_audited": stats.hands_audited, "hand_findings": stats.hand_findings}
    if stats.note:
        meta["source_note"] = stats.note
    yield dg.MaterializeResult(asset_key="events", metadata=meta)
    yield dg.MaterializeResult(asset_key="dead_letters", metadata={"rejected": stats.rejected})
    yield dg.MaterializeResult(asset_key="load_positions", metadata={"source": source.url})


@dg.asset(
    deps=["events", "seals"], group_name=GROUP, kinds={"parquet"},
    description=("The events as Parquet (pyarrow), partitioned gaming_day=/table_id=: the "
                 "record a distributed engine reads, and what a rebuild can start from. "
                 "Partitions with new events are rewritten whole from the warehouse; the "
                 "seals are written beside them, under _seals/."),
)
def events_archive(warehouse: Warehouse) -> dg.MaterializeResult:
    with load_lock(warehouse.path):
        partitions = archive_pending(warehouse.path, warehouse.archive_path)
        sealed = write_archive_seals(warehouse.path, warehouse.archive_path)
    return dg.MaterializeResult(metadata={"partitions_written": partitions,
                                          "seals_written": sealed,
                                          "path": str(warehouse.archive_path)})
