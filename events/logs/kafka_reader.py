"""One long-lived reader of a Kafka topic, caught up on demand (``TopicReader``).

``KafkaLog.read`` makes a consumer for every read and, without ``follow``, ends only after
two empty polls at the topic's end: right for a bounded load, too slow to run before every
publish of the follow auditor. A ``TopicReader`` assigns every partition of its topic once
and keeps its consumer: :meth:`TopicReader.catch_up` asks the broker for the end offsets
(one request) and polls only while a partition's position is short of them, so with
nothing new it costs that one request. Whatever was acknowledged on the topic before the
call is returned by it (a record acknowledged later, by the next call): the end offsets a
broker reports cover every acknowledged record (Tansu reports the first offset of a
partition's last batch plus one, and a fetch returns that whole batch). After a failed call
the consumer is dropped and the next call reads the topic from its beginning again.
"""

from __future__ import annotations

import contextlib
from typing import Any

from events.logs.base import LogUnavailable, Record
from events.logs.kafka import KafkaLog

#: Polls without a record while positions stay short of the end offsets before
#: :meth:`TopicReader.catch_up` gives up (a broker that lost records): a few seconds.
MAX_IDLE_POLLS = 50


class TopicReader:
    """Every record of ``topic`` (default: the log's own topic) on the cluster of ``log``,
    from its beginning, handed out once each by :meth:`catch_up`."""

    def __init__(self, log: KafkaLog, topic: str | None = None, *,
                 max_batch: int = 2000) -> None:
        self.log = log
        self.topic = topic or log.target.topic
        self.max_batch = max_batch
        self._consumer: Any = None
        self._partitions: list[Any] = []
        self.consumers = 0  # consumers made: one for the reader's life, unless one fails

    def _open(self) -> None:
        self.log.ensure_topic(self.topic)
        consumer = self.log._consumer(None, max_poll_records=self.max_batch)
        try:
            partitions = self.log._partitions(consumer, self.topic)
            consumer.assign(partitions)
            for tp in partitions:
                consumer.seek_to_beginning(tp)
        except Exception:
            with contextlib.suppress(Exception):
                consumer.close()
            raise
        self.consumers += 1
        self._consumer, self._partitions = consumer, partitions

    def catch_up(self) -> list[Record]:
        """The records acknowledged on the topic since the last call (all of them, the
        first time), in offset order per partition."""
        if self._consumer is None:
            self._open()
        consumer = self._consumer
        try:
            ends = consumer.end_offsets(self._partitions)
            out: list[Record] = []
            idle = 0
            while any(consumer.position(tp) < ends.get(tp, 0) for tp in self._partitions):
                polled = consumer.poll(timeout_ms=100, max_records=self.max_batch)
                got = [Record(tp.partition, m.offset, m.key.decode() if m.key else "",
                              m.value) for tp, messages in polled.items() for m in messages]
                if got:
                    idle = 0
                    out += got
                    continue
                idle += 1
                if idle > MAX_IDLE_POLLS:
                    raise LogUnavailable(f"{self.topic}: positions never reached the end "
                                         f"offsets the broker reported")
            return out
        except LogUnavailable:
            self.close()
            raise
        except Exception as exc:
            self.close()  # the next call starts a fresh consumer from the beginning
            raise self.log._unavailable(f"reading {self.topic}", exc) from exc

    def poll(self, seconds: float) -> list[Record]:
        """The next records of the topic, waiting up to ``seconds`` for one (a reader that
        waits for records rather than asking for the end offsets again and again)."""
        if self._consumer is None:
            self._open()
        try:
            polled = self._consumer.poll(timeout_ms=int(seconds * 1000),
                                         max_records=self.max_batch)
        except Exception as exc:
            self.close()
            raise self.log._unavailable(f"reading {self.topic}", exc) from exc
        return [Record(tp.partition, m.offset, m.key.decode() if m.key else "", m.value)
                for tp, messages in polled.items() for m in messages]

    def close(self) -> None:
        consumer, self._consumer = self._consumer, None
        if consumer is not None:
            with contextlib.suppress(Exception):
                consumer.close()

