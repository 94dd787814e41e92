"""uth ingest / events.logs.forward: every line accounted for, each event stored once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from events.logs import AppendResult, EventLog, LogWriteError, open_log
from events.logs.forward import Forwarder
from events.logs.jsonl import JsonlLog, rejected_path
from events.logs.kafka import KafkaLog
from events.logs.publisher import TablePublisher
from events.logs.sqlite import SqliteLog
from pipeline.cli import main
from tests.logs.factory import encode, event, lines

ROOT = Path(__file__).resolve().parents[2]


def write_lines(path: Path, items: Sequence[bytes]) -> str:
    path.write_bytes(b"\n".join(items) + b"\n")
    return str(path)


def stored_ids(log: EventLog) -> list[str]:
    return [json.loads(r.value)["event_id"] for r in log.records()]


def test_file_to_sqlite_counts_every_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = lines(2, 1)  # 2 tables x (1 + 15) events = 32 lines
    assert len(good) == 32
    bad = [b'{"type":"Foo"}', good[4][:-5], b"\xff\xfe"]
    items = [*good[:10], bad[0], good[3], *good[10:20], bad[1], *good[20:], bad[2]]
    src = write_lines(tmp_path / "in.jsonl", items)
    sink = f"sqlite:///{tmp_path / 'out.db'}"
    assert main(["ingest", "--source", src, "--sink", sink, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["read"], report["written"], report["duplicates"], report["rejected"]) == (
        36, 32, 1, 3)
    assert report["rejected_by_reason"] == {"unknown-type": 1, "bad-json": 1, "bad-utf8": 1}
    assert report["gaps"] == [] and report["accounted"] is True
    with SqliteLog(sink) as log:
        assert log.count() == 32
        dead = log.dead_letters()
        assert [d["position"] for d in dead] == ["11", "23", "36"]
        assert dead[0]["reason"].startswith("event.type: 'Foo' is not an event type")
    # a second run stores nothing again
    assert main(["ingest", "--source", src, "--sink", sink, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["written"], again["duplicates"], again["rejected"]) == (0, 33, 3)


def test_file_to_file_writes_rejects_beside_and_deduplicates_on_rerun(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = lines(1, 2)
    src = write_lines(tmp_path / "in.jsonl", [*good, b"[]"])
    out = tmp_path / "out.jsonl"
    for _ in range(2):
        assert main(["ingest", "--source", src, "--sink", str(out), "--quiet"]) == 0
    assert out.read_bytes() == b"\n".join(good) + b"\n"
    rejected = [json.loads(x) for x in rejected_path(out).read_text().splitlines()]
    # the rerun rejects the line again, but its dead letter is stored once
    assert [(r["position"], r["code"]) for r in rejected] == [(32, "not-an-object")]


def test_conflicts_gaps_and_late_events_are_reported(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    e = [event("TableOpened", "T1", 0, {"ruleset": "x", "min_bet": 5, "max_bet": 50,
                                        "seats": 7, "currency": "CAD"}, event_id="a")]
    e += [event("ChipsPurchased", "T1", s, {"seat": 1, "amount": 100, "method": "cash"},
                event_id=f"c{s}") for s in (1, 2, 5, 3, 6)]
    twin = event("ChipsPurchased", "T1", 2, {"seat": 2, "amount": 900, "method": "cash"},
                 event_id="other")
    src = write_lines(tmp_path / "in.jsonl", [encode(x) for x in [*e, twin]])
    sink = f"sqlite:///{tmp_path / 'out.db'}"
    assert main(["ingest", "--source", src, "--sink", sink, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["gaps"] == [["T1", 3, 4]]  # seen when seq 5 arrived
    assert report["late"] == 1  # seq 3 filled part of it
    assert report["missing"] == {"T1": [[4, 4]]}
    assert report["rejected_by_reason"] == {"conflict": 1}
    with SqliteLog(sink) as log:
        assert stored_ids(log) == ["a", "c1", "c2", "c5", "c3", "c6"]
        (dead,) = log.dead_letters()
    assert dead["reason"] == ("ChipsPurchased: T1 seq 2 is already event c2; this event "
                              "other conflicts and was not stored")


def test_unreachable_sink_is_a_clear_error_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write_lines(tmp_path / "in.jsonl", lines(1, 1))
    code = main(["ingest", "--source", src, "--sink",
                 "kafka://127.0.0.1:9/t?connect_timeout=1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Kafka at 127.0.0.1:9 cannot be reached" in err and "nothing was written" in err
    assert main(["ingest", "--source", str(tmp_path / "absent.jsonl"), "--sink",
                 f"sqlite:///{tmp_path / 'o.db'}"]) == 2
    assert "absent.jsonl does not exist" in capsys.readouterr().err


class FlakySink(JsonlLog):
    """Writes half of the first batch, then fails (as a broker that drops the connection
    after accepting some records)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.failures = 1

    def append(self, records: Sequence[tuple[str, bytes]],
               event_ids: Sequence[str | None] | None = None) -> AppendResult:
        if self.failures:
            self.failures -= 1
            super().append(records[: len(records) // 2])
            raise LogWriteError("connection lost")
        return super().append(records, event_ids)


def test_a_failed_batch_is_resent_without_repeating_what_landed(tmp_path: Path) -> None:
    good = lines(1, 2)
    src = JsonlLog(write_lines(tmp_path / "in.jsonl", good))
    sink = FlakySink(str(tmp_path / "out.jsonl"))
    report = Forwarder(src, sink, retry_wait=0.01).run()
    assert report.accounted and report.retries == 1
    assert report.written == len(good)
    assert (tmp_path / "out.jsonl").read_bytes() == b"\n".join(good) + b"\n"


class CrashingCommit(SqliteLog):
    def commit(self, consumer: str, cursor: dict[int, int], metadata: str = "") -> None:
        if cursor.get(0, 0) > 20:
            raise KeyboardInterrupt("killed after the write, before the commit")
        super().commit(consumer, cursor, metadata)


@pytest.mark.kafka
def test_crash_between_write_and_commit_repeats_nothing_in_kafka(
        tmp_path: Path, kafka_url: str) -> None:
    outbox = tmp_path / "outbox.db"
    with TablePublisher(outbox) as pub:
        pub.publish_many(json.loads(x) for x in lines(2, 2))  # 62 events
    url = f"sqlite:///{outbox}"
    with CrashingCommit(url) as src, open_log(kafka_url) as sink, \
            pytest.raises(KeyboardInterrupt):
        Forwarder(src, sink, consumer="fwd", batch_size=10).run()
    with SqliteLog(url) as src, open_log(kafka_url) as sink:
        checkpoint = src.committed("fwd")
        assert checkpoint is not None and checkpoint.cursor == {0: 11}
        report = Forwarder(src, sink, consumer="fwd", batch_size=10).run()
        assert report.accounted
        assert (report.read, report.written, report.duplicates) == (52, 42, 10)
        ids = stored_ids(sink)
    assert len(ids) == len(set(ids)) == 62


def wait_for(predicate: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.1)


@pytest.mark.kafka
def test_follow_outbox_to_kafka_stops_on_sigterm_and_resumes(
        tmp_path: Path, kafka_url: str) -> None:
    outbox = tmp_path / "outbox.db"
    pub = TablePublisher(outbox)
    pub.publish_many(json.loads(x) for x in lines(1, 1))  # 16 events
    cmd = [sys.executable, "-m", "pipeline.cli", "ingest", "--source", f"sqlite:///{outbox}",
           "--sink", kafka_url, "--follow", "--consumer", "fwd", "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def committed() -> int:
        with SqliteLog(f"sqlite:///{outbox}") as log:
            cp = log.committed("fwd")
        return 0 if cp is None else cp.cursor[0] - 1

    proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
    try:
        wait_for(lambda: committed() == 16)
        more = [json.loads(x) for x in lines(1, 2)[16:]]  # hand 2 of T1: seq 16..30
        pub.publish_many(more)
        wait_for(lambda: committed() == 31)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
        pub.publish_many([json.loads(encode(event("TableClosed", "T1", 31)))])
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
        wait_for(lambda: committed() == 32)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        pub.close()
    with open_log(kafka_url) as sink:
        got = [json.loads(r.value) for r in sink.records()]
    assert [e["seq"] for e in got] == list(range(32))  # one table: one partition, in order


class CountedReads(KafkaLog):
    """A Kafka sink counting how often it is read from the start of a run."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.reads = 0

    def read(self, *args: Any, **kwargs: Any) -> Any:
        self.reads += 1
        return super().read(*args, **kwargs)


@pytest.mark.kafka
def test_a_restarted_ingest_into_kafka_reads_the_sink_once(
        tmp_path: Path, kafka_url: str) -> None:
    """On start the index catches up and the tracker is seeded with the sink's recent
    records: one read of the topic, not two (it was read to its end once for each). An
    event re-sent with another's seq is still a conflict, a copy a duplicate."""
    outbox = f"sqlite:///{tmp_path / 'outbox.db'}"
    first = lines(1, 2)  # 31 events of table T1
    with SqliteLog(outbox) as src:
        src.append([("T1", x) for x in first], [json.loads(x)["event_id"] for x in first])
    with SqliteLog(outbox) as src, CountedReads(kafka_url) as sink:
        assert Forwarder(src, sink, consumer="fwd", batch_size=10).run().written == 31
        assert sink.reads == 1  # the index's catch-up: nothing to seed from yet
    other = {**json.loads(first[-1]), "event_id": "00000000-0000-4000-8000-000000000030"}
    later = {**json.loads(first[-1]), "seq": 31,
             "event_id": "00000000-0000-4000-8000-000000000031"}
    with SqliteLog(outbox) as src:
        src.append([("T1", encode(other)), ("T1", first[3]), ("T1", encode(later))])
    with SqliteLog(outbox) as src, CountedReads(kafka_url) as sink:
        report = Forwarder(src, sink, consumer="fwd", batch_size=10).run()
        assert sink.reads == 1
    assert (report.read, report.written, report.duplicates) == (3, 1, 1)
    assert report.rejected == {"conflict": 1} and report.gaps == []
