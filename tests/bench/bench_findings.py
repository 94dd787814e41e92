"""From a mispaid hand's ``HandEnded`` acknowledged on Kafka to its finding on the findings
topic, through ``uth audit --follow`` (issue 31's target: p99 at most 0.5 s, aim 0.2 s).

Tables deal at ten times a 50-table floor's pace (``HANDS_PER_HOUR`` hands an hour a table,
the builder's random hands, every ``MISPAY_EVERY``-th hand mispaid by 1.00) onto a topic of
the local broker (``UTH_BENCH_KAFKA``, set by ``run_all``; started here when run alone),
while ``uth audit --follow`` runs as a process of its own. Each mispaid hand's
``HandEnded`` is produced alone; its time is taken when the broker has acknowledged it, and
the finding's when a consumer of the findings topic, waiting on it all along, receives it.

The reference, measured in the same run on the same broker at the same pace: the same two
hops without the auditor: a relay thread consumes each such record from a topic and
produces it to a second one, and the same waiting consumer receives it there (ack to
receipt). What the auditor adds is the difference.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TABLES = 50
HANDS_PER_HOUR = 60  # a table's pace on the floor (assumed; a hand a minute)
SPEEDUP = 10
MISPAY_EVERY = 3
TARGET_P99 = 0.5
AIM_P99 = 0.2
WARM_HANDS = 2


def _floor(hands_per_table: int, seed: int = 31) -> tuple[list[dict[str, Any]], set[str]]:
    """The floor's events, tables interleaved event by event, and the mispaid hands."""
    from tests.audit.builder import Table, random_hand

    rng = random.Random(seed)
    per_table, mispaid, n = [], set(), 0
    for t in range(TABLES):
        table = Table(f"B{t:02d}")
        table.open()
        for h in range(hands_per_table):
            hand_id = f"B{t:02d}-H{h:04d}"
            before = len(table.events)
            table.hand(random_hand(rng, hand_id))
            n += 1
            if n % MISPAY_EVERY == 0:
                payouts = [e for e in table.events[before:] if e["type"] == "PayoutRecorded"]
                if payouts:
                    e = payouts[0]
                    amount = e["payload"]["amount"] + 100
                    e["payload"] = {**e["payload"], "amount": amount, "outcome": (
                        "win" if amount > 0 else "lose" if amount < 0 else "push")}
                    mispaid.add(hand_id)
        per_table.append(table.events)
    longest = max(map(len, per_table))
    events = [evs[i] for i in range(longest) for evs in per_table if i < len(evs)]
    return events, mispaid


class Receiver:
    """A consumer waiting on a topic all along: when each key was first received."""

    def __init__(self, url: str, key_of: Any) -> None:
        from events.logs.kafka import KafkaLog
        from events.logs.kafka_reader import TopicReader

        self.reader = TopicReader(KafkaLog(url))
        self.reader.catch_up()  # assigned and at the end before anything is sent
        self.key_of = key_of
        self.seen: dict[str, float] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop.is_set():
            for record in self.reader.poll(0.2):
                key = self.key_of(record.value)
                if key is not None:
                    self.seen.setdefault(key, time.perf_counter())

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        self.reader.close()
        self.reader.log.close()


def _finding_hand(value: bytes) -> str | None:
    message = json.loads(value)
    return str(message["hand_id"]) if message.get("kind") == "mispay" else None


def _ended_hand(value: bytes) -> str | None:
    event = json.loads(value)
    return str(event["hand_id"]) if event.get("type") == "HandEnded" else None


def _deal(url: str, events: list[dict[str, Any]], mispaid: set[str],
          seconds: float) -> dict[str, float]:
    """Produce ``events`` at the floor's pace; when each mispaid hand's ``HandEnded`` was
    acknowledged."""
    from events.logs.kafka import KafkaLog
    from tests.audit.builder import encode_lines

    lines = encode_lines(events)
    per_second = len(events) / seconds
    acked: dict[str, float] = {}
    with KafkaLog(url) as log:
        start, sent = time.perf_counter(), 0
        while sent < len(events):
            due = min(len(events), int((time.perf_counter() - start) * per_second) + 1)
            pending: list[tuple[str, bytes]] = []
            while sent < due:
                e = events[sent]
                if e["type"] == "HandEnded" and e["hand_id"] in mispaid:
                    log.append(pending)
                    pending = []
                    log.append([(e["table_id"], lines[sent])])  # alone: its own ack
                    acked[e["hand_id"]] = time.perf_counter()
                else:
                    pending.append((e["table_id"], lines[sent]))
                sent += 1
            log.append(pending)
            time.sleep(0.02)
    return acked


def _latencies(acked: dict[str, float], seen: dict[str, float]) -> tuple[list[float], int]:
    got = sorted(seen[h] - t for h, t in acked.items() if h in seen)
    return got, len(acked) - len(got)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, max(0, round(q * len(values) + 0.5) - 1))]


