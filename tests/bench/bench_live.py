"""The live floor (issue 31): what a load costs while the tables deal, each figure beside
its reference measured in the same run.

- **Table to warehouse.** A paced ``uth simulate`` deals into a table outbox (SQLite) at
  ten times a 50-table floor's pace (50 tables, 600 hands an hour each, where a table deals
  about 60), ``uth ingest --follow`` forwards it to the local broker, ``uth load --follow
  --interval 1`` keeps a warehouse current, and a reader polls the warehouse's ``hands``
  four times a second, as the Live page does: from a hand's ``HandEnded`` (its time at the
  table: the paced simulator writes each event when its time comes) to the first poll that
  sees the hand ended. Reference: the same path's bare transport, a plain consumer of the
  topic reading the same ``HandEnded`` records. Target p99 <= 10 s (3 s the aim).
- **The newest 5%.** A floor's log loaded in two loads (``uth load``'s code in-process):
  the first 95% of its lines, then the rest appended; the second load's cost per event
  against the first's. Target at most 2.5x.
- **One new hand onto a big warehouse.** A warehouse of 100,000 hands (``--quick``:
  10,000), copied as it stands; one new table's one hand appended to its log and loaded;
  beside the same hand loaded onto an empty warehouse (its schema made by a load of an
  empty log). Reported in seconds.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from events.logs.publisher import TablePublisher
from events.sim.simulation import SimConfig, simulate

ROOT = Path(__file__).resolve().parents[2]
FLOOR_TABLES, FLOOR_PACE = 50, 600.0  # ten times a 50-table floor's 60 hands an hour
P99_TARGET_S, P99_AIM_S = 10.0, 3.0
INCREMENT_TARGET = 2.5


def _load(source: str, warehouse: Path) -> float:
    """Seconds of one ``uth load`` in this process (its whole code, checks included)."""
    from pipeline.commands import load

    parser = argparse.ArgumentParser()
    load.register(parser.add_subparsers())
    args = parser.parse_args(["load", "--source", source, "--warehouse", str(warehouse), "-q"])
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = args.func(args)
    seconds = time.perf_counter() - start
    if code != 0:
        raise RuntimeError(f"uth load {source} failed ({code}): {out.getvalue()[-2000:]}")
    return seconds


def _copy_warehouse(src: Path, dst: Path) -> None:
    """The warehouse as it stands (file, stamp, archive), so the copy's next load reads it as
    the last load left it."""
    shutil.copy2(src, dst)
    shutil.copy2(src.with_name(src.name + ".loaded"), dst.with_name(dst.name + ".loaded"))
    archive = src.with_name(f"{src.stem}_archive")
    if archive.exists():
        shutil.copytree(archive, dst.with_name(f"{dst.stem}_archive"))


# -- the newest 5% ----------------------------------------------------------------------

def increment(root: Path, quick: bool) -> list[dict[str, Any]]:
    tables, hands = (10, 150) if quick else (40, 300)
    full = root / "floor.jsonl"
    simulate(SimConfig(tables=tables, hands=hands, seed=31, mispay_rate=0.01), str(full))
    lines = full.read_bytes().splitlines(keepends=True)
    cut = int(len(lines) * 0.95)
    log = root / "growing.jsonl"
    log.write_bytes(b"".join(lines[:cut]))
    warehouse = root / "inc.duckdb"
    first = _load(str(log), warehouse)
    with log.open("ab") as f:
        f.write(b"".join(lines[cut:]))
    second = _load(str(log), warehouse)
    per_first, per_second = first / cut, second / (len(lines) - cut)
    ratio = per_second / per_first
    note = (f"{tables} tables x {hands} hands, {len(lines):,} events: first load {cut:,} "
            f"events in {first:.2f} s, the newest 5% {len(lines) - cut:,} in {second:.2f} s")
    return [{"name": "newest 5% of a log onto the rest, per event", "value": per_second * 1e6,
             "unit": "us/event", "reference": "the first load's cost per event",
             "reference_value": per_first * 1e6, "ratio": ratio,
             "target": f"<= {INCREMENT_TARGET:g}x", "ok": ratio <= INCREMENT_TARGET,
             "note": note}]


# -- one new hand onto a big warehouse ---------------------------------------------------

def _one_hand(root: Path) -> bytes:
    """One new table's events (opening, one hand, closing), under a table id of its own."""
    path = root / "one.jsonl"
    simulate(SimConfig(tables=1, hands=1, seed=977), str(path))
    return path.read_bytes().replace(b'"T01', b'"NEW1')


