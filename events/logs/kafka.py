"""Kafka as the event log (kafka-python 3.x): the production transport.

``kafka://host:port[,host:port][/topic][?partitions=6&replication=3&compression=lz4]``.
The topic (default ``uth.table-events``) is created when missing with ``partitions``
(default 3) and ``replication`` (default 1). The key is the ``table_id``, so each table's
events stay in one partition, in order. Security settings come from the environment or a
config file (``events.logs.kafka_config``), never from the URL or code.

Writes use an idempotent producer (``acks=all``); :meth:`KafkaLog.append` returns only when
the broker has acknowledged every record of the batch, or raises ``LogWriteError`` after a
bounded wait and drops the producer (a fresh one is made for the next batch: kafka-python's
idempotent producer can wedge after an outage longer than its delivery timeout). No
transactions: sinks downstream de-duplicate by ``event_id``.

Reads assign every partition explicitly (a full replay needs no group); the end of the log
is reached only when positions are at ``end_offsets()`` *and* a short poll returns nothing
(some brokers, Tansu among them, under-report ``end_offsets`` after multi-record batches).
:meth:`KafkaLog.read_group` reads as a member of a consumer group instead (several
processes share the partitions); commit with :meth:`KafkaLog.commit` after the work is
durable. Named consumers' cursors are group offsets (Tansu drops commit metadata).
Rejected inputs go to the topic ``uth.dead-letter`` (``?dead_letter=`` to change it).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from events.logs.base import (
    AppendResult,
    Checkpoint,
    Cursor,
    EventLog,
    LogError,
    LogUnavailable,
    LogWriteError,
    Record,
    StopFlag,
    never,
    new_dead_letters,
    stored_keys,
)
from events.logs.kafka_config import (
    KafkaConfigError,
    bootstrap_servers,
    client_config,
    install_log_redaction,
)
from events.logs.kafka_errors import not_written, unreachable, worded
from events.logs.kafka_poll import bounded_loop, poll_loop

if TYPE_CHECKING:
    from events.contract.codec import Rejection

DEFAULT_TOPIC = "uth.table-events"
DEAD_LETTER_TOPIC = "uth.dead-letter"
COMPRESSIONS = ("none", "gzip", "snappy", "lz4", "zstd")


@dataclass(frozen=True)
class KafkaUrl:
    servers: list[str]
    topic: str = DEFAULT_TOPIC
    partitions: int = 3
    replication: int = 1
    compression: str | None = None
    dead_letter_topic: str = DEAD_LETTER_TOPIC
    flush_timeout_s: float = 30.0
    connect_timeout_s: float = 10.0


def parse_url(url: str, env: Mapping[str, str] | None = None) -> KafkaUrl:
    parts = urlsplit(url)
    if parts.scheme != "kafka":
        raise LogUnavailable(f"{url!r} is not a kafka:// URL")
    if parts.username or parts.password:
        raise LogUnavailable("put Kafka credentials in KAFKA_SASL_* variables, not the URL")
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    known = {"partitions", "replication", "compression", "dead_letter", "flush_timeout",
             "connect_timeout"}
    if set(query) - known:
        raise LogUnavailable(f"unknown kafka URL option(s) {sorted(set(query) - known)}; "
                             f"known: {sorted(known)}")
    try:
        servers = bootstrap_servers(parts.netloc, env)
        compression = query.get("compression", "none").lower()
        if compression not in COMPRESSIONS:
            raise LogUnavailable(f"compression {compression!r} is not one of {COMPRESSIONS}")
        return KafkaUrl(
            servers=servers,
            topic=parts.path.strip("/") or DEFAULT_TOPIC,
            partitions=int(query.get("partitions", 3)),
            replication=int(query.get("replication", 1)),
            compression=None if compression == "none" else compression,
            dead_letter_topic=query.get("dead_letter", DEAD_LETTER_TOPIC),
            flush_timeout_s=float(query.get("flush_timeout", 30)),
            connect_timeout_s=float(query.get("connect_timeout", 10)),
        )
    except KafkaConfigError as exc:
        raise LogUnavailable(str(exc)) from exc
    except ValueError as exc:
        raise LogUnavailable(f"bad kafka URL option in {url!r}: {exc}") from exc


class KafkaLog(EventLog):
    position_word = "offset"

    def __init__(
        self, url: str, *, env: Mapping[str, str] | None = None,
        producer_config: Mapping[str, Any] | None = None,
        consumer_config: Mapping[str, Any] | None = None,
    ) -> None:
        self.url = url
        self.target = parse_url(url, env)
        try:
            self.security = client_config(env)
        except KafkaConfigError as exc:
            raise LogUnavailable(str(exc)) from exc
        install_log_redaction()  # kafka-python would log the passwords at DEBUG level
        self.producer_config = dict(producer_config or {})
        self.consumer_config = dict(consumer_config or {})
        self._producer: Any = None
        self._admin: Any = None
        self._offset_clients: dict[str, Any] = {}
        self._group_consumers: dict[str, Any] = {}
        self._topics_ready: set[str] = set()
        self._dead_keys: set[str] | None = None  # keys of the dead letters on the topic

    # -- clients -------------------------------------------------------------------------
    def _common(self) -> dict[str, Any]:
        timeout_ms = int(self.target.connect_timeout_s * 1000)
        return {"bootstrap_servers": self.target.servers, "bootstrap_timeout_ms": timeout_ms,
                "request_timeout_ms": max(timeout_ms, 15000), **self.security}

    def _unavailable(self, what: str, exc: Exception) -> LogUnavailable:
        return unreachable(self.target.servers, self.target.connect_timeout_s, what, exc)

    def admin(self) -> Any:
        if self._admin is None:
            from kafka import KafkaAdminClient

            try:
                self._admin = KafkaAdminClient(**self._common())
            except Exception as exc:
                raise self._unavailable("admin", exc) from exc
        return self._admin

    def check(self) -> None:
        """Raise ``LogUnavailable`` unless the broker answers (and the topic can exist)."""
        self.ensure_topic(self.target.topic)

    def ensure_topic(self, topic: str, partitions: int | None = None) -> None:
        if topic in self._topics_ready:
            return
        from kafka.admin import NewTopic
        from kafka.errors import TopicAlreadyExistsError

        admin = self.admin()
        try:
            if topic not in admin.list_topics():
                with contextlib.suppress(TopicAlreadyExistsError):
                    admin.create_topics([NewTopic(topic, partitions or self.target.partitions,
                                                  self.target.replication)])
        except LogError:
            raise
        except Exception as exc:
            raise self._unavailable(f"topic {topic}", exc) from exc
        self._topics_ready.add(topic)

    def producer(self) -> Any:
        if self._producer is None:
            from kafka import KafkaProducer

            flush_ms = int(self.target.flush_timeout_s * 1000)
            config: dict[str, Any] = {
                **self._common(), "acks": "all", "enable_idempotence": True,
                "max_in_flight_requests_per_connection": 5, "linger_ms": 5,
                "batch_size": 256 * 1024, "compression_type": self.target.compression,
                "max_block_ms": flush_ms, "delivery_timeout_ms": max(flush_ms, 30000),
                "allow_auto_create_topics": False,
            }
            config.update(self.producer_config)
            try:
                self._producer = KafkaProducer(**config)
            except Exception as exc:
                raise self._unavailable("producer", exc) from exc
        return self._producer

    def _drop_producer(self) -> None:
        producer, self._producer = self._producer, None
        if producer is not None:
            # a wedged producer may fail to close; it is dropped anyway
            with contextlib.suppress(Exception):
                producer.close(timeout=0)

    def _consumer(self, group_id: str | None = None, **extra: Any) -> Any:
        from kafka import KafkaConsumer

        config: dict[str, Any] = {
            **self._common(), "group_id": group_id, "enable_auto_commit": False,
            "auto_offset_reset": "earliest", "max_poll_records": 2000,
            "fetch_max_wait_ms": 100, "max_partition_fetch_bytes": 4 * 1024 * 1024,
            "session_timeout_ms": 6000, "heartbeat_interval_ms": 1000,
        }
        config.update(self.consumer_config)
        config.update(extra)
        try:
            return KafkaConsumer(**config)
        except Exception as exc:
            raise self._unavailable("consumer", exc) from exc

    # -- writing -------------------------------------------------------------------------
    def append(
        self, records: Sequence[tuple[str, bytes]], event_ids: Sequence[str | None] | None = None
    ) -> AppendResult:
        self.ensure_topic(self.target.topic)
        return self._produce(self.target.topic, [(k.encode(), v) for k, v in records])

    def _produce(self, topic: str, items: Sequence[tuple[bytes, bytes]]) -> AppendResult:
        if not items:
            return AppendResult(0, 0, {})
        from kafka.errors import KafkaError

        producer = self.producer()
        send = producer.send
        try:
            futures = [send(topic, key=k, value=v) for k, v in items]
            producer.flush(timeout=self.target.flush_timeout_s)
        except (KafkaError, OSError) as exc:
            self._drop_producer()
            raise not_written(self.target.servers, self.target.flush_timeout_s,
                              f"{topic}: a batch of {len(items)}", exc) from exc
        end: Cursor = {}
        for future in futures:
            if not future.succeeded():
                self._drop_producer()
                raise not_written(self.target.servers, self.target.flush_timeout_s,
                                  f"{topic}: a record of the batch", future.exception)
            meta = future.value
            if meta.offset + 1 > end.get(meta.partition, 0):
                end[meta.partition] = meta.offset + 1
        return AppendResult(len(items), 0, end)

    def dead_letter(self, rejections: Sequence[Rejection], source: str = "") -> int:
        topic = self.target.dead_letter_topic
        self.ensure_topic(topic, 1)
        known = self._dead_letter_keys(topic)
        items = [((r.table_id or "").encode(), json.dumps(doc).encode())
                 for r, doc in new_dead_letters(rejections, source, known)]
        try:
            return self._produce(topic, items).written if items else 0
        except LogWriteError:
            self._dead_keys = None  # what reached the topic is read again next time
            raise

    def _dead_letter_keys(self, topic: str) -> set[str]:
        """The keys of the dead letters on ``topic``, read from its start once a run."""
        if self._dead_keys is None:
            batches = self._read_topic(topic, None, follow=False, stop=never, max_batch=2000)
            self._dead_keys = stored_keys(r.value for batch in batches for r in batch)
        return self._dead_keys

    # -- reading -------------------------------------------------------------------------
    def _partitions(self, consumer: Any, topic: str) -> list[Any]:
        from kafka import TopicPartition

        deadline = time.monotonic() + self.target.connect_timeout_s
        while True:
            found = consumer.partitions_for_topic(topic)
            if found:
                return [TopicPartition(topic, p) for p in sorted(found)]
            if time.monotonic() > deadline:
                raise LogUnavailable(f"topic {topic} has no partitions (does it exist?)")
            time.sleep(0.1)

    def read(
        self, start: Cursor | None = None, *, follow: bool = False, stop: StopFlag = never,
        max_batch: int = 2000,
    ) -> Iterator[list[Record]]:
        yield from self._read_topic(self.target.topic, start, follow=follow, stop=stop,
                                    max_batch=max_batch)

    def read_until(
        self, start: Cursor | None, until: Cursor, *, max_batch: int = 2000,
    ) -> Iterator[list[Record]]:
        """Bounded by the consumer's positions: a partition is done when its position
        reaches ``until`` (so one that got nothing new ends the read too)."""
        yield from self._read_topic(self.target.topic, start, follow=False, stop=never,
                                    max_batch=max_batch, until=until)

    def _read_topic(
        self, topic: str, start: Cursor | None, *, follow: bool, stop: StopFlag, max_batch: int,
        until: Cursor | None = None,
    ) -> Iterator[list[Record]]:
        self.ensure_topic(topic)
        consumer = self._consumer(None, max_poll_records=max_batch)
        try:
            tps = self._partitions(consumer, topic)
            consumer.assign(tps)
            for tp in tps:
                if start and tp.partition in start:
                    consumer.seek(tp, start[tp.partition])
                else:
                    consumer.seek_to_beginning(tp)
            if until is None:
                yield from poll_loop(consumer, follow, stop, max_batch)
            else:
                yield from bounded_loop(consumer, tps, until, max_batch)
        finally:
            consumer.close()

    def read_group(
        self, group: str, *, follow: bool = True, stop: StopFlag = never, max_batch: int = 2000,
    ) -> Iterator[list[Record]]:
        """Read as a member of consumer group ``group`` from its committed offsets (or the
        beginning). Commit with ``commit(group, cursor)`` once the batch's work is durable;
        after a rebalance, uncommitted records go to the new owner (at-least-once)."""
        self.ensure_topic(self.target.topic)
        consumer = self._consumer(group, max_poll_records=max_batch)
        self._group_consumers[group] = consumer
        try:
            consumer.subscribe([self.target.topic])
            yield from poll_loop(consumer, follow, stop, max_batch)
        finally:
            self._group_consumers.pop(group, None)
            consumer.close()

    def end(self) -> Cursor:
        from kafka.errors import KafkaError
        self.ensure_topic(self.target.topic)
        consumer = self._consumer(None)
        try:
            tps = self._partitions(consumer, self.target.topic)
            return {tp.partition: int(off) for tp, off in consumer.end_offsets(tps).items()}
        except KafkaError as exc:  # as every Kafka error here: worded in kafka_errors
            raise self._unavailable(f"end of {self.target.topic}", exc) from exc
        finally:
            consumer.close()

    def where(self, record: Record) -> str:
        return f"{self.target.topic}[{record.partition}]@{record.offset}"

    # -- named consumers -----------------------------------------------------------------
    def _offset_client(self, consumer: str) -> Any:
        client = self._offset_clients.get(consumer)
        if client is None:
            client = self._consumer(consumer)
            self._offset_clients[consumer] = client
        return client

    def committed(self, consumer: str) -> Checkpoint | None:
        self.ensure_topic(self.target.topic)
        client = self._offset_client(consumer)
        cursor: Cursor = {}
        for tp in self._partitions(client, self.target.topic):
            offset = client.committed(tp)
            if offset is not None and offset >= 0:
                cursor[tp.partition] = int(offset)
        return Checkpoint(cursor) if cursor else None

    def commit(self, consumer: str, cursor: Cursor, metadata: str = "") -> None:
        from kafka import TopicPartition
        from kafka.structs import OffsetAndMetadata

        if not cursor:
            return
        offsets = {TopicPartition(self.target.topic, p): OffsetAndMetadata(o, metadata, -1)
                   for p, o in cursor.items()}
        member = self._group_consumers.get(consumer)
        try:
            if member is not None:
                member.commit(offsets)
            else:
                client = self._offset_client(consumer)
                client.assign(list(offsets))
                client.commit(offsets)
        except Exception as exc:
            said = worded(exc, self.target.servers, self.target.connect_timeout_s)
            raise LogWriteError(f"commit of {consumer!r} failed: {said}") from exc

    def describe(self) -> str:
        return f"kafka://{','.join(self.target.servers)}/{self.target.topic}"

    def close(self) -> None:
        if self._producer is not None:
            with contextlib.suppress(Exception):
                self._producer.close(timeout=self.target.flush_timeout_s)
            self._producer = None
        for client in [*self._offset_clients.values(), self._admin]:
            if client is not None:
                with contextlib.suppress(Exception):
                    client.close()
        self._offset_clients.clear()
        self._admin = None
