"""A load reads and writes only the protection sums and player rows of the keys its hands
touch (issue 31, "loads cost what they add"): a new table's hand reads no other table's
players, dealers or slips, and leaves the other players' rows where they were."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from events.sim.simulation import SimConfig, simulate
from pipeline.cli import main
from pipeline.warehouse import query


def _load(log: Path, wh: Path) -> None:
    assert main(["load", "--source", str(log), "--warehouse", str(wh), "-q"]) == 0


def _new_table_hand(tmp: Path) -> bytes:
    """One hand of a table (and dealer) the warehouse has never seen."""
    path = tmp / "one.jsonl"
    simulate(SimConfig(tables=1, hands=1, seed=977), str(path))
    return (path.read_bytes().replace(b'"T01', b'"NEW1')
            .replace(b'"dealer_id":"D0001"', b'"dealer_id":"DNEW"'))


def test_a_load_reads_and_writes_only_what_its_hands_touch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import events.protection.state as state
    import pipeline.players.transforms as transforms

    log, wh = tmp_path / "floor.jsonl", tmp_path / "w.duckdb"
    simulate(SimConfig(tables=3, hands=60, seed=7), str(log))
    new = _new_table_hand(tmp_path)
    assert b'"DNEW"' in new
    _load(log, wh)
    before = query(wh, "SELECT * FROM player_ratings ORDER BY ALL")
    assert len(before) > 20
    (stored,), = query(wh, "SELECT count(*) FROM events")
    read: list[tuple[str, str]] = []
    since: list[int] = []
    inserted: dict[str, list[list[Any]]] = {}
    original_load, original_insert = state.load, transforms._insert
    original_in_work = transforms._in_work

    def in_work_spy(start: int) -> str:
        since.append(start)
        return original_in_work(start)

    def load_spy(rows: Iterable[tuple[str, str, str]]) -> Any:
        rows = list(rows)
        read.extend((kind, key) for kind, key, _ in rows)
        return original_load(rows)

    def insert_spy(con: Any, table: str, rows: list[list[Any]], *more: Any) -> None:
        inserted.setdefault(table, []).extend(rows)
        original_insert(con, table, rows, *more)

    monkeypatch.setattr(state, "load", load_spy)
    monkeypatch.setattr(transforms, "_insert", insert_spy)
    monkeypatch.setattr(transforms, "_in_work", in_work_spy)
    with log.open("ab") as f:
        f.write(new)
    _load(log, wh)
    assert read  # the sums were read, through the spy
    # the new hands' events looked for among the events stored since the last load only
    # (no hand was left in play): not among every stored event
    assert since and set(since) == {stored}
    stranger = [(k, key) for k, key in read
                if k != "totals" and "NEW1" not in key and key != "DNEW"]
    assert stranger == []  # no other table's player, slip, session, dealer or table
    # the new table's three players' slips written, no other
    assert sorted(row[0] for row in inserted["player_ratings"]) == [
        "NEW1/seat-2/NEW1-000001", "NEW1/seat-5/NEW1-000001", "NEW1/seat-6/NEW1-000001"]
    after = query(wh, "SELECT * FROM player_ratings ORDER BY ALL")
    assert [r for r in after if not str(r[0]).startswith("NEW1/")] == before
