"""``uth reaudit``: every hand of a Parquet archive audited again, on one machine (DuckDB)
or on a Spark cluster, by the warehouse's own audit code (docs/spark.md)."""
