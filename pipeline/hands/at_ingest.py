"""Hands audited by the ingest, from the events it has just decoded.

The audit step (:mod:`pipeline.hands.steps`) reads a hand's events back from ``events`` as
JSON and decodes them a second time. Most hands arrive whole within one batch of a load,
at a table whose stored sequence they extend: such a hand is audited here, in the ingest's
decoding thread, from the batch's decoded events, and its rows are written in the batch's
transaction instead of the hand being queued in ``pending.hands``. Its feed is built as
``FEED_SQL`` builds it (the ``TableOpened`` in force before the hand, the hand's events in
``seq`` order, as decoded, their ``seq`` as stored; the auditor takes them without its
sequencer), so its rows are the ones the audit step would write: a time the warehouse
holds to the microsecond is the same instant in either's text. As in the audit step, the
plain hands are certified from the batch's columns (:mod:`pipeline.hands.certified`: the
payloads' JSON parsed once, no event built) and only the others are fed to the auditor.

A hand is left to the audit step (queued, as before) when the batch cannot show all of it:

- its end (``HandEnded`` or ``HandVoided``) is not in the batch: the batch ends in the
  middle of it, or it is still being played;
- an event of the hand is stored already, or came in an earlier batch of this load;
- its table is unsettled for the rest of this load: an event of the batch at that table
  has a ``seq`` at or below the highest seen there (late, re-sent or conflicting: which
  copy counts and which ``TableOpened`` is in force is then the sequence findings'
  business), two events of the batch share a ``seq`` there, or the table had sequence
  work pending when the load began (its conflicts not found yet);
- its events are at more than one table, or a time is finer than the warehouse holds
  (more than six fraction digits);
- at the write, an event of the batch at that hand turned out to be stored already (a
  redelivery), or another process wrote ``events`` after the load read what it knows.

What this module knows of the stored events is read once per load (:meth:`IngestAudit.load`)
and kept up to date by the batches themselves, in log order.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from events.contract.schemas import Event, TableOpened
from events.replay.state import TableContext
from pipeline.hands.certified import certify_batch, with_reference
from pipeline.hands.findings import FINDINGS_SCHEMA
from pipeline.hands.transforms import (
    FEED_COLUMNS,
    HANDS_SCHEMA,
    WAGERS_SCHEMA,
    HandRows,
    audit_events,
    stored_events,
)
from pipeline.warehouse import CONFLICT_LOSERS, Connection

_ENDS = pa.array(["HandEnded", "HandVoided"], pa.string())
_WIDTH = len("2026-11-29T21:03:11.123456Z")  # a time as the warehouse renders it
_FEED_COLUMNS = ["ord", "type", "table_id", "hand_id", "occurred_at", "position", "seq"]


def warehouse_time(text: str) -> str | None:
    """A contract time as the warehouse renders it (``TIME_FORMAT``: six fraction digits
    and ``Z``), or None when that needs the stored value (more than six digits).

    >>> warehouse_time("2026-11-29T21:03:11.123Z"), warehouse_time("2026-11-29T21:03:11+00:00")
    ('2026-11-29T21:03:11.123000Z', '2026-11-29T21:03:11.000000Z')
    >>> warehouse_time("2026-11-29T21:03:11.1234567Z") is None
    True
    """
    if text.endswith("+00:00"):
        text = text[:-6] + "Z"
    size = len(text)
    if size == _WIDTH:
        return text
    if size == 20:  # no fraction
        return text[:-1] + ".000000Z"
    if 22 <= size < _WIDTH:
        return text[:-1] + "0" * (_WIDTH - size) + "Z"
    return None


@dataclass
class EarlyHands:
    """The hands of one batch audited by the ingest, and their rows."""

    hand_ids: list[str]
    rows: HandRows

    def without(self, hand_ids: Iterable[str]) -> EarlyHands:
        """These rows less those of ``hand_ids`` (left to the audit step after all)."""
        drop = set(hand_ids) & set(self.hand_ids)
        if not drop:
            return self
        keep = [h for h in self.hand_ids if h not in drop]
        wanted = pa.array(keep, pa.string())

        def only(table: pa.Table) -> pa.Table:
            return table.filter(pc.is_in(table["hand_id"], wanted))

        rows = self.rows
        return EarlyHands(keep, HandRows(only(rows.hands), only(rows.wagers),
                                         only(rows.findings), rows.events))


@dataclass
class IngestAudit:
    """What the load knows of the events stored before each batch (see the module)."""

    hands: set[str] = field(default_factory=set)  # hands with an event stored
    top_seq: dict[str, int] = field(default_factory=dict)  # per table, the highest seq
    # per table, its TableOpened events (seq, event, position) by seq
    opened: dict[str, list[tuple[int, Event, str]]] = field(default_factory=dict)
    unsettled: set[str] = field(default_factory=set)  # tables left to the audit step
    stored: int = 0  # events stored when last seen
    contexts: dict[str, TableContext] = field(default_factory=dict)  # by TableOpened's id

    @classmethod
    def load(cls, con: Connection) -> IngestAudit:
        """Read what the warehouse holds (at the start of a load)."""
        view = cls(stored=int(con.execute("SELECT count(*) FROM events").fetchall()[0][0]))
        if not view.stored:
            return view
        view.hands = {row[0] for row in con.execute(
            "SELECT DISTINCT hand_id FROM events WHERE hand_id IS NOT NULL").fetchall()}
        view.top_seq = dict(con.execute(
            "SELECT table_id, max(seq) FROM events GROUP BY table_id").fetchall())
        view.unsettled = {row[0] for row in con.execute(
            "SELECT DISTINCT table_id FROM pending.sequence").fetchall()}
        stored = con.sql(f"""SELECT position, {', '.join(FEED_COLUMNS)} FROM events
            WHERE type = 'TableOpened' AND event_id NOT IN {CONFLICT_LOSERS}
            ORDER BY table_id, seq""").to_arrow_table()
        for ev, position in zip(stored_events(stored), stored["position"].to_pylist(),
                                strict=True):
            view.opened.setdefault(ev.table_id, []).append((ev.seq, ev, position))
        return view

    def still_current(self, con: Connection) -> bool:
        """Whether ``events`` holds what this load expects (inside a batch's transaction):
        when another process wrote it, nothing more is audited early in this load."""
        if self.stored >= 0:
            count = int(con.execute("SELECT count(*) FROM events").fetchall()[0][0])
            if count != self.stored:
                self.stored = -1
        return self.stored >= 0

    def written(self, new_events: int) -> None:
        """A batch's transaction stored ``new_events`` events."""
        if self.stored >= 0:
            self.stored += new_events

    def audit_batch(self, rows: pa.Table, events: Sequence[Event]) -> EarlyHands:
        """Audit the hands that a batch holds whole: ``rows`` are its ``events`` columns
        (``ord`` indexing ``events``, its distinct valid events in log order). Then take
        the batch in as stored, whatever becomes of its rows."""
        highest = self._settle(rows, events)
        # only the columns read below: filtering the whole batch copied its payloads and
        # stored bytes (a tenth of the ingest's decoding thread)
        with_hand = rows.select(_FEED_COLUMNS).filter(pc.is_valid(rows["hand_id"]))
        per_hand = with_hand.group_by("hand_id").aggregate(
            [("seq", "min"), ("seq", "count"), ("table_id", "min"), ("table_id", "max")])
        hand_ids = per_hand["hand_id"].to_pylist()
        # a hand whose end is not in the batch is not whole: the next batch goes on with
        # it (audited here, it would be audited again, whole, by the audit step)
        ended = set(with_hand.filter(pc.is_in(with_hand["type"], _ENDS))["hand_id"].to_pylist())
        whole = [hand_id for hand_id, low, high in zip(
                    hand_ids, *(per_hand[c].to_pylist() for c in ("table_id_min",
                                                                  "table_id_max")), strict=True)
                 if hand_id not in self.hands and hand_id in ended and low == high
                 and low not in self.unsettled]
        self.hands.update(hand_ids)
        self.top_seq.update(highest)
        if not whole:
            return EarlyHands([], HandRows(*_empty_rows()))
        # the hands, and their events, in feed order: by table, hand (its first seq), seq
        wanted = pa.array(whole, pa.string())
        feed_order = [("table_id", "ascending"), ("seq_min", "ascending")]
        hands = per_hand.filter(pc.is_in(per_hand["hand_id"], wanted)).rename_columns(
            {"table_id_min": "table_id"}).sort_by(feed_order)
        picked = with_hand.select(
            ["ord", "table_id", "hand_id", "occurred_at", "position", "seq"]).join(
            hands.select(["hand_id", "seq_min"]), "hand_id", join_type="inner").sort_by(
            [*feed_order, ("seq", "ascending")])
        audited, tables, ranges, in_force = self._in_force(hands, picked)
        if not audited:
            return EarlyHands([], HandRows(*_empty_rows()))
        # the plain hands certified from the batch's columns (its payloads' JSON, parsed
        # in one pass), only the others audited by the auditor from their decoded events
        counts = [end - start for start, end in ranges]
        take = _rows_of(ranges)
        ords = picked["ord"].take(take)
        index = pa.table({
            "k": pa.array(np.arange(len(audited)), pa.int64()),
            "hand_id": pa.array(audited, pa.string()),
            "table_id": pa.array(tables, pa.string()),
            "tables": pa.array(np.ones(len(audited), np.int64)),
            "opened_id": pa.array([None if first is None else first.event_id
                                   for first, _ in in_force], pa.string())})
        batch = pa.table({
            "k": pa.array(np.repeat(np.arange(len(audited)), counts), pa.int64()),
            "type": rows["type"].take(ords), "occurred_at": picked["occurred_at"].take(take),
            "payload": rows["payload"].take(ords)})
        contexts = {first.event_id: self._context(first)
                    for first, _ in in_force if first is not None}
        hand_rows, wager_rows, refer = certify_batch(index, batch, contexts, 0)
        if refer:
            at = {hand_id: i for i, hand_id in enumerate(audited)}
            referred = [at[hand_id] for hand_id in refer]
            feed = _feed([ranges[i] for i in referred], [in_force[i] for i in referred],
                         picked, events)
            reference = audit_events(feed, refer)
        else:
            reference = HandRows(*_empty_rows())
        return EarlyHands(audited, with_reference((hand_rows, wager_rows), reference,
                                                  len(take)))

    def _context(self, opened: Event) -> TableContext:
        """The table context of a ``TableOpened`` (each read once a load)."""
        context = self.contexts.get(opened.event_id)
        if context is None:
            assert isinstance(opened, TableOpened)
            context = self.contexts[opened.event_id] = TableContext.opened(opened)
        return context

    def _settle(self, rows: pa.Table, events: Sequence[Event]) -> dict[str, int]:
        """Mark the tables this batch unsettles and keep its TableOpened events; the
        highest seq of each of its tables."""
        per_table = rows.group_by("table_id").aggregate(
            [("seq", "min"), ("seq", "max"), ("seq", "count"), ("seq", "count_distinct")])
        highest = {}
        for table_id, low, high, count, distinct in zip(*(per_table[c].to_pylist() for c in (
                "table_id", "seq_min", "seq_max", "seq_count", "seq_count_distinct")),
                                                        strict=True):
            top = self.top_seq.get(table_id, -1)
            if count != distinct or low <= top:
                self.unsettled.add(table_id)
            highest[table_id] = max(top, high)
        opened = rows.filter(pc.equal(rows["type"], "TableOpened"))
        for i, position in zip(opened["ord"].to_pylist(), opened["position"].to_pylist(),
                               strict=True):
            ev = events[i]  # in force for the batch's hands after it
            bisect.insort(self.opened.setdefault(ev.table_id, []), (ev.seq, ev, position),
                          key=_seq_of)
        return highest

    def _in_force(self, hands: pa.Table, picked: pa.Table
                  ) -> tuple[list[str], list[str], list[tuple[int, int]], list[InForce]]:
        """The hands of ``hands`` to audit (both in feed order): their ids, tables, rows
        in ``picked`` and the ``TableOpened`` in force when each began (with its
        position). A hand with a time the warehouse cannot hold as it is (more than six
        fraction digits) is left out."""
        unrendered = _unrendered(picked["occurred_at"], picked["hand_id"])
        audited: list[str] = []
        tables: list[str] = []
        ranges: list[tuple[int, int]] = []
        in_force: list[InForce] = []
        table_id = None
        opened: list[tuple[int, Event, str]] = []
        start = 0
        for hand_id, table, count, low in zip(*(hands[c].to_pylist() for c in (
                "hand_id", "table_id", "seq_count", "seq_min")), strict=True):
            end = start + count  # the hand's rows in ``picked``
            if table != table_id:
                table_id = table
                opened = self.opened.get(table, [])
            at = bisect.bisect_left(opened, low, key=_seq_of)  # its first event's seq
            first, where = opened[at - 1][1:] if at else (None, "")
            if hand_id not in unrendered and (
                    first is None or warehouse_time(first.occurred_at) is not None):
                audited.append(hand_id)
                tables.append(table)
                ranges.append((start, end))
                in_force.append((first, where))
            start = end
        return audited, tables, ranges, in_force


InForce = tuple[Event | None, str]  # a hand's TableOpened in force (or None), its position


def _feed(ranges: Sequence[tuple[int, int]], in_force: Sequence[InForce], picked: pa.Table,
          events: Sequence[Event]) -> list[tuple[str, Event]]:
    """The auditor's feed of the hands whose rows in ``picked`` are ``ranges`` (in feed
    order): the events as decoded, with their ``seq``, each hand after the
    ``TableOpened`` in force when it began (fed again only when that changes at its
    table). Only these hands' rows are read out of ``picked``."""
    rows = picked.select(["ord", "position"]).take(_rows_of(ranges))
    ords, positions = rows["ord"].to_pylist(), rows["position"].to_pylist()
    feed: list[tuple[str, Event]] = []
    last: dict[str, Event] = {}
    start = 0
    for (low, high), (first, where) in zip(ranges, in_force, strict=True):
        if first is not None and last.get(first.table_id) is not first:
            feed.append((where, first))
            last[first.table_id] = first
        end = start + high - low
        feed += zip(positions[start:end], [events[i] for i in ords[start:end]], strict=True)
        start = end
    return feed


def _rows_of(ranges: Sequence[tuple[int, int]]) -> pa.Array:
    """The row numbers of these ranges, in order."""
    return pa.array(np.concatenate([np.arange(low, high) for low, high in ranges]))


def _unrendered(times: pa.ChunkedArray, hands: pa.ChunkedArray) -> set[str]:
    """The hands with a time the warehouse cannot hold as it is (more than six fraction
    digits): none when no time is longer than the warehouse's own form (one Arrow
    operation)."""
    if (pc.max(pc.utf8_length(times)).as_py() or 0) <= _WIDTH:
        return set()
    return {h for h, t in zip(hands.to_pylist(), times.to_pylist(), strict=True)
            if warehouse_time(t) is None}


def _seq_of(opened: tuple[int, Event, str]) -> int:
    return opened[0]


def _empty_rows() -> tuple[pa.Table, pa.Table, pa.Table]:
    return (HANDS_SCHEMA.empty_table(), WAGERS_SCHEMA.empty_table(),
            FINDINGS_SCHEMA.empty_table())
