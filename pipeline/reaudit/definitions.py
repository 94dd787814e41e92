"""The Dagster code location of the archive's re-audit on Spark, separate from the load's
(it needs the optional extra ``spark``)::

    UTH_ARCHIVE=demo-data/warehouse_archive UTH_REAUDIT_OUT=demo-data/reaudit \\
    UTH_WAREHOUSE=demo-data/warehouse.duckdb UTH_SPARK_MASTER='local[2]' \\
        .venv/bin/dagster dev -m pipeline.reaudit.definitions

The job ``reaudit_archive`` materializes ``reaudit_outputs`` (``uth reaudit --engine
spark`` through ``PySparkResource``: a local or standalone cluster) and runs its check
``matches_warehouse``: a sample of (table, gaming day) keys compared row for row with the
warehouse. Managed Spark (EMR, Dataproc, Databricks) runs the same function by Dagster Pipes
(docs/spark.md). No ``from __future__ import annotations``: Dagster reads the types.
"""

import os

import dagster as dg
from dagster_pyspark import PySparkResource

from pipeline.reaudit.compare import compare_sample
from pipeline.reaudit.players import players_spark
from pipeline.reaudit.rollups import spark_rollups
from pipeline.reaudit.spark import reaudit_spark, spark_conf, use_this_python
from pipeline.warehouse import parse_day_start


class ReauditPaths(dg.ConfigurableResource):  # type: ignore[type-arg]
    """Where the archive is, where the outputs go, the warehouse the check compares with."""

    archive: str
    out: str
    warehouse: str = ""
    gaming_day_start: str = "06:00"
    sample: int = 5


@dg.asset(description="Every hand of the Parquet archive audited again on Spark: hands, "
          "wagers and audit_findings under output=<table>/gaming_day=/table_id=, and the rollups "
          "table_hold_daily, trips_performance and dealer_performance by Spark SQL, and the "
          "player tables (player_ratings, player_alerts, player_alert_dealers, dealer_alerts) "
          "from each table's sums, merged.")
def reaudit_outputs(pyspark: PySparkResource, paths: ReauditPaths) -> dg.MaterializeResult:
    spark = pyspark.spark_session
    day_start = parse_day_start(paths.gaming_day_start)
    out = reaudit_spark(spark, paths.archive, paths.out, day_start)
    rollups = spark_rollups(spark, out, paths.archive)
    rollups += players_spark(spark, out, paths.archive, day_start)
    return dg.MaterializeResult(metadata={"path": out, "rollups": ", ".join(rollups)})


@dg.asset_check(asset=reaudit_outputs, name="matches_warehouse",
                description="A sample of (table, gaming day) keys: the re-audit's rows "
                "equal the warehouse's, row for row.")
def matches_warehouse(paths: ReauditPaths) -> dg.AssetCheckResult:
    if not paths.warehouse:
        return dg.AssetCheckResult(passed=True, metadata={"skipped": "no warehouse named"})
    passed, meta = compare_sample(paths.out, paths.warehouse, paths.sample)
    return dg.AssetCheckResult(passed=passed, metadata=meta)


reaudit_job = dg.define_asset_job("reaudit_archive", selection=[reaudit_outputs],
                                  description="Re-audit the Parquet archive on Spark.")


def resources() -> dict[str, object]:
    use_this_python()
    master = os.environ.get("UTH_SPARK_MASTER", "local[*]")
    memory = os.environ.get("UTH_SPARK_DRIVER_MEMORY", "1g")
    return {
        "pyspark": PySparkResource(spark_config=spark_conf(master, memory=memory)),
        "paths": ReauditPaths(archive=os.environ.get("UTH_ARCHIVE", "warehouse_archive"),
                              out=os.environ.get("UTH_REAUDIT_OUT", "reaudit"),
                              warehouse=os.environ.get("UTH_WAREHOUSE", ""),
                              gaming_day_start=os.environ.get("UTH_GAMING_DAY_START",
                                                              "06:00")),
    }


defs = dg.Definitions(assets=[reaudit_outputs], asset_checks=[matches_warehouse],
                      jobs=[reaudit_job], resources=resources(),
                      executor=dg.in_process_executor)
