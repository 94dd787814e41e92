"""The auditor: every hand rebuilt from its events, every payout proved right or wrong.

:func:`audit` reads decoded input (``Event`` or ``Rejection``, optionally as
``(position, item)`` pairs) and returns an :class:`AuditReport`: the findings, the rejected
input, the warehouse rows of hands and wagers, the disputes with their verdicts and a
summary. :class:`Auditor` is the same machine fed incrementally (``uth audit --follow``).

How it works: rejected input is recorded with its reason and position and the audit goes
on; valid events pass the :class:`~events.audit.sequence.Sequencer` (per-table ``seq``
order, redeliveries ignored, gaps and conflicts found) and are collected per hand
(:mod:`events.audit.intake`). A hand is judged when its ``HandEnded`` or ``HandVoided``
arrives, a batch of finished hands at a time:

- the lean path (``records=False``, ``uth audit``): a plain hand (one pass,
  :func:`~events.audit.plan.fast_plan`, finds nothing the fold would flag) is judged in
  bulk with the others of its batch (:func:`~events.audit.judge.judge`: one ``evaluate7``
  call, ``settle_batch`` per ruleset, payouts compared in NumPy);
- every other hand, and every hand when the warehouse rows are wanted as records
  (``records=True``), takes the reference: it is folded event by event
  (:mod:`events.replay.fold`: each event checked before it is applied) and settled seat by
  seat by :func:`~events.audit.settle.settle_hand`, which words each finding.

Both give the same findings (tests run both). A hand that never ends (the stream ends, the
table starts another hand or closes) is an ``incomplete_hand``. Disputes may arrive long
after the hand: an open one gets the computed verdict, a resolved one's adjustment is
checked and enters the accounting (:mod:`events.audit.records`); of a settled hand the
auditor keeps its events (packed) or, when it was clean, only its nets
(:mod:`events.audit.clean`).

>>> report = audit([])
>>> report.summary
{'events': 0, 'hands': 0, 'findings': 0, 'rejected_events': 0, 'duplicates_ignored': 0}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from events.audit.clean import CleanHand, late_event, opening
from events.audit.columns import RowColumns
from events.audit.evidence import evidence
from events.audit.intake import Intake
from events.audit.judge import judge
from events.audit.plan import fast_plan
from events.audit.records import (
    adjustment_findings,
    dispute_record,
    disputes_of,
    hand_record,
    wager_records,
)
from events.audit.sequence import Sequencer
from events.audit.settle import HandSettlement, settle_hand
from events.contract.codec import Rejection
from events.contract.schemas import (
    DisputeOpened,
    DisputeResolved,
    Event,
)
from events.findings import (
    FINDING_KINDS,
    DisputeRecord,
    Finding,
    HandRecord,
    WagerRecord,
)
from events.replay.fold import HandState, TableContext, apply, fold
from events.replay.state import TablesInForce

__all__ = [
    "FINDING_KINDS", "AuditReport", "Auditor", "DisputeRecord", "Finding", "HandRecord",
    "WagerRecord", "audit", "evidence",
]


# hands settled together when auditing in bulk (a file, the warehouse): the vectorized
# judging has a fixed cost per call, so larger batches measured faster (up to about a
# thousand hands); memory grows with the batch
BULK_HANDS = 1024


@dataclass
class AuditReport:
    """What :func:`audit` found. ``summary`` counts distinct valid events, hands, findings,
    rejected inputs and redeliveries ignored."""

    findings: list[Finding]
    rejected: list[Rejection]
    hands: list[HandRecord]
    wagers: list[WagerRecord]
    disputes: list[DisputeRecord]
    summary: dict[str, int]
    settlements: list[HandSettlement] = field(default_factory=list, repr=False)
    columns: RowColumns | None = field(default=None, repr=False)  # plain hands' rows


class Auditor(Intake):
    """An incremental audit. ``feed``/``feed_many`` input, ``flush`` to settle the hands
    that ended, ``finish`` at the end of the input (gaps declared, unfinished hands
    incomplete).

    ``on_finding`` / ``on_dispute`` / ``on_rejected`` are called as results appear (in
    follow mode, to publish them); everything is also kept for the report unless
    ``keep=False``. ``records=True`` keeps every hand to build the warehouse rows at the
    end. ``batch`` finished hands are settled together.
    """

    def __init__(
        self, *, records: bool = False, keep: bool = True, batch: int = 256,
        hold: int = 10_000, window: int = 4096, remember: int = 100_000,
        on_finding: Callable[[Finding], None] | None = None,
        on_dispute: Callable[[DisputeRecord], None] | None = None,
        on_rejected: Callable[[Rejection], None] | None = None,
        gaming_day_start: int = 6, columns: bool = False, sequenced: bool = True,
    ) -> None:
        self.sequenced = sequenced
        self.records = records or columns
        # plain hands' rows as columns, the others' as records (the warehouse's mode)
        self.columns = RowColumns() if columns else None
        # plain hands planned and judged in bulk (else every hand takes the full path)
        self.planning = not records or columns
        self.keep = keep
        self.batch = batch
        self.remember = remember
        self.day_start = gaming_day_start
        self.sequencer = Sequencer(hold, window, self._original)
        self.tables = TablesInForce()
        # hand_id -> (the table's rules when the hand began, its events so far)
        self.open: dict[str, tuple[TableContext | None, list[Event]]] = {}
        self.current: dict[str, str] = {}  # table_id -> its open hand
        self.ready: dict[str, tuple[TableContext | None, list[Event]]] = {}
        # settled hands, oldest first, for disputes and late events: (rules, the events as
        # msgpack bytes: one object per hand, nothing for the garbage collector to walk; or
        # for a clean hand only its nets)
        # (the tables' rules are kept once, in ``contexts``, and named by index here: these
        # tuples hold only strings, numbers and bytes, so the collector need not walk them)
        # (in columns mode a plain hand keeps its event list: a late event re-folds it)
        self.completed: dict[str, tuple[int, bytes | CleanHand | list[Event]]] = {}
        self.contexts: list[TableContext | None] = []
        self._context_index: dict[int, int] = {}
        self.positions: dict[str, dict[str, Any]] = {}
        self.findings: list[Finding] = []
        self.rejected: list[Rejection] = []
        self.disputes: dict[tuple[str, int, str], DisputeRecord] = {}
        self.settled: list[HandSettlement] = []
        self._settled_index: dict[str, int] = {}
        self.hands_seen = 0
        self.overlong: dict[str, int] = {}  # hand_id -> its events past MAX_HAND_EVENTS
        self.stalled: set[str] = set()  # open hands reported silent (stall_seconds)
        self.finding_count = 0
        self.rejected_count = 0
        self.quiet = False  # rebuilding state after a restart: findings not reported
        self._on_finding = on_finding
        self._on_dispute = on_dispute
        self._on_rejected = on_rejected

    # ------------------------------------------------------------------------- output

    def _on_rejected_call(self, rejection: Rejection) -> None:
        self.rejected_count += 1
        if self._on_rejected is not None:
            self._on_rejected(rejection)

    def _emit_all(self, findings: Iterable[Finding]) -> None:
        for f in findings:
            self._emit(f)

    def _emit(self, f: Finding) -> None:
        if self.quiet:
            return
        self.finding_count += 1
        if self.keep:
            self.findings.append(f)
        if self._on_finding is not None:
            self._on_finding(f)

    def _emit_dispute(self, record: DisputeRecord, opened_id: str | None) -> None:
        if self.quiet:
            return
        self.disputes[(record.hand_id, record.seat, opened_id or "")] = record
        if self._on_dispute is not None:
            self._on_dispute(record)

    def _positioned(self, f: Finding, where: dict[str, Any] | None) -> Finding:
        if where and f.position is None and f.event_id in where:
            return replace(f, position=where[f.event_id])
        return f

    def _remember_clean(self, hand_id: str, table: TableContext | None, first: Any,
                        nets: dict[int, int]) -> None:
        """A settled hand with every payout right, kept as its nets (``first``: its
        ``HandStarted``)."""
        self._remember(hand_id, table, CleanHand(first.table_id, first.payload.dealer_id,
                                                 nets), None)

    def flush(self) -> None:
        """Settle the hands that ended (or were abandoned) since the last flush.

        Plain hands (:func:`~events.audit.plan.fast_plan`) are judged in bulk; a hand that
        is not plain, or whose payouts are not all right, takes the reference
        (:meth:`_settle_fully`), which words its findings."""
        if not self.ready:
            return
        hands = list(self.ready.items())
        self.ready.clear()
        encode = _encoder.encode
        full: list[tuple[str, TableContext | None, list[Event]]] = []
        columns = self.columns
        if not self.planning:
            full = [(h, table, events) for h, (table, events) in hands]
        else:
            plans = [fast_plan(events, table) for _, (table, events) in hands]
            judged = judge([p for p in plans if p is not None],
                           seat_rows=columns is not None)
            verdicts = iter(zip(*judged, strict=True))
            for (hand_id, (table, events)), plan in zip(hands, plans, strict=True):
                ok, seats, nets, cats = next(verdicts) if plan is not None else (
                    False, [], {}, [])
                if not ok or plan is None:
                    full.append((hand_id, table, events))
                elif columns is not None:
                    if plan.voided or table is None or self.quiet:
                        full.append((hand_id, table, events))  # rows of the full path
                    else:
                        columns.add(hand_id, table, plan, seats, cats)
                        self._remember(hand_id, table, events, None)
                elif plan.voided:  # kept whole: a late payout of a voided hand is judged
                    self._remember(hand_id, table, encode(events), None)
                else:  # (a plain hand begins with HandStarted)
                    self._remember_clean(hand_id, table, events[0], nets)
        if full:
            self._settle_fully(full)

    def _settle_fully(self, hands: list[tuple[str, TableContext | None, list[Event]]]) -> None:
        """The reference for each hand: folded event by event, settled seat by seat; the
        settlement words every finding."""
        positions = self.positions
        encode = _encoder.encode
        for hand_id, table, events in hands:
            state = fold(events, HandState.begin(hand_id, events[0].table_id, table))
            settlement = settle_hand(state)
            where = positions.pop(hand_id, None) if positions else None
            for f in settlement.findings:
                self._emit(self._positioned(f, where))
            if state.disputes:
                for f in adjustment_findings(settlement):
                    self._emit(self._positioned(f, where))
                for record in disputes_of(settlement):
                    self._emit_dispute(record, record.event_id)
            self._remember(hand_id, table, encode(events), settlement)

    def _remember(self, hand_id: str, table: TableContext | None,
                  blob: bytes | CleanHand | list[Event],
                  settlement: HandSettlement | None) -> None:
        completed = self.completed
        index = self._context_index.get(id(table))
        if index is None or self.contexts[index] is not table:
            index = self._context_index[id(table)] = len(self.contexts)
            self.contexts.append(table)
        completed[hand_id] = (index, blob)
        if len(completed) > self.remember:
            del completed[next(iter(completed))]
        if self.positions:
            self.positions.pop(hand_id, None)
        if settlement is not None and self.records and not self.quiet:
            index = self._settled_index.get(hand_id)
            if index is None:
                self._settled_index[hand_id] = len(self.settled)
                self.settled.append(settlement)
            else:
                self.settled[index] = settlement

    def _late(self, hand_id: str, done: tuple[int, bytes | CleanHand | list[Event]],
              ev: Event) -> None:
        """An event of a hand already settled: a dispute, or a game event that should not
        be there (the fold flags it). The hand is folded again from its events, or, when
        it was clean, answered from what was kept of it."""
        index, blob = done
        table = self.contexts[index]
        if isinstance(blob, CleanHand):
            clean, findings, records = late_event(hand_id, blob, ev)
            self.completed[hand_id] = (index, clean)
            where = self.positions.pop(hand_id, None)
            for f in findings:
                self._emit(self._positioned(f, where))
            for record, opened_id in records:
                self._emit_dispute(record, opened_id)
            return
        events = list(blob) if isinstance(blob, list) else _hand_decoder.decode(blob)
        table_id = events[0].table_id if events else ev.table_id  # the hand's table
        old = fold(events, HandState.begin(hand_id, table_id, table))
        new = apply(old, ev)
        if new is old:
            return
        if self.columns is not None:
            self.columns.drop(hand_id)  # its rows are now the full path's (below)
        events.append(ev)
        settlement = settle_hand(new)
        self._remember(hand_id, table, _encoder.encode(events), settlement)
        where = self.positions.pop(hand_id, None)
        if old.ended is None and new.ended is not None:
            # a hand settled as incomplete has ended since (its last events came after the
            # table's next hand began): it is settled again, and what that finds is new
            shown = {f.finding_id for f in settle_hand(old).findings}
            fresh = [f for f in settlement.findings if f.finding_id not in shown]
        else:
            fresh = list(new.findings[len(old.findings):])
        for f in fresh:
            self._emit(self._positioned(f, where))
        note = new.disputes[-1] if len(new.disputes) > len(old.disputes) else None
        if note is None:
            return
        if note.adjustment is None:
            self._emit_dispute(dispute_record(settlement, note), note.event_id)
            return
        for f in adjustment_findings(settlement, [note]):
            self._emit(self._positioned(f, where))
        opened = opening(new.disputes[:-1], note)
        self._emit_dispute(dispute_record(settlement, opened or note, note),
                           opened.event_id if opened else note.event_id)

    def _orphan_dispute(self, ev: DisputeOpened | DisputeResolved) -> None:
        if isinstance(ev, DisputeOpened):
            seat, text, status, adjustment = ev.payload.seat, ev.payload.claim, "open", None
        else:
            p = ev.payload
            seat, text, status, adjustment = p.seat, p.resolution, "resolved", p.adjustment
        record = DisputeRecord(
            ev.hand_id or "", ev.table_id, seat, text, status, None, None,
            f"Hand {ev.hand_id} is not among the audited events (or is too old to be "
            "remembered); replay it from the log for a verdict.",
            None, adjustment, ev.event_id, ev.occurred_at)
        self._emit_dispute(record, ev.event_id)

    # ---------------------------------------------------------------------- the end

    def pending_positions(self) -> list[Any]:
        """Positions of input not yet fully audited (waiting for its seq, or in a hand
        that has not been settled): a consumer may commit only below all of them."""
        out = self.sequencer.waiting_positions()
        for hand_id in (*self.open, *self.ready):
            where = self.positions.get(hand_id)
            if where:
                out.extend(where.values())
        return out

    def summary(self) -> dict[str, int]:
        return {
            "events": self.sequencer.distinct,
            "hands": self.hands_seen,
            "findings": self.finding_count,
            "rejected_events": self.rejected_count,
            "duplicates_ignored": self.sequencer.duplicates,
        }

    def finish(self) -> AuditReport:
        """End of input: declare remaining gaps, settle every hand (unfinished ones as
        incomplete) and build the report."""
        self.sequencer.release_all(self._process)
        self._emit_all(self.sequencer.findings)
        self.sequencer.findings.clear()
        for table_id in list(self.current):
            self._abandon(table_id)
        self.ready.update(self.open)
        self.open.clear()
        self.flush()
        hands: list[HandRecord] = []
        wagers: list[WagerRecord] = []
        settlements: list[HandSettlement] = list(self.settled) if self.records else []
        if self.records:
            for s in settlements:
                hands.append(hand_record(s, self.day_start))
                wagers.extend(wager_records(s, self.day_start))
        findings = sorted(self.findings, key=Finding.sort_key)
        return AuditReport(findings, list(self.rejected), hands, wagers,
                           list(self.disputes.values()), self.summary(), settlements,
                           self.columns)


_encoder = msgspec.msgpack.Encoder()
_hand_decoder: msgspec.msgpack.Decoder[list[Event]] = msgspec.msgpack.Decoder(list[Event])


def audit(items: Iterable[Any], *, records: bool = True, batch: int = 256,
          gaming_day_start: int = 6, columns: bool = False,
          sequenced: bool = True) -> AuditReport:
    """Audit everything in ``items`` (``Event``/``Rejection``, or ``(position, item)``);
    ``columns=True`` gives the plain hands' rows as ``report.columns``, not records;
    ``sequenced=False``: each table's events are in the order to audit them, each once,
    their ``seq`` not checked (a feed whose sequences are checked elsewhere)."""
    auditor = Auditor(records=records, batch=batch, gaming_day_start=gaming_day_start,
                      columns=columns, sequenced=sequenced)
    auditor.feed_many(items)
    return auditor.finish()
