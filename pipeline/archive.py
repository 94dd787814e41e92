"""The Parquet archive's layout: one partition per gaming day and table (hive style), as
the load writes it and the ledger and a rebuild read it."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.dataset as ds

ARCHIVE_PARTITIONING = ds.partitioning(
    pa.schema([("gaming_day", pa.date32()), ("table_id", pa.string())]), flavor="hive")
