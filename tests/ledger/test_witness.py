"""Rollback, seen by a witness: the newest seal removed together with the events after an
earlier seal verifies from the store alone, but not against the checkpoints ``uth seal
--witness`` kept apart; each store (SQLite log, JSON Lines log, warehouse, archive)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.cli import main
from tests.ledger.conftest import Floor, build_floor, materialize, table_of, verify
from tests.pipeline import streams

STORES = ("sqlite", "jsonl", "warehouse", "archive")
LOST = "T1 seq 50..51: deleted (2 events): sealed by seal 2, which the witness saw"


def _later_lines() -> list[bytes]:
    t1, _ = streams.floor()
    return streams.lines(streams.dispute(t1))  # T1 seq 50 and 51


def _seal(floor: Floor, source: str, witness: Path) -> None:
    assert main(["seal", "--source", source, "--key", str(floor.key),
                 "--witness", str(witness)]) == 0


def _sealed_twice(floor: Floor, store: str, witness: Path) -> None:
    """Seal 1 (there already) and seal 2, after T1's seq 50..51, both witnessed."""
    if store == "sqlite":
        url = f"sqlite:///{floor.db}"
        _seal(floor, url, witness)
        from events.logs import open_log

        with open_log(url) as log:
            log.append([(table_of(line), line) for line in _later_lines()])
        _seal(floor, url, witness)
        return
    source = str(floor.jsonl)
    _seal(floor, source, witness)
    with open(floor.jsonl, "ab") as out:
        out.write(b"".join(line + b"\n" for line in _later_lines()))
    _seal(floor, source, witness)
    if store in ("warehouse", "archive"):
        materialize(floor.jsonl, floor.warehouse)  # copies seal 2, archives T1's new events


def _roll_back(floor: Floor, store: str) -> None:
    """Take seal 2 away with the events it added: what is left is the store of seal 1."""
    if store == "sqlite":
        conn = sqlite3.connect(floor.db, isolation_level=None)
        newest = conn.execute("SELECT max(id) FROM seals").fetchone()[0]
        conn.execute("DELETE FROM seals WHERE id = ?", (newest,))
        conn.execute("DELETE FROM seal_leaves WHERE seal_id = ?", (newest,))
        ids = [json.loads(line)["event_id"] for line in _later_lines()]
        conn.executemany("DELETE FROM events WHERE event_id = ?", [(i,) for i in ids])
        conn.close()
    elif store == "jsonl":
        later = set(_later_lines())
        lines = [ln for ln in floor.jsonl.read_bytes().splitlines() if ln not in later]
        floor.jsonl.write_bytes(b"".join(line + b"\n" for line in lines))
        seals = floor.jsonl.with_name("floor.seals.jsonl")
        seals.write_bytes(seals.read_bytes().splitlines(keepends=True)[0])
    elif store == "warehouse":
        con = duckdb.connect(str(floor.warehouse))
        digest = con.execute("SELECT digest FROM seals WHERE number = 2").fetchall()[0][0]
        con.execute("DELETE FROM seals WHERE number = 2")
        con.execute("DELETE FROM seal_leaves WHERE seal_digest = ?", [digest])
        con.execute("DELETE FROM event_bytes WHERE event_id IN (SELECT event_id FROM events "
                    "WHERE table_id = 'T1' AND seq >= 50)")
        con.execute("DELETE FROM events WHERE table_id = 'T1' AND seq >= 50")
        con.close()
    else:
        files = sorted((floor.archive / "_seals").glob("*.json"))
        for path in files:
            if json.loads(json.loads(path.read_text())["body"])["number"] == 2:
                path.unlink()
        for path in floor.archive.glob("gaming_day=*/table_id=T1/*.parquet"):
            table = pq.read_table(path)
            rows = [r for r in table.to_pylist() if r["seq"] < 50]
            pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)


@pytest.mark.parametrize("store", STORES)
def test_a_rollback_is_named_against_the_witness(sealed_floor: Floor, store: str,
                                                 tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    if store in ("warehouse", "archive"):
        # a floor of its own: the warehouse knows its log by the URL it was loaded from
        sealed_floor = build_floor(tmp_path / "own")
    witness = tmp_path / "elsewhere" / "floor.witness"
    _sealed_twice(sealed_floor, store, witness)
    assert len(witness.read_bytes().splitlines()) == 2  # seals 1 and 2, once each
    args = [*sealed_floor.store_args(store), "--public-key", str(sealed_floor.public)]
    status, out = verify(capsys, *args, "--witness", str(witness))
    assert status == 0, out
    _roll_back(sealed_floor, store)
    status, out = verify(capsys, *args)
    assert status == 0, out  # the store alone cannot tell: it is the store of seal 1
    status, out = verify(capsys, *args, "--witness", str(witness))
    assert status == 1, out
    assert "deleted: seal 2, which the witness saw, is missing from the store" in out, out
    assert LOST in out, out


def test_another_seal_in_a_witnessed_place_is_forged(sealed_floor: Floor, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """Rolled back, then sealed again (a new seal 2, over other events): not the seal 2
    the witness saw."""
    witness = tmp_path / "floor.witness"
    _sealed_twice(sealed_floor, "sqlite", witness)
    _roll_back(sealed_floor, "sqlite")
    url = f"sqlite:///{sealed_floor.db}"
    from events.logs import open_log

    other = json.loads(_later_lines()[0])
    other.update(event_id="00000000-0000-0000-0000-0000000000aa")
    with open_log(url) as log:
        log.append([("T1", json.dumps(other).encode())])
    assert main(["seal", "--source", url, "--key", str(sealed_floor.key)]) == 0
    status, out = verify(capsys, "--source", url, "--public-key", str(sealed_floor.public),
                         "--witness", str(witness))
    assert status == 1, out
    assert "forged: seal 2: the store's seal 2 is not the one the witness saw" in out, out


def test_a_warehouse_behind_its_log_is_not_rolled_back(sealed_floor: Floor, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """A seal the load has not read past yet is not due in the warehouse."""
    sealed_floor = build_floor(tmp_path / "own")
    witness = tmp_path / "floor.witness"
    _seal(sealed_floor, str(sealed_floor.jsonl), witness)
    with open(sealed_floor.jsonl, "ab") as out:
        out.write(b"".join(line + b"\n" for line in _later_lines()))
    _seal(sealed_floor, str(sealed_floor.jsonl), witness)  # seal 2; no load since
    status, out = verify(capsys, "--warehouse", str(sealed_floor.warehouse), "--public-key",
                         str(sealed_floor.public), "--witness", str(witness))
    assert status == 0, out