def _wait_for(seen: dict[str, float], keys: set[str], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not keys <= set(seen):
        time.sleep(0.05)


@contextlib.contextmanager
def _auditor(source: str, findings_topic: str) -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "audit", "--follow", "--source", source,
         "--findings-topic", findings_topic, "--consumer", f"bench-{uuid.uuid4().hex[:8]}",
         "--json"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _relay(source: str, sink: str, stop: threading.Event) -> None:
    """The reference's middle hop: each record of ``source`` produced to ``sink``."""
    from events.logs.kafka import KafkaLog
    from events.logs.kafka_reader import TopicReader

    reader = TopicReader(KafkaLog(source))
    with KafkaLog(sink) as out:
        out.ensure_topic(out.target.topic)
        while not stop.is_set():
            records = reader.poll(0.2)
            if records:
                out.append([(r.key, r.value) for r in records])
    reader.close()
    reader.log.close()


def measure(bootstrap: str, quick: bool) -> dict[str, Any]:
    from events.logs.kafka import KafkaLog

    seconds = 12.0 if quick else 45.0
    hands_per_second = SPEEDUP * TABLES * HANDS_PER_HOUR / 3600
    per_table = max(2, round(hands_per_second * seconds / TABLES))
    events, mispaid = _floor(per_table + WARM_HANDS)
    tag = uuid.uuid4().hex[:8]
    source, findings = f"kafka://{bootstrap}/bench.floor.{tag}", f"bench.findings.{tag}"
    # the first WARM_HANDS hands of every table open the run, at the floor's pace, not
    # measured: the auditor's start, its group join, its first publish
    warm_ids = {f"B{t:02d}-H{h:04d}" for t in range(TABLES) for h in range(WARM_HANDS)}
    opening = [e for e in events if e["type"] == "TableOpened" or e.get("hand_id") in
               warm_ids]
    rest = [e for e in events if not (e["type"] == "TableOpened" or e.get("hand_id") in
                                      warm_ids)]
    with KafkaLog(source) as log:
        log.ensure_topic(log.target.topic)
    findings_url = f"kafka://{bootstrap}/{findings}"
    receiver = Receiver(findings_url, _finding_hand)
    try:
        with _auditor(source, findings) as proc:
            acked = _deal(source, opening, mispaid, WARM_HANDS * TABLES / hands_per_second)
            _wait_for(receiver.seen, set(acked), 120)
            time.sleep(1.0)
            if proc.poll() is not None:
                raise RuntimeError(f"uth audit --follow exited {proc.returncode}")
            acked = _deal(source, rest, mispaid, seconds)
            _wait_for(receiver.seen, set(acked), 10)
            got, lost = _latencies(acked, receiver.seen)
    finally:
        receiver.close()

    # the reference: the same pace, the same two hops, no auditor
    a, b = f"kafka://{bootstrap}/bench.rt-a.{tag}", f"kafka://{bootstrap}/bench.rt-b.{tag}"
    with KafkaLog(a) as log:
        log.ensure_topic(log.target.topic)
    echo = Receiver(b, _ended_hand)
    stop = threading.Event()
    relay = threading.Thread(target=_relay, args=(a, b, stop), daemon=True)
    relay.start()
    try:
        time.sleep(1.0)
        ref_acked = _deal(a, rest, mispaid, seconds)
        _wait_for(echo.seen, set(ref_acked), 10)
        ref, ref_lost = _latencies(ref_acked, echo.seen)
    finally:
        stop.set()
        relay.join(10)
        echo.close()
    return {"latencies": got, "lost": lost, "reference": ref, "reference_lost": ref_lost,
            "events_per_second": len(rest) / seconds}


def _rows(m: dict[str, Any]) -> list[dict[str, Any]]:
    got, ref = m["latencies"], m["reference"]
    reference = (f"ack to receipt through a relay (consume, produce, consume), no auditor, "
                 f"same pace ({m['events_per_second']:,.0f} events/s), same broker")
    rows = []
    for q, label in ((0.5, "p50"), (0.99, "p99")):
        value, ref_value = _pct(got, q), _pct(ref, q)
        is_p99 = label == "p99"
        rows.append({
            "name": f"mispaid hand's HandEnded acked to its finding on the findings topic, "
                    f"{label} ({len(got)} hands, {m['lost']} without a finding)",
            "value": value, "unit": "s", "reference": f"{label} {reference}",
            "reference_value": ref_value,
            "ratio": value / ref_value if ref_value else float("nan"),
            "target": f"p99 <= {TARGET_P99} s (aim {AIM_P99} s)" if is_p99 else
                      "informational",
            "ok": (value <= TARGET_P99 and m["lost"] == 0) if is_p99 else None})
    return rows


def run(quick: bool = False) -> list[dict[str, Any]]:
    bootstrap = os.environ.get("UTH_BENCH_KAFKA")
    if bootstrap:
        return _rows(measure(bootstrap, quick))
    from pipeline.local_broker import local_broker

    with local_broker() as started:
        return _rows(measure(started, quick))


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(row)
