"""The pure parts: Merkle roots and proofs, the canonical bytes against the warehouse's
columns, the classification of differences, keys."""

from __future__ import annotations

import doctest
import hashlib
import importlib
import os
from pathlib import Path

import duckdb
import pytest

from events.contract.schemas import decode_event
from events.ledger.canonical import canonical_columns, canonical_event, normal_time
from events.ledger.compare import compare_table
from events.ledger.keys import LedgerKeyError, generate, load_private
from events.ledger.merkle import inclusion_proof, node_hash, tree_root, verify_inclusion
from events.ledger.seal import LeafRow


@pytest.mark.parametrize("name", ["events.ledger.canonical", "events.ledger.merkle",
                                  "events.ledger.seal", "events.ledger.proof",
                                  "events.ledger.stored", "events.ledger.witness"])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0


def _rfc6962(leaves: list[bytes]) -> bytes:
    """The recursive definition (RFC 6962 2.1), to hold the level-by-level one to it."""
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(_rfc6962(leaves[:k]), _rfc6962(leaves[k:]))


def test_roots_and_proofs_match_the_definition() -> None:
    for n in range(1, 70):
        leaves = [hashlib.sha256(bytes([n, i])).digest() for i in range(n)]
        root = tree_root(leaves)
        assert root == _rfc6962(leaves)
        for i in range(n):
            path = inclusion_proof(leaves, i)
            assert verify_inclusion(leaves[i], i, n, path, root)
            assert not verify_inclusion(leaves[(i + 1) % n], i, n, path, root) or n == 1
            if i + 1 < n:  # the same path does not put the leaf at another place
                assert not verify_inclusion(leaves[i], i + 1, n, path, root)


@pytest.mark.parametrize("text", [
    "2026-11-29T21:03:11Z", "2026-11-29T21:03:11.1Z", "2026-11-29T21:03:11.123Z",
    "2026-11-29T21:03:11.123456Z", "2026-11-29T21:03:11.1234567Z",
    "2026-11-29T21:03:11.999999999Z", "2026-11-29T21:03:11.5+00:00"])
def test_canonical_bytes_are_the_warehouses(text: str) -> None:
    """The bytes of a decoded event equal those rebuilt from the columns the warehouse
    stores for it (its TIMESTAMP cast by DuckDB as the ingest casts it)."""
    raw = (b'{"type":"BetPlaced","seq":4,"event_id":"e4","schema_version":1,"table_id":"T1",'
           b'"hand_id":"H1","occurred_at":"' + text.encode() + b'",'
           b'"payload":{"amount":1000,"spot":"ante","seat":1},"extra":true}')
    event = decode_event(raw)
    con = duckdb.connect()
    stamp = con.execute("SELECT CAST(? AS TIMESTAMP)", [text]).fetchall()[0][0]
    import msgspec

    payload = msgspec.json.encode(event.payload).decode()
    assert canonical_event(event) == canonical_columns(
        "e4", "BetPlaced", 1, "T1", "H1", 4, stamp, payload)
    assert normal_time(text)[:19] == text[:19]


def _rows(seqs: list[int]) -> list[LeafRow]:
    return [LeafRow("T", i, s, f"e{s}", hashlib.sha256(b"%d" % s).digest())
            for i, s in enumerate(seqs)]


def _stored(rows: list[LeafRow]) -> list[object]:
    from events.ledger.stored import StoredEvent

    return [StoredEvent(r.seq, r.event_id, r.leaf, 0, k) for k, r in enumerate(rows, 1)]


def _kinds(sealed: list[LeafRow], found: list[LeafRow]) -> list[tuple[str, int, int]]:
    return [(f.kind, f.first_seq or 0, f.last_seq or 0)
            for f in compare_table("T", sealed, _stored(found))]  # type: ignore[arg-type]


def test_differences_are_classified_and_grouped_into_ranges() -> None:
    sealed = _rows(list(range(10)))
    assert _kinds(sealed, sealed) == []
    assert _kinds(sealed, sealed[:3] + sealed[6:]) == [("deleted", 3, 5)]
    # the tree is in seq order: where an event lay in the log is no part of it
    swapped = [*sealed[:2], sealed[5], *sealed[2:5], *sealed[6:]]
    assert _kinds(sealed, swapped) == []
    altered = list(sealed)
    altered[7] = LeafRow("T", 7, 7, "e7", b"\0" * 32)
    assert _kinds(sealed, altered) == [("altered", 7, 7)]
    forged = list(sealed)
    forged[7] = LeafRow("T", 7, 7, "other", b"\1" * 32)
    assert _kinds(sealed, forged) == [("forged", 7, 7)]
    renumbered = list(sealed)
    renumbered[4] = LeafRow("T", 4, 40, "e4", b"\2" * 32)
    assert _kinds(sealed, renumbered) == [("moved", 4, 4)]
    extra = [*sealed[:5], LeafRow("T", 0, 4, "new", b"\x03" * 32), *sealed[5:]]
    assert _kinds(sealed, extra) == [("inserted", 4, 4)]


def test_keys(tmp_path: Path) -> None:
    private, public = generate(tmp_path / "k")
    assert os.stat(private).st_mode & 0o777 == 0o600
    assert public.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    with pytest.raises(LedgerKeyError, match="exists already"):
        generate(tmp_path / "k")
    os.chmod(private, 0o644)
    with pytest.raises(LedgerKeyError, match="readable by others"):
        load_private(private)
    # the public key given by mistake (mode 644 as keygen writes it) is named as such, not
    # refused for its mode (the message changed consciously, issue 36)
    with pytest.raises(LedgerKeyError, match="this is the public key; sealing needs the "
                                             "private key"):
        load_private(public)
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"not a key")
    os.chmod(garbage, 0o600)
    with pytest.raises(LedgerKeyError, match="not a PEM private key"):
        load_private(garbage)


def test_keygen_and_seal_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.cli import main
    from tests.pipeline import streams

    assert main(["keygen", "--out", str(tmp_path / "k")]) == 0
    assert main(["keygen", "--out", str(tmp_path / "k")]) == 2
    log = tmp_path / "floor.jsonl"
    log.write_bytes(b"".join(line + b"\n" for line in streams.floor_lines()))
    capsys.readouterr()
    assert main(["seal", "--source", str(log), "--key", str(tmp_path / "k")]) == 0
    out = capsys.readouterr().out
    assert "seal 1 of" in out and "2 tables, 69 events (69 new)" in out
    assert main(["seal", "--source", str(tmp_path / "none.db"), "--key",
                 str(tmp_path / "nokey")]) == 2
