"""How long ``uth load`` of a small file takes, start to finish, as a person runs it: a
new process loading a small simulated floor (about 200 events, the size of the issue's
207-event file) into a new warehouse, and again with nothing new in the log; each beside
the time a new process takes to ``import dagster`` on this machine, measured in the same
run (the fastest of several tries of each, interleaved, the machine being shared).

Target: each at most 3 s beyond importing Dagster.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from events.sim.simulation import SimConfig, simulate

ROOT = Path(__file__).resolve().parents[2]
BEYOND_S = 3.0


def _seconds(argv: Sequence[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(list(argv), cwd=ROOT, capture_output=True, text=True, timeout=600)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr[-2000:]}")
    return seconds


def _row(name: str, seconds: float, reference: float, note: str) -> dict[str, Any]:
    beyond = seconds - reference
    return {"name": name, "value": seconds, "unit": "s",
            "reference": "a new process importing dagster", "reference_value": reference,
            "ratio": seconds / reference, "target": f"<= import + {BEYOND_S:g} s",
            "ok": beyond <= BEYOND_S, "beyond_import_s": beyond, "note": note}


def run(quick: bool = False) -> list[dict[str, Any]]:
    tries = 3 if quick else 5
    with tempfile.TemporaryDirectory(prefix="uth-bench-load-") as tmp:
        root = Path(tmp)
        log = root / "small.jsonl"
        simulate(SimConfig(tables=1, hands=8, seed=4), str(log))
        events = sum(1 for _ in log.open("rb"))
        load = [sys.executable, "-m", "pipeline.cli", "load", "--source", str(log), "-q",
                "--warehouse"]
        importing = [sys.executable, "-c", "import dagster"]
        _seconds(importing)  # warm: the file cache, and bytecode where it can be written
        _seconds([*load, str(root / "warm.duckdb")])
        ref, fresh, unchanged = [], [], []
        for i in range(tries):
            ref.append(_seconds(importing))
            warehouse = root / f"w{i}.duckdb"
            fresh.append(_seconds([*load, str(warehouse)]))
            unchanged.append(_seconds([*load, str(warehouse)]))
            warehouse.unlink()
            shutil.rmtree(root / f"w{i}_archive", ignore_errors=True)
    reference = min(ref)
    note = f"{events} events, 1 table, 8 hands; best of {tries}"
    return [
        _row("uth load of a small file into a new warehouse", min(fresh), reference, note),
        _row("uth load again, nothing new in the log (no Dagster run)", min(unchanged),
             reference, note),
        {"name": "a new process importing dagster (reference)", "value": reference,
         "unit": "s", "reference": "", "reference_value": None, "ratio": None,
         "target": "", "ok": None},
    ]


if __name__ == "__main__":  # pragma: no cover
    for r in run(quick="--quick" in sys.argv):
        extra = f" ({r['beyond_import_s']:+.2f} s beyond the import)" if "beyond_import_s" \
            in r else ""
        print(f"{r['name']:<60} {r['value']:6.2f} s{extra}")
