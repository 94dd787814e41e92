"""A hand's inclusion proof: its events proved members of a signed table tree.

The proof travels in the hand's evidence document (``inclusion_proof``): the seal (its
body's exact text and signature), and for each event its exact stored bytes (the leaf is
their hash), its index in the table's tree (``seq`` order) and the audit path to the
sealed root. Whoever holds the public key checks it with nothing else
(``events.audit.evidence_check.verify_evidence``): the signature, each path to the signed
root, and that every event the document shows is one of the proved ones, byte for byte.

>>> from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
>>> from events.ledger.seal import Leaf, make_seal
>>> key = Ed25519PrivateKey.generate()
>>> data = [b'{"n":%d}' % i for i in range(3)]
>>> leaves = [leaf_hash(d) for d in data]
>>> seal = make_seal("x.jsonl", {"T1": [Leaf(i, f"e{i}", h) for i, h in enumerate(leaves)]},
...                  {0: 4}, None, key, "2026-12-01T00:00:00Z")
>>> proof = build_proof(seal, "T1", leaves, [("e1", 1, 1, data[1])], [])
>>> check_proof(proof, key.public_key()).problems
[]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from events.contract.schemas import Event, HandEnded, HandStarted, HandVoided
from events.ledger.canonical import leaf_hash
from events.ledger.keys import key_id, signature_valid
from events.ledger.merkle import inclusion_proofs, verify_inclusion
from events.ledger.seal import SealRecord

FORMAT = "uth-inclusion-proof/2"  # 2: "stored", the exact bytes, in seq order


def build_proof(seal: SealRecord, table_id: str, leaves: Sequence[bytes],
                events: Sequence[tuple[str, int, int, bytes]], unsealed: Sequence[str],
                context: Sequence[tuple[str, int, int, bytes]] = ()) -> dict[str, Any]:
    """The proof of ``events`` (event_id, seq, index in the table's tree, stored bytes)
    against ``seal``, whose tree for ``table_id`` is the first leaves of ``leaves``;
    ``unsealed``: the ids of the document's events the seal does not cover; ``context``:
    the table's other events between the hand's first and last event, proved the same way,
    so that a verifier sees that no event of the hand was left out."""
    head = seal.parsed().head(table_id)
    size = head.size if head is not None else 0
    tree = list(leaves[:size])

    def entries(rows: Sequence[tuple[str, int, int, bytes]]) -> list[dict[str, Any]]:
        paths = inclusion_proofs(tree, [index for _, _, index, _ in rows])
        return [{"event_id": event_id, "seq": seq, "leaf_index": index,
                 "stored": data.decode("utf-8"), "path": [h.hex() for h in path]}
                for (event_id, seq, index, data), path in zip(rows, paths, strict=True)]

    return {
        "format": FORMAT,
        "seal": {"body": seal.body.decode("utf-8"), "signature": seal.signature.hex()},
        "table_id": table_id,
        "tree_size": size,
        "events": entries(events),
        "context": entries(context),
        "not_sealed": list(unsealed),
    }


@dataclass
class ProofCheck:
    problems: list[str] = field(default_factory=list)
    unsealed: list[str] = field(default_factory=list)
    proved: int = 0
    seal_number: int | None = None
    key: str = ""
    # each proved entry as (leaf index, stored bytes), "events" and "context" apart
    entries: dict[str, list[tuple[int, bytes]]] = field(default_factory=dict)

    @property
    def proven(self) -> bool:
        return not self.problems and not self.unsealed


def check_proof(proof: dict[str, Any], public: Ed25519PublicKey) -> ProofCheck:
    """The proof alone: its seal's signature and every event's path to the signed root."""
    out = ProofCheck(key=key_id(public))
    try:
        body = str(proof["seal"]["body"]).encode("utf-8")
        signature = bytes.fromhex(str(proof["seal"]["signature"]))
    except (KeyError, TypeError, ValueError) as exc:
        out.problems.append(f"forged: the inclusion proof is not well formed ({exc})")
        return out
    if not signature_valid(public, signature, body):
        out.problems.append("forged: the seal's signature does not verify with this public key")
        return out
    return check_paths(proof, out)


def check_paths(proof: dict[str, Any], out: ProofCheck | None = None) -> ProofCheck:
    """Every event's path to the root its seal signs (the signature is not checked here:
    that needs the public key; :func:`check_proof` does both)."""
    out = out if out is not None else ProofCheck()
    try:
        body = str(proof["seal"]["body"]).encode("utf-8")
        table_id = str(proof["table_id"])
        size = int(proof["tree_size"])
        entries = list(proof["events"])
        seal = SealRecord(body, b"", []).parsed()
    except (KeyError, TypeError, ValueError) as exc:
        out.problems.append(f"forged: the inclusion proof is not well formed ({exc})")
        return out
    out.seal_number = seal.number
    head = seal.head(table_id)
    if head is None or head.size != size:
        out.problems.append(f"forged: the seal holds no tree of {size} events for this table")
        return out
    root = bytes.fromhex(head.root)
    for part in ("events", "context"):
        rows = entries if part == "events" else list(proof.get("context") or [])
        out.entries[part] = []
        for entry in rows:
            try:
                data = str(entry["stored"]).encode("utf-8")
                path = [bytes.fromhex(h) for h in entry["path"]]
                index, seq = int(entry["leaf_index"]), int(entry["seq"])
            except (KeyError, TypeError, ValueError):
                out.problems.append("forged: an event's proof is not well formed")
                continue
            out.entries[part].append((index, data))
            if verify_inclusion(leaf_hash(data), index, size, path, root):
                out.proved += part == "events"
            else:
                out.problems.append(f"seq {seq}: altered: the event does not prove against "
                                    f"the signed root of seal {seal.number}")
    out.unsealed = [str(e) for e in proof.get("not_sealed", [])]
    return out


def span(own: Mapping[int, Event]) -> range:
    """The leaves from a hand's first event (its ``HandStarted``) to its closing one
    (``HandEnded`` or ``HandVoided``; its last event when it has none), ``own`` its events
    by leaf index: every one of them must be in the proof (later disputes are proved one by
    one)."""
    if not own:
        return range(0)
    starts = [i for i, e in own.items() if isinstance(e, HandStarted)]
    ends = [i for i, e in own.items() if isinstance(e, HandEnded | HandVoided)]
    return range(min(starts or own), (max(ends) if ends else max(own)) + 1)
