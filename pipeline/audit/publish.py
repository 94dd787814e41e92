"""``uth audit --follow``'s publisher of findings: each ``finding_id`` on the topic once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


class PublishOnce:
    """Publishes findings to a log, skipping any ``finding_id`` the log already holds.

    After a crash between publishing and committing, the restarted auditor settles the same
    hands again and produces the same findings (same ``finding_id``). Before each publish
    the findings log is read from where this publisher last read to its end, so a finding
    already there, from this process, an earlier one, or the member that owned the
    partition before a rebalance, is not published twice. On Kafka one reader is kept for
    the publisher's life (``events.logs.kafka_reader.TopicReader``): a publish with
    nothing new on the topic costs one request for its end offsets, not a new consumer.
    """

    def __init__(self, findings: Any) -> None:
        from events.logs.kafka import KafkaLog
        from events.logs.kafka_reader import TopicReader

        self.findings = findings
        self.reader = TopicReader(findings) if isinstance(findings, KafkaLog) else None
        self.cursor: dict[int, int] = {}
        self.seen: set[str] = set()
        self.skipped = 0

    def _new_records(self) -> Iterator[Any]:
        if self.reader is not None:
            yield from self.reader.catch_up()
            return
        for records in self.findings.read(dict(self.cursor) or None, follow=False):
            for record in records:
                self.cursor[record.partition] = record.offset + 1
                yield record

    def _refresh(self) -> None:
        for record in self._new_records():
            try:
                self.seen.add(str(json.loads(record.value)["finding_id"]))
            except (ValueError, KeyError, TypeError):
                continue  # not a finding of ours: nothing to de-duplicate against

    def __call__(self, messages: list[tuple[str, bytes]]) -> None:
        self._refresh()
        fresh: list[tuple[str, bytes]] = []
        for key, value in messages:
            fid = json.loads(value).get("finding_id")
            if fid is not None and fid in self.seen:
                self.skipped += 1
                continue
            if fid is not None:
                self.seen.add(fid)
            fresh.append((key, value))
        if fresh:
            self.findings.append(fresh)

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()
        self.findings.close()
