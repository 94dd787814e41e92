"""The read loops of the Kafka log (``events.logs.kafka``) over a kafka-python consumer:
:func:`poll_loop`, to the end of the log or following it, and :func:`bounded_loop`, up to
a cursor taken when the read began."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from events.logs.base import Cursor, Record, StopFlag


def poll_loop(consumer: Any, follow: bool, stop: StopFlag,
              max_batch: int) -> Iterator[list[Record]]:
    """Batches as polled; following, an empty batch on each idle poll; else until the
    positions reach the reported end and a short poll returns nothing."""
    idle = 0
    while not stop():
        polled = consumer.poll(timeout_ms=200 if follow else 300, max_records=max_batch)
        batch = [Record(tp.partition, m.offset, m.key.decode() if m.key else "", m.value)
                 for tp, messages in polled.items() for m in messages]
        if batch:
            idle = 0
            yield batch
            continue
        if follow:
            yield []
            continue
        assigned = consumer.assignment()
        if not assigned:  # a group member before its first assignment
            idle += 1
            if idle > 100:
                return
            continue
        ends = consumer.end_offsets(list(assigned))
        idle += 1
        at_end = all(consumer.position(tp) >= ends.get(tp, 0) for tp in assigned)
        # two empty polls at the reported end, or a reported end never reached
        if (at_end and idle >= 2) or idle > 30:
            return


def bounded_loop(consumer: Any, tps: list[Any], until: Cursor,
                 max_batch: int) -> Iterator[list[Record]]:
    """Records below ``until`` until every partition's position reaches it; records
    written since the read began are left for the next read. Some brokers (Tansu)
    report as a partition's end the first offset of its last batch plus one: the rest
    of that batch, created before the read began (its timestamp), is read too, so a
    floor that stopped writing is still loaded to its last record."""
    began = int(time.time() * 1000)
    done: set[Any] = set()
    idle = 0
    while True:
        left = [tp for tp in tps if tp not in done]
        if not left:
            return
        polled = consumer.poll(timeout_ms=100 if idle else 300, max_records=max_batch)
        batch = []
        for tp, messages in polled.items():
            bound = until.get(tp.partition, 0)
            for m in messages:
                if tp in done:
                    break
                if m.offset < bound or 0 <= m.timestamp <= began:
                    batch.append(Record(tp.partition, m.offset,
                                        m.key.decode() if m.key else "", m.value))
                else:
                    done.add(tp)
        for tp in left:  # at its bound and nothing more of before the read: done
            if tp not in polled and consumer.position(tp) >= until.get(tp.partition, 0):
                done.add(tp)
        if batch:
            idle = 0
            yield batch
            continue
        idle += 1
        if idle > 30:  # positions that never reach the bound: a broker that lost records
            return
