"""The rollups of a re-audit's outputs by Spark SQL, with the warehouse's own SQL text:
``trips_performance`` (:data:`pipeline.analytics.trips.transforms.PERFORMANCE_SQL` over
:data:`~pipeline.analytics.trips.transforms.TRIPS_BASE`), each ruleset's theory computed
on the driver by the warehouse's :func:`~pipeline.analytics.common.ensure_theory`.
Written beside the outputs, ``output=<rollup>/gaming_day=.../table_id=...``."""

from __future__ import annotations

from typing import Any

import duckdb

from pipeline.analytics.common import ensure_theory
from pipeline.analytics.trips.transforms import PERFORMANCE_SQL, TRIPS_BASE
from pipeline.reaudit.groups import table_schema
from pipeline.warehouse import TABLES

SPARK_ROLLUPS = ("trips_performance",)


def read_output(spark: Any, out: str, name: str) -> Any:
    """Output table ``name`` of a re-audit as a Spark frame (its warehouse columns)."""
    from pyspark.sql import functions as F

    root = f"{out}/output={name}"
    df = spark.read.option("basePath", root).parquet(root)
    return df.withColumn("gaming_day", F.col("gaming_day").cast("date")).select(
        *table_schema(name).names)


def theory(spark: Any) -> Any:
    """``ruleset_theory`` of every ruleset this installation knows, made on the driver by
    the warehouse's code (a hand of a ruleset it does not know gets no theory, in the
    warehouse as here; asking the hands which rulesets they use would cost a Spark job)."""
    from pyspark.sql import types as T

    from events.game.rulesets import known_rulesets

    names = known_rulesets()
    con = duckdb.connect(":memory:")
    try:
        con.execute("CREATE TABLE hands (ruleset VARCHAR)")
        con.executemany("INSERT INTO hands VALUES (?)", [[n] for n in names])
        con.execute("""CREATE TABLE ruleset_theory (ruleset VARCHAR PRIMARY KEY,
            base_edge_per_ante DOUBLE, trips_edge DOUBLE, trips_sd DOUBLE,
            p3 DOUBLE, p4 DOUBLE, p5 DOUBLE, p6 DOUBLE, p7 DOUBLE, p8 DOUBLE, p9 DOUBLE)""")
        ensure_theory(con)
        rows = con.execute("SELECT * FROM ruleset_theory").fetchall()
        columns = [d[0] for d in con.description or []]
    finally:
        con.close()
    schema = T.StructType([T.StructField(c, T.StringType() if c == "ruleset"
                                         else T.DoubleType(), True) for c in columns])
    return spark.createDataFrame(rows, schema)


def spark_rollups(spark: Any, out: str) -> list[str]:
    """Compute :data:`SPARK_ROLLUPS` from the outputs under ``out``; returns their names."""
    out = str(out).rstrip("/")
    read_output(spark, out, "hands").createOrReplaceTempView("hands")
    read_output(spark, out, "wagers").createOrReplaceTempView("wagers")
    spark.sql("SELECT DISTINCT table_id, gaming_day FROM hands WHERE gaming_day IS NOT NULL"
              ).createOrReplaceTempView("keys")
    theory(spark).createOrReplaceTempView("ruleset_theory")
    spark.sql(TRIPS_BASE).createOrReplaceTempView("trips_wagers")
    columns = [c.split()[0] for c in TABLES["trips_performance"].split(",")]
    (spark.sql(PERFORMANCE_SQL).select(*columns).write.mode("overwrite")
     .partitionBy("gaming_day", "table_id").parquet(f"{out}/output=trips_performance"))
    return list(SPARK_ROLLUPS)
