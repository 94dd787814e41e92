"""The leaf is each event's exact stored bytes (after pseudonymization), byte for byte the
same in the SQLite log, the JSON Lines log, the warehouse and the archive: read back raw
from each store, hashed, and held to the seal's leaves. The lines are not in the contract's
canonical form (spaces, keys sorted, an unknown extra field) and one carries a player in
clear, so a store that kept a re-encoding, or the identifier, fails here."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import duckdb
import pyarrow.dataset as ds
import pytest

from events.contract.privacy import scrub
from events.ledger.canonical import LEAF_PREFIX
from events.ledger.keys import generate, load_private
from events.ledger.logs import read_seals, seal_log
from events.logs import open_log
from pipeline.cli import main
from tests.ledger import tamper
from tests.ledger.conftest import materialize, verify
from tests.pipeline import streams

CLEAR = "loyalty-card-00042"


def _lines() -> list[bytes]:
    """The floor as a table might send it: spaced JSON, keys sorted, an extra field; one
    bet with the player's card number in clear."""
    out = []
    marked = False
    for line in streams.floor_lines():
        try:
            event = json.loads(line)
        except ValueError:
            out.append(line)  # the broken line stays broken (a dead letter)
            continue
        event["x_table_build"] = "7.2"
        if not marked and event.get("type") == "BetPlaced":
            event["payload"]["player_ref"] = CLEAR
            marked = True
        out.append(json.dumps(event, sort_keys=True).encode())
    assert marked
    return out


def _leaf(data: bytes) -> bytes:
    return hashlib.sha256(LEAF_PREFIX + data).digest()


def test_every_store_keeps_the_exact_bytes_the_leaf_hashes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("UTH_PSEUDONYM_KEY", "k" * 32)
    private, public = generate(tmp_path / "keys" / "seal")
    source = tmp_path / "table.jsonl"
    source.write_bytes(b"".join(line + b"\n" for line in _lines()))
    db = tmp_path / "log.db"
    url = f"sqlite:///{db}"
    assert main(["ingest", "--source", str(source), "--sink", url]) in (0, 1)
    for log_url in (url, str(source)):
        with open_log(log_url) as log:
            seal_log(log, load_private(private))
    warehouse = tmp_path / "w.duckdb"
    materialize(url, warehouse)

    with open_log(url) as log:
        leaves = {r.event_id: r.leaf for r in read_seals(log)[0].leaves}
    with open_log(str(source)) as log:
        assert {r.event_id: r.leaf for r in read_seals(log)[0].leaves} == leaves
    assert len(leaves) == 69

    conn = sqlite3.connect(db)
    in_log = {e: bytes(v) for e, v in conn.execute("SELECT event_id, value FROM events")}
    conn.close()
    in_file = {}
    for line in source.read_bytes().splitlines():
        try:
            in_file[json.loads(line)["event_id"]] = scrub(line)  # as the ingest stores it
        except (ValueError, KeyError):
            continue
    con = duckdb.connect(str(warehouse), read_only=True)
    in_warehouse = {e: bytes(v) for e, v in con.execute(
        "SELECT event_id, stored FROM event_bytes").fetchall()}
    con.close()
    archived = ds.dataset(tmp_path / "w_archive", format="parquet",
                          partitioning="hive").to_table(columns=["event_id", "stored"])
    in_archive = dict(zip(archived["event_id"].to_pylist(), archived["stored"].to_pylist(),
                          strict=True))

    for event_id, leaf in leaves.items():
        data = in_log[event_id]
        assert _leaf(data) == leaf, event_id
        assert in_file[event_id] == in_warehouse[event_id] == in_archive[event_id] == data
    assert all(CLEAR.encode() not in v for v in in_log.values())  # pseudonymized
    assert sum(b'"player_ref":"pr1_' in v for v in in_log.values()) == 1  # its pseudonym
    # the field the contract drops is in the bytes: they are not the contract's re-encoding
    assert all(b'"x_table_build"' in in_log[e] for e in leaves)
    assert sum(b'"x_table_build": "7.2"' in in_log[e] for e in leaves) == 68  # as sent
    for args in (["--source", url], ["--source", str(source)],
                 ["--warehouse", str(warehouse)], ["--archive", str(tmp_path / "w_archive")]):
        status, out = verify(capsys, *args, "--public-key", str(public))
        assert status == 0 and "69 sealed events in 2 tables: intact" in out, out


@pytest.mark.parametrize("store", ["warehouse", "archive"])
def test_columns_changed_and_bytes_left_are_named(
        sealed_floor: object, store: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The dashboards read the columns: a change there alone, the stored bytes untouched
    (the tree intact), is named by table and seq."""
    from tests.ledger.conftest import Floor

    assert isinstance(sealed_floor, Floor)
    if store == "warehouse":
        tamper.tamper_warehouse(sealed_floor.warehouse, "altered", bytes_too=False)
    else:
        tamper.tamper_archive(sealed_floor.archive, "altered", bytes_too=False)
    status, out = verify(capsys, *sealed_floor.store_args(store),
                         "--public-key", str(sealed_floor.public))
    assert status == 1, out
    assert "T1 seq 21: altered: the stored columns differ from the event's stored bytes" in out
