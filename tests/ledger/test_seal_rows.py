"""Seals as a store holds them (issue 30, item 17): a signature stored as text is a
finding, not a crash, for ``uth verify`` and ``uth seal``; a seal replaced by a copy of the
one before it is named by the number it took the place of; the leaves' metadata (seq,
event id) is signed (format 4), and a format 3 seal, which does not sign it, still
verifies."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgspec
import pytest

from events.ledger.keys import generate, load_private
from events.ledger.logs import seal_log
from events.logs import open_log
from pipeline.cli import main
from tests.ledger.conftest import table_of, verify
from tests.pipeline import streams


def _sealed_thrice(root: Path) -> tuple[Path, Path, Path]:
    """A SQLite log sealed after each third of the floor: seals 1, 2 and 3."""
    private, public = generate(root / "seal")
    db = root / "log.db"
    lines = streams.floor_lines()
    third = len(lines) // 3
    with open_log(f"sqlite:///{db}") as log:
        for part in (lines[:third], lines[third:2 * third], lines[2 * third:]):
            log.append([(table_of(line), line) for line in part])
            seal_log(log, load_private(private))
    return db, private, public


def _args(db: Path, public: Path) -> list[str]:
    return ["--source", f"sqlite:///{db}", "--public-key", str(public)]


def test_a_signature_stored_as_text_is_a_finding(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    db, private, public = _sealed_thrice(tmp_path)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE seals SET signature = hex(signature), body = CAST(body AS TEXT) "
                    "WHERE id = 3")
        assert con.execute("SELECT typeof(signature) FROM seals WHERE id = 3").fetchone() == (
            "text",)
    status, out = verify(capsys, *_args(db, public))
    assert status == 1, out
    assert "forged: seal 3: its signature does not verify with this public key" in out
    capsys.readouterr()
    assert main(["seal", "--source", f"sqlite:///{db}", "--key", str(private)]) == 1
    err = capsys.readouterr().err
    assert "seal 3: its signature does not verify (damaged or forged)" in err
    assert "Traceback" not in err


def test_a_seal_replaced_by_a_copy_of_the_previous_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, _, public = _sealed_thrice(tmp_path)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE seals SET body = (SELECT body FROM seals WHERE id = 1), "
                    "signature = (SELECT signature FROM seals WHERE id = 1) WHERE id = 2")
    status, out = verify(capsys, *_args(db, public))
    assert status == 1, out
    assert "deleted: seal 2: missing; the store holds a copy of seal 1 in its place" in out
    assert "number 0" not in out and "seal 1: the seal before it" not in out


@pytest.mark.parametrize("column, value", [("event_id", "'a-forged-id'"), ("seq", "seq + 100")])
def test_the_leaves_metadata_is_signed(tmp_path: Path, column: str, value: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    db, _, public = _sealed_thrice(tmp_path)
    assert verify(capsys, *_args(db, public))[0] == 0
    with sqlite3.connect(db) as con:
        con.execute(f"UPDATE seal_leaves SET {column} = {value} "
                    "WHERE table_id = 'T1' AND tree_index = 3")
    status, out = verify(capsys, *_args(db, public))
    assert status == 1, out
    assert "altered (50 events): the seq and event ids stored with its seals' leaves are " \
           "not the ones the seal signs" in out


def test_a_format_3_seal_still_verifies(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Sealed by the previous version (no signed metadata): read and verified as before."""
    private, public = generate(tmp_path / "seal")
    db = tmp_path / "log.db"
    lines = streams.floor_lines()
    with open_log(f"sqlite:///{db}") as log:
        log.append([(table_of(line), line) for line in lines])
        seal_log(log, load_private(private))
    key = load_private(private)
    with sqlite3.connect(db) as con:
        (body,) = con.execute("SELECT body FROM seals WHERE id = 1").fetchone()
        old = json.loads(body)
        old["format"] = "uth-seal/3"
        for head in old["tables"]:
            del head["leaves_meta_sha256"]
        data = msgspec.json.encode(old)
        con.execute("UPDATE seals SET body = ?, signature = ? WHERE id = 1",
                    (data, key.sign(data)))
    status, out = verify(capsys, *_args(db, public))
    assert status == 0, out
