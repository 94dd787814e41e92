"""``uth reaudit``: every hand of a Parquet archive audited again, by the warehouse's own
audit code, with the findings ``uth audit`` gives on the source log.

    uth reaudit --archive warehouse_archive                      # on this machine (DuckDB)
    uth reaudit --archive A --out R --engine spark --master 'local[2]'
    uth reaudit --archive s3a://bucket/archive --out s3a://bucket/reaudit \\
        --engine spark --master spark://head:7077

``--out`` receives ``hands``, ``wagers`` and ``audit_findings`` as Parquet, each under
``output=<table>/`` partitioned by gaming day and table like the archive, with the rollups
(``table_hold_daily``, ``trips_performance`` and ``dealer_performance``; the spark engine
computes them by Spark SQL with the warehouse's own SQL text) and the player tables
(``player_ratings``, ``player_alerts``, ``player_alert_dealers``, ``dealer_alerts``: the
players step on each table's history, the sums merged). Without ``--out``
the outputs go to a temporary directory, removed after. The summary is ``uth audit``'s
(``--json``: one object per finding, the summary last); the archive holds each valid
event once, so nothing is rejected or redelivered in it.
The Spark engine needs the optional extra ``spark`` and Java 17 (docs/spark.md).

Exit status: 0 when the re-audit ran (whatever it found), 2 when it could not.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("reaudit", help="audit every hand of a Parquet archive again "
                       "(DuckDB or Spark)", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--archive", required=True, help="the Parquet archive (a directory or URI)")
    p.add_argument("--out", help="where the outputs go (default: a temporary directory)")
    p.add_argument("--engine", choices=("duckdb", "spark"), default="duckdb")
    p.add_argument("--master", default="local[*]",
                   help="Spark master: local[N], spark://host:port, k8s://... (with spark)")
    p.add_argument("--driver-memory", default="1g", help="Spark driver memory (with spark)")
    p.add_argument("--gaming-day-start", default=None,
                   help="local time a gaming day starts (default UTH_GAMING_DAY_START or 06:00)")
    p.add_argument("--json", action="store_true", help="JSON Lines output, summary last")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pipeline.commands.audit import write_json, write_text
    from pipeline.reaudit.summary import read_report
    from pipeline.warehouse import parse_day_start

    day_text = args.gaming_day_start or os.environ.get("UTH_GAMING_DAY_START", "").strip()
    try:
        day_start = parse_day_start(day_text or "06:00")
    except ValueError as exc:
        print(f"uth reaudit: {exc}", file=sys.stderr)
        return 2
    local = "://" not in args.archive
    if local and not Path(args.archive).is_dir():
        print(f"uth reaudit: {args.archive}: no Parquet archive here", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="uth-reaudit-out-") as tmp:
        out = args.out or tmp
        try:
            _reaudit(args, out, day_start)
        except ImportError as exc:
            print(f"uth reaudit: the spark engine needs the optional extra spark "
                  f"(uv sync --extra spark): {exc}", file=sys.stderr)
            return 2
        if "://" in str(out):
            print(f"uth reaudit: outputs written under {out}")
            return 0
        report = read_report(args.archive, out)
    (write_json if args.json else write_text)(report, sys.stdout)
    return 0


def _reaudit(args: argparse.Namespace, out: str, day_start: int) -> None:
    if args.engine == "duckdb":
        from pipeline.reaudit.local import reaudit_duckdb

        reaudit_duckdb(args.archive, out, day_start)
        return
    from pipeline.reaudit.spark import reaudit_spark, session

    spark = session(args.master, memory=args.driver_memory)
    try:
        reaudit_spark(spark, args.archive, out, day_start)
        from pipeline.reaudit.players import players_spark
        from pipeline.reaudit.rollups import spark_rollups

        spark_rollups(spark, out, args.archive)
        players_spark(spark, out, args.archive, day_start)
    finally:
        spark.stop()
