"""``uth reaudit --archive`` (the DuckDB engine) beside msgspec decoding the same events
from JSON Lines, line by line, in the same run (issue 32's reference; target: the re-audit
at least 2x that rate, which only an audit that reads the archive's columns without
building an event per row can reach).

The floor is simulated and loaded by ``uth load`` once; then the re-audit's stages are
timed one after the other as :func:`pipeline.reaudit.local.reaudit_duckdb` runs them: the
archive restored into a warehouse of its own, every hand audited by the load's audit step
(its events read as columns, built into the contract's Structs, audited), the rollups, the
outputs written as Parquet. Wall time, best of ``repeat`` runs.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from events.sim.simulation import SimConfig, simulate

REFERENCE = "msgspec decoding the same JSON Lines into the contract's Structs, line by line"
TARGET = 2.0  # times the reference's rate


def _decode_lines(log: Path) -> float:
    """Seconds for msgspec to decode every line of ``log`` into the contract's Structs,
    one line at a time (the file read first, not timed)."""
    import msgspec

    from events.contract.schemas import Event

    decode = msgspec.json.Decoder(Event).decode
    lines = log.read_bytes().splitlines()
    start = time.perf_counter()
    for line in lines:
        decode(line)
    return time.perf_counter() - start


def _reaudit(archive: Path, out: Path) -> dict[str, float]:
    """Seconds of each stage of the DuckDB engine's re-audit of ``archive``."""
    from pipeline.analytics.steps import update_rollups
    from pipeline.hands.steps import update_hands
    from pipeline.ingest.steps import restore_archive
    from pipeline.reaudit.groups import OUTPUTS
    from pipeline.reaudit.local import ROLLUPS, write_table
    from pipeline.warehouse import reading

    out.mkdir(parents=True, exist_ok=True)
    marks = [time.perf_counter()]
    with tempfile.TemporaryDirectory(prefix="uth-bench-reaudit-") as tmp:
        warehouse = Path(tmp) / "reaudit.duckdb"
        restore_archive(archive, warehouse, day_start_minutes=360)
        marks.append(time.perf_counter())
        update_hands(warehouse, 360)
        marks.append(time.perf_counter())
        update_rollups(warehouse)
        with reading(warehouse) as con:
            for name in (*OUTPUTS, *ROLLUPS):
                write_table(con, name, out / f"output={name}")
        marks.append(time.perf_counter())
    return {stage: b - a for stage, a, b in zip(
        ("restore", "audit", "rollups and outputs"), marks, marks[1:], strict=False)}


def run(quick: bool = False) -> list[dict[str, Any]]:
    from pipeline.cli import main

    tables, hands = (4, 200) if quick else (8, 1000)
    repeat = 2
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        log = d / "floor.jsonl"
        simulate(SimConfig(tables=tables, hands=hands, seed=33, ruleset="mixed",
                           mispay_rate=0.01, void_rate=0.01), str(log))
        archive = d / "w_archive"
        main(["load", "--source", str(log), "--warehouse", str(d / "w.duckdb"), "--archive",
              str(archive), "-q"])
        events = sum(1 for _ in log.open("rb"))
        _reaudit(archive, d / "warm")
        runs = [_reaudit(archive, d / f"out{i}") for i in range(repeat)]
        best = min(runs, key=lambda r: sum(r.values()))
        decode = min(_decode_lines(log) for _ in range(repeat))
    reference = events / decode
    whole = events / sum(best.values())
    note = f"{tables * hands:,} simulated hands, {events:,} events"
    rows: list[dict[str, Any]] = [
        {"name": "reaudit --archive, duckdb engine (whole)", "value": whole,
         "unit": "events/s", "reference": REFERENCE, "reference_value": reference,
         "ratio": whole / reference, "target": f">= {TARGET:g}x the reference",
         "ok": whole >= TARGET * reference, "note": note},
        {"name": "msgspec decode of the JSON Lines, line by line (reference)",
         "value": reference, "unit": "events/s", "reference": REFERENCE,
         "reference_value": reference, "ratio": 1.0, "target": "", "ok": None},
    ]
    for stage, seconds in best.items():
        rows.append({"name": f"  reaudit stage: {stage}", "value": events / seconds,
                     "unit": "events/s", "reference": REFERENCE,
                     "reference_value": reference, "ratio": events / seconds / reference,
                     "target": "", "ok": None})
    return rows


if __name__ == "__main__":  # pragma: no cover
    for r in run(quick=True):
        print(f"{r['name']:<62} {r['value']:>12,.0f} {r['unit']}  ratio {r['ratio']:.3f}")
