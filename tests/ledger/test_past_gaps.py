"""``uth seal --past-gaps``: a seal covers a table past a seq that never arrived, and its
signed checkpoint lists that seq as declared missing. The floor's T2 lost seq 19: a plain
seal stops there (seq 20..34 wait), one past gaps seals them and notes seq 19; an event
that later appears at seq 19 is inserted, one gone from the sealed range is deleted."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import duckdb
import pytest

from events.ledger.keys import generate
from events.ledger.logs import read_seals
from events.logs import open_log
from pipeline.cli import main
from tests.ledger.conftest import (
    T2_WAITS,
    Floor,
    build_floor,
    materialize,
    table_of,
    verify,
    waiting,
)
from tests.pipeline import streams

STORES = ("sqlite", "jsonl", "warehouse", "archive")
PAST_SEALED = "84 sealed events in 2 tables: intact"  # T1 0..49, T2 0..18 and 20..34
T2_NOTE = "note: T2 seq 19: declared missing by the seal (lost, sealed past; not tampering)"
LATE_ID = "00000000-0000-0000-0000-0000000019ae"


def _notes(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("note:")]


def _log_of(floor: Floor, store: str) -> str:
    return f"sqlite:///{floor.db}" if store == "sqlite" else str(floor.jsonl)


def _seal_past(floor: Floor, store: str) -> None:
    """Seal the store's log past its gaps; the warehouse (and its archive) load it."""
    assert main(["seal", "--source", _log_of(floor, store), "--key", str(floor.key),
                 "--past-gaps"]) == 0
    if store in ("warehouse", "archive"):
        materialize(floor.jsonl, floor.warehouse)


def _floor(copied: Floor, store: str, root: Path) -> Floor:
    """The sealed floor to seal past its gap: for the warehouse and the archive, one built
    where it stays (a copied warehouse names its source by the first floor's path, and a
    load from the copy would add a second source)."""
    return build_floor(root / "own") if store in ("warehouse", "archive") else copied


def _late_t2_19() -> bytes:
    """An event at T2's lost seq 19 (a late resend under a new id, or a forgery)."""
    _, t2 = streams.floor()
    event = next(e for e in t2 if e["seq"] == 20)
    return json.dumps({**event, "seq": 19, "event_id": LATE_ID},
                      separators=(",", ":")).encode()


