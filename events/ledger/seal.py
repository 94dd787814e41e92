"""Seals: signed checkpoints of every table's Merkle tree head, and the leaves they add.

A seal's *body* is compact JSON (its bytes are what is signed, and are stored as they are):
the source log it seals, its number (1, 2, ... per source) and the SHA-256 of the previous
seal's body (so a seal taken out of the middle is missed), the log's end when it was taken
(``through``), the key's id, and for each table its tree's size, last ``seq`` (the head of
the table's gapless run from seq 0: the events up to it, in ``seq`` order, are the sealed
ones), root, the SHA-256 of its leaves one after the other, and (a seal taken past gaps)
the seqs up to its head that no event holds, declared missing. A
seal is stored with the leaves it adds (each table's leaves since the previous seal, as
``[table, index, seq, event_id, leaf]``), so a verifier can name which event changed: the
leaves are trusted only once they rebuild the signed roots.

>>> from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
>>> key = Ed25519PrivateKey.generate()
>>> one = make_seal("sqlite:///x.db", {"T1": [Leaf(0, "e0", b"\\1" * 32)]}, {0: 2}, None,
...                 key, "2026-12-01T00:00:00Z")
>>> body = one.parsed()
>>> body.number, body.tables[0].size, body.tables[0].last_seq
(1, 1, 0)
>>> SealRecord.from_line(one.to_line()) == one
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from functools import partial
from itertools import repeat
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple, Protocol

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from events.ledger.keys import key_id
from events.ledger.merkle import tree_root
from events.ledger.stored import TableEvents, gaps, sealable

FORMAT = "uth-seal/4"  # 4: a head signs its leaves' seq and event ids (leaves_meta_sha256)
# the formats a verifier reads: 3 (a head may list the seqs declared missing) and 2 (leaves
# are the stored bytes, in seq order; no declared-missing seqs, which reads as none) do not
# sign the leaves' seq and event ids: those are trusted as the seals' leaves rebuild the root
READABLE = ("uth-seal/2", "uth-seal/3", FORMAT)
_SEQ, _EVENT_ID, _LEAF = (attrgetter(n) for n in ("seq", "event_id", "leaf"))


class Leaf(NamedTuple):
    """One event's place in its table's tree: its ``seq``, ``event_id`` and leaf hash."""

    seq: int
    event_id: str
    leaf: bytes


class HasLeaf(Protocol):
    """What a seal reads of an event (a :class:`Leaf`, or a store's StoredEvent)."""

    @property
    def seq(self) -> int: ...
    @property
    def event_id(self) -> str: ...
    @property
    def leaf(self) -> bytes: ...


class TableHead(msgspec.Struct, frozen=True, omit_defaults=True):
    table_id: str
    size: int  # leaves in the tree
    last_seq: int  # the seq of its last leaf: the head of its gapless run (-1: none yet)
    root: str  # hex
    # SHA-256 of the leaves one after the other: what a verifier checks a whole table
    # against in one hash call (the root is for proofs of single events)
    leaves_sha256: str
    # the seqs up to last_seq no event holds, declared lost when the seal was taken past
    # them (``uth seal --past-gaps``), as [first, last] ranges in order; left out when none
    missing: list[tuple[int, int]] = []
    # SHA-256 of the leaves' [seq, event_id] pairs in tree order (compact JSON), so the
    # leaves' metadata stored with the seals is signed too (format 4; "" in older seals)
    leaves_meta_sha256: str = ""

    def declared(self) -> dict[int, int]:
        """first seq -> last seq of each declared-missing range."""
        return dict(self.missing)


class SealBody(msgspec.Struct, frozen=True):
    format: str
    source: str
    number: int
    previous: str | None  # hex SHA-256 of the previous seal's body
    sealed_at: str
    key_id: str
    through: dict[str, int]  # the log's end (partition -> next offset) when sealed
    tables: list[TableHead]

    def head(self, table_id: str) -> TableHead | None:
        for head in self.tables:
            if head.table_id == table_id:
                return head
        return None

    def through_cursor(self) -> dict[int, int]:
        return {int(p): o for p, o in self.through.items()}


class LeafRow(NamedTuple):
    table_id: str
    tree_index: int
    seq: int
    event_id: str
    leaf: bytes


# a named tuple made from a plain one in C (its class's __new__ is a Python function)
_NEW_ROW = partial(tuple.__new__, LeafRow)


class SealRecord(msgspec.Struct, frozen=True):
    """A seal as stored: the body's exact bytes, its signature, the leaves it adds."""

    body: bytes
    signature: bytes
    leaves: list[LeafRow]

    def parsed(self) -> SealBody:
        return msgspec.json.decode(self.body, type=SealBody)

    def digest(self) -> str:
        return hashlib.sha256(self.body).hexdigest()

    def to_line(self) -> bytes:
        """One JSON line (the side file of a JSON Lines log, the archive's seals)."""
        return msgspec.json.encode({
            "body": self.body.decode("utf-8"), "signature": self.signature.hex(),
            "leaves": [[r.table_id, r.tree_index, r.seq, r.event_id, r.leaf.hex()]
                       for r in self.leaves]})

    @classmethod
    def from_line(cls, line: bytes | str) -> SealRecord:
        raw = msgspec.json.decode(line, type=_SealLine)
        return cls(raw.body.encode("utf-8"), bytes.fromhex(raw.signature),
                   [LeafRow(t, i, s, e, bytes.fromhex(h)) for t, i, s, e, h in raw.leaves])


class _SealLine(msgspec.Struct, frozen=True):
    body: str
    signature: str
    leaves: list[tuple[str, int, int, str, str]]


def blob(value: object) -> bytes:
    """A stored column's bytes: a BLOB as it is; text (a row written as TEXT, by hand or by
    another tool) as its UTF-8 bytes, so a seal stored so is read, and fails its signature
    as a finding, rather than crashing the reader."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return b"" if value is None else str(value).encode("utf-8", "surrogateescape")


def leaves_digest(leaves: Sequence[bytes]) -> str:
    return hashlib.sha256(b"".join(leaves)).hexdigest()


def meta_digest(seqs: Sequence[int], event_ids: Sequence[str]) -> str:
    """The signed digest of a tree's leaves' metadata: [[seq, event_id], ...] in order."""
    return hashlib.sha256(msgspec.json.encode(list(zip(seqs, event_ids, strict=True))))\
        .hexdigest()


def _columns(leaves: Sequence[HasLeaf]) -> tuple[list[int], list[str], list[bytes]]:
    """(seqs, event_ids, leaves): a store's table's own lists, or read off each event."""
    if isinstance(leaves, TableEvents):
        return leaves.seqs, leaves.event_ids, leaves.leaves
    return list(map(_SEQ, leaves)), list(map(_EVENT_ID, leaves)), list(map(_LEAF, leaves))


class SealRefused(ValueError):
    """Sealing again over sealed events that no longer match their seal."""


def make_seal(source: str, tables: Mapping[str, Sequence[HasLeaf]], through: Mapping[int, int],
              previous: SealRecord | None, key: Ed25519PrivateKey, sealed_at: str,
              past_gaps: bool = False) -> SealRecord:
    """Seal every table of ``tables`` (its events in ``seq`` order, see
    :func:`events.ledger.stored.in_seq_order`) after ``previous``: each table's tree is its
    gapless run from seq 0 (:func:`events.ledger.stored.sealable`), stepping over the gaps
    an earlier seal declared lost; with ``past_gaps``, every event the table holds (up to
    its highest seq), the seqs none holds declared missing in its head. A table with none
    yet is listed with an empty tree (the seal names every table it saw).

    Refuses (:class:`SealRefused`) when a table's run no longer begins with the tree the
    previous seal signed: a new seal must never bless an altered record.
    """
    before = previous.parsed() if previous is not None else None
    heads: list[TableHead] = []
    rows: list[LeafRow] = []
    for table_id in sorted(tables):
        seqs, ids, hashes = _columns(tables[table_id])
        old = before.head(table_id) if before is not None else None
        size = len(seqs) if past_gaps else sealable(seqs, old.declared() if old else None)
        start = old.size if old is not None else 0
        if old is not None and (size < start
                                or leaves_digest(hashes[:start]) != old.leaves_sha256):
            raise SealRefused(
                f"table {table_id}: the events sealed by seal {before.number if before else 0}"
                " no longer match it; run `uth verify` (nothing was sealed)")
        if not seqs:
            continue
        tree = hashes[:size]
        # the tree's own gaps: an earlier seal's declared ones (an event since arrived at
        # one was refused above: it changes the sealed prefix) and any new ones
        heads.append(TableHead(table_id, size, seqs[size - 1] if size else -1,
                               tree_root(tree).hex(), leaves_digest(tree), gaps(seqs[:size]),
                               meta_digest(seqs[:size], ids[:size])))
        rows.extend(map(_NEW_ROW, zip(repeat(table_id), range(start, size),
                                      seqs[start:size], ids[start:size], hashes[start:size])))
    if before is not None:  # a table the store no longer holds stays sealed as it was
        kept = {h.table_id for h in heads}
        missing = [h for h in before.tables if h.table_id not in kept and h.size]
        if missing:
            raise SealRefused(f"table {missing[0].table_id}: its sealed events are gone; run "
                              "`uth verify` (nothing was sealed)")
    body = SealBody(FORMAT, source, before.number + 1 if before else 1,
                    previous.digest() if previous is not None else None, sealed_at,
                    key_id(key.public_key()), {str(p): o for p, o in sorted(through.items())},
                    heads)
    data = msgspec.json.encode(body)
    return SealRecord(data, key.sign(data), rows)


def read_seal_lines(path: str | Path) -> list[SealRecord]:
    """The seals of a file of seal lines (a JSON Lines log's side file, a witness): none
    when it does not exist yet; a line that is no seal is kept as one that fails its
    signature (a damaged seal is a finding, not a crash)."""
    path = Path(path)
    if not path.exists():
        return []
    out: list[SealRecord] = []
    for line in path.read_bytes().splitlines():
        if line.strip():
            try:
                out.append(SealRecord.from_line(line))
            except ValueError:
                out.append(SealRecord(line, b"", []))
    return out
