"""Event logs and the codec: each rate beside its reference, measured in the same run.

- decode + validate (``events.codec.decode_many``) vs stdlib ``json.loads`` of the same
  bytes (no validation at all): target >= 3x;
- SQLite log appends in batches of 2,000 (with event ids, as ``uth ingest`` does):
  target >= 100,000 events/s;
- producing through ``KafkaLog.append`` (batches of 2,000, each acknowledged before the
  next) vs a bare tuned kafka-python producer sending the same bytes with one flush at
  the end: target >= 80%;
- consuming through ``KafkaLog.read`` vs a bare ``KafkaConsumer`` poll loop: >= 80%.

Kafka rows use ``UTH_BENCH_KAFKA`` (set by ``run_all``) or start a Tansu broker.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from events.codec import Rejection, decode_many
from events.logs.kafka import KafkaLog
from events.logs.sqlite import SqliteLog
from tests.logs.factory import lines


def _row(name: str, value: float, unit: str, reference: str, ref_value: float,
         target_ratio: float, target: str) -> dict[str, Any]:
    ratio = value / ref_value if ref_value else float("nan")
    return {"name": name, "value": value, "unit": unit, "reference": reference,
            "reference_value": ref_value, "ratio": ratio, "target": target,
            "ok": ratio >= target_ratio}


def bench_decode(data: list[bytes], repeat: int) -> dict[str, Any]:
    """CPU time of this process, best of ``repeat`` interleaved runs (the machine is shared:
    wall time would measure the neighbours)."""
    out = decode_many(data)
    assert not any(isinstance(x, Rejection) for x in out)
    best_ours = best_ref = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        decode_many(data)
        best_ours = min(best_ours, time.process_time() - start)
        start = time.process_time()
        [json.loads(x) for x in data]
        best_ref = min(best_ref, time.process_time() - start)
    ours, ref = len(data) / best_ours, len(data) / best_ref
    return _row("decode + validate events (events.codec)", ours, "events/s",
                "json.loads, no validation", ref, 3.0, ">= 3x json.loads")


def bench_sqlite(data: list[bytes], batch: int = 2000) -> dict[str, Any]:
    ids = [str(uuid.uuid4()) for _ in data]
    keys = [f"T{i % 10}" for i in range(len(data))]
    with tempfile.TemporaryDirectory() as tmp:
        log = SqliteLog(f"sqlite:///{Path(tmp) / 'bench.db'}")
        start = time.perf_counter()
        for i in range(0, len(data), batch):
            log.append(list(zip(keys[i : i + batch], data[i : i + batch], strict=True)),
                       ids[i : i + batch])
        seconds = time.perf_counter() - start
        assert log.count() == len(data)
        log.close()
    rate = len(data) / seconds
    return _row(f"SQLite log append, batches of {batch}, fsync per batch", rate, "events/s",
                "target", 100_000.0, 1.0, ">= 100,000 events/s")


@contextlib.contextmanager
def _broker() -> Iterator[str]:
    bootstrap = os.environ.get("UTH_BENCH_KAFKA")
    if bootstrap:
        yield bootstrap
        return
    from tests.tansu import TansuBroker, broker_binary

    binary = broker_binary()
    if binary is None:
        raise RuntimeError("no Tansu binary and no UTH_BENCH_KAFKA")
    broker = TansuBroker(binary).start()
    try:
        yield broker.bootstrap
    finally:
        broker.stop()


def bench_kafka(data: list[bytes], bootstrap: str, batch: int = 2000) -> list[dict[str, Any]]:
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    keys = [f"T{i % 10}" for i in range(len(data))]
    n = len(data)
    run_id = uuid.uuid4().hex[:8]
    ours_topic, bare_topic = f"bench.ours.{run_id}", f"bench.bare.{run_id}"
    log = KafkaLog(f"kafka://{bootstrap}/{ours_topic}?partitions=3")
    bare_log = KafkaLog(f"kafka://{bootstrap}/{bare_topic}?partitions=3")
    bare_log.check()
    log.append([("warm", b"{}")])  # topic, metadata and producer ready before timing
    bare = KafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True,
                         linger_ms=5, batch_size=256 * 1024,
                         max_in_flight_requests_per_connection=5)
    bare.send(bare_topic, key=b"warm", value=b"{}").get(timeout=30)

    start = time.perf_counter()
    for i in range(0, n, batch):
        log.append(list(zip(keys[i : i + batch], data[i : i + batch], strict=True)))
    ours_produce = n / (time.perf_counter() - start)

    bkeys = [k.encode() for k in keys]
    start = time.perf_counter()
    for k, v in zip(bkeys, data, strict=True):
        bare.send(bare_topic, key=k, value=v)
    bare.flush()
    bare_produce = n / (time.perf_counter() - start)
    bare.close()

    total = n + 1
    got = 0

    def enough() -> bool:
        return got >= total

    start = time.perf_counter()
    for records in log.read(stop=enough):
        got += len(records)
    ours_consume = got / (time.perf_counter() - start)

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                             max_poll_records=2000, fetch_max_wait_ms=100,
                             max_partition_fetch_bytes=4 * 1024 * 1024)
    tps = [TopicPartition(bare_topic, p) for p in sorted(consumer.partitions_for_topic(bare_topic))]
    consumer.assign(tps)
    consumer.seek_to_beginning()
    seen = 0
    start = time.perf_counter()
    while seen < total:
        for messages in consumer.poll(timeout_ms=500, max_records=2000).values():
            seen += len(messages)
    bare_consume = seen / (time.perf_counter() - start)
    consumer.close()
    log.close()
    bare_log.close()
    return [
        _row(f"produce via KafkaLog.append (acks=all, idempotent, {batch}/batch)",
             ours_produce, "events/s", "bare tuned KafkaProducer, one flush", bare_produce,
             0.8, ">= 80% of bare producer"),
        _row("consume via KafkaLog.read (full replay)", ours_consume, "events/s",
             "bare KafkaConsumer poll loop", bare_consume, 0.8, ">= 80% of bare consumer"),
    ]


def run(quick: bool = False) -> list[dict[str, Any]]:
    tables, hands = (10, 70) if quick else (20, 330)  # ~10,600 or ~100,000 events
    data = lines(tables, hands)
    rows = [bench_decode(data, repeat=5 if quick else 9), bench_sqlite(data)]
    try:
        with _broker() as bootstrap:
            rows.extend(bench_kafka(data[: 20_000 if quick else 100_000], bootstrap))
    except Exception as exc:  # no broker: say so in the report instead of failing it
        rows.append({"name": f"Kafka rows skipped: {exc}", "value": None, "ok": None})
    return rows


if __name__ == "__main__":
    import sys

    for row in run(quick="--quick" in sys.argv):
        print(row)
