"""The bytes of a stored event that the ledger hashes: one canonical form every store holds.

A log keeps each event's bytes as received (after pseudonymization), but the warehouse and
its Parquet archive keep the event as columns: the envelope fields, ``occurred_at`` as a
microsecond TIMESTAMP and the payload re-encoded as the contract reads it. The one form all
of them reproduce exactly is the event as the ingest stores it, encoded as compact JSON the
way msgspec encodes the contract's Struct (the tag ``type`` first, then the envelope fields
in the contract's order, then the payload)::

    {"type":..,"event_id":..,"schema_version":1,"table_id":..,"hand_id":..,"seq":..,
     "occurred_at":"2026-11-29T21:03:11.123Z","payload":{..}}

``occurred_at`` is written with its microseconds (more digits are cut, as the warehouse's
TIMESTAMP cuts them), trailing zeros dropped down to three digits (a table clock's
milliseconds stay as they are), and ``Z`` for ``+00:00``; the payload is the msgspec
encoding of the decoded payload Struct (fields in declaration order, absent optional
fields left out), which is byte for byte the warehouse's ``payload`` column.

>>> from events.contract.schemas import decode_event
>>> ev = decode_event(b'{"event_id":"e1","type":"TableClosed","schema_version":1,'
...     b'"table_id":"T1","hand_id":null,"seq":7,"occurred_at":"2026-11-29T21:03:11.1Z",'
...     b'"payload":{}}')
>>> canonical_event(ev)
b'{"type":"TableClosed","event_id":"e1","schema_version":1,"table_id":"T1","hand_id":null,"seq":7,"occurred_at":"2026-11-29T21:03:11.100Z","payload":{}}'
"""

from __future__ import annotations

import datetime as dt
import hashlib
from operator import attrgetter

import msgspec

from events.contract.schemas import Event

_encoder = msgspec.json.Encoder()
_OCCURRED_AT = attrgetter("occurred_at")


class CanonicalEvent(msgspec.Struct, frozen=True, gc=False):
    """The event as msgspec encodes the contract's Struct, the payload already encoded."""

    type: str
    event_id: str
    schema_version: int
    table_id: str
    hand_id: str | None
    seq: int
    occurred_at: str
    payload: msgspec.Raw


def normal_time(text: str) -> str:
    """An ``occurred_at`` of the contract in its canonical form.

    >>> normal_time("2026-11-29T21:03:11Z"), normal_time("2026-11-29T21:03:11.1234567+00:00")
    ('2026-11-29T21:03:11.000Z', '2026-11-29T21:03:11.123456Z')
    >>> normal_time("2026-11-29T21:03:11.550Z"), normal_time("2026-11-29T21:03:11.55010Z")
    ('2026-11-29T21:03:11.550Z', '2026-11-29T21:03:11.5501Z')
    """
    if len(text) == 24 and text[23] == "Z" and text[19] == ".":
        return text  # milliseconds: the common form, canonical already
    end = 20
    while end < len(text) and text[end].isdigit():
        end += 1
    digits = text[20:end] if text[19:20] == "." else ""
    return f"{text[:19]}.{_fraction(int((digits + '000000')[:6]))}Z"


def _fraction(micros: int) -> str:
    """Microseconds as fraction digits: six, trailing zeros dropped down to three."""
    digits = f"{micros:06d}"
    while len(digits) > 3 and digits[-1] == "0":
        digits = digits[:-1]
    return digits


def time_text(value: dt.datetime) -> str:
    """A warehouse TIMESTAMP (naive UTC, microseconds) in the canonical form."""
    return (f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{value.hour:02d}:"
            f"{value.minute:02d}:{value.second:02d}.{_fraction(value.microsecond)}Z")


def canonical_event(event: Event) -> bytes:
    """The canonical bytes of a decoded (validated, pseudonymized) event."""
    at = event.occurred_at
    if len(at) == 24 and at[23] == "Z" and at[19] == ".":
        return _encoder.encode(event)  # one C call for the common form
    return _encoder.encode(msgspec.structs.replace(event, occurred_at=normal_time(at)))


def canonical_events(events: list[Event]) -> list[bytes]:
    """:func:`canonical_event` of each (one C-level pass when every time is in the common
    form, as a table clock's milliseconds are)."""
    times = list(map(_OCCURRED_AT, events))
    # a contract time holds one Z at most: all 24 long with one Z each is all .fffZ
    if set(map(len, times)) == {24} and "".join(times).count("Z") == len(times):
        return list(map(_encoder.encode, events))
    return list(map(canonical_event, events))


def canonical_columns(event_id: str, kind: str, schema_version: int, table_id: str,
                      hand_id: str | None, seq: int, occurred_at: dt.datetime | str,
                      payload: str | bytes) -> bytes:
    """The canonical bytes of an event stored as columns (the warehouse, the archive)."""
    at = normal_time(occurred_at) if isinstance(occurred_at, str) else time_text(occurred_at)
    raw = payload.encode("utf-8") if isinstance(payload, str) else payload
    return _encoder.encode(CanonicalEvent(kind, event_id, int(schema_version), table_id,
                                          hand_id, int(seq), at, msgspec.Raw(raw)))


LEAF_PREFIX = b"\x00"  # RFC 6962: a leaf and an inner node never hash the same bytes
NODE_PREFIX = b"\x01"


def leaf_hash(canonical: bytes) -> bytes:
    """The Merkle leaf of one event: SHA-256 of 0x00 and its canonical bytes."""
    return hashlib.sha256(LEAF_PREFIX + canonical).digest()
