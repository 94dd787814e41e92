"""Small valid event streams for the log, codec and ingest tests (and the log benchmarks).

Not the simulator: fixed, plain hands (one seat, everything checked to the river) whose
bytes are valid contract v1 events, with ``seq`` counted per table from 0.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from typing import Any

import msgspec

_enc = msgspec.json.Encoder()
_HAND = [
    ("BetPlaced", {"seat": 1, "spot": "ante", "amount": 500}),
    ("BetPlaced", {"seat": 1, "spot": "blind", "amount": 500}),
    ("CardsDealt", {"target": "seat", "seat": 1, "cards": ["As", "Kd"]}),
    ("CardsDealt", {"target": "dealer", "cards": ["7c", "7d"]}),
    ("CardsDealt", {"target": "community", "cards": ["2h", "9s", "Jc", "4d", "Qh"]}),
    ("PlayerDecision", {"seat": 1, "street": "preflop", "action": "check"}),
    ("CommunityRevealed", {"street": "flop", "cards": ["2h", "9s", "Jc"]}),
    ("PlayerDecision", {"seat": 1, "street": "flop", "action": "check"}),
    ("CommunityRevealed", {"street": "turn_river", "cards": ["4d", "Qh"]}),
    ("PlayerDecision", {"seat": 1, "street": "river", "action": "fold"}),
    ("DealerRevealed", {"cards": ["7c", "7d"]}),
    ("PayoutRecorded", {"seat": 1, "spot": "ante", "outcome": "lose", "amount": -500}),
    ("PayoutRecorded", {"seat": 1, "spot": "blind", "outcome": "lose", "amount": -500}),
    ("HandEnded", {}),
]


def event(
    type_: str, table_id: str, seq: int, payload: dict[str, Any] | None = None,
    hand_id: str | None = None, event_id: str | None = None,
) -> dict[str, Any]:
    return {
        "event_id": event_id or str(uuid.uuid4()), "type": type_, "schema_version": 1,
        "table_id": table_id, "hand_id": hand_id, "seq": seq,
        "occurred_at": f"2026-11-29T21:{(seq // 60) % 60:02d}:{seq % 60:02d}.000Z",
        "payload": payload or {},
    }


def table_events(table_id: str, hands: int, start_seq: int = 0) -> Iterator[dict[str, Any]]:
    """``TableOpened``, then ``hands`` hands of 16 events each."""
    seq = itertools.count(start_seq)
    if start_seq == 0:
        yield event("TableOpened", table_id, next(seq), {
            "ruleset": "charlevoix-2011", "min_bet": 500, "max_bet": 50000, "seats": 7,
            "currency": "CAD"})
    for h in range(hands):
        hand_id = f"{table_id}-h{h}"
        yield event("HandStarted", table_id, next(seq), {"dealer_id": "D7", "seats": [1]},
                    hand_id)
        for type_, payload in _HAND:
            yield event(type_, table_id, next(seq), payload, hand_id)


def stream(tables: int, hands: int) -> list[dict[str, Any]]:
    """Events of several tables interleaved round-robin (each table's order kept)."""
    per_table = [list(table_events(f"T{t + 1}", hands)) for t in range(tables)]
    out: list[dict[str, Any]] = []
    for group in itertools.zip_longest(*per_table):
        out.extend(e for e in group if e is not None)
    return out


def encode(ev: dict[str, Any]) -> bytes:
    return _enc.encode(ev)


def lines(tables: int, hands: int) -> list[bytes]:
    return [encode(e) for e in stream(tables, hands)]
