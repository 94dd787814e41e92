"""Each kind of tampering on each store is found and named by ``uth verify`` (table, seq,
what happened, exit 1); an untouched store verifies (exit 0)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import duckdb
import pytest

from events.ledger.keys import generate
from tests.ledger import tamper
from tests.ledger.conftest import SEALED, T2_WAITS, Floor, verify, waiting

STORES = ("sqlite", "jsonl", "warehouse", "archive")
# moved: the two events each claim the other's seq
EXPECTED = {
    "altered": r"T1 seq 21: altered",
    "deleted": r"T1 seq 21: deleted",
    "inserted": r"T1 seq 21: inserted",
    "forged": r"T1 seq 21: forged",
    "moved": r"T1 seq 21\.\.22: moved",
}


def _tamper(floor: Floor, store: str, kind: str) -> None:
    if store == "sqlite":
        tamper.tamper_sqlite(floor.db, kind)
    elif store == "jsonl":
        tamper.tamper_jsonl(floor.jsonl, kind)
    elif store == "warehouse":
        tamper.tamper_warehouse(floor.warehouse, kind)
    else:
        tamper.tamper_archive(floor.archive, kind)


@pytest.mark.parametrize("store", STORES)
def test_untouched_store_is_intact(sealed_floor: Floor, store: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    status, out = verify(capsys, *sealed_floor.store_args(store),
                         "--public-key", str(sealed_floor.public))
    assert status == 0, out
    assert SEALED in out
    assert waiting(out) == [T2_WAITS]


@pytest.mark.parametrize("kind", tamper.KINDS)
@pytest.mark.parametrize("store", STORES)
def test_tampering_is_found_and_named(sealed_floor: Floor, store: str, kind: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    _tamper(sealed_floor, store, kind)
    status, out = verify(capsys, *sealed_floor.store_args(store),
                         "--public-key", str(sealed_floor.public))
    assert status == 1, out
    findings = [line for line in out.splitlines() if re.match(r"T\d seq", line)
                and "not yet sealed" not in line]
    assert any(re.match(EXPECTED[kind], line) for line in findings), out
    # only the tampered place is named: nothing about T2, nothing far from seq 21
    assert all(re.match(r"T1 seq 2[12]", line) for line in findings), out


def _forge_seal_body(floor: Floor, store: str) -> None:
    """Raise T1's sealed size in the stored seal, keeping its signature."""
    def forged(body: bytes) -> bytes:
        data = json.loads(body)
        data["tables"][0]["last_seq"] += 1
        return json.dumps(data, separators=(",", ":")).encode()

    if store == "sqlite":
        conn = sqlite3.connect(floor.db, isolation_level=None)
        body = conn.execute("SELECT body FROM seals").fetchone()[0]
        conn.execute("UPDATE seals SET body = ?", (forged(bytes(body)),))
        conn.close()
        return
    if store == "warehouse":
        con = duckdb.connect(str(floor.warehouse))
        body = con.execute("SELECT body FROM seals").fetchall()[0][0]
        con.execute("UPDATE seals SET body = ?", [forged(bytes(body))])
        con.close()
        return
    path = (floor.jsonl.with_name("floor.seals.jsonl") if store == "jsonl"
            else next((floor.archive / "_seals").glob("*.json")))
    line = json.loads(path.read_bytes())
    line["body"] = forged(line["body"].encode()).decode()
    path.write_text(json.dumps(line) + "\n")


@pytest.mark.parametrize("store", STORES)
def test_a_forged_seal_is_named(sealed_floor: Floor, store: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    _forge_seal_body(sealed_floor, store)
    status, out = verify(capsys, *sealed_floor.store_args(store),
                         "--public-key", str(sealed_floor.public))
    assert status == 1, out
    assert "forged: seal 1: its signature does not verify" in out


def test_altered_seal_leaves_are_found(sealed_floor: Floor,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The leaves stored with a seal are trusted only once they rebuild its signed root."""
    conn = sqlite3.connect(sealed_floor.db, isolation_level=None)
    conn.execute("UPDATE seal_leaves SET leaf = zeroblob(32) WHERE table_id = 'T1' AND seq = 5")
    conn.close()
    status, out = verify(capsys, "--source", f"sqlite:///{sealed_floor.db}",
                         "--public-key", str(sealed_floor.public))
    assert status == 1, out
    assert "the seal record was altered" in out


def test_another_key_does_not_verify(sealed_floor: Floor, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    _, other = generate(tmp_path / "other")
    status, out = verify(capsys, "--source", str(sealed_floor.jsonl), "--public-key", str(other))
    assert status == 1
    assert "forged: seal 1" in out
    # with no seal it trusts, every event is listed as not yet sealed (T1 has 50)
    assert "T1 seq 0..49: 50 events not yet sealed" in out


def test_events_of_a_table_the_seal_never_saw_are_inserted(
        sealed_floor: Floor, capsys: pytest.CaptureFixture[str]) -> None:
    """A whole new table slipped into the sealed part of the log is no new table."""
    lines = sealed_floor.jsonl.read_bytes().splitlines()
    event = json.loads(lines[5])
    event.update(table_id="T9", event_id="00000000-0000-0000-0000-0000000000t9")
    lines.insert(3, json.dumps(event).encode())
    sealed_floor.jsonl.write_bytes(b"".join(line + b"\n" for line in lines))
    status, out = verify(capsys, "--source", str(sealed_floor.jsonl),
                         "--public-key", str(sealed_floor.public))
    assert status == 1, out
    assert re.search(r"^T9 seq \d+: inserted", out, re.M), out
