"""The Parquet archive is appended to, not rewritten: a load writes one new file per
partition its new events touch, leaves the partitions' earlier files as they were, and an
archive stopped between its files and its commit writes the same files again (nothing
archived twice, nothing lost)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

import pipeline.archive as archive
from events.sim.simulation import SimConfig, simulate
from pipeline.ingest.steps import archive_pending, load_events, read_archive
from pipeline.warehouse import query


def _halves(tmp_path: Path) -> tuple[Path, list[bytes]]:
    full = tmp_path / "full.jsonl"
    simulate(SimConfig(tables=2, hands=30, seed=12), str(full))
    lines = full.read_bytes().splitlines(keepends=True)
    log = tmp_path / "floor.jsonl"
    log.write_bytes(b"".join(lines[: len(lines) // 2]))
    return log, lines[len(lines) // 2:]


def _archived_ids(root: Path) -> list[str]:
    return sorted(read_archive(root, ["event_id"])["event_id"].to_pylist())


def test_a_later_load_appends_a_file_and_leaves_the_earlier_ones(tmp_path: Path) -> None:
    log, rest = _halves(tmp_path)
    wh, root = tmp_path / "w.duckdb", tmp_path / "w_archive"
    load_events(str(log), wh)
    archive_pending(wh, root)
    first = {p: p.stat().st_mtime_ns for p in root.rglob("*.parquet")}
    assert first and all(p.name == "events-0.parquet" for p in first)

    with log.open("ab") as f:
        f.write(b"".join(rest))
    load_events(str(log), wh)
    written = archive_pending(wh, root)
    assert written >= 1
    # the earlier files untouched; the touched partitions have one file more, named by
    # how many events the partition held before
    assert {p: p.stat().st_mtime_ns for p in first} == first
    added = sorted(p for p in root.rglob("*.parquet") if p not in first)
    assert len(added) == written
    for folder in {p.parent for p in added}:
        files = sorted(folder.glob("*.parquet"), key=lambda p: int(p.stem.split("-")[1]))
        held = 0
        for path in files:  # each file named by the events the ones before it hold
            assert path.name == f"events-{held}.parquet"
            held += pq.read_metadata(path).num_rows
    assert _archived_ids(root) == sorted(r[0] for r in query(wh, "SELECT event_id FROM events"))
    assert query(wh, "SELECT count(*) FROM pending.archive") == [(0,)]


def test_an_archive_stopped_before_its_commit_archives_each_event_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log, rest = _halves(tmp_path)
    wh, root = tmp_path / "w.duckdb", tmp_path / "w_archive"
    load_events(str(log), wh)
    archive_pending(wh, root)
    with log.open("ab") as f:
        f.write(b"".join(rest[: len(rest) // 2]))
    load_events(str(log), wh)

    write = archive._write_files

    def then_killed(*args: object) -> None:
        write(*args)  # type: ignore[arg-type]
        raise KeyboardInterrupt  # after the files, before the mark moved

    monkeypatch.setattr(archive, "_write_files", then_killed)
    with pytest.raises(KeyboardInterrupt):
        archive_pending(wh, root)
    monkeypatch.setattr(archive, "_write_files", write)
    with log.open("ab") as f:  # and more came before the next archive
        f.write(b"".join(rest[len(rest) // 2:]))
    load_events(str(log), wh)
    archive_pending(wh, root)
    ids = _archived_ids(root)
    assert len(ids) == len(set(ids))
    assert ids == sorted(r[0] for r in query(wh, "SELECT event_id FROM events"))


def test_a_follow_archives_on_its_own_cadence_and_loses_nothing(tmp_path: Path) -> None:
    """``uth load --follow --archive-every``: a load within the cadence leaves its events
    queued in the warehouse (no archive, no seal copy); the next one due archives them."""
    import os

    from pipeline.load_steps import LoadSettings, run_load

    log, rest = _halves(tmp_path)
    wh, root = tmp_path / "w.duckdb", tmp_path / "w_archive"
    settings = LoadSettings(source=str(log), warehouse=str(wh), archive_after=60.0)
    first = run_load(settings)
    assert not first.failed and "events_archive" in first.meta  # never archived: due
    with log.open("ab") as f:
        f.write(b"".join(rest))
    second = run_load(settings)
    assert not second.failed and "events_archive" not in second.meta
    assert "seals" not in second.meta
    assert query(wh, "SELECT count(*) FROM pending.archive")[0][0] > 0
    assert len(_archived_ids(root)) < query(wh, "SELECT count(*) FROM events")[0][0]
    stamp = Path(f"{wh}.archived")
    os.utime(stamp, (stamp.stat().st_mtime - 61, stamp.stat().st_mtime - 61))
    third = run_load(settings)
    assert not third.failed and "events_archive" in third.meta
    assert _archived_ids(root) == sorted(r[0] for r in query(wh, "SELECT event_id FROM events"))
    assert query(wh, "SELECT count(*) FROM pending.archive") == [(0,)]
