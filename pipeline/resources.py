"""Dagster resources: the event source (a log URL) and the warehouse (a DuckDB path).

Defaults come from the environment so ``dg dev`` (the project's Dagster UI) works on the
demo data without a config file: ``UTH_SOURCE`` (default ``sqlite:///demo-data/events.db``),
``UTH_WAREHOUSE`` (default ``demo-data/warehouse.duckdb``), ``UTH_GAMING_DAY_START``
(default ``06:00``), ``UTH_ARCHIVE`` (default: ``<warehouse stem>_archive`` beside it) and
``UTH_SEAL_KEY`` (a private key's path: seal the log after each load; default none);
``UTH_SEAL_PAST_GAPS=1`` (seal past the seqs a table lacks, declaring them lost; default off).
"""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg

from events.logs import EventLog, open_log
from pipeline.warehouse import parse_day_start

DEFAULT_SOURCE = "sqlite:///demo-data/events.db"
DEFAULT_WAREHOUSE = "demo-data/warehouse.duckdb"


class EventSource(dg.ConfigurableResource):  # type: ignore[type-arg]
    """Where events come from: any URL ``events.logs.open_log`` understands."""

    url: str
    batch_size: int = 100_000  # records per transaction
    seal_key: str = ""  # the private key's path: seal the log after each load
    # seal each table up to its highest seq, declaring the seqs it lacks lost (uth seal
    # --past-gaps); off: a seal stops at a table's first gap
    seal_past_gaps: bool = False

    def open(self) -> EventLog:
        return open_log(self.url, create=False, growing=True)


class Warehouse(dg.ConfigurableResource):  # type: ignore[type-arg]
    """The DuckDB file, where its Parquet archive goes, and when a gaming day starts."""

    path: str
    gaming_day_start: str = "06:00"
    archive_dir: str = ""  # default: <stem>_archive beside the warehouse file
    hands_per_chunk: int = 5_000  # hands audited per transaction
    audit_workers: int = 0  # processes auditing hands; 0: one per core for big loads

    @property
    def day_start_minutes(self) -> int:
        return parse_day_start(self.gaming_day_start)

    @property
    def archive_path(self) -> Path:
        if self.archive_dir:
            return Path(self.archive_dir)
        p = Path(self.path)
        return p.with_name(f"{p.stem}_archive")


def default_source() -> EventSource:
    return EventSource(url=os.environ.get("UTH_SOURCE", DEFAULT_SOURCE),
                       seal_key=os.environ.get("UTH_SEAL_KEY", ""),
                       seal_past_gaps=os.environ.get("UTH_SEAL_PAST_GAPS", "") == "1")


def default_warehouse() -> Warehouse:
    return Warehouse(
        path=os.environ.get("UTH_WAREHOUSE", DEFAULT_WAREHOUSE),
        gaming_day_start=os.environ.get("UTH_GAMING_DAY_START", "06:00"),
        archive_dir=os.environ.get("UTH_ARCHIVE", ""),
    )
