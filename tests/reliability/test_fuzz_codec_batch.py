"""The batch fast path (``decode_all_valid``) against the per-line reference (``decode_line``):
on any batch of valid and damaged lines it returns the events exactly when every line is
one, and then the very events ``decode_line`` gives; ``decode_many`` gives what
``decode_line`` gives line by line, always.

The damage is what the batch checks look for: repeated keys (in the envelope, the payload
or an unknown field's object, same value or not), times that are not real or not of the
common form, control characters and other spellings in identifiers (escaped, or raw where
JSON forbids them), unknown fields, payload defaults written out, escapes (``\\uXXXX`` for
any character, a colon among them), colons in identifiers and texts, and spaces around the
separators.

Budget: the ``reliability`` Hypothesis profile in ``make test``, ``fuzz`` in ``make fuzz``.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st

from events.contract.codec import Rejection, decode_all_valid, decode_line, decode_many
from tests.reliability.budget import fuzz_budget
from tests.reliability.test_fuzz_codec import VALID, json_values

TIMES = [
    "2026-11-29T21:03:11.123Z", "2026-11-29T21:03:11Z", "2026-11-29T21:03:11.5Z",
    "2026-11-29T21:03:11.123456789Z", "2026-11-29T21:03:11.123+00:00", "2028-02-29T10:00:00Z",
    "2027-02-29T10:00:00.000Z", "2026-04-31T10:00:00.000Z", "2026-12-31T23:59:60.000Z",
    "2026-11-29T24:00:00.000Z", "2026-13-01T10:00:00.000Z", "2026-11-29T21:03:11.123z",
    "2026-11-29T21:03:11.1234567890Z", "2026-11-29 21:03:11.123Z", "2026-11-29T21:03:11.123",
    "2026-11-29T21:03:11.123+01:00", "２026-11-29T21:03:11.123Z", "2026-11-29T21:03:11.12é",
]
IDS = ["T-07", "urn:table:7", "a:b:c", "T\x00A", "T\x1fA", "T\x7fA", "T\x85A", "T\x9fA",
       "Cafe\u0301", "Caf\u00e9", "\u200bT", "T\tA", "T\nA", "T 7", "T\\7", 'T"7', "T7:"]
TEXTS = ["shuffler jam", "a: b", ":", "\u00e9t\u00e9", "x\\y", "tab\there", "\u2028"]
DEFAULTS = {"auto": False, "shoe_id": None, "seat": None, "multiple": None, "amount": None,
            "max_trips": None, "player_ref": None, "player_refs": None}


class Raw(str):
    """A string written between quotes as it is (raw control characters included)."""


class Escaped(str):
    """A string written with every character as a ``\\uXXXX`` escape."""


def dump(value: Any, spaced: bool) -> str:
    """JSON text of ``value``, where a list of (key, value) pairs is an object that may
    repeat a key."""
    colon, comma = (" : ", " , ") if spaced else (":", ",")
    if isinstance(value, Raw):
        return f'"{value}"'
    if isinstance(value, Escaped):
        return '"' + "".join(f"\\u{ord(c):04x}" for c in value) + '"'
    if isinstance(value, dict):
        value = list(value.items())
    if isinstance(value, list) and all(isinstance(p, tuple) for p in value) and value:
        return "{" + comma.join(dump(k, spaced) + colon + dump(v, spaced)
                                for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + comma.join(dump(v, spaced) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def damaged(data: st.DataObject, ev: dict[str, Any]) -> bytes:
    """``ev`` with one to three damages, written as JSON (a key may be repeated)."""
    env: list[tuple[str, Any]] = [(k, v) for k, v in ev.items() if k != "payload"]
    payload: list[tuple[str, Any]] = list(ev["payload"].items())
    for _ in range(data.draw(st.sampled_from([1, 1, 1, 2, 3]))):
        op = data.draw(st.sampled_from(["repeat", "time", "id", "text", "unknown", "default",
                                        "escape", "raw", "hide"]))
        into = data.draw(st.sampled_from([env, payload])) if payload else env
        if op in ("repeat", "hide"):
            # "hide": identifier colons written as escapes, as many repeated keys as they
            # hold (a count of colons alone would see none of them)
            text = data.draw(st.sampled_from([t for t in IDS if ":" in t]))
            repeats = text.count(":") if op == "hide" else 1
            if op == "hide":
                env = [(k, Escaped(text) if k == "table_id" else v) for k, v in env]
                into = env
            for _ in range(repeats):
                key, value = data.draw(st.sampled_from(into))
                same = data.draw(st.sampled_from([True, True, True, False]))
                other = value if same else data.draw(json_values)
                into.insert(data.draw(st.integers(0, len(into))), (key, other))
        elif op == "time":
            env = [(k, data.draw(st.sampled_from(TIMES)) if k == "occurred_at" else v)
                   for k, v in env]
        elif op in ("id", "raw", "escape"):
            names = [k for k, v in env if k in ("event_id", "table_id", "hand_id")
                     and isinstance(v, str)]
            names += [k for k, v in payload if k in ("dealer_id", "shoe_id", "reason")]
            name = data.draw(st.sampled_from(names))
            text = data.draw(st.sampled_from(IDS))
            kind = {"id": str, "raw": Raw, "escape": Escaped}[op]
            env = [(k, kind(text) if k == name else v) for k, v in env]
            payload = [(k, kind(text) if k == name else v) for k, v in payload]
        elif op == "text":
            payload.append((data.draw(st.sampled_from(["reason", "claim", "note"])),
                            data.draw(st.sampled_from(TEXTS))))
        elif op == "unknown":
            inner = [("a", 1), ("a", data.draw(json_values))]
            into.append((data.draw(st.sampled_from(["x", "a:b", "Payload", "\u00e9"])),
                         data.draw(st.one_of(json_values, st.just(inner)))))
        elif op == "default":
            key = data.draw(st.sampled_from(sorted(DEFAULTS)))
            payload.append((key, DEFAULTS[key]))
    env.insert(data.draw(st.integers(0, len(env))), ("payload", payload or {}))
    return dump(env, data.draw(st.booleans())).encode()


@fuzz_budget()
@given(st.data())
def test_fuzz_codec_batch_fast_path_equals_the_per_line_reference(data: st.DataObject) -> None:
    # valid lines around at most two damaged ones: a batch is refused whole, so a damage
    # the fast path misses shows only where nothing else in the batch is wrong
    picks = data.draw(st.lists(st.sampled_from(range(len(VALID))), min_size=1, max_size=5))
    hurt = data.draw(st.sets(st.integers(0, len(picks) - 1), max_size=2))
    lines = [damaged(data, VALID[i]) if k in hurt else dump(VALID[i], False).encode()
             for k, i in enumerate(picks)]
    reference = [decode_line(line, n) for n, line in enumerate(lines, 1)]
    fast = decode_all_valid(lines)
    refused = [r for r in reference if isinstance(r, Rejection)]
    event("refused: " + ", ".join(sorted({r.code for r in refused})) if refused else "valid")
    assert (fast is None) == bool(refused), (lines, refused)
    if fast is not None:
        assert fast == reference
    assert decode_many(lines) == reference


def test_the_damage_reaches_both_verdicts() -> None:
    """Lines the batch checks must tell apart: a colon in an identifier is valid; DEL or an
    escaped NUL in one, a repeated key, a repeated key beside an escaped colon are not."""
    ok = dump(VALID[3], False).encode()
    colon_id = ok.replace(b'"table_id":"', b'"table_id":"urn:', 1)
    assert decode_all_valid([ok, colon_id]) is not None  # a colon in an identifier: valid
    for bad in (ok.replace(b'"table_id":"', b'"table_id":"\x7f', 1),
                ok.replace(b'"table_id":"', b'"table_id":"\\u0000', 1),
                ok.replace(b'{"', b'{"seq":5,"', 1),
                ok.replace(b'{"', b'{"x\\u003a":1,"seq":5,"', 1)):
        assert decode_all_valid([ok, bad]) is None, bad
        assert isinstance(decode_line(bad, 1), Rejection), bad


def _single_damages(ev: dict[str, Any]) -> list[bytes]:
    """``ev`` with each one damage of the lists above, alone."""
    env = [(k, v) for k, v in ev.items() if k != "payload"]
    payload = list(ev["payload"].items())

    def line(env_: list[tuple[str, Any]], payload_: list[tuple[str, Any]]) -> bytes:
        return dump([*env_, ("payload", payload_ or {})], False).encode()

    out = [line([(k, t if k == "occurred_at" else v) for k, v in env], payload)
           for t in TIMES]
    for name in ("event_id", "table_id", "hand_id"):
        if isinstance(ev[name], str):
            out += [line([(k, kind(t) if k == name else v) for k, v in env], payload)
                    for t in IDS for kind in (str, Raw, Escaped)]
    for part in (env, payload):
        for k in range(len(part)):
            repeated = [*part[:k + 1], part[k], *part[k + 1:]]
            out.append(line(repeated, payload) if part is env else line(env, repeated))
    out += [line(env, [*payload, (key, value)]) for key, value in DEFAULTS.items()]
    return out


def test_each_single_damage_alone_gets_the_reference_verdict() -> None:
    """Every damage of the lists, one at a time, in a batch of valid lines: the fast path
    refuses the batch exactly when ``decode_line`` refuses the line (the Hypothesis test
    above draws combinations; this one leaves no single damage to chance)."""
    around = [dump(ev, False).encode() for ev in VALID[:3]]
    seen = {True: 0, False: 0}
    for ev in VALID:
        for bad in _single_damages(ev):
            batch = [*around, bad]
            reference = [decode_line(line, n) for n, line in enumerate(batch, 1)]
            refused = isinstance(reference[-1], Rejection)
            fast = decode_all_valid(batch)
            assert (fast is None) == refused, bad
            assert fast is None or fast == reference
            seen[refused] += 1
    assert seen[True] > 100 and seen[False] > 100, seen
