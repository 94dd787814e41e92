"""The rollups of a re-audit's outputs by Spark SQL, with the warehouse's own SQL text in
Spark's dialect (:data:`pipeline.analytics.common.SPARK`): ``table_hold_daily``
(:func:`pipeline.analytics.hold.transforms.hold_sql`), ``trips_performance``
(:data:`~pipeline.analytics.trips.transforms.PERFORMANCE_SQL` over
:data:`~pipeline.analytics.trips.transforms.TRIPS_BASE`) and ``dealer_performance``
(:func:`pipeline.analytics.dealers.transforms.dealers_sql`), each over the keys a full
rebuild of the warehouse covers; each ruleset's theory computed on the driver by the
warehouse's :func:`~pipeline.analytics.common.ensure_theory`. Written beside the outputs,
``output=<rollup>/gaming_day=.../table_id=...`` (the dealers' by gaming day alone), in the
warehouse tables' column types."""

from __future__ import annotations

from typing import Any

import duckdb

from pipeline.analytics.common import SPARK, ensure_theory
from pipeline.analytics.dealers.transforms import DEALER_KEYS, dealers_sql
from pipeline.analytics.hold.transforms import HOLD_KEYS, hold_sql
from pipeline.analytics.trips.transforms import PERFORMANCE_SQL, TRIPS_BASE
from pipeline.reaudit.groups import partition_keys, table_schema

SPARK_ROLLUPS = ("table_hold_daily", "trips_performance", "dealer_performance")


def read_output(spark: Any, out: str, name: str) -> Any:
    """Output table ``name`` of a re-audit as a Spark frame (its warehouse columns)."""
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    from pipeline.reaudit.spark import spark_schema

    root = f"{out}/output={name}"
    try:
        df = spark.read.option("basePath", root).parquet(root)
    except AnalysisException:  # no row of it (an archive with no finding): no directory
        return spark.createDataFrame([], spark_schema(table_schema(name)))
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


def spark_rollups(spark: Any, out: str, archive: str) -> list[str]:
    """Compute :data:`SPARK_ROLLUPS` from the outputs under ``out`` and the archive's
    events (buy-ins, ``TableOpened``); returns their names."""
    from pipeline.reaudit.spark import read_archive

    out = str(out).rstrip("/")
    for name in ("hands", "wagers", "audit_findings"):
        _view(read_output(spark, out, name), name)
    # the rollups read only the archive's buy-ins and TableOpened
    _view(read_archive(spark, archive).where("type IN ('ChipsPurchased', 'TableOpened')"),
          "events")
    theory(spark).createOrReplaceTempView("ruleset_theory")
    _keys(spark, HOLD_KEYS, "table_id, gaming_day")
    _write(spark.sql(hold_sql(SPARK)), out, "table_hold_daily")
    _keys(spark, "SELECT table_id, gaming_day FROM hands", "table_id, gaming_day")
    spark.sql(TRIPS_BASE).createOrReplaceTempView("trips_wagers")
    _write(spark.sql(PERFORMANCE_SQL), out, "trips_performance")
    _keys(spark, DEALER_KEYS, "dealer_id, gaming_day")
    _write(spark.sql(dealers_sql(SPARK)), out, "dealer_performance")
    return list(SPARK_ROLLUPS)


def _keys(spark: Any, rows: str, columns: str) -> None:
    """View ``keys``: the distinct keys of ``rows``, none NULL (as the warehouse's
    pending-keys protocol reads them)."""
    where = " AND ".join(f"{c.strip()} IS NOT NULL" for c in columns.split(","))
    _view(spark.sql(f"SELECT DISTINCT {columns} FROM ({rows}) k WHERE {where}"), "keys")


def _view(df: Any, name: str) -> None:
    """``df`` as view ``name``, materialized (kept in memory, spilled to disk): Spark
    inlines every view and CTE, and the hold's SQL, which reads ``hands`` and ``keys``
    a dozen times over, planned from the files up, exhausted a 512 MB driver on a floor
    of 40 hands."""
    df.localCheckpoint().createOrReplaceTempView(name)


def _write(df: Any, out: str, name: str) -> None:
    """Rollup ``name`` under ``out/output=<name>/`` in its warehouse table's types,
    partitioned as the DuckDB engine writes it."""
    from pyspark.sql import functions as F

    from pipeline.reaudit.spark import spark_schema

    schema = spark_schema(table_schema(name))
    keys = partition_keys(name)
    (df.select(*[F.col(f.name).cast(f.dataType) for f in schema.fields])
     .write.mode("overwrite").partitionBy(*keys).parquet(f"{out}/output={name}"))
