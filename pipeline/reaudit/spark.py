"""``uth reaudit --engine spark``: the archive re-audited on Apache Spark (optional extra
``spark``; docs/spark.md).

1. Sequence gaps and conflicts per table, by the warehouse's own windows
   (:func:`pipeline.hands.findings.sequence_sql`, run by Spark SQL over the archive); the
   few rows it gives are worded on the driver as the warehouse words them, and the
   conflicts' losers are left out of the hands, as the warehouse leaves them out.
2. Each hand's group: its table and the gaming day of its first event, with the
   ``TableOpened`` in force (the last one of the table before the hand, by a window).
3. ``groupBy(table, day).applyInArrow``: each group audited by the warehouse's audit step
   (:mod:`pipeline.reaudit.groups`), and ``hands``, ``wagers`` and ``audit_findings``
   written in the same job, ``out/output=<table>/`` partitioned by gaming day and table as
   the archive is.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from pipeline.hands.findings import (
    TIME_FORMAT,
    findings_table,
    sequence_rows,
    sequence_rows_sql,
    sequence_sql,
)
from pipeline.reaudit.groups import DAY_START, EVENT_COLUMNS, output_schema

# TIME_FORMAT in Spark's pattern letters (no quoted letters: a string literal is in
# single quotes, double quotes being names)
SPARK_TIME = ("concat(date_format(occurred_at, 'yyyy-MM-dd'), 'T', "
              "date_format(occurred_at, 'HH:mm:ss.SSSSSS'), 'Z')")
assert TIME_FORMAT == "%Y-%m-%dT%H:%M:%S.%fZ"


def spark_conf(master: str = "local[*]", *, memory: str = "1g",
               partitions: int = 0) -> dict[str, str]:
    """The Spark settings the re-audit needs (also what the Dagster job's ``PySparkResource``
    is given): times in UTC, the casino's zone given to the executors, a small driver (the
    JVM takes 2 GB unless told), no UI, pandas' warnings about Arrow UDFs silenced."""
    from events.localtime import zone_name

    return {
        "spark.master": master,
        "spark.driver.memory": memory,
        "spark.sql.session.timeZone": "UTC",
        # "drop" is a name, as in DuckDB: the rollups' SQL is one text for both engines
        "spark.sql.ansi.doubleQuotedIdentifiers": "true",
        "spark.sql.shuffle.partitions": str(partitions or max(2, 2 * _cores(master))),
        "spark.sql.sources.partitionColumnTypeInference.enabled": "false",
        "spark.sql.parquet.inferTimestampNTZ.enabled": "true",
        "spark.executorEnv.UTH_TIMEZONE": zone_name(),
        "spark.executorEnv.PYTHONWARNINGS": "ignore::FutureWarning",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
    }


# for a small archive (the tests, a trial on a laptop), where Spark's fixed costs are the
# time: the JVM's quick compiler only and its serial collector (the optimizing compiler's
# threads and the parallel collector's compete for the few cores a short run has), no
# whole-stage code generation (each query compiles Java code that runs for milliseconds).
# Halved the CPU time of the test module on this machine (73 -> 38 s); not for a cluster.
SMALL_ARCHIVE_CONF = {
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
    "spark.sql.codegen.wholeStage": "false",
}


def use_this_python() -> None:
    """Spark's Python workers run this interpreter (else the system's ``python3``, which
    lacks the project); on a cluster, ``PYSPARK_PYTHON`` names the executors' (docs)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


def session(master: str = "local[*]", *, memory: str = "1g", partitions: int = 0,
            app: str = "uth-reaudit", conf: dict[str, str] | None = None) -> Any:
    """A Spark session with :func:`spark_conf` (and ``conf`` over it)."""
    from pyspark.sql import SparkSession

    use_this_python()
    builder = SparkSession.builder.appName(app)
    settings = spark_conf(master, memory=memory, partitions=partitions) | (conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _cores(master: str) -> int:
    if master.startswith("local[") and master[6:-1].isdigit():
        return int(master[6:-1])
    return os.cpu_count() or 2


def read_archive(spark: Any, archive: str | Path) -> Any:
    """The archive's events (``table_id`` and ``gaming_day`` from the partition paths, as
    text then typed: an id such as ``007`` stays text)."""
    from pyspark.sql import functions as F

    root = str(archive)
    df = spark.read.option("basePath", root).parquet(root)
    return df.withColumn("gaming_day", F.col("gaming_day").cast("date"))


def sequence_findings(spark: Any, events: Any, day_start_minutes: int) -> pa.Table:
    """The archive's gap and conflict findings as ``audit_findings`` rows (Arrow)."""
    events.createOrReplaceTempView("uth_archive")
    source = ("(SELECT table_id, seq, event_id, hand_id, position, CAST(NULL AS BIGINT) AS s0, "
              "occurred_at FROM uth_archive)")
    rows = spark.sql(sequence_sql(source, SPARK_TIME,
                                  ordered=False))
    table = rows.toArrow()
    found = sequence_rows([tuple(r.values()) for r in table.to_pylist()])
    con = duckdb.connect(":memory:")
    try:
        con.register("new_findings", findings_table(found))
        return con.sql(sequence_rows_sql(day_start_minutes)).to_arrow_table()
    finally:
        con.close()


