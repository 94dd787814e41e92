"""``uth audit --follow``'s publisher (``PublishOnce``) on Kafka: each ``finding_id`` on
the findings topic once, whoever published it first, through one reader of the topic kept
for the publisher's life (not a new consumer before every publish)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from events.logs import open_log
from events.logs.kafka import KafkaLog
from pipeline.audit.publish import PublishOnce


def _finding(fid: str) -> tuple[str, bytes]:
    return f"H-{fid}", json.dumps({"kind": "mispay", "finding_id": fid}).encode()


def _on_topic(url: str) -> Counter[str]:
    with open_log(url) as log:
        return Counter(json.loads(r.value)["finding_id"] for batch in log.read()
                       for r in batch)


def _counting(log: KafkaLog) -> list[int]:
    made: list[int] = []
    make = log._consumer

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return make(*args, **kwargs)

    log._consumer = counted  # type: ignore[method-assign]
    return made


@pytest.mark.kafka
def test_two_publishers_put_each_finding_on_the_topic_once(kafka_url: str) -> None:
    first, second = PublishOnce(KafkaLog(kafka_url)), PublishOnce(KafkaLog(kafka_url))
    try:
        first([_finding("a"), _finding("b")])
        second([_finding("b"), _finding("c")])  # b: the other member's, already there
        first([_finding("c"), _finding("d")])
        second([_finding("a"), _finding("d"), _finding("e")])
    finally:
        first.close()
        second.close()
    assert _on_topic(kafka_url) == Counter({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1})
    assert (first.skipped, second.skipped) == (1, 3)


@pytest.mark.kafka
def test_one_reader_of_the_findings_topic_for_every_publish(kafka_url: str) -> None:
    findings = KafkaLog(kafka_url)
    made = _counting(findings)
    publish = PublishOnce(findings)
    try:
        for n in range(10):
            publish([_finding(f"f{n}")])
            publish([_finding(f"f{n}")])  # again, as after a crash: skipped
    finally:
        publish.close()
    assert len(made) == 1
    assert publish.skipped == 10
    assert _on_topic(kafka_url) == Counter({f"f{n}": 1 for n in range(10)})
