"""Events loaded per second into the DuckDB warehouse: through the whole Dagster graph
(in-process, with Dagster's overhead), through the step functions alone (ingest, audit,
rollups, archive: the transforms without Dagster), and stage by stage; each beside a bare
Arrow-table insert of the same ``events`` rows into a DuckDB file, measured in the same run.

Target: at least 200,000 events/s through the transforms.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

from events.simulation import SimConfig, simulate

TARGET = 200_000


def _row(name: str, events: int, seconds: float, ref: float, target: str = "",
         ok: bool | None = None, note: str = "") -> dict[str, Any]:
    value = events / seconds
    row: dict[str, Any] = {
        "name": name, "value": value, "unit": "events/s",
        "reference": "bare Arrow insert of the events rows", "reference_value": ref,
        "ratio": value / ref, "target": target, "ok": ok,
    }
    if note:
        row["note"] = note
    return row


def _bare_insert(rows: Any, path: Path) -> float:
    """Seconds to insert the Arrow table ``rows`` into a new DuckDB file, committed."""
    from pipeline.warehouse import TABLES

    con = duckdb.connect(str(path))
    con.execute(f"CREATE TABLE events ({TABLES['events']})")
    con.register("arrow_rows", rows)
    start = time.perf_counter()
    con.execute("BEGIN")
    con.execute("INSERT INTO events SELECT * FROM arrow_rows")
    con.execute("COMMIT")
    con.execute("CHECKPOINT")
    seconds = time.perf_counter() - start
    con.close()
    return seconds


def run(quick: bool = False) -> list[dict[str, Any]]:
    from pipeline.analytics.steps import update_rollups
    from pipeline.hands.steps import update_hands
    from pipeline.ingest.steps import archive_pending, load_events
    from pipeline.warehouse import reading
    from tests.pipeline.conftest import materialize

    tables, hands = (4, 400) if quick else (8, 2500)
    config = SimConfig(tables=tables, hands=hands, seed=3, ruleset="mixed",
                       mispay_rate=0.01, void_rate=0.002, dispute_rate=0.002)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        log = root / "floor.jsonl"
        simulate(config, str(log))

        # the transforms alone, stage by stage
        wh = root / "steps.duckdb"
        start = time.perf_counter()
        stats = load_events(str(log), wh, batch_size=500_000)
        t_ingest = time.perf_counter() - start
        hand_stats = update_hands(wh, 360, chunk=50_000)
        t_hands = time.perf_counter() - start - t_ingest
        update_rollups(wh)
        t_rollups = time.perf_counter() - start - t_ingest - t_hands
        archive_pending(wh, root / "steps_archive")
        t_total = time.perf_counter() - start
        t_archive = t_total - t_ingest - t_hands - t_rollups
        events = stats.new_events

        with reading(wh) as con:
            rows = con.sql("SELECT * FROM events").to_arrow_table()
        bare = events / _bare_insert(rows, root / "bare.duckdb")

        # the whole graph, through Dagster (a first run warms imports, then a fresh file)
        materialize(log, root / "warm.duckdb", batch_size=500_000, hands_per_chunk=50_000)
        start = time.perf_counter()
        materialize(log, root / "graph.duckdb", batch_size=500_000, hands_per_chunk=50_000)
        t_graph = time.perf_counter() - start

    note = f"{tables * hands:,} simulated hands, {events:,} events"
    return [
        _row("whole graph through Dagster (in-process, with checks)", events, t_graph, bare,
             "reported", None, note),
        _row("transforms alone (ingest + audit + rollups + archive)", events, t_total, bare,
             f">= {TARGET:,} events/s", events / t_total >= TARGET, note),
        _row("  ingest: decode, validate, de-duplicate, insert", events, t_ingest, bare),
        _row("  audit: hands, wagers, findings (events.audit)", hand_stats.events, t_hands,
             bare),
        _row("  rollups: hold, trips, dealers", events, t_rollups, bare),
        _row("  Parquet archive", events, t_archive, bare),
        _row("bare Arrow insert into DuckDB (reference)", events, events / bare, bare),
    ]


if __name__ == "__main__":  # pragma: no cover
    for r in run(quick=True):
        print(f"{r['name']:<58} {r['value']:>12,.0f} {r['unit']}  ratio {r['ratio']:.3f}")
