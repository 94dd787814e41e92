"""No false alarm: events appended after a seal (with a redelivered copy and a line that
is not an event among them) are listed as not yet sealed, never as tampered; reruns, loads
cut short and run again, and loads in other batch sizes give the same verdict; the seal is
the same whatever store or batch size it is computed from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest

from events.ledger.keys import generate, load_private
from events.ledger.logs import read_seals, scan, seal_log
from events.logs import open_log
from pipeline.cli import main
from tests.ledger.conftest import (
    SEALED,
    T2_WAITS,
    Floor,
    build_floor,
    materialize,
    table_of,
    verify,
    waiting,
)
from tests.pipeline import streams


def _later_lines() -> list[bytes]:
    """A dispute on H1 (T1 seq 50 and 51), a redelivery of a sealed event, a broken line."""
    t1, _ = streams.floor()
    lines = streams.lines(streams.dispute(t1))
    return [lines[0], streams.lines(t1)[5], b'{"not": "an event"', lines[1]]


def _append(floor: Floor, lines: list[bytes]) -> None:
    with open(floor.jsonl, "ab") as out:
        out.write(b"".join(line + b"\n" for line in lines))
    with open_log(f"sqlite:///{floor.db}") as log:
        log.append([(table_of(line), line) for line in lines])


@pytest.mark.parametrize("store", ["sqlite", "jsonl"])
def test_events_after_the_seal_are_not_yet_sealed(sealed_floor: Floor, store: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    _append(sealed_floor, _later_lines())
    status, out = verify(capsys, *sealed_floor.store_args(store),
                         "--public-key", str(sealed_floor.public))
    assert status == 0, out
    assert out.splitlines()[0] == "T1 seq 50..51: 2 events not yet sealed"
    assert out.splitlines()[-1].endswith(SEALED)


def test_sealing_again_covers_the_new_events_only(sealed_floor: Floor,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{sealed_floor.db}"
    assert main(["seal", "--source", url, "--key", str(sealed_floor.key)]) == 0
    with open_log(url) as log:
        assert len(read_seals(log)) == 1  # nothing new: no second, empty seal
    _append(sealed_floor, _later_lines())
    assert main(["seal", "--source", url, "--key", str(sealed_floor.key)]) == 0
    with open_log(url) as log:
        seals = read_seals(log)
    assert [s.parsed().number for s in seals] == [1, 2]
    assert [(r.table_id, r.seq) for r in seals[1].leaves] == [("T1", 50), ("T1", 51)]
    assert seals[1].parsed().previous == seals[0].digest()
    status, out = verify(capsys, "--source", url, "--public-key", str(sealed_floor.public))
    assert status == 0, out
    assert waiting(out) == [T2_WAITS] and "71 sealed events" in out


def test_a_seal_is_refused_over_altered_events(sealed_floor: Floor,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from tests.ledger.tamper import tamper_jsonl

    tamper_jsonl(sealed_floor.jsonl, "altered")
    status = main(["seal", "--source", str(sealed_floor.jsonl), "--key", str(sealed_floor.key)])
    assert status == 1
    assert "no longer match" in capsys.readouterr().err
    with open_log(str(sealed_floor.jsonl)) as log:
        assert len(read_seals(log)) == 1


def test_warehouse_reloads_and_later_events(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A rerun with nothing new, then a load of events appended after the seal (a
    redelivery and a dead letter among them): intact, the new ones not yet sealed. (A
    floor of its own: the warehouse knows its log by the URL it was loaded from.)"""
    sealed_floor = build_floor(tmp_path / "floor")
    materialize(sealed_floor.jsonl, sealed_floor.warehouse)
    _append(sealed_floor, _later_lines())
    materialize(sealed_floor.jsonl, sealed_floor.warehouse)
    for store in ("warehouse", "archive"):
        status, out = verify(capsys, *sealed_floor.store_args(store),
                             "--public-key", str(sealed_floor.public))
        assert status == 0, out
        assert out.splitlines()[0] == "T1 seq 50..51: 2 events not yet sealed", out
    con = duckdb.connect(str(sealed_floor.warehouse), read_only=True)
    assert con.execute("SELECT count(*) FROM seals").fetchall() == [(1,)]  # copied once
    con.close()


