"""Bytes from outside the process into events, or into rejections a person can act on.

:func:`decode_line` never raises: it returns the validated event, or a :class:`Rejection`
whose ``reason`` names the event type, the field and what is wrong with it::

    line 812: CardsDealt.cards[1]: 'Xx' is not a card (rank 23456789TJQKA, suit cdhs)

The fast path is one call of a typed msgspec decoder. Only when that fails does the slow
path run: a generic decode to find the offending value, the upcasters (``events.upcasting``)
when ``schema_version`` is old, and a translation of msgspec's message into a sentence.

>>> ok = decode_line(b'{"event_id":"e1","type":"TableClosed","schema_version":1,'
...     b'"table_id":"T1","hand_id":null,"seq":7,"occurred_at":"2026-11-29T21:03:11Z",'
...     b'"payload":{}}', 1)
>>> type(ok).__name__
'TableClosed'
>>> print(decode_line(b'{"type":"Foo"}', 3))
line 3: event.type: 'Foo' is not an event type of contract v1
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from events.cards import CARD_PATTERN, DECK
from events.schemas import (
    EVENT_TYPES,
    SCHEMA_VERSION,
    TABLE_EVENT_TYPES,
    Event,
    decode_event,
    time_problem,
    times_valid,
)
from events.upcasting import UPCASTERS, UpcasterRegistry, UpcastError

MAX_EVENT_BYTES = 64 * 1024  # one event: a few hundred bytes; anything near this is hostile
MAX_RAW_KEPT = 4096  # bytes of a rejected line kept for the dead-letter store

Position = str | int

_decoder: msgspec.json.Decoder[Event] = msgspec.json.Decoder(Event)


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
        return _reject(position, "too-large", f"event is {len(data):,} bytes, more than the "
                       f"{MAX_EVENT_BYTES:,} allowed", data)
    try:
        return decode_event(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        first_error = exc
    except Exception as exc:  # pragma: no cover - msgspec raises only the two above
        return _reject(position, "internal", f"could not decode: {exc}", data)
    try:
        return _slow_path(data, position, first_error, upcasters)
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
    fast = _all_valid(items)
    if fast is not None:
        return fast
    decode = decode_event  # checks occurred_at too
    out: list[Event | Rejection] = []
    append = out.append
    for number, data in enumerate(items, first_line):
        if len(data) <= MAX_EVENT_BYTES:
            try:
                append(decode(data))
                continue
            except (msgspec.ValidationError, msgspec.DecodeError):
                pass
        append(decode_line(data, number, upcasters))
    return out


def decode_records(
    records: Iterable[tuple[Position, bytes]], upcasters: UpcasterRegistry = UPCASTERS
) -> list[Event | Rejection]:
    """Like :func:`decode_many` for (position, bytes) pairs, e.g. read from a log."""
    pairs = records if isinstance(records, list) else list(records)
    fast = _all_valid([data for _, data in pairs])
    if fast is not None:
        return fast
    decode = decode_event  # checks occurred_at too
    out: list[Event | Rejection] = []
    append = out.append
    for position, data in pairs:
        if len(data) <= MAX_EVENT_BYTES:
            try:
                append(decode(data))
                continue
            except (msgspec.ValidationError, msgspec.DecodeError):
                pass
        append(decode_line(data, position, upcasters))
    return out


def _all_valid(items: list[bytes]) -> list[Event | Rejection] | None:
    """Every item decoded in one comprehension, or None if any is not a valid event."""
    if not items or max(map(len, items)) > MAX_EVENT_BYTES:
        return None
    decode = _decoder.decode
    try:
        events = [decode(data) for data in items]
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    return events if times_valid(events) else None  # type: ignore[return-value]


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
        return _reject(position, *_explain_json(data, str(exc)))
    if not isinstance(generic, dict):
        kind = _json_kind(generic)
        return _reject(position, "not-an-object", f"an event is a JSON object, not {kind}", data)
    type_name = generic.get("type")
    label = type_name if isinstance(type_name, str) and type_name in EVENT_TYPES else "event"
    version = generic.get("schema_version")
    if (isinstance(version, int) and not isinstance(version, bool)
            and version < SCHEMA_VERSION and label != "event"):
        try:
            generic = upcasters.upcast(generic)
        except UpcastError as exc:
            return _reject(position, "schema-version", f"{label}.schema_version: {exc}", data,
                           generic)
        try:
            event: Event = msgspec.convert(generic, Event)
            problem = time_problem(event.occurred_at)
            if problem is None:
                return event
            error = msgspec.ValidationError(f"{problem} - at `$.occurred_at`")
        except msgspec.ValidationError as exc:
            error = exc
    code, reason = _explain_validation(str(error), generic, label)
    return _reject(position, code, reason, data, generic)


_AT = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
_CARDS = frozenset(DECK)
_TIME_PATTERN_HINT = "2026-11-29T21:03:11.123Z"
_KINDS = {
    "int": "a whole number", "float": "a decimal number", "str": "a string",
    "array": "a list", "object": "an object", "null": "null", "bool": "true or false",
}


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _explain_json(data: bytes, message: str) -> tuple[str, str, bytes]:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ("bad-utf8", f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset "
                f"{exc.start} cannot start or continue a character", data)
    if "truncated" in message:
        return "bad-json", "truncated JSON: the line ends inside the object", data
    m = re.search(r"JSON is malformed: (.*?) \(byte (\d+)\)", message)
    if m:
        what, at = m.group(1), int(m.group(2))
        if what == "trailing characters":
            return "bad-json", f"extra text after the JSON object at byte {at}", data
        return "bad-json", f"malformed JSON: {what} at byte {at}", data
    return "bad-json", f"malformed JSON: {message}", data


def _split_path(path: str) -> list[str | int]:
    return [m.group(1) if m.group(1) is not None else int(m.group(2))
            for m in _PATH_PART.finditer(path)]


def _lookup(obj: object, parts: list[str | int]) -> object:
    for part in parts:
        if isinstance(obj, list) and isinstance(part, int) and part < len(obj):
            obj = obj[part]
            continue
        if not (isinstance(obj, dict) and part in obj):
            return None
        obj = obj[part]
    return obj


def _type_at(type_name: str, parts: list[str | int]) -> Any:
    """The msgspec.inspect type at ``parts`` inside event class ``type_name`` (or None)."""
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        return None
    info: Any = msgspec.inspect.type_info(cls)
    for part in parts:
        while True:
            if isinstance(info, msgspec.inspect.Metadata):
                info = info.type
            elif isinstance(info, msgspec.inspect.UnionType):
                non_null = [t for t in info.types if not isinstance(t, msgspec.inspect.NoneType)]
                info = non_null[0] if len(non_null) == 1 else None
            else:
                break
        if isinstance(part, str) and isinstance(info, msgspec.inspect.StructType):
            info = next((f.type for f in info.fields if f.encode_name == part), None)
        elif isinstance(part, int) and isinstance(info, msgspec.inspect.ListType):
            info = info.item_type
        else:
            return None
    while isinstance(info, msgspec.inspect.Metadata):
        info = info.type
    return info


def _field_label(label: str, parts: list[str | int]) -> str:
    shown = parts[1:] if parts[:1] == ["payload"] and len(parts) > 1 else parts
    text = label
    for part in shown:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def _explain_validation(message: str, generic: dict[str, Any], label: str) -> tuple[str, str]:
    m = _AT.match(message)
    msg = m.group("msg") if m else message
    parts = _split_path(m.group("path") or "") if m else []
    where = _field_label(label, parts)
    value = _lookup(generic, parts)

    missing = re.match(r"Object missing required field `([^`]+)`", msg)
    if missing:
        field = missing.group(1)
        if not parts and field == "type":
            return "missing-field", "event: no \"type\" field (which event is this?)"
        return "missing-field", f"{_field_label(label, [*parts, field])}: required field is missing"
    if parts == ["type"]:
        if isinstance(value, str):
            return "unknown-type", (f"event.type: {value[:80]!r} is not an event type of "
                                    "contract v1")
        return "unknown-type", ("event.type: must be a string naming the event, got "
                                f"{_json_kind(value)}")
    if parts == ["hand_id"] and value is None and label != "event":
        return "invalid-field", f"{label} belongs to a hand: hand_id is required"
    if parts == ["hand_id"] and label in TABLE_EVENT_TYPES:
        return "invalid-field", (f"{label} is a table-level event: hand_id must be null, "
                                 f"got {_json_kind(value)}")
    if parts == ["schema_version"] and isinstance(value, int) and value > SCHEMA_VERSION:
        return "schema-version", (f"{where}: version {value} is newer than this reader "
                                  f"(version {SCHEMA_VERSION}); upgrade the pipeline")
    if parts == ["schema_version"] and isinstance(value, int) and value < 0:
        return "schema-version", f"{where}: {value} is not a version"

    regex = re.match(r"Expected `str` matching regex '(.*)'$", msg)
    if regex:
        pattern, shown = regex.group(1), repr(value)[:80]
        if pattern == CARD_PATTERN:
            return "invalid-field", (f"{where}: {shown} is not a card "
                                     "(rank 23456789TJQKA, suit cdhs)")
        if "T\\d{2}" in pattern or "T\\\\d{2}" in pattern:
            return "invalid-field", (f"{where}: {shown} is not an RFC 3339 UTC time "
                                     f"such as {_TIME_PATTERN_HINT}")
        if "[A-Z]{3}" in pattern:
            return "invalid-field", f"{where}: {shown} is not a three-letter currency code"
        return "invalid-field", f"{where}: {shown} does not have the expected form"
    bound = re.match(r"Expected `(int|float)` (>=|>|<=|<) (-?[\d.e+]+)$", msg)
    if bound:
        op, limit = bound.group(2), bound.group(3)
        words = {">=": "at least", ">": "more than", "<=": "at most", "<": "less than"}[op]
        return "invalid-field", f"{where}: {value!r} is out of range: must be {words} {limit}"
    length = re.match(r"Expected `(str|array|object)` of length (>=|<=) (\d+)$", msg)
    if length:
        kind, op, limit = length.groups()
        size = len(value) if isinstance(value, str | list | dict) else 0
        unit = "characters" if kind == "str" else "items"
        if op == ">=" and limit == "1" and kind == "str":
            return "invalid-field", f"{where}: must not be empty"
        words = "at least" if op == ">=" else "at most"
        if size == 1:
            unit = unit[:-1]
        return "invalid-field", f"{where}: has {size} {unit}, must have {words} {limit}"
    enum = re.match(r"Invalid enum value (.*)$", msg)
    if enum:
        info = _type_at(label, parts)
        allowed = getattr(info, "values", None)
        if allowed is not None and set(allowed) == _CARDS:
            return "invalid-field", (f"{where}: {enum.group(1)[:80]} is not a card "
                                     "(rank 23456789TJQKA, suit cdhs)")
        choices = f": one of {', '.join(map(str, allowed))}" if allowed else ""
        return "invalid-field", f"{where}: {enum.group(1)[:80]} is not allowed{choices}"
    expected = re.match(r"Expected `([^`]+)`(?:, got `([^`]+)`)?$", msg)
    if expected:
        want = " or ".join(_KINDS.get(k.strip(), k.strip()) for k in expected.group(1).split("|"))
        got = _json_kind(value)
        if not parts:
            return "not-an-object", f"an event is a JSON object, not {got}"
        shown = f" {value!r}"[:82] if isinstance(value, str | int | float) else ""
        return "wrong-type", f"{where}: expected {want}, got {got}{shown}"
    # A rule from a __post_init__ (e.g. "min_bet 500 is above max_bet 100").
    if msg.startswith(f"{label} "):
        return "invalid-field", msg
    if parts == ["payload"]:
        where = label
    field_value = re.match(r"([a-z_]+) (['\d-].*)$", msg, re.S)
    if field_value:  # "occurred_at 'x' is ...", "min_bet 500 is ...": name the field
        return "invalid-field", f"{where}.{field_value.group(1)}: {field_value.group(2)}"
    return "invalid-field", f"{where}: {msg}"
