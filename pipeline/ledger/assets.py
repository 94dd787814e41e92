"""The seals asset: after each load, seal the source log when a key is configured
(``UTH_SEAL_KEY`` or ``uth load --seal-key``; past gaps, declaring them lost, with the
resource's ``seal_past_gaps`` or ``UTH_SEAL_PAST_GAPS=1``), and copy the log's seals into
the warehouse.
With ``UTH_SEAL_WITNESS`` naming a file (read when the asset runs), each seal's signed
checkpoint is also appended there, as ``uth seal --witness`` does.

Only the key's path is configured; the key itself is read to sign and goes nowhere else
(not into the log, the warehouse, the archive, the asset's metadata or a log line)."""

import os

import dagster as dg

from events.ledger.keys import load_private
from events.ledger.logs import seal_log
from events.ledger.witness import append_witness
from events.logs import LogError
from pipeline.ledger.store import copy_log_seals
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
    sealed = 0
    copied = 0
    with load_lock(warehouse.path):
        log = source.open()
        try:
            if source.seal_key:
                seal = seal_log(log, load_private(source.seal_key),
                                past_gaps=source.seal_past_gaps)
                sealed = 1
                context.log.info(f"sealed {log.describe()}: seal {seal.parsed().number}")
                witness = os.environ.get("UTH_SEAL_WITNESS", "")
                if witness:
                    append_witness(witness, seal)
            try:
                copied = copy_log_seals(log, warehouse.path)
            except LogError as exc:
                context.log.warning(f"seals not copied: {exc}")
        finally:
            log.close()
    return dg.MaterializeResult(metadata={"sealed": sealed, "copied": copied})
