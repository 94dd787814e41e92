"""A batch of hands audited from columns: the plain ones certified, the others by the
auditor. What both of ``uth load``'s audits (the early audit at ingest,
:mod:`pipeline.hands.at_ingest`, and the audit step, :func:`audit_feed`) and ``uth
reaudit``'s columnar engine (:mod:`pipeline.reaudit.columnar`) do with their hands.

The hands come as two Arrow tables: an index (a row per hand: its ``k``, ``hand_id``,
``table_id``, how many ``tables`` its events are at, the ``opened_id`` of the
``TableOpened`` in force) and their events (``k``, ``type``, ``occurred_at``, ``payload``
as its JSON text: each hand's events together, in ``seq`` order). The payloads are parsed
in one Arrow pass (:mod:`pipeline.hands.hand_columns`) and
:func:`events.audit.certify.certify` certifies the plain hands (no event built); a
certified hand's rows are built from the columns, and are the rows the auditor writes for
it (``tests/reaudit/test_certify.py`` holds it to that). Every other hand (voided,
disputed, mispaid, in play, at more than one table, without rules, out of the common
course) is referred: the caller audits it with the auditor, over its events built as
Structs, which words the findings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from events.audit.certify import DEALING_ORDERS, certify
from events.audit.columns import staked_wagers
from events.contract.schemas import Event, TableOpened
from events.replay.state import TableContext
from pipeline.gc_policy import bulk_work
from pipeline.hands.hand_columns import event_columns, payload_fields
from pipeline.hands.transforms import (
    HANDS_SCHEMA,
    WAGERS_SCHEMA,
    HandRows,
    audit_events,
    stored_events,
)

_UTC = pa.timestamp("us", tz="UTC")


def certify_batch(index: pa.Table, events: pa.Table, contexts: Mapping[str, TableContext],
                  low: int) -> tuple[pa.Table, pa.Table, list[str]]:
    """One batch of hands: ``index`` (``k`` from ``low``, ``hand_id``, ``table_id``, how
    many ``tables`` its events are at, the ``opened_id`` in force), ``events`` (``k``,
    ``type``, ``occurred_at`` as a timestamp or as contract text, ``payload``: each
    hand's events in seq order); the certified hands' (hands, wagers) rows and the other
    hands' ids."""
    n_hands = index.num_rows
    one_table = index["tables"].to_numpy(zero_copy_only=False) == 1
    tables = [contexts.get(o) if o is not None and alone else None for o, alone in
              zip(index["opened_id"].to_pylist(), one_table.tolist(), strict=True)]
    hand = events["k"].to_numpy() - low
    try:
        fields = payload_fields(events["payload"])
    except (pa.ArrowInvalid, ValueError):  # a payload Arrow cannot read as the plan's fields:
        empty = certify_batch(index.slice(0, 0), events.slice(0, 0), contexts, low)
        return empty[0], empty[1], index["hand_id"].to_pylist()  # all to the reference
    result = certify(event_columns(hand, events["type"], fields), n_hands, tables)
    ok = np.flatnonzero(result.ok)
    hand_ids = index["hand_id"].to_numpy(zero_copy_only=False)
    refer = hand_ids[~result.ok].tolist()
    # the hands rows: from each certified hand's first event (HandStarted) and its last
    starts = np.searchsorted(hand, ok)
    ends = np.searchsorted(hand, ok, side="right") - 1
    first = fields.take(starts)
    seats = first["seats"].to_pylist()
    rulesets = [tables[i].ruleset_name for i in ok.tolist()]  # type: ignore[union-attr]
    currencies = [tables[i].currency for i in ok.tolist()]  # type: ignore[union-attr]
    table_ids = index["table_id"].take(ok)
    dealer_ids = first["dealer_id"]
    times = events["occurred_at"]
    if pa.types.is_string(times.type) or pa.types.is_large_string(times.type):
        times = times.cast(_UTC)  # contract text, as the auditor's rows cast it
    hand_rows = pa.table({
        "hand_id": pa.array(hand_ids[ok], pa.string()), "table_id": table_ids,
        "ruleset": pa.array(rulesets, pa.string()),
        "currency": pa.array(currencies, pa.string()), "dealer_id": dealer_ids,
        "seats": pa.array([",".join(map(str, s)) for s in seats], pa.string()),
        "seat_count": pa.array([len(s) for s in seats], pa.int32()),
        "started_at": times.take(starts), "ended_at": times.take(ends),
        "status": pa.array(["settled"] * len(ok), pa.string()),
        "dealing_order": pa.array(np.asarray(DEALING_ORDERS, object)[
            result.dealing_order[ok]], pa.string()),
        "shoe_id": first["shoe_id"],
    }).cast(HANDS_SCHEMA)
    row, spots, amounts, outcomes, results = staked_wagers(result.rows)
    at = np.searchsorted(ok, result.seat_hand[row])  # each wager's hand among the rows
    wager_rows = pa.table({
        "hand_id": hand_rows["hand_id"].take(at), "table_id": table_ids.take(at),
        "dealer_id": dealer_ids.take(at), "ruleset": hand_rows["ruleset"].take(at),
        "seat": pa.array(result.rows[row, 0], pa.int32()),
        "spot": pa.array(spots, pa.string()), "amount": pa.array(amounts, pa.int64()),
        "recorded_outcome": pa.array(outcomes, pa.string()),
        "recorded_result": pa.array(results, pa.int64()),
        "correct_outcome": pa.array(outcomes, pa.string()),
        "correct_result": pa.array(results, pa.int64()),
        "player_category": pa.array(result.categories[row], pa.int32()),
    }).cast(WAGERS_SCHEMA)
    return hand_rows, wager_rows, refer


def with_reference(certified: tuple[pa.Table, pa.Table], reference: HandRows,
                   events: int) -> HandRows:
    """The certified hands' rows and the referred hands' (the auditor's) as one
    :class:`HandRows` (``events``: the events fed, as the audit step counts them)."""
    return HandRows(pa.concat_tables([reference.hands, certified[0]]),
                    pa.concat_tables([reference.wagers, certified[1]]),
                    reference.findings, events)


def audit_feed(feed: Sequence[pa.RecordBatch], hand_ids: Sequence[str]) -> HandRows:
    """The audit step's chunk: the rows of the hands ``hand_ids`` from their feed
    (:func:`pipeline.hands.transforms.read_feed`: the ``TableOpened`` rows, whose
    ``tables`` is null, fed before the hands they are in force for; each hand's events
    together). The plain hands are certified from the feed's columns; only the others'
    events (and the openings) are built and fed to the auditor, as the whole feed was."""
    with bulk_work():
        if not feed:
            return audit_events([], hand_ids)
        table = pa.Table.from_batches(feed)
        opening = pc.is_null(table["tables"]).to_numpy(zero_copy_only=False)
        rows = np.flatnonzero(~opening)
        if not len(rows):
            return _refer_all(table, hand_ids)
        in_feed = table["hand_id"].to_numpy(zero_copy_only=False)
        per_row = in_feed[rows]
        new = np.ones(len(rows), bool)
        new[1:] = per_row[1:] != per_row[:-1]
        starts = rows[new]  # each hand's first row in the feed
        # the TableOpened in force: the last one fed before the hand, at its table
        openings = np.flatnonzero(opening)
        before = np.searchsorted(openings, starts) - 1
        fed = pa.array(openings[np.maximum(before, 0)] if len(openings) else starts)
        hand_tables = table["table_id"].take(pa.array(starts))
        has = pc.and_(pa.array(before >= 0), pc.equal(table["table_id"].take(fed),
                                                       hand_tables))
        index = pa.table({
            "k": pa.array(np.arange(len(starts)), pa.int64()),
            "hand_id": pa.array(in_feed[starts], pa.string()),
            "table_id": hand_tables, "tables": table["tables"].take(pa.array(starts)),
            "opened_id": pc.if_else(has, table["event_id"].take(fed),
                                    pa.scalar(None, pa.string()))})
        events = table.select(["type", "occurred_at", "payload"]).filter(
            pa.array(~opening)).append_column("k", pa.array(np.cumsum(new) - 1, pa.int64()))
        contexts = {ev.event_id: TableContext.opened(ev)
                    for ev in stored_events(table.filter(pa.array(opening)))
                    if isinstance(ev, TableOpened)}
        hands, wagers, refer = certify_batch(index, events, contexts, 0)
        referred = set(refer)
        wanted = [h for h in hand_ids if h in referred]
        if not wanted:
            return with_reference((hands, wagers), audit_events([], []), table.num_rows)
        # the referred hands' events and every opening (a hand's result is its own events'
        # and its TableOpened's: the other hands left out change nothing)
        keep = pc.or_(pa.array(opening), pc.fill_null(pc.is_in(
            table["hand_id"], pa.array(refer, pa.string())), False))
        return with_reference((hands, wagers),
                              _audited(table.filter(keep), wanted), table.num_rows)


def _audited(table: pa.Table, hand_ids: Sequence[str]) -> HandRows:
    events: list[Event] = stored_events(table)
    return audit_events(list(zip(table["position"].to_pylist(), events, strict=True)),
                        hand_ids)


def _refer_all(table: pa.Table, hand_ids: Sequence[str]) -> HandRows:
    rows = _audited(table, hand_ids)
    rows.events = table.num_rows
    return rows
