"""De-duplication by the stored ids' hashes (``pipeline.ingest.known``): redeliveries are
found in the hashes and confirmed exactly; a hash shared by a new event does not drop it;
another process writing between two batches is noticed; a load of many small batches
gives the same ``events`` as one batch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pipeline.ingest import known as known_module
from pipeline.ingest.known import KnownEvents
from pipeline.ingest.steps import load_events
from pipeline.ingest.transforms import decode_lines, write_batch
from pipeline.warehouse import query, writing
from tests.pipeline import streams


def lines() -> list[bytes]:
    t1, _ = streams.floor()
    return streams.lines(t1[:12])


def test_redeliveries_across_batches_are_found_through_the_hashes(tmp_path: Path) -> None:
    data, wh, known = lines(), tmp_path / "w.duckdb", KnownEvents()
    batches = [data[0:4], [*data[4:8], data[1]], [data[2], *data[8:12], data[5]]]
    stats = []
    for k, batch in enumerate(batches):
        with writing(wh) as con:
            stats.append(write_batch(con, decode_lines(batch), "s", {0: k}, 360, known))
    assert [(s.new_events, s.duplicates) for s in stats] == [(4, 0), (4, 1), (4, 2)]
    assert known.count == 12 and len(np.concatenate([known.base, *known.recent])) == 12
    assert query(wh, "SELECT count(*), count(DISTINCT event_id) FROM events") == [(12, 12)]


def test_a_new_event_whose_hash_is_taken_is_still_stored(tmp_path: Path,
                                                           monkeypatch: Any) -> None:
    """Every batch's hashes forced equal to the stored ones: all are "maybe stored", the
    exact check keeps the new events."""
    data, wh, known = lines(), tmp_path / "w.duckdb", KnownEvents()
    with writing(wh) as con:
        write_batch(con, decode_lines(data[0:6]), "s", {0: 6}, 360, known)
    with writing(wh) as con:
        write_batch(con, decode_lines(data[6:8]), "s", {0: 8}, 360, known)
    taken = np.concatenate([known.base, *known.recent])
    monkeypatch.setattr(known_module, "batch_hashes",
                        lambda con, rows: np.resize(taken, rows.num_rows))
    with writing(wh) as con:
        stats = write_batch(con, decode_lines([data[0], *data[8:12]]), "s", {0: 12}, 360,
                            known)
    assert (stats.new_events, stats.duplicates) == (4, 1)
    assert query(wh, "SELECT count(DISTINCT event_id), count(*) FROM events") == [(12, 12)]


def test_another_writer_between_batches_is_noticed(tmp_path: Path) -> None:
    data, wh, known = lines(), tmp_path / "w.duckdb", KnownEvents()
    for k, batch in enumerate([data[0:3], data[3:6]]):
        with writing(wh) as con:
            write_batch(con, decode_lines(batch), "s", {0: k}, 360, known)
    with writing(wh) as con:  # another load (no hashes) stores events 6..8
        write_batch(con, decode_lines(data[6:9]), "other", {0: 3}, 360)
    with writing(wh) as con:
        stats = write_batch(con, decode_lines(data[6:12]), "s", {0: 12}, 360, known)
    assert (stats.new_events, stats.duplicates) == (3, 3)
    assert known.count == 12
    assert query(wh, "SELECT count(*), count(DISTINCT event_id) FROM events") == [(12, 12)]


@pytest.mark.parametrize("batch_size", [1, 5, 1000])
def test_small_batches_load_what_one_batch_loads(tmp_path: Path, batch_size: int) -> None:
    data = lines()
    log = tmp_path / "log.jsonl"
    # every event twice: once in order, then all again (a vendor re-sending its day)
    log.write_bytes(b"\n".join(data + data) + b"\n")
    wh = tmp_path / "w.duckdb"
    stats = load_events(str(log), wh, batch_size=batch_size)
    assert (stats.new_events, stats.duplicates) == (12, 12)
    assert query(wh, "SELECT count(*), count(DISTINCT event_id) FROM events") == [(12, 12)]


def test_a_chunk_of_hands_without_events_reads_an_empty_feed(tmp_path: Path) -> None:
    from pipeline.hands.transforms import read_feed
    from pipeline.warehouse import reading

    wh = tmp_path / "w.duckdb"
    with writing(wh) as con:
        write_batch(con, decode_lines(lines()), "s", {0: 12}, 360)
    with reading(wh) as con:
        assert read_feed(con, ["no-such-hand"]) == []
        assert len(read_feed(con, ["H1"])) > 0


def test_many_small_batches_are_merged_among_themselves_first() -> None:
    known = KnownEvents()
    known.count = 0
    known.base = np.array([5, 9], dtype=np.uint64)
    for k in range(40):
        known.added(np.array([100 + 2 * k, 101 + 2 * k], dtype=np.uint64))
    assert len(known.recent) < 16 and list(known.base) == [5, 9]  # the base left alone
    assert known.count == 80 and known.recent_size == 80
    probe = np.array([5, 100, 179, 180, 7], dtype=np.uint64)
    assert known.maybe_stored(probe).tolist() == [True, True, True, False, False]
