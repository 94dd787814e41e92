"""Fuzzing events.contract.codec.decode_line: whatever the bytes, it returns an event or a rejection
with a reason, never raises, and an accepted event is exactly what it says it is.

Budget: the ``reliability`` Hypothesis profile in ``make test``, ``fuzz`` in ``make fuzz``.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import example, given
from hypothesis import strategies as st

from events.contract.codec import MAX_EVENT_BYTES, MAX_RAW_KEPT, Rejection, decode_line
from events.contract.schemas import EVENT_TYPES, encode_event
from tests.reliability import corpus
from tests.reliability.budget import fuzz_budget

CODES = {
    "too-large", "empty", "bad-json", "bad-utf8", "not-an-object", "missing-field",
    "unknown-type", "schema-version", "invalid-field", "wrong-type", "duplicate-key", "too-deep",
}
# Every valid event of one table (all 14 event types but the table-level close / buy-in /
# void / disputes, which are added by hand below).
_STREAM = corpus.table("fuzz").events
_EXTRA = [
    {**_STREAM[0], "type": "TableClosed", "payload": {}},
    {**_STREAM[0], "type": "ChipsPurchased", "payload": {"seat": 2, "amount": 10000,
                                                         "method": "cash"}},
    {**_STREAM[1], "type": "HandVoided", "payload": {"reason": "shuffler jam"}},
    {**_STREAM[1], "type": "DisputeOpened", "payload": {"seat": 1, "claim": "blind was 3:2"}},
    {**_STREAM[1], "type": "DisputeResolved", "payload": {"seat": 1, "resolution": "paid",
                                                          "adjustment": -250}},
]
VALID: list[dict[str, Any]] = _STREAM + _EXTRA
VALID_LINES = [corpus.encode(e) for e in VALID]

json_scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
                | st.floats(allow_nan=False) | st.text(max_size=12))
json_values = st.recursive(
    json_scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids,
                                                              max_size=4),
    max_leaves=12,
)


def check(data: bytes) -> object:
    """decode_line's contract on any input; returns its result."""
    out = decode_line(data, 7)
    if isinstance(out, Rejection):
        assert out.code in CODES, out
        assert out.reason and str(out).startswith("line 7: ")
        assert len(out.raw) <= MAX_RAW_KEPT
        assert out.raw == data[:MAX_RAW_KEPT]
        out.to_dict()  # JSON-ready for a dead-letter store, whatever the bytes
        return out
    assert type(out).__name__ in EVENT_TYPES, out
    assert len(data) <= MAX_EVENT_BYTES
    # an accepted event re-encodes to bytes that decode to the same event
    again = decode_line(encode_event(out), 8)
    assert again == out
    return out


@fuzz_budget()
@given(st.binary(max_size=300))
@example(b"")
@example(b"\x00")
@example(b"{" * 5000)
@example(b"[" * 100_000)
@example(b'{"type":"TableClosed"' + b" " * MAX_EVENT_BYTES + b"}")
@example(b'"\\ud800"')
@example(b"1e999999")
def test_fuzz_codec_arbitrary_bytes(data: bytes) -> None:
    check(data)


@fuzz_budget()
@given(st.sampled_from(range(len(VALID_LINES))), st.data())
def test_fuzz_codec_mutated_valid_lines(index: int, data: st.DataObject) -> None:
    """Valid lines with bytes flipped, cut, inserted or deleted."""
    line = bytearray(VALID_LINES[index])
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert", "delete", "dup"]))
        at = data.draw(st.integers(0, max(len(line) - 1, 0)))
        if op == "flip" and line:
            line[at] ^= data.draw(st.integers(1, 255))
        elif op == "cut":
            del line[at:]
        elif op == "insert":
            line[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        elif op == "delete" and line:
            del line[at:at + data.draw(st.integers(1, 8))]
        elif op == "dup":
            line[at:at] = line[at:at + data.draw(st.integers(1, 40))]
    check(bytes(line))


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*prefix, i))
    return out


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = dict(obj) if isinstance(obj, dict) else list(obj)
    copy[path[0]] = _set(copy[path[0]], path[1:], value)
    return copy


def _drop(obj: Any, path: tuple[Any, ...]) -> Any:
    if len(path) == 1:
        copy = dict(obj) if isinstance(obj, dict) else list(obj)
        del copy[path[0]]
        return copy
    copy = dict(obj) if isinstance(obj, dict) else list(obj)
    copy[path[0]] = _drop(copy[path[0]], path[1:])
    return copy


@fuzz_budget()
@given(st.sampled_from(range(len(VALID))), st.data())
def test_fuzz_codec_structured_field_values(index: int, data: st.DataObject) -> None:
    """Well-formed JSON, one or two fields of a valid event replaced by any JSON value, or
    removed, or an extra field added: valid JSON with the wrong content."""
    ev: Any = VALID[index]
    for _ in range(data.draw(st.integers(1, 2))):
        paths = _paths(ev)[1:]
        path = data.draw(st.sampled_from(paths))
        op = data.draw(st.sampled_from(["set", "drop", "add"]))
        if op == "set":
            ev = _set(ev, path, data.draw(json_values))
        elif op == "drop":
            ev = _drop(ev, path)
        else:
            ev = {**ev, data.draw(st.text(max_size=8)): data.draw(json_values)}
    try:
        raw = json.dumps(ev).encode()
    except (TypeError, ValueError):
        return
    out = check(raw)
    if not isinstance(out, Rejection):
        # accepted: it really is that event type, and every field it kept is as sent
        sent = msgspec.json.decode(raw)
        assert type(out).__name__ == sent["type"]
        assert out.event_id == sent["event_id"] and out.seq == sent["seq"]


@fuzz_budget()
@given(st.lists(st.sampled_from(range(len(VALID_LINES))), min_size=1, max_size=5),
       st.sampled_from([b"", b" ", b"\n", b"\r\n", b",", b"\x00"]))
def test_fuzz_codec_several_objects_on_one_line(picks: list[int], sep: bytes) -> None:
    """Two events glued on one line are one rejection, never one half-read event."""
    data = sep.join(VALID_LINES[i] for i in picks)
    out = check(data)
    if len(picks) > 1:
        assert isinstance(out, Rejection)
