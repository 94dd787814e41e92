"""The inclusion proof of some events of a log (a hand's, for its evidence document),
against the latest seal stored beside the log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.contract.codec import Rejection, decode_line
from events.contract.schemas import TableOpened
from events.ledger.evidence_check import span
from events.ledger.logs import last_seal, read_seals, scan
from events.ledger.merkle import tree_root
from events.ledger.proof import build_proof
from events.ledger.seal import SealRecord
from events.ledger.stored import TableEvents
from events.logs.base import EventLog


def prove(log: EventLog, table_id: str, event_ids: Sequence[str]) -> dict[str, Any] | str:
    """The proof of ``event_ids`` (events of ``table_id``), or why there is none."""
    seals = read_seals(log)
    seal = last_seal(seals, None)
    if seal is None:
        return f"{log.describe()} has no seal yet (run `uth seal`)"
    head = seal.parsed().head(table_id)
    size = head.size if head is not None else 0
    ledger = scan(log, keep=set(event_ids))
    table = ledger.tables.get(table_id) or TableEvents()
    sealed = table[:size]  # the tree: the table's first events in seq order
    index = {e.event_id: i for i, e in enumerate(sealed)}
    entries = []
    unsealed = []
    for event_id in event_ids:
        data = ledger.kept.get(event_id)
        at = index.get(event_id)
        if data is None or at is None:
            unsealed.append(event_id)
            continue
        entries.append((event_id, sealed[at].seq, at, data))
    own = {}
    for _, _, at, data in entries:
        event = decode_line(data, "a proved event")
        if not isinstance(event, Rejection | TableOpened):
            own[at] = event
    between = [i for i in span(own) if i not in own]
    context = []
    if between:  # the table's other events amid the hand: proved too (a second read)
        kept = scan(log, keep={sealed[i].event_id for i in between}).kept
        context = [(sealed[i].event_id, sealed[i].seq, i, kept[sealed[i].event_id])
                   for i in between if sealed[i].event_id in kept]
    tree = sealed_tree(seals, table_id, head.root if head else "", size)
    leaves = tree if tree is not None else [e.leaf for e in sealed]
    return build_proof(seal, table_id, leaves, entries, unsealed, context)


def sealed_tree(seals: Sequence[SealRecord], table_id: str, root: str,
                size: int) -> list[bytes] | None:
    """The table's first ``size`` leaves as stored with the seals, when they rebuild the
    signed ``root`` (else None). A proof's paths come from the sealed tree, not from the
    store's events: an event altered since the seal then fails its own path only, and every
    other event of the hand still proves."""
    rows = {r.tree_index: r.leaf for s in seals for r in s.leaves if r.table_id == table_id}
    if any(i not in rows for i in range(size)):
        return None
    leaves = [rows[i] for i in range(size)]
    return leaves if size and tree_root(leaves).hex() == root else None
