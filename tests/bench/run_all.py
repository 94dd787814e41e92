"""``make bench``: every benchmark of the project in one run, each figure beside its
reference measured in the same run, printed as a table and written as one JSON report.

Benchmarks are the modules ``tests/bench/bench_*.py``; each exposes ``run(quick)``
returning rows of name, value, unit, reference, reference_value, ratio, target, ok. A
local broker is started for the Kafka rows and passed as ``UTH_BENCH_KAFKA``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import Any


def machine() -> dict[str, Any]:
    import numpy

    cpu = "unknown"
    with open("/proc/cpuinfo") as fh:
        for line in fh:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {
        "cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
        "numpy": numpy.__version__, "platform": platform.platform(),
    }


def fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--only", help="run only bench modules whose name contains this")
    parser.add_argument("--out", type=Path, default=Path("bench-results/report.json"))
    args = parser.parse_args(argv)

    from pipeline.local_broker import BrokerUnavailable, local_broker

    bench_dir = Path(__file__).parent
    names = sorted(p.stem for p in bench_dir.glob("bench_*.py"))
    if args.only:
        names = [n for n in names if args.only in n]
    report: dict[str, Any] = {"machine": machine(), "quick": args.quick, "benchmarks": {}}
    started = time.time()
    try:
        broker = local_broker()
        bootstrap = broker.__enter__()
        os.environ["UTH_BENCH_KAFKA"] = bootstrap
    except BrokerUnavailable as exc:
        broker = None
        print(f"(no local broker: {exc}; Kafka rows are skipped)")
    try:
        for name in names:
            print(f"== {name}", flush=True)
            t0 = time.perf_counter()
            try:
                rows = importlib.import_module(f"tests.bench.{name}").run(quick=args.quick)
            except Exception:  # one failing benchmark must not hide the others' figures
                traceback.print_exc()
                rows = [{"name": f"{name} failed", "value": None, "ok": False}]
            report["benchmarks"][name] = {"rows": rows, "seconds": time.perf_counter() - t0}
            for row in rows:
                ok = {True: "ok", False: "MISS", None: ""}[row.get("ok")]
                print(
                    f"  {row['name']:<52} {fmt(row.get('value')):>14} {row.get('unit', ''):<9}"
                    f" ref {row.get('reference', '')}: {fmt(row.get('reference_value'))}"
                    f"  ratio {fmt(row.get('ratio'))}  {row.get('target', '')} {ok}",
                    flush=True,
                )
    finally:
        if broker is not None:
            broker.__exit__(None, None, None)
    report["seconds"] = time.time() - started
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"report written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
