"""The inclusion proof of some events of a store (a hand's, for its evidence document),
against the latest seal stored beside it: a log (:func:`prove`) or, given the seals and a
way to read the events' stored bytes, any store (:func:`prove_with`; the warehouse's is
``pipeline.ledger.hand_proof``)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from events.contract.codec import Rejection, decode_line
from events.contract.schemas import TableOpened
from events.ledger.logs import last_seal, read_seals, scan
from events.ledger.merkle import tree_root
from events.ledger.proof import build_proof, span
from events.ledger.seal import SealRecord
from events.ledger.stored import TableEvents
from events.logs.base import EventLog

# the stored bytes of some events, by event id (those the store holds)
StoredOf = Callable[[Collection[str]], Mapping[str, bytes]]


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
    first = dict(ledger.kept)

    def stored_of(ids: Collection[str]) -> Mapping[str, bytes]:
        if all(i in first for i in ids):
            return first
        return scan(log, keep=set(ids)).kept  # the events amid the hand: a second read

    order = list(zip(sealed.event_ids, sealed.seqs, strict=True))
    tree = sealed_tree(seals, table_id, head.root if head else "", size)
    return prove_with(seal, table_id, event_ids, order,
                      tree if tree is not None else sealed.leaves, stored_of)


def prove_with(seal: SealRecord, table_id: str, event_ids: Sequence[str],
               order: Sequence[tuple[str, int]], leaves: Sequence[bytes],
               stored_of: StoredOf) -> dict[str, Any]:
    """The proof of ``event_ids`` against ``seal``: ``order`` is the table's sealed tree as
    (event_id, seq) by leaf index, ``leaves`` its leaf hashes; the table's other events
    between the hand's first and closing event are proved too (``context``)."""
    index = {event_id: i for i, (event_id, _) in enumerate(order)}
    kept = stored_of(event_ids)
    entries = []
    unsealed = []
    for event_id in event_ids:
        data = kept.get(event_id)
        at = index.get(event_id)
        if data is None or at is None:
            unsealed.append(event_id)
            continue
        entries.append((event_id, order[at][1], at, data))
    own = {}
    for _, _, at, data in entries:
        event = decode_line(data, "a proved event")
        if not isinstance(event, Rejection | TableOpened):
            own[at] = event
    between = [i for i in span(own) if i not in own]
    context = []
    if between:
        amid = stored_of([order[i][0] for i in between])
        context = [(order[i][0], order[i][1], i, amid[order[i][0]])
                   for i in between if order[i][0] in amid]
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


def sealed_order(seals: Sequence[SealRecord], table_id: str,
                 size: int) -> list[tuple[str, int]] | None:
    """The table's sealed tree as (event_id, seq) by leaf index, from the leaves stored
    with the seals (None when some are missing)."""
    rows = {r.tree_index: (r.event_id, r.seq) for s in seals for r in s.leaves
            if r.table_id == table_id}
    if any(i not in rows for i in range(size)):
        return None
    return [rows[i] for i in range(size)]
