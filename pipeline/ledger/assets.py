"""The seals asset: after each load, seal the source log when a key is configured
(``UTH_SEAL_KEY`` or ``uth load --seal-key``; past gaps, declaring them lost, with the
resource's ``seal_past_gaps`` or ``UTH_SEAL_PAST_GAPS=1``), and copy the log's seals into
the warehouse.
With ``UTH_SEAL_WITNESS`` naming a file (read when the asset runs), each seal's signed
checkpoint is also appended there, as ``uth seal --witness`` does.

Only the key's path is configured; the key itself is read to sign and goes nowhere else
(not into the log, the warehouse, the archive, the asset's metadata or a log line)."""

import dagster as dg

from pipeline.load_steps import seal
from pipeline.resources import EventSource, Warehouse
from pipeline.warehouse import load_lock


@dg.asset(
    deps=["events"], group_name="ingest", kinds={"duckdb"},
    description=("Signed checkpoints (seals) of every table's Merkle tree of events, "
                 "copied from the source log; with a key configured, the log is sealed "
                 "first (see docs/tamper-evidence.md)."),
)
def seals(context: dg.AssetExecutionContext, source: EventSource,
          warehouse: Warehouse) -> dg.MaterializeResult:
    with load_lock(warehouse.path):
        meta = seal(source.url, warehouse.path, source.seal_key, source.seal_past_gaps,
                    context.log.info)
    return dg.MaterializeResult(metadata=meta)
