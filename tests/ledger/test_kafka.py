"""Seals on Kafka (topic ``uth.seals``) against a real broker: sealed, verified, copied
into the warehouse by a load; events after the seal not yet sealed; a forged seal named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events.ledger.keys import generate
from events.ledger.logs import SEALS_TOPIC, read_seals, seals_log
from events.logs.kafka import KafkaLog
from pipeline.cli import main
from tests.ledger.conftest import SEALED, T2_WAITS, materialize, table_of, verify, waiting
from tests.pipeline import streams

pytestmark = pytest.mark.kafka


def test_seal_and_verify_a_kafka_log(kafka_url: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    private, public = generate(tmp_path / "k")
    lines = streams.floor_lines()
    with KafkaLog(kafka_url) as log:
        log.append([(table_of(line), line) for line in lines])
    assert main(["seal", "--source", kafka_url, "--key", str(private)]) == 0
    status, out = verify(capsys, "--source", kafka_url, "--public-key", str(public))
    assert status == 0, out
    assert SEALED in out and waiting(out) == [T2_WAITS]
    # the warehouse loaded from the topic holds the seal and verifies
    warehouse = tmp_path / "w.duckdb"
    materialize(kafka_url, warehouse)
    status, out = verify(capsys, "--warehouse", str(warehouse), "--public-key", str(public))
    assert status == 0, out
    assert SEALED in out
    # later events: not yet sealed
    t1, _ = streams.floor()
    later = streams.lines(streams.dispute(t1))
    with KafkaLog(kafka_url) as log:
        log.append([("T1", line) for line in later])
    status, out = verify(capsys, "--source", kafka_url, "--public-key", str(public))
    assert status == 0, out
    assert "T1 seq 50..51: 2 events not yet sealed" in out
    # a seal someone else wrote to the seals topic, with this topic's key
    with KafkaLog(kafka_url) as log:
        seal = read_seals(log)[0]
        body = json.loads(seal.body)
        body["tables"][0]["root"] = "00" * 32
        forged = {"body": json.dumps(body, separators=(",", ":")),
                  "signature": seal.signature.hex(), "leaves": [], "part": 0, "parts": 1}
        with seals_log(log) as topic:
            assert topic.target.topic == SEALS_TOPIC
            topic.append([(log.target.topic, json.dumps(forged).encode())])
    status, out = verify(capsys, "--source", kafka_url, "--public-key", str(public))
    assert status == 1, out
    assert "forged: seal 1: its signature does not verify" in out