def test_a_load_cut_short_and_run_again(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The warehouse of a load stopped half-way (its committed batches kept) and run again,
    in batches of 7, verifies as the log does."""
    private, public = generate(tmp_path / "k")
    lines = streams.floor_lines()
    log_path = tmp_path / "floor.jsonl"
    log_path.write_bytes(b"".join(line + b"\n" for line in lines))
    with open_log(str(log_path)) as log:
        seal_log(log, load_private(private))
    warehouse = tmp_path / "w.duckdb"
    whole = log_path.read_bytes()
    log_path.write_bytes(b"".join(line + b"\n" for line in lines[:40]))  # as far as it got
    materialize(log_path, warehouse, batch_size=7)
    log_path.write_bytes(whole)
    materialize(log_path, warehouse, batch_size=7)
    status, out = verify(capsys, "--warehouse", str(warehouse), "--public-key", str(public))
    assert status == 0, out
    assert SEALED in out and waiting(out) == [T2_WAITS]


def test_the_seal_is_the_same_from_every_store_and_batch_size(sealed_floor: Floor) -> None:
    with open_log(f"sqlite:///{sealed_floor.db}") as db, \
            open_log(str(sealed_floor.jsonl)) as jsonl:
        heads = [[(h.table_id, h.size, h.last_seq, h.root) for h in read_seals(log)[0].parsed()
                  .tables] for log in (db, jsonl)]
        small = scan(jsonl, batch=3).tables
        large = scan(jsonl).tables
    assert heads[0] == heads[1]
    assert [h[0] for h in heads[0]] == ["T1", "T2"]
    assert small == large


def test_the_graph_seals_after_each_load_and_the_key_stays_private(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    private, public = generate(tmp_path / "keys" / "seal")
    witness = tmp_path / "elsewhere" / "floor.witness"
    monkeypatch.setenv("UTH_SEAL_WITNESS", str(witness))
    assert os.stat(private).st_mode & 0o777 == 0o600
    data = tmp_path / "data"
    data.mkdir()
    log_path = data / "floor.jsonl"
    log_path.write_bytes(b"".join(line + b"\n" for line in streams.floor_lines()))
    materialize(log_path, data / "w.duckdb", seal_key=str(private))
    assert len(witness.read_bytes().splitlines()) == 1  # the graph's seal, witnessed
    for args in (["--source", str(log_path)], ["--warehouse", str(data / "w.duckdb")],
                 ["--archive", str(data / "w_archive")]):
        status, out = verify(capsys, *args, "--public-key", str(public),
                             "--witness", str(witness))
        assert status == 0, out
        assert SEALED in out and waiting(out) == [T2_WAITS]
    secret = load_private(private).private_bytes_raw()
    pem = private.read_bytes()
    for path in data.rglob("*"):
        if path.is_file():
            content = path.read_bytes()
            assert secret not in content and pem not in content, path
            assert secret.hex().encode() not in content, path
    assert json.loads(next((data / "w_archive" / "_seals").glob("*.json")).read_text())[
        "source"] == str(log_path)


def test_a_warehouse_rebuilt_from_its_archive_verifies(
        sealed_floor: Floor, capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.ingest.steps import restore_archive

    rebuilt = sealed_floor.root / "rebuilt.duckdb"
    assert restore_archive(sealed_floor.archive, rebuilt) == 84
    status, out = verify(capsys, "--warehouse", str(rebuilt),
                         "--public-key", str(sealed_floor.public))
    assert status == 0, out
    assert SEALED in out and waiting(out) == [T2_WAITS]
