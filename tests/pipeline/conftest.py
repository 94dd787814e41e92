"""Fixtures of the pipeline tests: the hand-made floor as a JSON Lines log, loaded through
the Dagster graph in-process, and helpers to compare whole warehouses."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from pipeline.warehouse import PENDING, TABLES, reading
from tests.pipeline import streams

VOLATILE = {"load_positions": "updated_at", "dead_letters": "loaded_at"}


def materialize(source: str | Path, warehouse: str | Path, seal_key: str = "",
                seal_past_gaps: bool = False, **warehouse_config: Any) -> Any:
    """The whole asset graph with its checks, in-process (what ``uth load`` runs);
    ``seal_key``: the private key the load seals the log with (past its gaps with
    ``seal_past_gaps``)."""
    import dagster as dg

    from pipeline.definitions import ASSETS, CHECKS
    from pipeline.resources import EventSource, Warehouse

    batch_size = warehouse_config.pop("batch_size", 100_000)
    resources = {"source": EventSource(url=str(source), batch_size=batch_size,
                                       seal_key=seal_key, seal_past_gaps=seal_past_gaps),
                 "warehouse": Warehouse(path=str(warehouse), **warehouse_config)}
    with dg.DagsterInstance.ephemeral() as instance:
        result = dg.materialize([*ASSETS, *CHECKS], resources=resources, instance=instance,
                                run_config={"loggers": {"console": {"config": {
                                    "log_level": "ERROR"}}}})
    assert result.success
    return result


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 9)
    return value


def dump(path: str | Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows (sorted; load times left out; doubles to 9 decimals)."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    with reading(path) as con:
        names = [*TABLES, "ruleset_theory", *(f"pending.{n}" for n in PENDING)]
        for name in names:
            exclude = f" EXCLUDE ({VOLATILE[name]})" if name in VOLATILE else ""
            rows = con.execute(f"SELECT *{exclude} FROM {name} ORDER BY ALL").fetchall()
            out[name] = [tuple(_clean(v) for v in row) for row in rows]
    return out


def write_log(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


@pytest.fixture(scope="module")
def floor_warehouse(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """The hand-made floor loaded once: (warehouse path, the Dagster result)."""
    root = tmp_path_factory.mktemp("floor")
    log = write_log(root / "floor.jsonl", streams.floor_lines())
    warehouse = root / "warehouse.duckdb"
    return warehouse, materialize(log, warehouse)


@pytest.fixture(scope="module")
def two_currencies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The disputes floor (tests/disputes/floor.py: table T1, USD, four hands, their
    disputes after them) and then a euro table T5 with one mispaid hand."""
    from tests.audit.builder import HandSpec, SeatSpec, Table, encode_lines
    from tests.disputes import floor

    table = Table("T5", start="2026-11-29T22:00:00")
    table.open(currency="EUR")
    table.hand(HandSpec("T5-1", [SeatSpec(1, ("As", "Ad"), 1000, decisions=[
        ("preflop", "raise", 4)])], ("Ac", "Ah", "2d", "7s", "9c"), ("3c", "4d"),
        [(1, "ante", "win", 1), (1, "blind", "win", 10000), (1, "play", "win", 4000)],
        dealer_id="@SUM(A1)"))
    path = floor.write(tmp_path_factory.mktemp("csv") / "floor.jsonl")
    with path.open("ab") as f:
        f.write(b"\n".join(encode_lines(table.events)) + b"\n")
    return path
