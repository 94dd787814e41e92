"""``uth reaudit`` of one Parquet archive on Spark ``local[1]`` and ``local[2]`` beside the
DuckDB engine, measured in the same run: events per second, per core, and the scaling from
one core to two (aim: at least 1.7x).

Wall time (the work runs in the JVM and in Spark's Python workers, not in this process), the
best of ``repeat`` runs after one warm-up run per session (the session's start, about 10 s,
is left out: a cluster keeps its session). The floor is simulated and loaded by ``uth load``
once. Skipped (no rows) without Java or the optional extra ``spark``.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from events.sim.simulation import SimConfig, simulate
from pipeline.cli import main


def _best(fn: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def run(quick: bool = False) -> list[dict[str, Any]]:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return []
    if shutil.which("java") is None:
        return []
    from pipeline.reaudit.local import reaudit_duckdb
    from pipeline.reaudit.spark import reaudit_spark, session
    from pipeline.reaudit.summary import read_report

    tables, hands = (4, 100) if quick else (8, 1000)
    repeat = 1 if quick else 2
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        log = d / "floor.jsonl"
        simulate(SimConfig(tables=tables, hands=hands, seed=33, ruleset="mixed",
                           mispay_rate=0.01, void_rate=0.01), str(log))
        archive = d / "w_archive"
        main(["load", "--source", str(log), "--warehouse", str(d / "w.duckdb"), "--archive",
              str(archive), "-q"])
        events = read_report(archive, d / "none").summary["events"]
        duck = _best(lambda: reaudit_duckdb(archive, d / "duck", 360), repeat)
        timing: dict[int, float] = {}
        for cores in (1, 2):
            spark = session(f"local[{cores}]", memory="1g", partitions=4 * cores)
            try:
                reaudit_spark(spark, archive, d / f"spark{cores}", 360)  # warm-up
                timing[cores] = _best(
                    lambda s=spark, c=cores: reaudit_spark(s, archive, d / f"spark{c}", 360),
                    repeat)
            finally:
                spark.stop()
    rate = {c: events / t for c, t in timing.items()}
    rows.append({"name": "reaudit duckdb engine", "value": events / duck, "unit": "events/s",
                 "reference": "-", "reference_value": None, "ratio": None,
                 "target": "reported", "ok": None})
    for cores in (1, 2):
        rows.append({"name": f"reaudit spark local[{cores}] per core",
                     "value": rate[cores] / cores, "unit": "events/s/core",
                     "reference": "duckdb engine", "reference_value": events / duck,
                     "ratio": rate[cores] / (events / duck), "target": "reported", "ok": None})
    scaling = timing[1] / timing[2]
    rows.append({"name": "reaudit spark scaling local[1] -> local[2]", "value": scaling,
                 "unit": "x", "reference": "local[1]", "reference_value": 1.0,
                 "ratio": scaling, "target": ">= 1.7x", "ok": scaling >= 1.7})
    return rows
