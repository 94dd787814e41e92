"""A hand's inclusion proof from the warehouse: the latest seal of the hand's source (as
the warehouse copied it from the log), the table's sealed tree from the leaves stored with
the seals, and the events' exact bytes from ``event_bytes``; what the Hand audit page puts
in the evidence it offers for download, as ``uth replay --json`` does from the log."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from events.ledger.log_proof import prove_with, sealed_order, sealed_tree
from events.ledger.logs import last_seal
from events.ledger.seal import LeafRow, SealRecord, blob
from pipeline.warehouse import Connection


def hand_proof(con: Connection, source: str, table_id: str,
               event_ids: Sequence[str]) -> dict[str, Any] | str:
    """The proof of ``event_ids`` (events of ``table_id`` loaded from ``source``) against
    the latest seal the warehouse holds of that source, or why there is none."""
    rows = con.execute("SELECT digest, body, signature FROM seals WHERE source = ? "
                       "ORDER BY number", [source]).fetchall()
    records = {digest: SealRecord(blob(body), blob(sig), []) for digest, body, sig in rows}
    seal = last_seal(list(records.values()), None)
    if seal is None:
        return (f"the warehouse holds no seal of {source} (seal the log with `uth seal`, or "
                "load with --seal-key)")
    head = seal.parsed().head(table_id)
    size = head.size if head is not None else 0
    leaves = [LeafRow(table_id, int(i), int(s), str(e), blob(h)) for i, s, e, h in con.execute(
        "SELECT tree_index, seq, event_id, leaf FROM seal_leaves WHERE source = ? AND "
        "table_id = ? AND tree_index < ? ORDER BY tree_index", [source, table_id, size]
    ).fetchall()]
    holder = [SealRecord(b"", b"", leaves)]
    order = sealed_order(holder, table_id, size)
    tree = sealed_tree(holder, table_id, head.root if head else "", size)
    if order is None or tree is None:
        return (f"the leaves the warehouse stores with seal {seal.parsed().number} do not "
                "rebuild its signed root (run `uth verify --warehouse`)")

    def stored_of(ids: Collection[str]) -> Mapping[str, bytes]:
        wanted = list(ids)
        if not wanted:
            return {}
        return {str(e): bytes(b) for e, b in con.execute(
            "SELECT event_id, stored FROM event_bytes WHERE event_id IN (SELECT UNNEST(?))",
            [wanted]).fetchall() if b is not None}

    return prove_with(seal, table_id, event_ids, order, tree, stored_of)
