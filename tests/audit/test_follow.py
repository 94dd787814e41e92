"""``uth audit --follow``: findings published before the position is committed; a crash
between the two repeats findings with the same ``finding_id`` and loses none; a restart
rebuilds what it needs (tables, sequences, settled hands) without publishing it again.

In-process against the SQLite log; then the real command as a member of consumer group
``uth-auditor`` against the Tansu broker (``kafka_url``), stopped by SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from events.audit.auditor import audit
from events.audit.follow import FollowAuditor
from events.contract.codec import decode_many
from events.logs import open_log
from tests.audit.builder import Table, encode_lines, random_hand

ROOT = Path(__file__).resolve().parents[2]


def floor(tables: int, hands: int, seed: int, every: int = 29) -> list[dict[str, Any]]:
    """Tables interleaved by seq, each from its own random stream (so more hands extend the
    same table); every payout whose seq is a multiple of ``every`` is mispaid by +1.00."""
    import random

    per_table = []
    for t in range(tables):
        rng = random.Random(seed * 1000 + t)
        table = Table(f"T{t}")
        table.open()
        for h in range(hands):
            table.hand(random_hand(rng, f"T{t}-H{h:03d}"))
        per_table.append(table.events)
    out = [e for i in range(max(map(len, per_table))) for evs in per_table
           if i < len(evs) for e in [evs[i]]]
    for e in out:
        if e["type"] == "PayoutRecorded" and e["seq"] % every == 0:
            amount = e["payload"]["amount"] + 100
            e["payload"] = {**e["payload"], "amount": amount,
                            "outcome": "win" if amount > 0 else "lose" if amount < 0 else "push"}
    return out


def expected_ids(events: list[dict[str, Any]]) -> set[str]:
    report = audit(decode_many(encode_lines(events)))
    assert report.findings and all(f.kind == "mispay" for f in report.findings)
    return {f.finding_id for f in report.findings}


def append(url: str, events: list[dict[str, Any]]) -> None:
    with open_log(url) as log:
        log.append([(e["table_id"], line) for e, line in zip(events, encode_lines(events),
                                                            strict=True)])


class Published:
    """A sink that keeps what it was given; ``crash_after`` makes the N-th call deliver
    and then die (the process crashes between publishing and committing)."""

    def __init__(self, crash_after: int | None = None) -> None:
        self.messages: list[dict[str, Any]] = []
        self.calls = 0
        self.crash_after = crash_after

    def __call__(self, messages: list[tuple[str, bytes]]) -> None:
        self.messages += [json.loads(v) for _, v in messages]
        self.calls += 1
        if self.crash_after is not None and self.calls >= self.crash_after:
            raise SystemExit("crash after publishing")

    def ids(self) -> list[str]:
        return [m["finding_id"] for m in self.messages if m.get("kind") == "mispay"]


def follow_until(url: str, sink: Published, done: Callable[[], bool]) -> dict[str, int]:
    """Run a follower in a thread until ``done()`` (or it crashes); its summary."""
    stop = threading.Event()
    result: dict[str, Any] = {}

    def work() -> None:
        with open_log(url) as log:
            try:
                result.update(FollowAuditor(log, sink, stop=stop.is_set, batch=300).run())
            except SystemExit:
                result["crashed"] = True

    thread = threading.Thread(target=work)
    thread.start()
    deadline = time.monotonic() + 120
    while thread.is_alive() and not done() and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    thread.join(60)
    assert not thread.is_alive()
    return result


def caught_up(url: str) -> Callable[[], bool]:
    """True once consumer uth-auditor has committed the end of the log."""
    def check() -> bool:
        with open_log(url) as log:
            checkpoint = log.committed("uth-auditor")
            return checkpoint is not None and checkpoint.cursor == log.end()
    return check


def test_follow_publishes_then_commits_and_resumes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'floor.db'}"
    first = floor(3, 12, seed=5)
    want = expected_ids(first)
    append(url, first)
    sink = Published()
    summary = follow_until(url, sink, caught_up(url))
    assert sorted(sink.ids()) == sorted(want)
    assert summary["published"] == len(want) and summary["commits"] >= 1
    with open_log(url) as log:
        checkpoint = log.committed("uth-auditor")
        assert checkpoint is not None and checkpoint.cursor == log.end()
    # more hands arrive; a new follower resumes: only the new findings, none repeated
    more = floor(3, 20, seed=5)
    assert more[:0] == [] and {e["event_id"] for e in first} <= {e["event_id"] for e in more}
    extra = [e for e in more if e["seq"] > max(x["seq"] for x in first
                                               if x["table_id"] == e["table_id"])]
    want_all = expected_ids(more)
    append(url, extra)
    again = Published()
    follow_until(url, again, caught_up(url))
    assert sorted(again.ids()) == sorted(want_all - want)


def test_crash_between_publish_and_commit_loses_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'floor.db'}"
    events = floor(3, 15, seed=8)
    want = expected_ids(events)
    append(url, events)
    crashing = Published(crash_after=2)
    result = follow_until(url, crashing, lambda: False)
    assert result.get("crashed")
    before = set(crashing.ids())
    assert before and before < want
    resumed = Published()
    follow_until(url, resumed, caught_up(url))
    after = set(resumed.ids())
    assert before | after == want  # nothing lost
    repeated = before & after  # published twice: the same ids, so a store keeps them once
    assert len(resumed.ids()) == len(after)  # and never twice within one run
    assert repeated <= before


def test_a_hand_open_at_the_stop_is_audited_after_the_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'floor.db'}"
    events = floor(1, 8, seed=3, every=11)
    want = expected_ids(events)
    # stop in the middle of the last mispaid hand: its payouts are there, its end is not
    last = max(i for i, e in enumerate(events) if e["type"] == "PayoutRecorded"
               and e["seq"] % 11 == 0)
    cut = next(i for i in range(last, len(events)) if events[i]["type"] == "HandEnded")
    start = max(i for i in range(cut) if events[i]["type"] == "HandStarted")
    append(url, events[:cut])
    sink = Published()

    def parked() -> bool:  # committed up to the open hand's first event (row start + 1)
        with open_log(url) as log:
            checkpoint = log.committed("uth-auditor")
            return checkpoint is not None and checkpoint.cursor == {0: start + 1}

    follow_until(url, sink, parked)
    assert parked()
    seen = set(sink.ids())
    assert seen < want
    append(url, events[cut:])
    resumed = Published()
    follow_until(url, resumed, caught_up(url))
    assert seen | set(resumed.ids()) == want
    assert not seen & set(resumed.ids())  # settled before the stop: not published again


@pytest.mark.kafka
def test_uth_audit_follow_on_kafka(kafka_url: str, tmp_path: Path) -> None:
    """The command as a member of group uth-auditor: findings on the findings topic, the
    group's offsets committed, SIGTERM exits 0; a second run publishes only new ones."""
    from kafka import KafkaConsumer

    topic = "findings." + kafka_url.rsplit("/", 1)[1]
    events = floor(3, 10, seed=21)
    want = expected_ids(events)
    append(kafka_url, events)
    bootstrap = kafka_url.split("://", 1)[1].split("/", 1)[0]

    def published() -> list[dict[str, Any]]:
        consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=None,
                                 auto_offset_reset="earliest", consumer_timeout_ms=3000)
        try:
            return [json.loads(m.value) for m in consumer]
        finally:
            consumer.close()

    def run_until(predicate: Callable[[], bool]) -> subprocess.CompletedProcess[str]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pipeline.cli", "audit", "--follow", "--json", "--source",
             kafka_url, "--findings-topic", topic], cwd=ROOT, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not predicate() and proc.poll() is None:
            time.sleep(1)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    run = run_until(lambda: {m["finding_id"] for m in published()} >= want)
    got = [m for m in published() if m.get("kind") == "mispay"]
    assert {m["finding_id"] for m in got} == want
    assert json.loads(run.stdout.splitlines()[-1])["summary"]["published"] >= len(want)
    with open_log(kafka_url) as log:  # every record committed (offsets count from 0)
        committed = log.committed("uth-auditor")
        assert committed is not None and sum(committed.cursor.values()) == len(events)
    # more hands of the same tables: a restart publishes their findings only; it needs the
    # tables' rules and sequences from before its committed offsets (the quiet rebuild)
    more = floor(3, 16, seed=21)
    extra = [e for e in more if e["seq"] > max(x["seq"] for x in events
                                               if x["table_id"] == e["table_id"])]
    append(kafka_url, extra)
    want_all = expected_ids(more)
    before = published()
    second = run_until(lambda: {m["finding_id"] for m in published()} >= want_all)
    after = published()
    assert len(after) - len(before) == json.loads(
        second.stdout.splitlines()[-1])["summary"]["published"] == len(want_all - want)
    assert {m["finding_id"] for m in after} == want_all
    assert {m["kind"] for m in after} == {"mispay"}
