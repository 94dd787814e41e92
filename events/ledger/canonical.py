"""The bytes of a stored event that the ledger hashes: one canonical form every store holds.

A log keeps each event's bytes as received (after pseudonymization), but the warehouse and
its Parquet archive keep the event as columns: the envelope fields, ``occurred_at`` as a
microsecond TIMESTAMP and the payload re-encoded as the contract reads it. The one form all
of them reproduce exactly is the event as the ingest stores it, encoded as compact JSON with
the envelope fields in the contract's order::

    {"event_id":..,"type":..,"schema_version":1,"table_id":..,"hand_id":..,"seq":..,
     "occurred_at":"2026-11-29T21:03:11.123000Z","payload":{..}}

``occurred_at`` always has six fraction digits (more are cut, as the warehouse's TIMESTAMP
cuts them; ``+00:00`` is written ``Z``) and the payload is the msgspec encoding of the
decoded payload Struct (fields in declaration order, absent optional fields left out),
which is byte for byte the warehouse's ``payload`` column.

>>> from events.schemas import decode_event
>>> ev = decode_event(b'{"event_id":"e1","type":"TableClosed","schema_version":1,'
...     b'"table_id":"T1","hand_id":null,"seq":7,"occurred_at":"2026-11-29T21:03:11.1Z",'
...     b'"payload":{}}')
>>> canonical_event(ev)
b'{"event_id":"e1","type":"TableClosed","schema_version":1,"table_id":"T1","hand_id":null,"seq":7,"occurred_at":"2026-11-29T21:03:11.100000Z","payload":{}}'
"""

from __future__ import annotations

import datetime as dt
import hashlib

import msgspec

from events.schemas import Event

_encoder = msgspec.json.Encoder()


class CanonicalEvent(msgspec.Struct, frozen=True, gc=False):
    """The envelope in the contract's order, the payload as already-encoded JSON."""

    event_id: str
    type: str
    schema_version: int
    table_id: str
    hand_id: str | None
    seq: int
    occurred_at: str
    payload: msgspec.Raw


def normal_time(text: str) -> str:
    """An ``occurred_at`` of the contract in its canonical form (six fraction digits, Z).

    >>> normal_time("2026-11-29T21:03:11Z"), normal_time("2026-11-29T21:03:11.1234567+00:00")
    ('2026-11-29T21:03:11.000000Z', '2026-11-29T21:03:11.123456Z')
    """
    body = text[:19]
    rest = text[19:]
    fraction = ""
    if rest.startswith("."):
        end = 1
        while end < len(rest) and rest[end].isdigit():
            end += 1
        fraction = rest[1:end]
    return f"{body}.{(fraction + '000000')[:6]}Z"


def time_text(value: dt.datetime) -> str:
    """A warehouse TIMESTAMP (naive UTC, microseconds) in the canonical form."""
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical_event(event: Event) -> bytes:
    """The canonical bytes of a decoded (validated, pseudonymized) event."""
    return _encoder.encode(CanonicalEvent(
        event.event_id, type(event).__name__, event.schema_version, event.table_id,
        event.hand_id, event.seq, normal_time(event.occurred_at),
        msgspec.Raw(_encoder.encode(event.payload))))


def canonical_columns(event_id: str, kind: str, schema_version: int, table_id: str,
                      hand_id: str | None, seq: int, occurred_at: dt.datetime | str,
                      payload: str | bytes) -> bytes:
    """The canonical bytes of an event stored as columns (the warehouse, the archive)."""
    at = occurred_at if isinstance(occurred_at, str) else time_text(occurred_at)
    raw = payload.encode("utf-8") if isinstance(payload, str) else payload
    return _encoder.encode(CanonicalEvent(event_id, kind, int(schema_version), table_id,
                                          hand_id, int(seq), at, msgspec.Raw(raw)))


LEAF_PREFIX = b"\x00"  # RFC 6962: a leaf and an inner node never hash the same bytes
NODE_PREFIX = b"\x01"


def leaf_hash(canonical: bytes) -> bytes:
    """The Merkle leaf of one event: SHA-256 of 0x00 and its canonical bytes."""
    return hashlib.sha256(LEAF_PREFIX + canonical).digest()
