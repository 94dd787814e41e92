"""The Kafka log against a real broker (Tansu): partitions, keys, compression, groups, faults."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pytest

from events.logs import LogUnavailable, LogWriteError, advance_all
from events.logs.kafka import DEFAULT_TOPIC, KafkaLog, parse_url

pytestmark = pytest.mark.kafka


def records(tables: int, per_table: int) -> list[tuple[str, bytes]]:
    return [(f"T{t}", json.dumps({"t": f"T{t}", "seq": s}).encode())
            for s in range(per_table) for t in range(tables)]


def test_topic_is_created_with_the_partition_count(kafka_url: str) -> None:
    with KafkaLog(kafka_url + "?partitions=4") as log:
        log.append(records(1, 1))
        consumer = log._consumer(None)
        try:
            assert consumer.partitions_for_topic(log.target.topic) == {0, 1, 2, 3}
        finally:
            consumer.close()


def test_each_table_stays_in_one_partition_in_order(kafka_url: str) -> None:
    with KafkaLog(kafka_url + "?partitions=3") as log:
        for i in range(0, 1000, 250):
            log.append(records(8, 125)[i : i + 250])
        got = [r for batch in log.read() for r in batch]
    assert len(got) == 1000
    partitions: dict[str, set[int]] = defaultdict(set)
    seqs: dict[str, list[int]] = defaultdict(list)
    for r in got:
        partitions[r.key].add(r.partition)
        seqs[r.key].append(json.loads(r.value)["seq"])
    assert all(len(p) == 1 for p in partitions.values())
    assert len({next(iter(p)) for p in partitions.values()}) > 1  # tables spread out
    assert all(s == list(range(125)) for s in seqs.values())


@pytest.mark.parametrize("compression", ["gzip", "snappy", "lz4", "zstd"])
def test_compressed_topics_are_readable(kafka_url: str, compression: str) -> None:
    sent = records(3, 100)
    with KafkaLog(f"{kafka_url}?compression={compression}") as log:
        assert log.producer().config["compression_type"] == compression
        log.append(sent)
        got = sorted(r.value for batch in log.read() for r in batch)
    assert got == sorted(v for _, v in sent)


def test_a_wedged_producer_is_dropped_and_replaced(
        kafka_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from kafka.errors import KafkaTimeoutError

    with KafkaLog(kafka_url + "?flush_timeout=2") as log:
        log.append(records(1, 1))
        wedged = log.producer()

        def stuck(timeout: float | None = None) -> None:
            raise KafkaTimeoutError(f"Timeout after waiting for {timeout} secs.")

        monkeypatch.setattr(wedged, "flush", stuck)
        with pytest.raises(LogWriteError,
                           match=r"not acknowledged: the broker at \S+ did not answer within 2 s"):
            log.append(records(1, 5))
        assert log._producer is None
        log.append(records(2, 3))
        assert log.producer() is not wedged
        values = [json.loads(r.value) for b in log.read() for r in b]
    # the wedged batch may or may not have reached the broker; the later one did, once
    assert sum(1 for v in values if v["t"] == "T1") == 3


def test_consumer_group_reads_commits_and_resumes(kafka_url: str) -> None:
    with KafkaLog(kafka_url) as log:
        log.append(records(4, 25))
        cursor: dict[int, int] = {}
        seen = 0
        for batch in log.read_group("auditors", follow=False):
            seen += len(batch)
            advance_all(cursor, batch)
            log.commit("auditors", cursor)  # after the batch's work is durable
        assert seen == 100
        checkpoint = log.committed("auditors")
        assert checkpoint is not None and checkpoint.cursor == cursor
        log.append(records(1, 1))
        later = [r for b in log.read_group("auditors", follow=False) for r in b]
    assert [r.value for r in later] == [b'{"t": "T0", "seq": 0}']


def test_unreachable_broker_is_log_unavailable() -> None:
    log = KafkaLog("kafka://127.0.0.1:9/t?connect_timeout=1")
    with pytest.raises(LogUnavailable, match=r"Kafka at 127\.0\.0\.1:9 cannot be reached"):
        log.append(records(1, 1))


def test_url_parsing() -> None:
    url = parse_url("kafka://a:1,b:2/floor.events?partitions=12&replication=3&compression=zstd")
    assert (url.servers, url.topic, url.partitions, url.replication, url.compression) == (
        ["a:1", "b:2"], "floor.events", 12, 3, "zstd")
    assert parse_url("kafka://a:1").topic == DEFAULT_TOPIC
    assert parse_url("kafka:///t", env={"KAFKA_BOOTSTRAP_SERVERS": "k1:9092,k2:9092"}).servers \
        == ["k1:9092", "k2:9092"]
    for bad, message in [("kafka://user:pw@a:1", "credentials"), ("kafka://a:1?x=1", "unknown"),
                         ("kafka://a:1?compression=brotli", "compression"),
                         ("kafka:///t", "no Kafka host")]:
        with pytest.raises(LogUnavailable, match=message):
            parse_url(bad, env={})


def test_security_settings_reach_the_clients(monkeypatch: pytest.MonkeyPatch) -> None:
    import kafka

    made: list[dict[str, Any]] = []

    class FakeProducer:
        def __init__(self, **kwargs: Any) -> None:
            made.append(kwargs)

    monkeypatch.setattr(kafka, "KafkaProducer", FakeProducer)
    env = {"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
           "KAFKA_SASL_USERNAME": "uth", "KAFKA_SASL_PASSWORD": "s3cret",
           "KAFKA_SSL_CAFILE": "/etc/uth/ca.pem"}
    log = KafkaLog("kafka://broker:9093/t", env=env)
    log.producer()
    (kwargs,) = made
    assert {k: kwargs[k] for k in ("security_protocol", "sasl_mechanism",
                                   "sasl_plain_username", "sasl_plain_password",
                                   "ssl_cafile")} == {
        "security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "uth", "sasl_plain_password": "s3cret",
        "ssl_cafile": "/etc/uth/ca.pem"}
    assert kwargs["acks"] == "all" and kwargs["enable_idempotence"] is True
    assert "s3cret" not in log.describe() and "s3cret" not in repr(log.target)
