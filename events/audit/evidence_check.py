"""``uth verify --evidence``: an evidence document checked against its inclusion proof
(:func:`verify_evidence`) and rebuilt from its proved events, field by field.

A document's proof proves events; everything else it states (hand, dealer, status, rules,
disputes, steps, counts, digests, verdict) is what replaying them gives. So the verifier
replays the proved events (the hand's, and the ``TableOpened`` its rules come from) into a
document of its own and refuses every field of the given one that differs. The proof also
proves the table's other events between the hand's first and its closing event
(``context``), so that an event of the hand left out of both the document and its proof (a
mispaid payout) is found: every leaf between them must be proved.

A document is proved only whole: ``at`` must equal ``event_count`` (``uth replay --at``
shows a moment of a hand, not its evidence).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from events.audit.evidence import evidence
from events.contract.schemas import Event, TableOpened, decode_event
from events.ledger.canonical import canonical_event
from events.ledger.keys import key_id
from events.ledger.proof import ProofCheck, check_proof, span

NOT_STATED = frozenset({"inclusion_proof", "inclusion_proof_missing"})


def _decode(data: bytes) -> Event | None:
    from events.contract.codec import Rejection, decode_line

    event = decode_line(data, "the proved event")
    return None if isinstance(event, Rejection) else event


def rebuilt_differences(doc: dict[str, Any], check: ProofCheck,
                        shown: Sequence[Event]) -> list[str]:
    """What the document states that its proved events (and those it lists as not yet
    sealed) do not give, one line each."""
    problems: list[str] = []
    hand = doc.get("hand_id")
    proved: list[tuple[int, Event]] = []
    for index, data in check.entries.get("events", []):
        event = _decode(data)
        if event is None:
            problems.append(f"leaf {index}: altered: a proved event is not a valid event")
        else:
            proved.append((index, event))
    for event in (e for _, e in proved):
        if not isinstance(event, TableOpened) and getattr(event, "hand_id", None) != hand:
            problems.append(f"seq {event.seq}: forged: the proof holds an event of another "
                            "hand than the document's")
    if sum(isinstance(e, TableOpened) for _, e in proved) > 1:
        problems.append("forged: the proof holds more than one TableOpened")
    problems += _left_out(hand, proved, check)
    unsealed = set(check.unsealed)
    events = [e for _, e in proved] + [e for e in shown if e.event_id in unsealed]
    events.sort(key=lambda e: (not isinstance(e, TableOpened), e.seq))
    if not events:
        return problems
    try:
        again = json.loads(json.dumps(evidence(events)))
    except Exception as exc:  # events crafted to break the replay: say so, go on
        return [*problems, f"altered: the document's events cannot be replayed ({exc})"]
    if doc.get("at") != doc.get("event_count"):
        problems.append(f"altered: the document stops at event {doc.get('at')} of "
                        f"{doc.get('event_count')}: only a whole hand's document is proved")
    for part in [*doc, *(k for k in again if k not in doc)]:
        if part in NOT_STATED or (part == "at" and doc.get("at") != doc.get("event_count")):
            continue
        if part not in again:
            problems.append(f"altered: the document's {part} is not what its events give "
                            "(no such field)")
        elif doc.get(part) != again[part] or part not in doc:
            problems.append(f"altered: the document's {part} is not what its events give")
    return problems


def _left_out(hand: object, proved: list[tuple[int, Event]], check: ProofCheck) -> list[str]:
    """Leaves between the hand's first and closing event that the proof does not cover,
    and context events that are the hand's own."""
    problems = []
    context: dict[int, Event | None] = {i: _decode(d) for i, d in check.entries.get("context", [])}
    for index, event in context.items():
        if event is None or (not isinstance(event, TableOpened)
                             and getattr(event, "hand_id", None) == hand):
            problems.append(f"leaf {index}: forged: an event of the hand is proved as "
                            "another's")
    own = {i: e for i, e in proved if not isinstance(e, TableOpened)}
    if not own:
        return problems
    missing = [i for i in span(own) if i not in own and i not in context]
    if missing:
        problems.append(f"deleted: {len(missing)} of the table's events between the hand's "
                        f"first and closing event (leaves {missing[0]}..{missing[-1]}) are "
                        "left out of its proof")
    return problems


def verify_evidence(doc: dict[str, Any], public: Ed25519PublicKey) -> ProofCheck:
    """An evidence document: its proof checks, and the events it shows are the proved ones."""
    proof = doc.get("inclusion_proof")
    if not isinstance(proof, dict):
        out = ProofCheck(key=key_id(public))
        reason = doc.get("inclusion_proof_missing") or "the document carries no inclusion proof"
        out.unsealed.append(str(reason))
        return out
    out = check_proof(proof, public)
    proved = {}
    for entry in proof.get("events", []):
        if isinstance(entry, dict) and "event_id" in entry:
            proved[str(entry["event_id"])] = str(entry.get("stored", "")).encode("utf-8")
    if proof.get("table_id") != doc.get("table_id"):
        out.problems.append("forged: the proof is of another table than the document's")
    shown = [e for e in [doc.get("table_opened"), *doc.get("events", [])] if e]
    unsealed = set(out.unsealed)
    events: list[Event] = []
    for event in shown:
        try:
            decoded = decode_event(msgspec.json.encode(event))
        except (msgspec.ValidationError, msgspec.DecodeError):
            out.problems.append("altered: an event of the document is not a valid event")
            continue
        events.append(decoded)
        data = proved.get(decoded.event_id)
        if data is None:
            if decoded.event_id not in unsealed:
                out.problems.append(f"seq {decoded.seq}: inserted: the document shows an "
                                    "event its proof does not cover")
        elif canonical_event(decoded) != _canonical_of(data):
            out.problems.append(f"seq {decoded.seq}: altered: the document's event differs "
                                "from the proved one")
    out.problems += rebuilt_differences(doc, out, events)
    return out


def _canonical_of(data: bytes) -> bytes | None:
    """The contract's reading of an event's stored bytes (what the document shows of it),
    or None when they are no valid event."""
    from events.contract.codec import Rejection, decode_line

    event = decode_line(data, "the proved event")
    return None if isinstance(event, Rejection) else canonical_event(event)