def one_hand(root: Path, quick: bool) -> list[dict[str, Any]]:
    tables, hands = (20, 500) if quick else (100, 1000)
    log = root / "big.jsonl"
    simulate(SimConfig(tables=tables, hands=hands, seed=5, mispay_rate=0.01), str(log))
    base = root / "big.duckdb"
    built = _load(str(log), base)
    new = _one_hand(root)
    with log.open("ab") as f:
        f.write(new)
    copy = root / "big-copy.duckdb"
    _copy_warehouse(base, copy)
    onto_big = _load(str(log), copy)
    empty_log = root / "empty.jsonl"
    empty_log.write_bytes(b"")
    empty = root / "empty.duckdb"
    _load(str(empty_log), empty)  # the schema, no row
    with empty_log.open("ab") as f:
        f.write(new)
    onto_empty = _load(str(empty_log), empty)
    events = new.count(b"\n")
    note = (f"{tables * hands:,} hands built in {built:,.0f} s (one load); the new hand: "
            f"{events} events of a new table")
    return [{"name": f"one new hand onto a warehouse of {tables * hands:,} hands",
             "value": onto_big, "unit": "s", "reference": "the same load onto an empty one",
             "reference_value": onto_empty, "ratio": onto_big / onto_empty,
             "target": "seconds", "ok": None, "note": note}]


# -- from the table to the warehouse ---------------------------------------------------

