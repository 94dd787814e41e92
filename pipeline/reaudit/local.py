"""``uth reaudit --engine duckdb``: every hand of the archive audited from its columns, the
plain ones certified in array operations and the others by the load's own audit step
(:mod:`pipeline.reaudit.columnar`); its hands, wagers and findings, and its rollups,
written out as Parquet partitioned like the archive. The reference the Spark engine is
held to. :func:`reaudit_restored` is the way it went before, kept as the tests' and the
benchmark's reference: the archive put into a new warehouse of its own (as ``uth load
--from-archive`` restores one), audited and rolled up by the load's own steps."""

from __future__ import annotations

import tempfile
from pathlib import Path

from pipeline.analytics.steps import update_rollups
from pipeline.hands.steps import update_hands
from pipeline.ingest.steps import restore_archive
from pipeline.reaudit.groups import OUTPUTS, partition_keys
from pipeline.reaudit.players import PLAYER_TABLES, players_duckdb
from pipeline.warehouse import reading, writing

ROLLUPS = ("table_hold_daily", "trips_performance", "dealer_performance")


def reaudit_duckdb(archive: str | Path, out: str | Path, day_start_minutes: int,
                   workers: int = 1, stages: dict[str, float] | None = None) -> Path:
    """Audit every hand of ``archive`` into ``out`` (``out/output=<table>/gaming_day=.../
    table_id=.../*.parquet``, as the Spark engine writes them); returns ``out``.
    ``stages``: each stage's seconds, when given. (``workers``: the restored path's.)"""
    from pipeline.reaudit.columnar import reaudit_columns

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    reaudit_columns(archive, out, day_start_minutes, write_table, (*ROLLUPS, *PLAYER_TABLES),
                    stages)
    return out


def reaudit_restored(archive: str | Path, out: str | Path, day_start_minutes: int,
                     workers: int = 1) -> Path:
    """:func:`reaudit_duckdb` by a restored warehouse (see the module)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="uth-reaudit-") as tmp:
        warehouse = Path(tmp) / "reaudit.duckdb"
        restore_archive(archive, warehouse, day_start_minutes=day_start_minutes)
        update_hands(warehouse, day_start_minutes, workers=workers)
        update_rollups(warehouse)
        with writing(warehouse) as con:
            players_duckdb(con, day_start_minutes)
        with reading(warehouse) as con:
            for name in (*OUTPUTS, *ROLLUPS, *PLAYER_TABLES):
                write_table(con, name, out / f"output={name}")
    return out


def write_table(con: object, name: str, target: Path) -> None:
    """``name`` as Parquet under ``target``, hive-partitioned by gaming day and table (the
    dealers' rollup by gaming day alone: it has no table)."""
    import shutil

    shutil.rmtree(target, ignore_errors=True)
    keys = partition_keys(name)
    if not keys:  # one file
        target.mkdir(parents=True)
        con.execute(  # type: ignore[attr-defined]
            f"COPY (SELECT * FROM {name}) TO '{_quoted(target / 'data.parquet')}' "
            "(FORMAT parquet)")
        return
    con.execute(  # type: ignore[attr-defined]
        f"COPY (SELECT * FROM {name}) TO '{_quoted(target)}' "
        f"(FORMAT parquet, PARTITION_BY ({', '.join(keys)}), OVERWRITE_OR_IGNORE)")


def _quoted(path: Path) -> str:
    return str(path).replace("'", "''")
