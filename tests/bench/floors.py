"""The benchmark floor the re-audit engines share: a simulated floor of the mixed ruleset
with 1% mispays and 1% voids, loaded once by ``uth load`` so that its Parquet archive is
what the re-audit reads."""

from __future__ import annotations

from pathlib import Path

from events.sim.simulation import SimConfig, simulate


def archived_floor(directory: Path, tables: int, hands: int) -> tuple[Path, Path]:
    """Simulate ``tables`` x ``hands`` into ``directory``/floor.jsonl and load it into
    ``directory``/w.duckdb; the log and the archive the load wrote."""
    from pipeline.cli import main

    log = directory / "floor.jsonl"
    simulate(SimConfig(tables=tables, hands=hands, seed=33, ruleset="mixed",
                       mispay_rate=0.01, void_rate=0.01), str(log))
    archive = directory / "w_archive"
    main(["load", "--source", str(log), "--warehouse", str(directory / "w.duckdb"),
          "--archive", str(archive), "-q"])
    return log, archive
