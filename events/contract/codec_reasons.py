"""Why an input is not a valid event, in a sentence a person can act on.

:mod:`events.contract.codec` calls these once the typed decoder has refused an input: they turn
msgspec's message and the offending value (found again in a generic decode) into
``CardsDealt.cards[1]: 'Xx' is not a card (rank 23456789TJQKA, suit cdhs)``.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from events.contract.schemas import EVENT_TYPES, SCHEMA_VERSION, TABLE_EVENT_TYPES
from events.game.cards import CARD_PATTERN, DECK

_AT = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_PATH_PART = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
_CARDS = frozenset(DECK)
_TIME_PATTERN_HINT = "2026-11-29T21:03:11.123Z"
_KINDS = {
    "int": "a whole number", "float": "a decimal number", "str": "a string",
    "array": "a list", "object": "an object", "null": "null", "bool": "true or false",
}


def json_kind(value: object) -> str:
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


def explain_json(data: bytes, message: str) -> tuple[str, str, bytes]:
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


def explain_validation(message: str, generic: dict[str, Any], label: str) -> tuple[str, str]:
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
                                f"{json_kind(value)}")
    if parts == ["hand_id"] and value is None and label != "event":
        return "invalid-field", f"{label} belongs to a hand: hand_id is required"
    if parts == ["hand_id"] and label in TABLE_EVENT_TYPES:
        return "invalid-field", (f"{label} is a table-level event: hand_id must be null, "
                                 f"got {json_kind(value)}")
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
        got = json_kind(value)
        if not parts:
            return "not-an-object", f"an event is a JSON object, not {got}"
        if isinstance(value, dict) and set(value) == {"withheld"}:  # events.contract.privacy
            return "wrong-type", (f"{where}: a player identifier is a string; this one was "
                                  f"not, and is kept only as its pseudonym {value['withheld']}")
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
