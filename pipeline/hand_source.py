"""Hands picked out of a log: their events (once each, in ``seq`` order), the table's
``TableOpened`` in force when each began, and where each event sits in the log.

``uth disputes`` reads the log twice: once for the ids of the hands with a dispute (a
byte search, no decoding), then for those hands' events; so memory holds only the
disputed hands, however long the log.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_HAND_ID = re.compile(rb'"hand_id"\s*:\s*("(?:[^"\\]|\\.)*")')


@dataclass
class FoundHand:
    events: list[Any] = field(default_factory=list)
    opened: Any = None  # the TableOpened in force at its first event, or None
    positions: dict[str, str] = field(default_factory=dict)  # event_id -> log position


def hand_ids(source: str) -> list[str]:
    """Every hand id the source names, in the order first seen (read, not decoded)."""
    from pipeline.commands.audit import read_batches

    out: dict[str, None] = {}
    for batch in read_batches(source):
        for _position, raw in batch:
            m = _HAND_ID.search(raw)
            text = _text(m.group(1)) if m is not None else None
            if text is not None:
                out.setdefault(text, None)
    return list(out)


def disputed_hand_ids(source: str) -> list[str]:
    """Ids of the hands that a ``DisputeOpened`` or ``DisputeResolved`` names, in the
    order first seen."""
    from events.contract.codec import decode_line
    from pipeline.commands.audit import read_batches

    out: dict[str, None] = {}
    for batch in read_batches(source):
        for position, raw in batch:
            if b"Dispute" not in raw:
                continue
            ev = decode_line(raw, position)
            if type(ev).__name__ in ("DisputeOpened", "DisputeResolved"):
                out.setdefault(ev.hand_id, None)  # type: ignore[union-attr]
    return list(out)


def collect(source: str, hand_ids: Iterable[str]) -> dict[str, FoundHand]:
    """The wanted hands found in ``source`` (a hand with no event there is absent)."""
    from events.contract.codec import decode_line
    from events.contract.schemas import TableOpened
    from events.replay.state import opened_in_force
    from pipeline.commands.audit import read_batches

    wanted = set(hand_ids)
    found: dict[str, dict[str, Any]] = {}
    where: dict[str, dict[str, str]] = {}
    opened: list[Any] = []
    for batch in read_batches(source):
        for position, raw in batch:
            if b"TableOpened" not in raw:
                m = _HAND_ID.search(raw)  # none: a null or oddly written hand_id, decoded
                if m is not None and _text(m.group(1)) not in wanted:
                    continue
            ev = decode_line(raw, position)
            if isinstance(ev, TableOpened):
                opened.append(ev)
                continue
            hand_id = getattr(ev, "hand_id", None)
            if hand_id in wanted:
                events = found.setdefault(hand_id, {})
                if ev.event_id not in events:  # type: ignore[union-attr]
                    events[ev.event_id] = ev  # type: ignore[union-attr]
                    where.setdefault(hand_id, {})[ev.event_id] = str(position)  # type: ignore[union-attr]
    out: dict[str, FoundHand] = {}
    for hand_id, by_id in found.items():
        events = sorted(by_id.values(), key=lambda e: e.seq)
        first = events[0]
        out[hand_id] = FoundHand(events, opened_in_force(opened, first.table_id, first.seq),
                                 where.get(hand_id, {}))
    return out


def _text(quoted: bytes) -> str | None:
    try:
        value = json.loads(quoted)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def evidence_of(hand: FoundHand) -> dict[str, Any]:
    """The hand's evidence document (``uth replay --json``'s)."""
    from events.audit.evidence import evidence

    context = [hand.opened] if hand.opened is not None else []
    return evidence([*context, *hand.events])