@pytest.mark.parametrize("store", STORES)
def test_a_gap_declared_lost_is_sealed_past(sealed_floor: Floor, store: str,
                                            tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    sealed_floor = _floor(sealed_floor, store, tmp_path)
    args = [*sealed_floor.store_args(store), "--public-key", str(sealed_floor.public)]
    status, out = verify(capsys, *args)
    assert status == 0 and waiting(out) == [T2_WAITS] and not _notes(out), out  # as before
    _seal_past(sealed_floor, store)
    status, out = verify(capsys, *args)
    assert status == 0, out
    assert PAST_SEALED in out and not waiting(out), out
    assert _notes(out) == [T2_NOTE], out  # the declared range, once


def test_the_checkpoint_lists_the_missing_seqs_and_reruns_add_nothing(
        sealed_floor: Floor) -> None:
    url = f"sqlite:///{sealed_floor.db}"
    for _ in range(2):  # a rerun finds nothing new: no second seal
        assert main(["seal", "--source", url, "--key", str(sealed_floor.key),
                     "--past-gaps"]) == 0
    with open_log(url) as log:
        seals = read_seals(log)
    assert len(seals) == 2  # the fixture's plain seal, then the one past the gap
    body = json.loads(seals[-1].body)
    assert body["format"] == "uth-seal/4"
    t2 = next(t for t in body["tables"] if t["table_id"] == "T2")
    assert (t2["size"], t2["last_seq"], t2["missing"]) == (34, 34, [[19, 19]])
    assert "missing" not in body["tables"][0]  # T1 lacks nothing
    assert [r.seq for r in seals[-1].leaves] == list(range(20, 35))  # only what it adds


def _insert_late(floor: Floor, store: str) -> None:
    late = _late_t2_19()
    if store == "sqlite":
        with open_log(f"sqlite:///{floor.db}") as log:
            log.append([("T2", late)])
    elif store == "jsonl":
        with open(floor.jsonl, "ab") as f:
            f.write(late + b"\n")
    else:
        con = duckdb.connect(str(floor.warehouse))
        try:
            con.execute("CREATE TEMP TABLE late AS SELECT * FROM events WHERE table_id = 'T2' "
                        "AND seq = 20")
            con.execute("UPDATE late SET seq = 19, event_id = ?, position = 'line 9999'",
                        [LATE_ID])
            con.execute("INSERT INTO events SELECT * FROM late")
            con.execute("INSERT INTO event_bytes VALUES (?, ?)", [LATE_ID, late])
        finally:
            con.close()


@pytest.mark.parametrize("store", ("sqlite", "jsonl", "warehouse"))
def test_a_late_event_at_a_declared_missing_seq_is_inserted(
        sealed_floor: Floor, store: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    sealed_floor = _floor(sealed_floor, store, tmp_path)
    _seal_past(sealed_floor, store)
    _insert_late(sealed_floor, store)
    status, out = verify(capsys, *sealed_floor.store_args(store),
                         "--public-key", str(sealed_floor.public))
    assert status == 1, out
    assert ("T2 seq 19: inserted: event at a seq the seal declared missing (lost when it "
            "was sealed past it): it arrived, or was put there, afterwards") in out, out
    findings = [line for line in out.splitlines() if line.startswith("T")
                and "not yet sealed" not in line]
    assert len(findings) == 1, out
    if store != "warehouse":  # the log is not sealed again over it
        assert main(["seal", "--source", _log_of(sealed_floor, store),
                     "--key", str(sealed_floor.key)]) == 1


def _delete_t2(floor: Floor, store: str, seq: int) -> None:
    if store == "sqlite":
        conn = sqlite3.connect(floor.db, isolation_level=None)
        rows = conn.execute("SELECT pos, value FROM events").fetchall()
        pos = next(p for p, v in rows if table_of(bytes(v)) == "T2"
                   and json.loads(v)["seq"] == seq)
        conn.execute("DELETE FROM events WHERE pos = ?", (pos,))
        conn.close()
    else:
        con = duckdb.connect(str(floor.warehouse))
        try:
            con.execute("DELETE FROM event_bytes WHERE event_id IN (SELECT event_id FROM "
                        "events WHERE table_id = 'T2' AND seq = ?)", [seq])
            con.execute("DELETE FROM events WHERE table_id = 'T2' AND seq = ?", [seq])
        finally:
            con.close()


@pytest.mark.parametrize("store", ("sqlite", "warehouse"))
def test_an_event_gone_from_a_range_sealed_past_a_gap_is_deleted(
        sealed_floor: Floor, store: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    sealed_floor = _floor(sealed_floor, store, tmp_path)
    _seal_past(sealed_floor, store)
    _delete_t2(sealed_floor, store, 25)  # sealed past the gap, not declared missing
    status, out = verify(capsys, *sealed_floor.store_args(store),
                         "--public-key", str(sealed_floor.public))
    assert status == 1, out
    assert "T2 seq 25: deleted: sealed event missing" in out, out
    assert _notes(out) == [T2_NOTE], out  # the declared gap stays a note


def _t1(seqs: range | list[int]) -> list[bytes]:
    t1, _ = streams.floor()
    return [line for line in streams.lines(t1) if json.loads(line)["seq"] in seqs]


def _two_seals(root: Path, key: Path, first: list[bytes], later: list[bytes]) -> str:
    """A SQLite log of ``first``, sealed past its gaps, then ``later``, sealed plainly."""
    url = f"sqlite:///{root / 'log.db'}"
    with open_log(url) as log:
        log.append([("T1", line) for line in first])
    assert main(["seal", "--source", url, "--key", str(key), "--past-gaps"]) == 0
    with open_log(url) as log:
        log.append([("T1", line) for line in later])
    assert main(["seal", "--source", url, "--key", str(key)]) == 0
    return url


def test_later_events_are_sealed_past_the_declared_gap_whatever_their_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    private, public = generate(tmp_path / "k")
    first = _t1([s for s in range(40) if s != 30])  # seq 30 lost; 40..49 not sent yet
    later = _t1(range(40, 50))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = _two_seals(tmp_path / "a", private, first, later)
    shuffled = list(first)
    random.Random(24).shuffle(shuffled)
    b = _two_seals(tmp_path / "b", private, shuffled, list(reversed(later)))
    heads = []
    for url in (a, b):
        status, out = verify(capsys, "--source", url, "--public-key", str(public))
        assert status == 0, out
        assert "49 sealed events in 1 tables: intact" in out and not waiting(out), out
        assert _notes(out) == ["note: T1 seq 30: declared missing by the seal (lost, "
                               "sealed past; not tampering)"], out
        with open_log(url) as log:
            seals = read_seals(log)
        heads.append([(json.loads(s.body)["tables"], s.leaves) for s in seals])
    assert heads[0] == heads[1]  # the same seals, whatever the arrival order
    assert [tables[0]["missing"] for tables, _ in heads[0]] == [[[30, 30]], [[30, 30]]]


def test_a_log_that_starts_after_seq_0(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    private, public = generate(tmp_path / "k")
    log_path = tmp_path / "t1.jsonl"
    log_path.write_bytes(b"".join(line + b"\n" for line in _t1(range(10, 50))))
    args = ["--source", str(log_path), "--public-key", str(public)]
    assert main(["seal", "--source", str(log_path), "--key", str(private)]) == 0
    status, out = verify(capsys, *args)  # without --past-gaps: nothing sealed
    assert status == 0 and "0 sealed events" in out, out
    assert waiting(out) == ["T1 seq 10..49: 40 events not yet sealed (after a gap: "
                            "seq 0..9 not received)"], out
    assert main(["seal", "--source", str(log_path), "--key", str(private),
                 "--past-gaps"]) == 0
    status, out = verify(capsys, *args)
    assert status == 0 and "40 sealed events in 1 tables: intact" in out, out
    assert _notes(out) == ["note: T1 seq 0..9: declared missing by the seal (lost, sealed "
                           "past; not tampering)"] and not waiting(out), out


@pytest.mark.parametrize("how", ("resource", "uth load"))
def test_the_graph_seals_past_gaps_when_configured(tmp_path: Path, how: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    private, public = generate(tmp_path / "k")
    log_path = tmp_path / "floor.jsonl"
    log_path.write_bytes(b"".join(line + b"\n" for line in streams.floor_lines()))
    warehouse = tmp_path / "w.duckdb"
    if how == "resource":
        materialize(log_path, warehouse, seal_key=str(private), seal_past_gaps=True)
    else:
        assert main(["load", "--source", str(log_path), "--warehouse", str(warehouse),
                     "--seal-key", str(private), "--seal-past-gaps", "-q"]) == 0
    status, out = verify(capsys, "--warehouse", str(warehouse), "--public-key", str(public))
    assert status == 0 and PAST_SEALED in out and _notes(out) == [T2_NOTE], out


@pytest.mark.parametrize(("version", "status"), [("uth-seal/2", 0), ("uth-seal/1", 1)])
def test_format_2_seals_are_still_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str], version: str,
                                       status: int) -> None:
    """A seal of format 2 (signed before heads could list missing seqs) verifies; an
    older one is unreadable."""
    import events.ledger.seal as seal_module

    private, public = generate(tmp_path / "k")
    log_path = tmp_path / "t1.jsonl"
    log_path.write_bytes(b"".join(line + b"\n" for line in _t1(range(50))))
    monkeypatch.setattr(seal_module, "FORMAT", version)
    assert main(["seal", "--source", str(log_path), "--key", str(private)]) == 0
    with open_log(str(log_path)) as log:
        assert json.loads(read_seals(log)[-1].body)["format"] == version
    got, out = verify(capsys, "--source", str(log_path), "--public-key", str(public))
    assert got == status, out
    assert ("50 sealed events in 1 tables: intact" in out) == (status == 0), out
