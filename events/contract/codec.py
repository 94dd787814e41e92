"""Bytes from outside the process into events, or into rejections a person can act on.

:func:`decode_line` never raises: it returns the validated event, or a :class:`Rejection`
whose ``reason`` names the event type, the field and what is wrong with it::

    line 812: CardsDealt.cards[1]: 'Xx' is not a card (rank 23456789TJQKA, suit cdhs)

The fast path is one call of a typed msgspec decoder. Only when that fails does the slow
path run: a generic decode to find the offending value, the upcasters
(``events.contract.upcasting``) when ``schema_version`` is old, and a translation of
msgspec's message into a sentence.

>>> ok = decode_line(b'{"event_id":"e1","type":"TableClosed","schema_version":1,'
...     b'"table_id":"T1","hand_id":null,"seq":7,"occurred_at":"2026-11-29T21:03:11Z",'
...     b'"payload":{}}', 1)
>>> type(ok).__name__
'TableClosed'
>>> print(decode_line(b'{"type":"Foo"}', 3))
line 3: event.type: 'Foo' is not an event type of contract v1
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import msgspec
import numpy as np

from events.contract.codec_reasons import explain_json, explain_validation, json_kind
from events.contract.identifiers import envelope_problem, identifiers_valid
from events.contract.schemas import (
    EVENT_TYPES,
    SCHEMA_VERSION,
    Event,
    decode_event,
)
from events.contract.times import time_problem, times_valid
from events.contract.upcasting import UPCASTERS, UpcasterRegistry, UpcastError

MAX_EVENT_BYTES = 64 * 1024  # one event: a few hundred bytes; anything near this is hostile
MAX_RAW_KEPT = 4096  # bytes of a rejected line kept for the dead-letter store

Position = str | int

_decoder: msgspec.json.Decoder[Event] = msgspec.json.Decoder(Event)
_encode = msgspec.json.Encoder().encode
_PAYLOAD = attrgetter("payload")


@dataclass(frozen=True, slots=True)
class Rejection:
    """One input that is not a valid event: where, why, and (the start of) what it was.

    ``code`` is a short category to count by (``bad-json``, ``invalid-field``...);
    ``reason`` is the sentence for a person; ``raw`` keeps at most ``MAX_RAW_KEPT`` bytes.
    ``event_id``/``table_id`` are filled when they could be read, to route and trace it.
    """

    position: Position
    code: str
    reason: str
    raw: bytes = b""
    event_id: str | None = None
    table_id: str | None = None

    @property
    def where(self) -> str:
        return f"line {self.position}" if isinstance(self.position, int) else str(self.position)

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for dead-letter stores (raw as text, or base64 when not UTF-8)."""
        out: dict[str, Any] = {
            "position": self.position, "code": self.code, "reason": self.reason,
            "event_id": self.event_id, "table_id": self.table_id,
        }
        try:
            out["raw"] = self.raw.decode("utf-8")
        except UnicodeDecodeError:
            import base64

            out["raw_base64"] = base64.b64encode(self.raw).decode("ascii")
        return out


