"""``uth reaudit`` of one Parquet archive on Spark ``local[1]`` and ``local[2]`` beside the
DuckDB engine, measured in the same run: events per second, per core, and the scaling from
one core to two (aim: at least 1.7x).

Wall time (the work runs in the JVM and in Spark's Python workers, not in this process), the
best of ``repeat`` runs after one warm-up run per session (the session's start, about 10 s,
and the Python workers' first imports are left out: a cluster keeps its session), the audit
(``reaudit_spark``), the rollups (``spark_rollups``) and the player tables
(``players_spark``: a task per table's history, the sums merged on the driver) timed
apart: the audit is the part that runs one task per group, the rollups a dozen small SQL
jobs whose fixed cost does not shrink with cores. The DuckDB engine does all three. The
floor is simulated and loaded by ``uth load`` once, with many tables (a group is a table's
gaming day: with as few groups as cores, where the hash puts them decides the scaling,
not the cores). Skipped (no rows) without Java or the optional extra
``spark``.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.floors import archived_floor


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
    from pipeline.reaudit.players import players_spark
    from pipeline.reaudit.rollups import spark_rollups
    from pipeline.reaudit.spark import reaudit_spark, session
    from pipeline.reaudit.summary import read_report

    tables, hands = (12, 40) if quick else (16, 500)
    repeat = 1 if quick else 2
    rows: list[dict[str, Any]] = [{"name": "reaudit floor", "value": float(tables),
                                   "unit": "tables", "reference": "-",
                                   "reference_value": None, "ratio": None,
                                   "target": "reported", "ok": None}]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        _, archive = archived_floor(d, tables, hands)
        events = read_report(archive, d / "none").summary["events"]
        duck = _best(lambda: reaudit_duckdb(archive, d / "duck", 360), repeat)
        timing: dict[int, float] = {}
        rolling: dict[int, float] = {}
        playing: dict[int, float] = {}
        for cores in (1, 2):
            spark = session(f"local[{cores}]", memory="1g", partitions=4 * cores)
            out = d / f"spark{cores}"
            try:
                reaudit_spark(spark, archive, out, 360)  # warm-up
                spark_rollups(spark, str(out), str(archive))
                players_spark(spark, str(out), str(archive), 360)
                timing[cores] = _best(
                    lambda s=spark, o=out: reaudit_spark(s, archive, o, 360), repeat)
                rolling[cores] = _best(
                    lambda s=spark, o=out: spark_rollups(s, str(o), str(archive)), repeat)
                playing[cores] = _best(
                    lambda s=spark, o=out: players_spark(s, str(o), str(archive), 360), repeat)
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
    for cores in (1, 2):
        rows.append({"name": f"reaudit spark local[{cores}] player tables",
                     "value": events / playing[cores], "unit": "events/s",
                     "reference": "-", "reference_value": None, "ratio": None,
                     "target": "reported", "ok": None})
    for cores in (1, 2):
        whole = timing[cores] + rolling[cores] + playing[cores]
        rows.append({"name": f"reaudit spark local[{cores}] audit + rollups + players",
                     "value": events / whole, "unit": "events/s",
                     "reference": "duckdb engine (restore + audit + rollups + players)",
                     "reference_value": events / duck, "ratio": duck / whole,
                     "target": "reported", "ok": None})
    scaling = timing[1] / timing[2]
    rows.append({"name": "reaudit spark scaling local[1] -> local[2] (audit)", "value": scaling,
                 "unit": "x", "reference": "local[1]", "reference_value": 1.0,
                 "ratio": scaling, "target": ">= 1.7x", "ok": scaling >= 1.7})
    rolled = (timing[1] + rolling[1] + playing[1]) / (timing[2] + rolling[2] + playing[2])
    rows.append({"name": "reaudit spark scaling local[1] -> local[2] (everything)",
                 "value": rolled, "unit": "x", "reference": "local[1]", "reference_value": 1.0,
                 "ratio": rolled, "target": "reported", "ok": None})
    return rows
