"""A witness: the signed checkpoints (seals) a third party saw, kept apart from the store.

Whoever can write a store can roll it back: remove its newest seals together with the events
after an earlier seal, and the store verifies against that earlier seal. As a transparency
log's witnesses do, a witness keeps each checkpoint where the store's writers cannot reach
(``uth seal --witness FILE`` appends each seal's signed body to FILE, one JSON line, no
leaves); ``uth verify --witness FILE`` then names every checkpoint the witness saw that the
store no longer holds (rolled back: the table and the ``seq`` range it lost) or holds in
another form (forged).

>>> from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
>>> from events.ledger.seal import Leaf, make_seal
>>> key = Ed25519PrivateKey.generate()
>>> one = make_seal("x.jsonl", {"T1": [Leaf(0, "e0", b"\\0" * 32)]}, {0: 1}, None, key, "t")
>>> two = make_seal("x.jsonl", {"T1": [Leaf(0, "e0", b"\\0" * 32), Leaf(1, "e1", b"\\1" * 32)]},
...                 {0: 2}, one, key, "t")
>>> [f.line() for f in witness_findings([one], [one, two], key.public_key(), {"x.jsonl"})]
['deleted: seal 2, which the witness saw, is missing from the store (rolled back)', \
'T1 seq 1: deleted: sealed by seal 2, which the witness saw and the store no longer holds \
(rolled back)']
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from events.ledger.compare import Finding
from events.ledger.keys import key_id, signature_valid
from events.ledger.seal import SealBody, SealRecord, read_seal_lines


def append_witness(path: str | Path, seal: SealRecord) -> bool:
    """Append ``seal``'s signed checkpoint (its body and signature, not its leaves) to the
    witness file at ``path``, durably; False when the witness holds it already."""
    path = Path(path)
    digest = seal.digest()
    if any(r.digest() == digest for r in read_seal_lines(path)):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, SealRecord(seal.body, seal.signature, []).to_line() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    return True


def witness_findings(store: Sequence[SealRecord], witnessed: Sequence[SealRecord],
                     public: Ed25519PublicKey, sources: Collection[str],
                     expected: int | None = None) -> list[Finding]:
    """What the store's seals (``store``) lack of the checkpoints the witness saw of the
    sources named ``sources``. ``expected``: only the witnessed seals numbered up to it
    are due in the store (a warehouse that has not loaded past a newer seal yet)."""
    mine = key_id(public)
    held: dict[int, tuple[str, SealBody]] = {}
    for record in store:
        body = _parsed(record)
        if body is not None and signature_valid(public, record.signature, record.body):
            held[body.number] = (record.digest(), body)
    findings: list[Finding] = []
    missing: list[SealBody] = []
    for line, record in enumerate(witnessed, 1):
        body = _parsed(record)
        if body is None or (body.key_id == mine
                            and not signature_valid(public, record.signature, record.body)):
            findings.append(Finding(None, None, None, "forged",
                                    f"witness line {line}: not a checkpoint signed by this key"))
            continue
        if body.key_id != mine or body.source not in sources:
            continue  # another key's or another log's checkpoint
        if expected is not None and body.number > expected:
            continue
        have = held.get(body.number)
        if have is None:
            missing.append(body)
        elif have[0] != record.digest():
            findings.append(Finding(
                None, None, None, "forged",
                f"seal {body.number}: the store's seal {body.number} is not the one the "
                f"witness saw (digest {have[0][:16]}, witnessed {record.digest()[:16]})"))
    if not missing:
        return findings
    numbers = sorted({b.number for b in missing})
    span = (f"seal {numbers[0]}" if len(numbers) == 1 else
            f"seals {', '.join(str(n) for n in numbers)}")
    verb = "is" if len(numbers) == 1 else "are"
    findings.append(Finding(None, None, None, "deleted",
                            f"{span}, which the witness saw, {verb} missing from the store "
                            "(rolled back)"))
    newest = max(missing, key=lambda b: b.number)
    kept = max(held.values(), key=lambda pair: pair[1].number)[1] if held else None
    for head in newest.tables:
        before = kept.head(head.table_id) if kept is not None else None
        first = (before.last_seq + 1) if before is not None else 0
        lost = head.size - (before.size if before is not None else 0)
        if lost > 0 and head.last_seq >= first:
            findings.append(Finding(
                head.table_id, first, head.last_seq, "deleted",
                f"sealed by seal {newest.number}, which the witness saw and the store no "
                "longer holds (rolled back)", lost))
    return findings


def _parsed(record: SealRecord) -> SealBody | None:
    try:
        return record.parsed()
    except ValueError:
        return None
