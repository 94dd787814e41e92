"""Simulated hands per second into a JSON Lines file, the SQLite log and Kafka, beside the
rate at which the same events can merely be encoded (``encode_event`` on Structs already
built), measured in the same run. Target: into a file, at least a third of encode-only.

The file and encode-only figures are taken in interleaved rounds (best of each), so a
busy machine slows both alike; CPU time is reported beside wall time. Kafka needs a
broker: ``UTH_BENCH_KAFKA=host:port`` (``make bench`` starts one); without it the Kafka
row says it was skipped.
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from events.contract.schemas import decode_event, encode_event
from events.sim.simulation import Floor, SimConfig, simulate


def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def _row(name: str, value: float | None, ref_name: str, ref: float, target: str,
         ok: bool | None, **extra: Any) -> dict[str, Any]:
    return {
        "name": name, "value": value, "unit": "hands/s", "reference": ref_name,
        "reference_value": ref, "ratio": None if value is None else value / ref,
        "target": target, "ok": ok, **extra,
    }


def run(quick: bool = False) -> list[dict[str, Any]]:
    tables, hands = (4, 500) if quick else (8, 2000)
    rounds = 3 if quick else 5
    config = SimConfig(tables=tables, hands=hands, seed=11, ruleset="mixed", mispay_rate=0.01,
                       void_rate=0.002, dispute_rate=0.002)
    total = tables * hands
    lines = [line for chunk in Floor(config).chunks() for line in chunk.lines()]
    structs = [decode_event(line) for line in lines]
    ref = f"encode-only ({len(lines) / total:.0f} events/hand, encode_event)"
    best: dict[str, tuple[float, float]] = {}

    def keep(name: str, timing: tuple[float, float]) -> None:
        old = best.get(name)
        best[name] = timing if old is None else (min(old[0], timing[0]), min(old[1], timing[1]))

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "floor.jsonl"
        for _ in range(rounds):
            keep("file", _timed(lambda: simulate(config, str(path))))
            keep("encode", _timed(lambda: [encode_event(e) for e in structs]))
        (file_wall, file_cpu), (enc_wall, enc_cpu) = best["file"], best["encode"]
        file_rate, enc_rate = total / file_wall, total / enc_wall
        rows.append(_row("simulate into a JSON Lines file", file_rate, ref, enc_rate,
                         ">= 1/3 of encode-only", file_rate >= enc_rate / 3,
                         cpu_ratio=enc_cpu / file_cpu))
        rows.append(_row("encode-only (reference)", enc_rate, ref, enc_rate, "", None))

        def sqlite() -> None:
            simulate(config, f"sqlite:///{Path(tmp) / f'log-{uuid.uuid4().hex}.db'}")

        for _ in range(2 if quick else 3):
            keep("sqlite", _timed(sqlite))
        wall, cpu = best["sqlite"]
        rows.append(_row("simulate into the SQLite log", total / wall, ref, enc_rate,
                         "reported", None, cpu_hands_per_s=total / cpu))
    broker = os.environ.get("UTH_BENCH_KAFKA")
    if broker:
        topic = f"uth.bench-sim-{uuid.uuid4().hex[:8]}"
        wall, cpu = _timed(lambda: simulate(config, f"kafka://{broker}/{topic}"))
        rows.append(_row("simulate into Kafka", total / wall, ref, enc_rate, "reported", None,
                         cpu_hands_per_s=total / cpu))
    else:
        rows.append(_row("simulate into Kafka", None, ref, enc_rate, "reported", None,
                         note="skipped: no broker (set UTH_BENCH_KAFKA=host:port)"))
    return rows


if __name__ == "__main__":
    import json
    import sys

    for r in run(quick="--quick" in sys.argv):
        print(json.dumps(r))
