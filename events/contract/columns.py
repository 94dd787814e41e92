"""The contract's events built from stored columns, not from event JSON.

A stored event (the warehouse's ``events`` row, an archive's row) is the envelope's columns
and the payload as the contract reads it (JSON written by the ingest from the decoded
Struct). :func:`events_of` builds the events from those columns directly: the envelope as
it is, the payload by its own type's decoder, so nothing renders an event back to JSON to
read it again. The values were validated when the event was ingested; the payload's
decoder checks its fields again (its ``__post_init__`` rules included), which costs little.

>>> [ev] = events_of(["e1"], ["TableClosed"], [1], ["T1"], [None], [7],
...                  ["2026-11-29T21:03:11.123000Z"], [b"{}"])
>>> type(ev).__name__, ev.seq, ev.payload
('TableClosed', 7, EmptyPayload())
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from events.contract.schemas import EVENT_TYPES, Event

# the envelope's fields in the order the event Structs take them, then the payload
_FIELDS = ("event_id", "schema_version", "table_id", "hand_id", "seq", "occurred_at",
           "payload")
assert all(msgspec.structs.fields(cls)[-1].name == "payload"
           and tuple(f.name for f in msgspec.structs.fields(cls)) == _FIELDS
           for cls in EVENT_TYPES.values()), "the event Structs' fields moved"

# each type's class and its payload's decoder
_PAYLOAD_DECODERS: dict[str, tuple[type[Any], msgspec.json.Decoder[Any]]] = {
    name: (cls, msgspec.json.Decoder(msgspec.structs.fields(cls)[-1].type))
    for name, cls in EVENT_TYPES.items()
}


def events_of(event_ids: Sequence[str], types: Sequence[str],
              schema_versions: Sequence[int], table_ids: Sequence[str],
              hand_ids: Sequence[str | None], seqs: Sequence[int],
              times: Sequence[str], payloads: Sequence[bytes | str]) -> list[Event]:
    """The events of these columns (one value per event in each), in their order.
    ``times``: contract text (``occurred_at`` as the event carries it); ``payloads``: each
    payload's JSON. Raises ``msgspec.ValidationError`` on a payload the contract refuses,
    ``KeyError`` on an unknown type."""
    decoders = _PAYLOAD_DECODERS
    out: list[Event] = []
    append = out.append
    for event_id, kind, version, table_id, hand_id, seq, at, payload in zip(
            event_ids, types, schema_versions, table_ids, hand_ids, seqs, times, payloads,
            strict=True):
        cls, decoder = decoders[kind]
        append(cls(event_id, version, table_id, hand_id, seq, at, decoder.decode(payload)))
    return out
