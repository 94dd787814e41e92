"""Nothing leaked on the Kafka path (issue 30, item 9): a valid event with ``player_ref``
at the envelope's top level or inside an unknown payload field, ingested into a real
broker (Tansu), is on the topic with the identifier as its pseudonym only; a line that is
no event but carries one keeps it out of the dead-letter topic too."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from events.contract import privacy
from events.logs.kafka import KafkaLog
from tests.reliability import corpus
from tests.reliability.helpers import uth, uth_env
from tests.reliability.test_privacy_leaks import CLEAR, KEY, NUMBER, _nested, _top

pytestmark = pytest.mark.kafka


def _topic_bytes(url: str, topic: str | None = None) -> list[bytes]:
    log = KafkaLog(url)
    try:
        name = topic or log.target.topic
        return [r.value for batch in log._read_topic(name, None, follow=False,
                                                     stop=lambda: False, max_batch=2000)
                for r in batch]
    finally:
        log.close()


def test_out_of_place_identifiers_reach_no_topic(tmp_path: Path, kafka_broker: str,
                                                 ledger: Any) -> None:
    topic = f"test.{uuid.uuid4().hex[:12]}"
    url = f"kafka://{kafka_broker}/{topic}?partitions=3&dead_letter={topic}.dead"
    stream = corpus.table("oopk").events
    shapes = iter([_top, _nested] * len(stream))
    lines = [corpus.encode(next(shapes)(ev) if ev["hand_id"] else ev) for ev in stream]
    assert sum(CLEAR.encode() in line for line in lines) == len(lines) - 1
    bad = corpus.encode({**stream[2], "payload": [{"player_ref": NUMBER}]})  # no event
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"\n".join([*lines, bad]) + b"\n")
    env = uth_env(**{privacy.KEY_ENV: KEY})
    done = uth("ingest", "--source", str(source), "--sink", url, "--json", env=env)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["written"] == len(lines) and report["rejected"] == 1, report
    stored = _topic_bytes(url)
    assert len(stored) == len(lines)
    assert not [v for v in stored if CLEAR.encode() in v]
    pseudonym = privacy.pseudonymize(CLEAR, {privacy.KEY_ENV: KEY}).encode()
    assert sum(pseudonym in v for v in stored) == len(lines) - 1  # kept as its pseudonym
    dead = _topic_bytes(url, f"{topic}.dead")
    assert len(dead) == 1 and CLEAR.encode() not in dead[0], dead
    assert str(NUMBER).encode() not in b"".join(stored + dead)
    ledger.record("bad-input", "identifier out of its place [uth ingest, Kafka]",
                  sent=len(lines) + 1, processed=report["written"],
                  rejected=report["rejected"])