def _iso(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class _Poller(threading.Thread):
    """Reads the warehouse's ended hands four times a second; the first time each is seen."""

    def __init__(self, warehouse: Path) -> None:
        super().__init__(daemon=True)
        self.warehouse = warehouse
        self.seen: dict[str, float] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        from pipeline.warehouse import WarehouseBusy, reading

        while not self.stop.wait(0.25):
            if not self.warehouse.exists():
                continue
            try:
                with reading(self.warehouse) as con:
                    rows = con.execute(
                        "SELECT hand_id FROM hands WHERE ended_at IS NOT NULL").fetchall()
            except WarehouseBusy:
                continue
            except Exception as exc:  # before the first load made the tables
                if "does not exist" in str(exc):
                    continue
                raise
            now = time.time()
            for (hand_id,) in rows:
                self.seen.setdefault(hand_id, now)


class _Consumer(threading.Thread):
    """The bare transport: a plain consumer of the topic; when each HandEnded arrives."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        super().__init__(daemon=True)
        self.bootstrap, self.topic = bootstrap, topic
        self.seen: dict[str, float] = {}
        self.ended: dict[str, float] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        from kafka import KafkaConsumer

        consumer = KafkaConsumer(self.topic, bootstrap_servers=self.bootstrap,
                                 auto_offset_reset="earliest", enable_auto_commit=False,
                                 fetch_max_wait_ms=50)
        try:
            while not self.stop.is_set():
                for messages in consumer.poll(timeout_ms=100).values():
                    now = time.time()
                    for m in messages:
                        if b'"HandEnded"' not in m.value:
                            continue
                        event = json.loads(m.value)
                        self.seen.setdefault(event["hand_id"], now)
                        self.ended[event["hand_id"]] = _iso(event["occurred_at"])
        finally:
            consumer.close()


def _quantiles(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    if not ordered:
        return float("nan"), float("nan"), float("nan")

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return at(0.5), at(0.99), ordered[-1]


def table_to_warehouse(root: Path, quick: bool) -> list[dict[str, Any]]:
    bootstrap = os.environ.get("UTH_BENCH_KAFKA")
    if not bootstrap:
        return [{"name": "table to warehouse: skipped (no local broker)", "value": None,
                 "ok": None}]
    seconds = 90 if quick else 300
    hands = max(2, int(FLOOR_PACE * seconds / 3600))
    outbox = f"sqlite:///{root / 'outbox.db'}"
    topic = f"bench.live.{int(time.time())}"
    url = f"kafka://{bootstrap}/{topic}"
    warehouse = root / "live.duckdb"
    env = {k: v for k, v in os.environ.items() if not k.startswith("UTH_")}
    uth = [sys.executable, "-m", "pipeline.cli"]
    logs = {n: (root / f"{n}.log").open("wb") for n in ("simulate", "ingest", "load")}
    procs: dict[str, subprocess.Popen[bytes]] = {}
    TablePublisher(root / "outbox.db").close()  # the tables' outbox, empty yet
    poller, consumer = _Poller(warehouse), _Consumer(bootstrap, topic)
    try:
        # the broker, the warehouse and the loader ready before the first hand is dealt
        procs["load"] = subprocess.Popen(
            [*uth, "load", "--source", url, "--warehouse", str(warehouse), "--follow",
             "--interval", "1"], cwd=ROOT, env=env, stdout=logs["load"], stderr=subprocess.STDOUT)
        procs["ingest"] = subprocess.Popen(
            [*uth, "ingest", "--source", outbox, "--sink", url, "--follow"], cwd=ROOT, env=env,
            stdout=logs["ingest"], stderr=subprocess.STDOUT)
        poller.start()
        consumer.start()
        deadline = time.monotonic() + 600
        while b"newest event" not in (root / "load.log").read_bytes():  # a first load ran
            if time.monotonic() > deadline or procs["load"].poll() is not None:
                raise RuntimeError((root / "load.log").read_text()[-2000:])
            time.sleep(0.5)
        procs["simulate"] = subprocess.Popen(
            [*uth, "simulate", "--sink", outbox, "--tables", str(FLOOR_TABLES), "--hands",
             str(hands), "--pace", str(FLOOR_PACE), "--seed", "50", "--mispay-rate", "0.01",
             "--quiet"], cwd=ROOT, env=env, stdout=logs["simulate"], stderr=subprocess.STDOUT)
        if procs["simulate"].wait(timeout=seconds * 3 + 600) != 0:
            raise RuntimeError((root / "simulate.log").read_text()[-2000:])
        total = FLOOR_TABLES * hands
        deadline = time.monotonic() + 300
        while len(poller.seen) < total and time.monotonic() < deadline:
            time.sleep(1)
    finally:
        poller.stop.set()
        consumer.stop.set()
        for proc in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for f in logs.values():
            f.close()
        poller.join(30)
        consumer.join(30)
    ended = consumer.ended
    warehouse_lat = [poller.seen[h] - ended[h] for h in poller.seen if h in ended]
    transport_lat = [consumer.seen[h] - ended[h] for h in consumer.seen if h in ended]
    p50, p99, worst = _quantiles(warehouse_lat)
    r50, r99, rworst = _quantiles(transport_lat)
    note = (f"{FLOOR_TABLES} tables at {FLOOR_PACE:g} hands/h each for {seconds} s: "
            f"{len(warehouse_lat):,} of {FLOOR_TABLES * hands:,} hands seen in the warehouse; "
            f"p50 {p50:.2f} s, max {worst:.2f} s; transport p50 {r50:.2f} s, max {rworst:.2f} s")
    return [{"name": "HandEnded at the table to its warehouse row, p99", "value": p99,
             "unit": "s", "reference": "bare transport outbox->Kafka->consumer, p99",
             "reference_value": r99, "ratio": p99 / r99 if r99 else None,
             "target": f"<= {P99_TARGET_S:g} s (aim {P99_AIM_S:g})",
             "ok": p99 <= P99_TARGET_S and len(warehouse_lat) == FLOOR_TABLES * hands,
             "p50": p50, "max": worst, "reference_p50": r50, "note": note}]


def run(quick: bool = False) -> list[dict[str, Any]]:
    import pipeline.definitions  # noqa: F401  (imported before any load is timed)

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="uth-bench-live-") as tmp:
        for name, part in (("increment", increment), ("one_hand", one_hand),
                           ("latency", table_to_warehouse)):
            if os.environ.get("UTH_BENCH_LIVE_ONLY", name) != name:
                continue
            folder = Path(tmp) / name
            folder.mkdir()
            rows += part(folder, quick)
    return rows


if __name__ == "__main__":  # pragma: no cover
    for r in run(quick="--quick" in sys.argv):
        print(r)