def decode_line(
    data: bytes, position: Position, upcasters: UpcasterRegistry = UPCASTERS
) -> Event | Rejection:
    """The event in ``data`` (one JSON object), or why it is not one. Never raises."""
    if len(data) > MAX_EVENT_BYTES:
        return _reject(position, "too-large", f"event is more than the {MAX_EVENT_BYTES:,} "
                       f"bytes allowed ({len(data):,} bytes read)", data)
    try:
        event = decode_event(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        first_error = exc
    except RecursionError:
        return _too_deep(position, data)
    except Exception as exc:  # pragma: no cover - msgspec raises only the above
        return _reject(position, "internal", f"could not decode: {exc}", data)
    else:
        return event if keys_once([data], [event]) else _duplicate(position, data)
    try:
        return _slow_path(data, position, first_error, upcasters)
    except RecursionError:
        return _too_deep(position, data)
    except Exception as exc:  # never raise on input: report the surprise instead
        return _reject(position, "internal", f"could not explain the error {first_error}: "
                       f"{type(exc).__name__}: {exc}", data)


def decode_many(
    lines: Iterable[bytes], first_line: int = 1, upcasters: UpcasterRegistry = UPCASTERS
) -> list[Event | Rejection]:
    """Decode lines numbered from ``first_line``: one result per line, in order.

    Each line is decoded on its own (a batch decoded as one JSON array is no faster with
    msgspec and could let a line holding two objects shift the others), so a bad line
    costs only its own slow path.
    """
    items = lines if isinstance(lines, list) else list(lines)
    fast = decode_all_valid(items)
    if fast is not None:
        return fast
    return [decode_line(data, number, upcasters)
            for number, data in enumerate(items, first_line)]


def decode_records(
    records: Iterable[tuple[Position, bytes]], upcasters: UpcasterRegistry = UPCASTERS
) -> list[Event | Rejection]:
    """Like :func:`decode_many` for (position, bytes) pairs, e.g. read from a log."""
    pairs = records if isinstance(records, list) else list(records)
    fast = decode_all_valid([data for _, data in pairs])
    if fast is not None:
        return fast
    return [decode_line(data, position, upcasters) for position, data in pairs]


def decode_all_valid(items: list[bytes]) -> list[Event | Rejection] | None:
    """Every item decoded as :func:`decode_line` would, by the typed decoder over each and
    a few checks of the whole batch, or None if any is not a valid v1 event (then decode
    each with :func:`decode_line`, which says why)."""
    if not items or max(map(len, items)) > MAX_EVENT_BYTES:
        return None
    try:
        events = list(map(_decoder.decode, items))
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        return None
    raw = b"\n".join(items)  # once, for the checks of bytes
    if (times_valid(events) and (plain_text(raw) or identifiers_valid(events))
            and keys_once(items, events, raw)):
        return events  # type: ignore[return-value]
    return None


def plain_text(raw: bytes) -> bool:
    """True when the JSON text ``raw`` is ASCII with no escape and no DEL: then every
    string decoded from it, identifiers included, is printable ASCII (a raw control
    character inside a string is malformed JSON, which the decoder refused; ASCII is NFC).
    Three scans of bytes in C instead of gathering the identifiers; when False,
    ``identifiers_valid`` decides."""
    return raw.isascii() and b"\\" not in raw and b"\x7f" not in raw


def keys_once(items: list[bytes], events: Sequence[Any], raw: bytes | None = None) -> bool:
    """True when no JSON object in ``items`` (the raw lines ``events`` were decoded from)
    repeats a key. msgspec keeps the last of ``"amount":1000,"amount":999999`` where
    DuckDB's JSON functions read the first; such an event is refused instead.

    Counted, not parsed: a line's colons are its keys plus the colons inside its strings.
    Re-encoding a decoded event writes each key once (payload defaults left out, unknown
    fields dropped) and the same strings, so lines with no ``\\u`` escape (which could
    hide a colon) have exactly as many colons as their re-encoding when none repeats a
    key, holds an unknown field or writes out a default, and more otherwise. The batch is
    re-encoded in one call; only the lines of a batch whose counts differ are parsed.

    Before that, a cheaper bound: an event's re-encoding has at least 8 + 2 colons beyond
    its payload's (the envelope's eight keys, the ``HH:MM:SS`` of its time: ``events``
    have valid times; more when an identifier holds a colon or the time ends ``+00:00``),
    so lines holding exactly that many hold exactly their re-encoding's: in the common
    case only the payloads are re-encoded. ``raw``: the items joined by newlines, when the
    caller has it."""
    raw = b"\n".join(items) if raw is None else raw
    escaped = b"\\" in raw and b"\\u" in raw  # one memchr in the common case
    if not escaped:
        colons = _colons(raw)
        if (colons == 10 * len(events) + _colons(_encode(list(map(_PAYLOAD, events))))
                or colons == _colons(_encode(events))):
            return True
    return all(
        (b"\\u" not in data and data.count(b":") == _encode(event).count(b":"))
        or repeated_key(data) is None
        for data, event in zip(items, events, strict=True))


def _colons(data: bytes) -> int:
    return int(np.count_nonzero(np.frombuffer(data, dtype=np.uint8) == 0x3A))


def repeated_key(data: bytes) -> str | None:
    """The first key that one object of the JSON document ``data`` holds twice, or None
    (also when ``data`` is not JSON: the decoder words that)."""
    found: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> None:
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            found.append(next(k for i, k in enumerate(keys) if k in keys[:i]))

    try:
        json.loads(data, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None
    return found[0] if found else None


def _too_deep(position: Position, data: bytes) -> Rejection:
    return _reject(position, "too-deep", "JSON nested too deeply to read (lists or objects "
                   "inside one another hundreds of levels down; an event nests four at most)",
                   data)


def _duplicate(position: Position, data: bytes) -> Rejection:
    key = repeated_key(data) or "?"
    try:
        generic = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError):  # pragma: no cover - it decoded before
        generic = None
    label = generic.get("type") if isinstance(generic, dict) else None
    label = label if isinstance(label, str) and label in EVENT_TYPES else "event"
    return _reject(position, "duplicate-key",
                   f"{label}: the key {key[:80]!r} appears twice in one object; a key may "
                   "appear once (readers differ on which value counts)", data, generic)


def _reject(
    position: Position, code: str, reason: str, data: bytes,
    generic: object = None,
) -> Rejection:
    event_id = table_id = None
    if isinstance(generic, dict):
        eid, tid = generic.get("event_id"), generic.get("table_id")
        event_id = eid[:64] if isinstance(eid, str) else None
        table_id = tid[:200] if isinstance(tid, str) else None
    return Rejection(position, code, reason, bytes(data[:MAX_RAW_KEPT]), event_id, table_id)


def _slow_path(
    data: bytes, position: Position, error: Exception, upcasters: UpcasterRegistry
) -> Event | Rejection:
    if not data.strip():
        return _reject(position, "empty", "empty line (no event)", data)
    try:
        generic = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        return _reject(position, *explain_json(data, str(exc)))
    if not isinstance(generic, dict):
        kind = json_kind(generic)
        return _reject(position, "not-an-object", f"an event is a JSON object, not {kind}", data)
    type_name = generic.get("type")
    label = type_name if isinstance(type_name, str) and type_name in EVENT_TYPES else "event"
    version = generic.get("schema_version")
    if (isinstance(version, int) and not isinstance(version, bool)
            and version < SCHEMA_VERSION and label != "event"):
        if repeated_key(data) is not None:
            return _duplicate(position, data)
        try:
            generic = upcasters.upcast(generic)
        except UpcastError as exc:
            return _reject(position, "schema-version", f"{label}.schema_version: {exc}", data,
                           generic)
        try:
            event: Event = msgspec.convert(generic, Event)
            problem = time_problem(event.occurred_at)
            bad_id = envelope_problem(event)
            if problem is None and bad_id is None:
                return event
            where, why = ("occurred_at", problem) if problem else bad_id or ("", "")
            error = msgspec.ValidationError(f"{why} - at `$.{where}`")
        except msgspec.ValidationError as exc:
            error = exc
    code, reason = explain_validation(str(error), generic, label)
    return _reject(position, code, reason, data, generic)
