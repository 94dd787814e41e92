"""The auditor's throughput: hands audited per second beside the rate at which the same
bytes can merely be decoded (the ceiling).

- From a JSON Lines file written by the simulator (every ruleset, voids, disputes, a few
  mispays): ``uth audit``'s own path (``audit_source``: block reads, ``decode_records`` in
  batches of 2000, the auditor) against the same reader and decoder alone. Target: at least
  half the decode-only rate (replay, evaluation and settlement together cost no more than
  decoding). CPU time of this process, best of interleaved rounds (the machine is shared).
- From Kafka (``UTH_BENCH_KAFKA``, set by ``run_all``): a full read of the topic through
  ``KafkaLog.read`` with decoding, with and without the auditor (informational: the
  consumer dominates both).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET = 0.5


def _row(name: str, value: float, unit: str, reference: str, ref_value: float,
         target_ratio: float | None, target: str) -> dict[str, Any]:
    ratio = value / ref_value if ref_value else float("nan")
    return {"name": name, "value": value, "unit": unit, "reference": reference,
            "reference_value": ref_value, "ratio": ratio, "target": target,
            "ok": None if target_ratio is None else ratio >= target_ratio}


def floor_file(path: Path, tables: int, hands: int) -> int:
    """A simulated floor as JSON Lines (``uth simulate``; the test builder's random hands
    if the simulator fails); returns the number of lines."""
    from pipeline.cli import main

    try:
        code = main(["simulate", "--tables", str(tables), "--hands", str(hands), "--seed",
                     "11", "--ruleset", "mixed", "--mispay-rate", "0.01", "--void-rate",
                     "0.01", "--dispute-rate", "0.01", "--sink", str(path), "--quiet"])
    except Exception:
        code = 1
    if code != 0:
        from tests.audit.builder import floor_lines

        path.write_bytes(b"\n".join(floor_lines(tables, hands, seed=11)) + b"\n")
    return len(path.read_bytes().splitlines())


def decode_only(source: str) -> int:
    from events.contract.codec import decode_records
    from pipeline.commands.audit import read_batches

    n = 0
    for chunk in read_batches(source):
        n += len(decode_records(chunk))
    return n


def audit_file(source: str) -> dict[str, int]:
    from pipeline.commands.audit import audit_source

    report = audit_source(source)
    return dict(report.summary)


def bench_file(quick: bool) -> list[dict[str, Any]]:
    tables, hands = (6, 150) if quick else (12, 500)
    # more rounds than the other benchmarks: on a shared machine the shorter of the two
    # runs catches a quiet moment more easily than the longer one; alternating their order
    # keeps either from always following the other
    rounds = 3 if quick else 11
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "floor.jsonl"
        lines = floor_file(path, tables, hands)
        source = str(path)
        best_dec = best_aud = float("inf")
        summary: dict[str, int] = {}
        for k in range(rounds):
            for run in ("decode", "audit") if k % 2 == 0 else ("audit", "decode"):
                start = time.process_time()
                if run == "decode":
                    decode_only(source)
                    best_dec = min(best_dec, time.process_time() - start)
                else:
                    summary = audit_file(source)
                    best_aud = min(best_aud, time.process_time() - start)
    n_hands = summary["hands"]
    return [
        _row(f"hands audited/s from a JSON Lines file ({n_hands:,} hands, {lines:,} events)",
             n_hands / best_aud, "hands/s", "decode only, same reader and bytes",
             n_hands / best_dec, TARGET, ">= 50% of decode-only"),
        {"name": "  same, events/s", "value": lines / best_aud, "unit": "events/s",
         "reference": "decode only", "reference_value": lines / best_dec,
         "ratio": best_dec / best_aud, "target": "", "ok": None},
    ]


def bench_kafka(bootstrap: str, quick: bool) -> list[dict[str, Any]]:
    import uuid

    from events.audit.auditor import Auditor
    from events.contract.codec import decode_records
    from events.logs import open_log

    tables, hands = (4, 100) if quick else (8, 300)
    url = f"kafka://{bootstrap}/bench.audit.{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "floor.jsonl"
        floor_file(path, tables, hands)
        data = path.read_bytes().splitlines()
    import json

    with open_log(url) as log:
        log.append([(json.loads(v)["table_id"], v) for v in data])
        best_dec = best_aud = float("inf")
        n_hands = 0
        for _ in range(2 if quick else 3):
            start = time.perf_counter()
            for batch in log.read():
                decode_records([(r.offset, r.value) for r in batch])
            best_dec = min(best_dec, time.perf_counter() - start)
            start = time.perf_counter()
            auditor = Auditor()
            for batch in log.read():
                items = decode_records([(r.offset, r.value) for r in batch])
                auditor.feed_many(items)
            n_hands = auditor.finish().summary["hands"]
            best_aud = min(best_aud, time.perf_counter() - start)
    return [_row("hands audited/s from Kafka (full read of the topic)", n_hands / best_aud,
                 "hands/s", "read + decode only, same topic", n_hands / best_dec, None,
                 "informational")]


def run(quick: bool = False) -> list[dict[str, Any]]:
    rows = bench_file(quick)
    bootstrap = os.environ.get("UTH_BENCH_KAFKA")
    if bootstrap:
        try:
            rows += bench_kafka(bootstrap, quick)
        except Exception as exc:  # the broker is optional here
            rows.append({"name": f"Kafka row skipped: {type(exc).__name__}: {exc}",
                         "value": None, "ok": None})
    return rows


if __name__ == "__main__":
    import sys

    for row in run(quick="--quick" in sys.argv):
        print(row)
