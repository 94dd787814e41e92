"""A Kafka client error reads as what happened and what to do, never as kafka-python's
class name (``KafkaTimeoutError: KafkaTimeoutError: Unable to bootstrap from [...]``), in
``uth ingest``'s, ``uth audit --follow``'s and ``uth load``'s error line alike; the words
are in one place, ``events.logs.kafka_errors``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from kafka import errors

from events.logs.base import LogUnavailable
from events.logs.kafka_errors import step_said, worded
from pipeline.cli import main

UNREACHABLE = "kafka://127.0.0.1:9/t?connect_timeout=1"  # the discard port: nothing answers
CLASS_NAME = re.compile(r"\b(Kafka\w+|\w+Error|NoBrokersAvailable)\b")
SAID = "the broker did not answer within 1 s; is it running, and is the address right?"


@pytest.mark.parametrize("argv", [
    ["ingest", "--source", "{dir}/in.jsonl", "--sink", UNREACHABLE],
    ["audit", "--follow", "--source", UNREACHABLE],
    ["load", "--source", UNREACHABLE, "--warehouse", "{dir}/w.duckdb", "--quiet"],
], ids=["ingest", "audit", "load"])
def test_an_unreachable_broker_is_said_plainly(argv: list[str], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.jsonl").write_text("")
    code = main([a.replace("{dir}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert code != 0
    line = next(x for x in err.splitlines() if "cannot be reached" in x)
    assert "Kafka at 127.0.0.1:9 cannot be reached" in line and line.endswith(SAID), err
    assert not CLASS_NAME.findall(line), line


@pytest.mark.parametrize(("exc", "said"), [
    (errors.KafkaTimeoutError("Unable to bootstrap from ['k1:9092']"),
     "did not answer within 5 s; is it running"),
    (errors.RequestTimedOutError(), "did not answer within 5 s"),
    (errors.KafkaConnectionError("Connection refused"),
     "could not be connected to (Connection refused); is it running, and reachable"),
    (ConnectionRefusedError(111, "Connection refused"), "could not be connected to"),
    (errors.TopicAuthorizationFailedError(), "refused this user access; check the KAFKA_SASL_"),
    (errors.SaslAuthenticationFailedError("bad password"),
     "did not accept the credentials (bad password); check"),
    (errors.UnknownTopicOrPartitionError(), "has no such topic or partition"),
    (errors.NotLeaderForPartitionError(), "has no leader for a partition yet"),
    (errors.KafkaError("something odd"), "answered with an error: something odd; see the"),
])
def test_each_kind_of_error_says_what_to_do(exc: BaseException, said: str) -> None:
    text = worded(exc, ["k1:9092"], 5)
    assert text.startswith("the broker at k1:9092 ") and said in text, text
    assert not CLASS_NAME.findall(text), text


def test_a_load_step_that_failed_on_a_raw_kafka_error_words_it() -> None:
    """A Kafka error that reached the load without the log's own wording (a client call the
    log does not wrap) is worded by its class; the log's own ``LogError`` is said as it is
    worded; an error of no Kafka origin is left alone."""
    try:
        try:
            raise errors.KafkaTimeoutError("KafkaTimeoutError: Timeout after 30 secs.")
        except errors.KafkaError as exc:
            raise RuntimeError("step ingest_events failed") from exc
    except RuntimeError as step:
        assert step_said(step) == ("the Kafka broker did not answer in time; is it running, "
                                   "and is the address right?")
    own = LogUnavailable("Kafka at k1:9092 cannot be reached (a read): the broker did not")
    own.__cause__ = errors.KafkaTimeoutError("x")
    assert step_said(RuntimeError("y")) is None
    wrapped = RuntimeError("step failed")
    wrapped.__cause__ = own
    assert step_said(wrapped) == str(own)
    other = RuntimeError("X: y")
    other.__cause__ = OSError("duckdb: x")
    assert step_said(other) is None
