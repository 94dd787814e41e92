"""events.contract.codec: every bad input becomes a Rejection with a reason a person can act on."""

from __future__ import annotations

import json
from typing import Any

import pytest

from events.contract.codec import MAX_EVENT_BYTES, MAX_RAW_KEPT, Rejection, decode_line, decode_many
from events.contract.schemas import CardsDealt, TableClosed
from events.contract.upcasting import UpcasterRegistry, UpcastError
from tests.logs.factory import encode, event, lines


def dealt(**payload: Any) -> dict[str, Any]:
    base = {"target": "seat", "seat": 3, "cards": ["As", "Kd"]}
    base.update(payload)
    return event("CardsDealt", "T1", 5, base, hand_id="h1", event_id="e-1")


def reason(data: bytes, position: int | str = 812) -> str:
    out = decode_line(data, position)
    assert isinstance(out, Rejection), out
    return str(out)


def test_valid_lines_decode_to_their_classes() -> None:
    out = decode_line(encode(dealt()), 1)
    assert isinstance(out, CardsDealt)
    assert out.payload.cards == ["As", "Kd"] and out.seq == 5 and out.table_id == "T1"


def test_the_issue_example_reads_as_written() -> None:
    assert reason(encode(dealt(cards=["As", "Xx"]))) == (
        "line 812: CardsDealt.cards[1]: 'Xx' is not a card (rank 23456789TJQKA, suit cdhs)"
    )


@pytest.mark.parametrize(
    ("data", "code", "expected"),
    [
        (encode(dealt(seat=0)), "invalid-field", "CardsDealt.seat: 0 is out of range: must be "
         "at least 1"),
        (encode(dealt(seat="3")), "wrong-type", "CardsDealt.seat: expected a whole number or "
         "null, got a string '3'"),
        (encode(dealt(target="sea")), "invalid-field", "CardsDealt.target: 'sea' is not "
         "allowed: one of community, dealer, seat"),
        (encode(dealt(cards=["As"])), "invalid-field", "CardsDealt.cards: has 1 item, must "
         "have at least 2"),
        (encode(dealt(cards=["As", "As"])), "invalid-field", "CardsDealt: the same card is "
         "listed twice"),
        (encode(dealt(target="dealer")), "invalid-field", "CardsDealt: seat is required when "
         "target is seat, and only then"),
        (encode(dealt())[:-3], "bad-json", "truncated JSON: the line ends inside the object"),
        (encode(dealt()) + b" x", "bad-json", "extra text after the JSON object at byte"),
        (b'{"type":"Foo"}', "unknown-type", "event.type: 'Foo' is not an event type of "
         "contract v1"),
        (b'{"event_id":"e1"}', "missing-field", "event: no \"type\" field"),
        (b"[1, 2]", "not-an-object", "an event is a JSON object, not a list"),
        (b"   ", "empty", "empty line"),
        (b"\xff\xfe{}", "bad-utf8", "not UTF-8 text: byte 0xff at offset 0"),
    ],
)
def test_reasons(data: bytes, code: str, expected: str) -> None:
    out = decode_line(data, 812)
    assert isinstance(out, Rejection)
    assert out.code == code
    assert out.reason.startswith(expected), out.reason


def test_missing_payload_field_names_the_field() -> None:
    ev = event("BetPlaced", "T1", 3, {"seat": 1, "spot": "ante"}, hand_id="h")
    assert reason(encode(ev), 4) == "line 4: BetPlaced.amount: required field is missing"


def test_envelope_fields_and_rules() -> None:
    ev = event("HandEnded", "T1", 3)  # hand_id None
    assert "HandEnded belongs to a hand" in reason(encode(ev))
    for kind in ("TableOpened", "TableClosed", "ChipsPurchased"):  # table-level: no hand's
        ev = event(kind, "T1", 3, hand_id="H1")
        assert f"{kind} is a table-level event: hand_id must be null, got a string" in reason(
            encode(ev))
    ev = event("TableClosed", "T1", 3) | {"occurred_at": "yesterday"}
    assert "TableClosed.occurred_at: 'yesterday' is not an RFC 3339 UTC time" in reason(
        encode(ev))
    ev = event("TableClosed", "T1", 3) | {"seq": 1.5}
    assert "TableClosed.seq: expected a whole number, got a decimal number 1.5" in reason(
        encode(ev))
    ev = event("TableClosed", "T1", 3) | {"schema_version": 2}
    out = decode_line(encode(ev), 1)
    assert isinstance(out, Rejection) and out.code == "schema-version"
    assert "newer than this reader" in out.reason


def test_bad_utf8_inside_a_string() -> None:
    data = encode(dealt()).replace(b'"Kd"', b'"K\xff"')
    out = decode_line(data, "row 9")
    assert isinstance(out, Rejection) and out.code == "bad-utf8"
    assert str(out).startswith("row 9: not UTF-8 text: byte 0xff at offset ")
    assert out.to_dict()["raw_base64"]


def test_huge_payload_is_rejected_before_parsing_and_raw_is_bounded() -> None:
    ev = event("HandVoided", "T1", 3, {"reason": "x" * MAX_EVENT_BYTES}, hand_id="h")
    data = encode(ev)
    out = decode_line(data, 1)
    assert isinstance(out, Rejection) and out.code == "too-large"
    assert f"{len(data):,} bytes" in out.reason
    assert len(out.raw) == MAX_RAW_KEPT


