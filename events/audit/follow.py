"""The auditor as a long-running consumer (``uth audit --follow``), over any event log.

Exactly-once effect, with at-least-once delivery underneath:

1. Records are read as consumer ``uth-auditor`` (on Kafka, a member of that consumer group:
   start more members to share the partitions; a table's events stay on one partition
   because the key is the table).
2. After each batch the hands that ended are settled and their findings are published (to
   the topic ``uth.audit-findings``, key = ``hand_id``) and acknowledged by the broker;
   only then is the consumer's position committed.
3. The position committed for a partition is the first record not yet fully audited: the
   earliest event of a hand still open (or waiting for a missing ``seq``), else the next
   record. Nothing is lost: whatever was not audited is read again after a crash.
4. What a restart reads again is rebuilt without publishing: on the first record of a
   partition (at start, or when a rebalance hands it over) the partition is read from its
   beginning up to that record *quietly* (tables, sequences and settled hands restored,
   nothing published). Findings of hands that ended after the last commit are published
   again, with the same ``finding_id`` (a hash of what the finding says). The publisher of
   ``uth audit --follow`` (``pipeline.audit.publish.PublishOnce``) catches its one
   long-lived reader of the findings topic up before each publish and skips every
   ``finding_id`` already there, so the topic carries each finding once; a store keyed by
   ``finding_id`` (the warehouse's ``audit_findings``) holds each once whatever the
   publisher.

A hand is settled only when its ``HandEnded`` or ``HandVoided`` arrives; a hand still open
when the auditor stops is audited after the restart. A hand that may never end is reported
as it happens: past ``MAX_HAND_EVENTS`` events (``overlong_hand``), or silent for
``stall_seconds`` of table time while its table goes on, or while its table sends
nothing at all for ``stall_seconds`` of the follower's wall clock (``incomplete_hand``;
a restart starts that clock again from the catch-up). SIGTERM
ends the current batch, publishes, commits and returns.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from events.audit.auditor import Auditor
from events.contract.codec import Rejection, decode_records
from events.contract.privacy import scrub_all
from events.findings import DisputeRecord, Finding, finding_id
from events.logs.base import Cursor, EventLog, Record, StopFlag, never

CONSUMER = "uth-auditor"
FINDINGS_TOPIC = "uth.audit-findings"
STALL_SECONDS = 1800.0  # table time without an event of an open hand (default 30 minutes)

Publish = Callable[[list[tuple[str, bytes]]], None]


def finding_message(f: Finding) -> tuple[str, bytes]:
    out = f.to_json()
    out["position"] = _where(f.position)
    return f.hand_id or f.table_id or "", json.dumps(out, sort_keys=True).encode()


def dispute_message(d: DisputeRecord) -> tuple[str, bytes]:
    return d.hand_id, json.dumps(d.to_json(), sort_keys=True).encode()


def rejected_message(r: Rejection) -> tuple[str, bytes]:
    where = _where(r.position)
    out = {"kind": "rejected", "reason": r.reason, "code": r.code, "position": where,
           "event_id": r.event_id, "table_id": r.table_id,
           "finding_id": finding_id("rejected", r.table_id, None, None, None,
                                    f"{where}: {r.reason}")}
    return r.table_id or "", json.dumps(out, sort_keys=True).encode()


def _where(position: Any) -> Any:
    if isinstance(position, tuple):
        return f"{position[0]}@{position[1]}"
    return position


class FollowAuditor:
    """Audit ``log`` as consumer ``consumer``, publishing through ``publish`` (a call that
    returns once the messages are durable). ``run()`` returns the summary at the end."""

    def __init__(self, log: EventLog, publish: Publish, *, consumer: str = CONSUMER,
                 stop: StopFlag = never, batch: int = 2000,
                 on_message: Callable[[str, dict[str, Any]], None] | None = None,
                 stall_seconds: float | None = STALL_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.log = log
        self.publish = publish
        self.consumer = consumer
        self.stop = stop
        self.batch = batch
        self.on_message = on_message
        self.pending: list[tuple[str, bytes]] = []
        self.known: Cursor = {}  # partition -> next offset the auditor's state covers
        self.published = 0
        self.commits = 0
        self._last_commit: Cursor = {}
        self.auditor = Auditor(
            keep=False, on_finding=self._finding, on_dispute=self._dispute,
            on_rejected=self._rejected)
        # a hand silent this long while its table goes on is reported (it may never end)
        self.auditor.stall_seconds = stall_seconds
        self.clock = clock
        self.heard: dict[str, float] = {}  # table -> when (clock) its last event was read

    # ---------------------------------------------------------------------- messages

    def _queue(self, message: tuple[str, bytes]) -> None:
        self.pending.append(message)
        if self.on_message is not None:
            self.on_message(message[0], json.loads(message[1]))

    def _finding(self, f: Finding) -> None:
        self._queue(finding_message(f))

    def _dispute(self, d: DisputeRecord) -> None:
        self._queue(dispute_message(d))

    def _rejected(self, r: Rejection) -> None:
        self._queue(rejected_message(r))

    # -------------------------------------------------------------------------- loop

    def _reader(self) -> Iterator[list[Record]]:
        read_group = getattr(self.log, "read_group", None)
        if read_group is not None:
            reader: Iterator[list[Record]] = read_group(self.consumer, follow=True,
                                                        stop=self.stop, max_batch=self.batch)
            return reader
        checkpoint = self.log.committed(self.consumer)
        start = dict(checkpoint.cursor) if checkpoint else None
        return self.log.read(start, follow=True, stop=self.stop, max_batch=self.batch)

    def run(self) -> dict[str, int]:
        for records in self._reader():
            if records:
                self._catch_up(records)
                self._feed(records)
            self.auditor.flush()
            self._silent_tables()
            self._publish_and_commit()
        self.auditor.flush()
        self._publish_and_commit()
        return {**self.auditor.summary(), "published": self.published,
                "commits": self.commits}

    def _feed(self, records: list[Record]) -> None:
        # a player identifier as uth ingest stores it: no rejection published shows it
        values = scrub_all([r.value for r in records])
        items = decode_records([(f"{r.partition}@{r.offset}", v)
                                for r, v in zip(records, values, strict=True)])
        self.auditor.feed_many(zip([(r.partition, r.offset) for r in records], items,
                                   strict=True))
        now = self.clock()
        for table_id in {i.table_id for i in items if not isinstance(i, Rejection)}:
            self.heard[table_id] = now
        for r in records:
            if r.offset + 1 > self.known.get(r.partition, 0):
                self.known[r.partition] = r.offset + 1

    def _silent_tables(self) -> None:
        """Each table silent longer than the stall time: its open hand is reported."""
        limit = self.auditor.stall_seconds
        if limit is None:
            return
        now = self.clock()
        for table_id, heard in self.heard.items():
            if now - heard > limit:
                self.auditor.report_silent(table_id, limit)

    def _catch_up(self, records: list[Record]) -> None:
        """Rebuild, quietly, what comes before the first record of a partition this
        auditor has not read yet (a restart, or a partition handed over)."""
        firsts: dict[int, int] = {}
        for r in records:
            if r.partition not in firsts:
                firsts[r.partition] = r.offset
        behind = {p: o for p, o in firsts.items() if o > self.known.get(p, 0)
                  or p not in self.known}
        if not behind:
            return
        self.auditor.flush()
        self._publish_and_commit(commit=False)
        for partition, upto in behind.items():
            self._replay_quietly(partition, self.known.get(partition, 0), upto)
            self.known[partition] = max(self.known.get(partition, 0), upto)

    def _replay_quietly(self, partition: int, start: int, upto: int) -> None:
        if upto <= start:
            return
        cursor = dict(self.log.end())
        cursor[partition] = start
        done = False

        def finished() -> bool:
            return done or self.stop()

        auditor = self.auditor
        auditor.quiet = True
        try:
            for batch in self.log.read(cursor, follow=False, stop=finished,
                                       max_batch=self.batch):
                mine = [r for r in batch if r.partition == partition and r.offset < upto]
                if mine:
                    self._feed(mine)
                if any(r.partition == partition and r.offset + 1 >= upto for r in batch):
                    done = True
            auditor.flush()
        finally:
            auditor.quiet = False

    def _publish_and_commit(self, commit: bool = True) -> None:
        if self.pending:
            self.publish(self.pending)  # durable when it returns
            self.published += len(self.pending)
            self.pending = []
        if not commit or not self.known:
            return
        cursor = dict(self.known)
        for position in self.auditor.pending_positions():
            if isinstance(position, tuple):
                partition, offset = position
                if offset < cursor.get(partition, offset + 1):
                    cursor[partition] = offset
        if cursor == self._last_commit:
            return  # nothing new since the last commit (an idle poll)
        self.log.commit(self.consumer, cursor)
        self._last_commit = cursor
        self.commits += 1
