"""Reloads change nothing; new events re-audit only the hands they touch, and the result is
the warehouse a single load of everything gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.warehouse import query
from tests.pipeline import streams
from tests.pipeline.conftest import dump, materialize, write_log


def _meta(result: Any) -> dict[str, dict[str, Any]]:
    out = {}
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        out[mat.asset_key.to_user_string()] = {k: v.value for k, v in mat.metadata.items()}
    return out


def test_reload_without_new_events_changes_nothing(tmp_path: Path) -> None:
    log = write_log(tmp_path / "floor.jsonl", streams.floor_lines())
    wh = tmp_path / "w.duckdb"
    materialize(log, wh)
    before = dump(wh)
    stamp = query(wh, "SELECT updated_at FROM load_positions")
    archive = {p: p.stat().st_mtime_ns for p in (tmp_path / "w_archive").rglob("*.parquet")}
    meta = _meta(materialize(log, wh))
    assert dump(wh) == before
    assert query(wh, "SELECT updated_at FROM load_positions") == stamp
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "w_archive").rglob("*.parquet")} == archive
    assert meta["events"]["records_read"] == 0 and meta["events"]["new_events"] == 0
    assert meta["hands"]["hands_audited"] == 0
    assert meta["table_hold_daily"]["keys_rebuilt"] == 0
    assert meta["events_archive"]["partitions_written"] == 0


def test_late_dispute_reaudits_only_its_hand(tmp_path: Path) -> None:
    t1, _ = streams.floor()
    late = streams.lines(streams.dispute(t1))
    log = write_log(tmp_path / "floor.jsonl", streams.floor_lines())
    wh = tmp_path / "w.duckdb"
    materialize(log, wh)
    assert query(wh, "SELECT house_win FROM table_hold_daily WHERE table_id = 'T1'") == [(-12500,)]

    with log.open("ab") as f:  # the log grows: two events of hand H1, two weeks later
        f.write(b"".join(line + b"\n" for line in late))
    meta = _meta(materialize(log, wh))
    assert meta["events"]["new_events"] == 2
    # H1 alone is audited again: its 25 events, the 2 new ones, and T1's TableOpened
    assert meta["hands"]["hands_audited"] == 1 and meta["hands"]["events_read"] == 28
    assert meta["table_hold_daily"]["keys_rebuilt"] == 1  # (T1, 2026-11-29) only
    # the 2000 taken back is laid on the mispaid blind, and the table's win grows by it
    assert query(wh, "SELECT recorded_result, correct_result FROM wagers "
                     "WHERE hand_id = 'H1' AND seat = 2 AND spot = 'blind'") == [(0, 0)]
    assert query(wh, "SELECT house_win FROM table_hold_daily WHERE table_id = 'T1'") == [(-10500,)]
    # the archive partition of the dispute's gaming day holds the two new events
    part = tmp_path / "w_archive" / "gaming_day=2026-12-12" / "table_id=T1"
    assert [p.name for p in part.iterdir()] == ["events-0.parquet"]

    clean = tmp_path / "clean.duckdb"
    materialize(log, clean)
    assert dump(wh) == dump(clean)


def test_small_batches_give_the_same_warehouse(tmp_path: Path) -> None:
    """Seven records per transaction and two hands per chunk: the same rows as one batch."""
    t1, _ = streams.floor()
    lines = streams.floor_lines() + streams.lines(streams.dispute(t1))
    log = write_log(tmp_path / "all.jsonl", lines)
    one, many = tmp_path / "one.duckdb", tmp_path / "many.duckdb"
    materialize(log, one)
    materialize(log, many, batch_size=7, hands_per_chunk=2)
    assert dump(one) == dump(many)


def test_audit_worker_processes_give_the_same_warehouse(tmp_path: Path) -> None:
    from pipeline.hands.steps import update_hands, workers_for

    assert workers_for(pending=10, chunk=5) == (1, 5)  # small loads audit in-process
    assert workers_for(pending=10, chunk=5, workers=2) == (2, 3)
    assert workers_for(pending=100_000, chunk=5_000, workers=2) == (2, 5_000)
    t1, _ = streams.floor()
    log = write_log(tmp_path / "all.jsonl", streams.floor_lines() + streams.lines(
        streams.dispute(t1)))
    one, pool = tmp_path / "one.duckdb", tmp_path / "pool.duckdb"
    materialize(log, one)
    from pipeline.analytics.steps import update_rollups
    from pipeline.ingest.steps import archive_pending, load_events

    load_events(str(log), pool, audit_hands=False)  # every hand left to the workers
    stats = update_hands(pool, 360, chunk=1, workers=2)
    assert stats.hands == 5
    update_rollups(pool)
    archive_pending(pool, tmp_path / "pool_archive")
    from pipeline.players.transforms import update_players
    from pipeline.warehouse import writing

    with writing(pool) as con:
        update_players(con, 360)
    assert dump(one) == dump(pool)