def test_rejection_keeps_ids_when_readable() -> None:
    out = decode_line(encode(dealt(cards=["As", "Xx"])), 1)
    assert isinstance(out, Rejection)
    assert (out.event_id, out.table_id) == ("e-1", "T1")
    assert json.loads(json.dumps(out.to_dict()))["raw"].startswith('{"event_id":"e-1"')


@pytest.mark.parametrize(
    "data",
    [b"", b"{", b"null", b"1e999999", b'{"type":null}', b'{"type":"CardsDealt","payload":7}',
     b'{"type":"CardsDealt","schema_version":-1}', b'{"type":"CardsDealt","schema_version":0}',
     b'{"type":"CardsDealt","schema_version":true}', b"\x00" * 10, b'"\\ud800"',
     b'{"a":' * 5000],
)
def test_odd_inputs_never_raise(data: bytes) -> None:
    assert isinstance(decode_line(data, 1), Rejection)


def test_decode_many_keeps_order_and_numbers_lines_from_first_line() -> None:
    good = lines(1, 1)[:3]
    out = decode_many([good[0], b"nope", good[1], b"", good[2]], first_line=10)
    assert [type(o).__name__ for o in out] == [
        "TableOpened", "Rejection", "HandStarted", "Rejection", "BetPlaced"]
    assert [o.position for o in out if isinstance(o, Rejection)] == [11, 13]


# --- upcasting, with a made-up version 0 (hypothetical: contract v1 is the first) ---------

def v0_registry() -> UpcasterRegistry:
    reg = UpcasterRegistry()

    @reg.register("CardsDealt", 0)
    def cards_as_list(ev: dict[str, Any]) -> dict[str, Any]:
        payload = dict(ev["payload"])
        text = payload["cards"]
        payload["cards"] = [text[i : i + 2] for i in range(0, len(text), 2)]
        return {**ev, "payload": payload}

    return reg


def test_v0_event_is_upcast_then_validated() -> None:
    v0 = dealt(cards="AsKd") | {"schema_version": 0}
    out = decode_line(encode(v0), 1, upcasters=v0_registry())
    assert isinstance(out, CardsDealt)
    assert out.payload.cards == ["As", "Kd"] and out.schema_version == 1
    assert decode_many([encode(v0)], upcasters=v0_registry())[0] == out


def test_v0_event_without_an_upcaster_is_a_schema_version_rejection() -> None:
    v0 = dealt(cards="AsKd") | {"schema_version": 0}
    out = decode_line(encode(v0), 7)
    assert isinstance(out, Rejection) and out.code == "schema-version"
    assert str(out) == ("line 7: CardsDealt.schema_version: version 0 cannot be read: no "
                        "upcaster for CardsDealt version 0 (this reader knows version 1)")


def test_upcast_result_is_still_validated() -> None:
    v0 = dealt(cards="AsXx") | {"schema_version": 0}
    out = decode_line(encode(v0), 2, upcasters=v0_registry())
    assert isinstance(out, Rejection)
    assert out.reason.startswith("CardsDealt.cards[1]: 'Xx' is not a card")


def test_failing_upcaster_becomes_a_rejection() -> None:
    v0 = dealt() | {"schema_version": 0}  # cards already a list: the v0 upcaster breaks
    reg = UpcasterRegistry()

    @reg.register("CardsDealt", 0)
    def boom(ev: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("cards")

    out = decode_line(encode(v0), 1, upcasters=reg)
    assert isinstance(out, Rejection) and "upcasting CardsDealt from version 0 failed" in (
        out.reason)


def test_registry_refuses_bad_registrations() -> None:
    reg = UpcasterRegistry()
    with pytest.raises(ValueError, match="below 1"):
        reg.register("CardsDealt", 1)
    reg.register("TableClosed", 0)(lambda e: e)
    with pytest.raises(ValueError, match="already"):
        reg.register("TableClosed", 0)(lambda e: e)
    assert ("TableClosed", 0) in reg and len(reg) == 1
    with pytest.raises(UpcastError):
        reg.upcast({"type": "TableClosed", "schema_version": "0"})
    out = reg.upcast({"type": "TableClosed", "schema_version": 0})
    assert out["schema_version"] == 1
    assert isinstance(decode_line(encode(event("TableClosed", "T", 0)), 1), TableClosed)


def test_times_are_checked_in_batches_too() -> None:
    good = lines(1, 1)[:4]
    bad_month = encode(event("TableClosed", "T1", 9) | {"occurred_at": "2026-13-29T21:03:11Z"})
    two_in_one = encode(event("TableClosed", "T1", 9)
                        | {"occurred_at": "2026-11-29T21:03:11Z\n2026-11-29T21:03:11Z"})
    out = decode_many([*good, bad_month, two_in_one])
    assert [type(o).__name__ for o in out[:4]] == ["TableOpened", "HandStarted", "BetPlaced",
                                                   "BetPlaced"]
    assert str(out[4]) == ("line 5: TableClosed.occurred_at: '2026-13-29T21:03:11Z' is not a "
                           "real time")
    assert isinstance(out[5], Rejection) and "is not an RFC 3339 UTC time" in out[5].reason
