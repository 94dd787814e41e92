"""Event logs and the codec: each rate beside its reference, measured in the same run.

- decode + validate (``events.contract.codec.decode_many``) vs stdlib ``json.loads`` of the same
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

from events.contract.codec import Rejection, decode_many
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
    chunks = [data[i : i + 2000] for i in range(0, len(data), 2000)]  # as uth ingest reads
    best_ours = best_ref = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for chunk in chunks:
            decode_many(chunk)
        best_ours = min(best_ours, time.process_time() - start)
        start = time.process_time()
        for chunk in chunks:
            [json.loads(x) for x in chunk]
        best_ref = min(best_ref, time.process_time() - start)
    ours, ref = len(data) / best_ours, len(data) / best_ref
    return _row("decode + validate events (events.contract.codec, batches of 2000)", ours,
                "events/s",
                "json.loads, no validation", ref, 3.0, ">= 3x json.loads")


def bench_sqlite(data: list[bytes], batch: int = 2000) -> list[dict[str, Any]]:
    ids = [str(uuid.uuid4()) for _ in data]
    keys = [f"T{i % 10}" for i in range(len(data))]
    rows = []
    for label, with_ids in (("raw records", False), ("with event_id de-dup, as uth ingest",
                                                     True)):
        with tempfile.TemporaryDirectory() as tmp:
            log = SqliteLog(f"sqlite:///{Path(tmp) / 'bench.db'}")
            start, cpu_start = time.perf_counter(), time.process_time()
            for i in range(0, len(data), batch):
                log.append(list(zip(keys[i : i + batch], data[i : i + batch], strict=True)),
                           ids[i : i + batch] if with_ids else None)
            seconds = time.perf_counter() - start
            cpu = time.process_time() - cpu_start
            assert log.count() == len(data)
            log.close()
        rate, cpu_rate = len(data) / seconds, len(data) / cpu
        rows.append(_row(f"SQLite log append, {batch}/batch + fsync, {label}", rate,
                         "events/s", "target", 100_000.0, 1.0, ">= 100,000 events/s"))
        rows.append({"name": "  same, CPU time of this process (no I/O wait, no neighbours)",
                     "value": cpu_rate, "unit": "events/s", "reference": "target",
                     "reference_value": 100_000.0, "ratio": cpu_rate / 100_000, "target": "",
                     "ok": None})
    return rows


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


def bench_kafka(data: list[bytes], bootstrap: str, rounds: int,
                batch: int = 2000) -> list[dict[str, Any]]:
    """Ours and the bare client alternate ``rounds`` times; the best of each is kept (the
    machine and the broker are shared, single runs swing by 2x)."""
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    keys = [f"T{i % 10}" for i in range(len(data))]
    bkeys = [k.encode() for k in keys]
    n = len(data)
    run_id = uuid.uuid4().hex[:8]
    ours_topic, bare_topic = f"bench.ours.{run_id}", f"bench.bare.{run_id}"
    log = KafkaLog(f"kafka://{bootstrap}/{ours_topic}?partitions=3")
    KafkaLog(f"kafka://{bootstrap}/{bare_topic}?partitions=3").check()
    log.append([("warm", b"{}")])  # topic, metadata and producer ready before timing
    bare = KafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True,
                         linger_ms=5, batch_size=256 * 1024,
                         max_in_flight_requests_per_connection=5)
    bare.send(bare_topic, key=b"warm", value=b"{}").get(timeout=30)
    best = {"ours_p": 0.0, "bare_p": 0.0, "ours_c": 0.0, "bare_c": 0.0}

    for _ in range(rounds):
        start = time.perf_counter()
        for i in range(0, n, batch):
            log.append(list(zip(keys[i : i + batch], data[i : i + batch], strict=True)))
        best["ours_p"] = max(best["ours_p"], n / (time.perf_counter() - start))
        start = time.perf_counter()
        for k, v in zip(bkeys, data, strict=True):
            bare.send(bare_topic, key=k, value=v)
        bare.flush()
        best["bare_p"] = max(best["bare_p"], n / (time.perf_counter() - start))
    bare.close()

    total = rounds * n + 1
    for _ in range(rounds):
        got = [0]
        start = time.perf_counter()
        for records in log.read(stop=lambda: got[0] >= total):  # noqa: B023 - read now
            got[0] += len(records)
        best["ours_c"] = max(best["ours_c"], got[0] / (time.perf_counter() - start))

        seen = 0
        start = time.perf_counter()  # both timed from nothing: client, metadata, seek, fetch
        consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                                 max_poll_records=2000, fetch_max_wait_ms=100,
                                 max_partition_fetch_bytes=4 * 1024 * 1024)
        parts = sorted(consumer.partitions_for_topic(bare_topic))
        consumer.assign([TopicPartition(bare_topic, p) for p in parts])
        consumer.seek_to_beginning()
        while seen < total:
            for messages in consumer.poll(timeout_ms=500, max_records=2000).values():
                seen += len(messages)
        best["bare_c"] = max(best["bare_c"], seen / (time.perf_counter() - start))
        consumer.close()
    log.close()
    return [
        _row(f"produce via KafkaLog.append (acks=all, idempotent, {batch}/batch)",
             best["ours_p"], "events/s", "bare tuned KafkaProducer, one flush", best["bare_p"],
             0.8, ">= 80% of bare producer"),
        _row("consume via KafkaLog.read (full replay)", best["ours_c"], "events/s",
             "bare KafkaConsumer poll loop", best["bare_c"], 0.8, ">= 80% of bare consumer"),
    ]


def run(quick: bool = False) -> list[dict[str, Any]]:
    tables, hands = (10, 70) if quick else (20, 330)  # ~10,600 or ~100,000 events
    data = lines(tables, hands)
    rows = [bench_decode(data, repeat=5 if quick else 9), *bench_sqlite(data)]
    try:
        with _broker() as bootstrap:
            rows.extend(bench_kafka(data[: 10_000 if quick else 50_000], bootstrap,
                                    rounds=2 if quick else 3))
    except Exception as exc:  # no broker: say so in the report instead of failing it
        rows.append({"name": f"Kafka rows skipped: {exc}", "value": None, "ok": None})
    return rows


if __name__ == "__main__":
    import sys

    for row in run(quick="--quick" in sys.argv):
        print(row)