def hand_groups(spark: Any, events: Any, day_start_minutes: int) -> Any:
    """The rows each group audits: every event of its hands, and the ``TableOpened`` in
    force for each, keyed by ``g_table`` and ``g_day`` (the hand's first event's)."""
    events.createOrReplaceTempView("uth_kept")
    cols = ", ".join(f"e.{c}" for c in EVENT_COLUMNS)
    return spark.sql(f"""
        WITH firsts AS (
            SELECT hand_id, min_by(table_id, seq) AS table_id, min(seq) AS first_seq,
                   min_by(gaming_day, seq) AS day
            FROM uth_kept WHERE hand_id IS NOT NULL AND type <> 'TableOpened'
            GROUP BY hand_id
        ), marks AS (
            SELECT table_id, seq, event_id AS opened_id, CAST(NULL AS STRING) AS hand_id,
                   CAST(NULL AS DATE) AS day
            FROM uth_kept WHERE type = 'TableOpened'
            UNION ALL
            SELECT table_id, first_seq, NULL, hand_id, day FROM firsts
        ), hands AS (
            SELECT hand_id, table_id AS g_table, day AS g_day,
                   last(opened_id, true) OVER (PARTITION BY table_id ORDER BY seq
                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS opened_id
            FROM marks
        ), grouped AS (SELECT * FROM hands WHERE hand_id IS NOT NULL)
        SELECT g.g_table, g.g_day, {cols}, {int(day_start_minutes)} AS {DAY_START}
        FROM uth_kept e JOIN grouped g ON e.hand_id = g.hand_id
        WHERE e.type <> 'TableOpened'
        UNION ALL
        SELECT o.g_table, o.g_day, {cols}, {int(day_start_minutes)}
        FROM (SELECT DISTINCT g_table, g_day, opened_id FROM grouped
              WHERE opened_id IS NOT NULL) o
        JOIN uth_kept e ON e.event_id = o.opened_id""")


def spark_schema(schema: pa.Schema) -> Any:
    """An Arrow schema as Spark's (times without zone: the archive's are UTC wall times)."""
    from pyspark.sql import types as T

    kinds = {pa.string(): T.StringType(), pa.int32(): T.IntegerType(),
             pa.int64(): T.LongType(), pa.timestamp("us"): T.TimestampNTZType(),
             pa.date32(): T.DateType(), pa.float64(): T.DoubleType(),
             pa.bool_(): T.BooleanType(), pa.int16(): T.ShortType()}
    return T.StructType([T.StructField(f.name, kinds[f.type], True) for f in schema])


def reaudit_spark(spark: Any, archive: str | Path, out: str | Path,
                  day_start_minutes: int) -> str:
    """Audit every hand of ``archive`` into ``out`` (hands, wagers, audit_findings);
    returns ``out``."""
    from pyspark.sql import functions as F

    from pipeline.reaudit.groups import audit_arrow

    out = str(out).rstrip("/")
    events = read_archive(spark, archive)
    sequence = sequence_findings(spark, events, day_start_minutes)
    losers = sorted({r["event_id"] for r in sequence.select(["kind", "event_id"]).to_pylist()
                     if r["kind"] == "sequence_conflict" and r["event_id"]})
    kept = events.where(~F.col("event_id").isin(losers)) if losers else events
    groups = hand_groups(spark, kept, day_start_minutes)
    rows = (groups.groupBy("g_table", "g_day")
            .applyInArrow(audit_arrow, spark_schema(output_schema()))
            .unionByName(_frame(spark, sequence)))
    # one job writes the three tables (``output=<table>/gaming_day=.../table_id=...``):
    # a write per table would run the audit again, or keep its rows on disk to re-read
    (rows.write.mode("overwrite").partitionBy("output", "gaming_day", "table_id")
     .parquet(out))
    return out


def _frame(spark: Any, findings: pa.Table) -> Any:
    """The driver's few sequence findings as rows of the audit's output."""
    schema = output_schema()
    columns = [pa.array(["audit_findings"] * findings.num_rows, pa.string()) if f.name == "output"
               else findings[f.name].cast(f.type) if f.name in findings.column_names
               else pa.nulls(findings.num_rows, f.type) for f in schema]
    return spark.createDataFrame(pa.table(columns, schema=schema).to_pylist(),
                                 spark_schema(schema))
