"""Simulated hands per second into a JSON Lines file, the SQLite log and Kafka, beside the
rate at which the same events can merely be encoded (``encode_event`` on Structs already
built), measured in the same run. Target: into a file, at least a third of encode-only.

Kafka needs a broker: ``UTH_BENCH_KAFKA=host:port`` (``make bench`` starts one); without
it the Kafka row says it was skipped.
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from events.schemas import decode_event, encode_event
from events.simulation import Floor, SimConfig, simulate


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _row(name: str, value: float | None, ref_name: str, ref: float, target: str,
         ok: bool | None, note: str = "") -> dict[str, Any]:
    row: dict[str, Any] = {
        "name": name, "value": value, "unit": "hands/s", "reference": ref_name,
        "reference_value": ref, "ratio": None if value is None else value / ref,
        "target": target, "ok": ok,
    }
    if note:
        row["note"] = note
    return row


def run(quick: bool = False) -> list[dict[str, Any]]:
    tables, hands = (4, 500) if quick else (8, 2500)
    config = SimConfig(tables=tables, hands=hands, seed=11, ruleset="mixed", mispay_rate=0.01,
                       void_rate=0.002, dispute_rate=0.002)
    total = tables * hands
    repeat = 2 if quick else 3
    lines = [line for chunk in Floor(config).chunks() for line in chunk.lines]
    structs = [decode_event(line) for line in lines]
    encode_s = _best(lambda: [encode_event(e) for e in structs], repeat)
    encode_rate = total / encode_s
    ref = f"encode-only ({len(lines) / total:.0f} events/hand, encode_event)"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "floor.jsonl"
        file_s = _best(lambda: simulate(config, str(path)), repeat)
        rows.append(_row("simulate into a JSON Lines file", total / file_s, ref, encode_rate,
                         ">= 1/3 of encode-only", total / file_s >= encode_rate / 3))
        rows.append(_row("encode-only (reference)", encode_rate, ref, encode_rate, "", None))

        def sqlite() -> None:
            db = Path(tmp) / f"log-{uuid.uuid4().hex}.db"
            simulate(config, f"sqlite:///{db}")

        sqlite_s = _best(sqlite, repeat)
        rows.append(_row("simulate into the SQLite log", total / sqlite_s, ref, encode_rate,
                         "reported", None))
    broker = os.environ.get("UTH_BENCH_KAFKA")
    if broker:
        topic = f"uth.bench-sim-{uuid.uuid4().hex[:8]}"
        kafka_s = _best(lambda: simulate(config, f"kafka://{broker}/{topic}"), 1)
        rows.append(_row("simulate into Kafka", total / kafka_s, ref, encode_rate, "reported",
                         None))
    else:
        rows.append(_row("simulate into Kafka", None, ref, encode_rate, "reported", None,
                         "skipped: no broker (set UTH_BENCH_KAFKA=host:port)"))
    return rows


if __name__ == "__main__":
    import json
    import sys

    for r in run(quick="--quick" in sys.argv):
        print(json.dumps(r))
