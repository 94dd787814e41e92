"""Events of a hand that arrive after it was settled are judged on the hand's own table,
whatever table sent them and however the input was batched."""

from __future__ import annotations

from typing import Any

import pytest

from events.audit.auditor import Auditor
from events.contract.codec import decode_many
from tests.audit.builder import HandSpec, SeatSpec, Table, correct_payouts, encode_lines


def _report(dicts: list[dict[str, Any]], **options: Any) -> Any:
    auditor = Auditor(**options)
    auditor.feed_many(decode_many(encode_lines(dicts)))
    return auditor.finish()


@pytest.mark.parametrize("options", [{"batch": 1}, {"batch": 1, "records": True},
                                     {"records": True}, {}])
def test_a_late_dispute_sent_from_another_table_is_judged_on_the_hands_table(
        options: dict[str, Any]) -> None:
    t1, t2 = Table("T1"), Table("T2")
    t1.open()
    seat = SeatSpec(1, ("7c", "7d"), 1000, 1000, [("preflop", "raise", 4)])
    hand = HandSpec("H1", [seat], ("7h", "2s", "9d", "9c", "Kh"), ("3c", "4d"), [])
    hand.payouts = correct_payouts(hand)
    t1.hand(hand)
    t2.open()
    t2.emit("DisputeOpened", {"seat": 1, "claim": "short"}, "H1")
    t2.emit("DisputeResolved", {"seat": 1, "resolution": "paid 5", "adjustment": 500}, "H1")
    report = _report([*t1.events, *t2.events], **options)
    assert [(f.kind, f.table_id) for f in report.findings] == [("adjustment_mismatch", "T1")]
    assert {d.table_id for d in report.disputes} == {"T1"}
    assert all(h.table_id == "T1" for h in report.hands)


@pytest.mark.parametrize("options", [{}, {"records": True}, {"batch": 1},
                                     {"batch": 1, "records": True}])
def test_a_hand_completed_after_the_next_one_is_still_judged(options: dict[str, Any]) -> None:
    """Hand A's payouts (one of them wrong) and its end come after hand B of the same table
    has begun and ended. Settled in a batch, A is judged whole; settled as soon as B began
    (one hand a batch, as when following a log), A is first an incomplete hand, and its end
    settles it again: the mispay is found either way."""
    table = Table("T1")
    table.open()
    a = HandSpec("A", [SeatSpec(1, ("Ac", "Ad"), 1000, 0, [("preflop", "raise", 4)])],
                 ("2h", "7s", "9d", "Jc", "Kh"), ("3c", "4d"), [])
    a.payouts = correct_payouts(a)
    a.payouts[0] = (1, "ante", "win", 1500)  # the dealer does not qualify: a push
    b = HandSpec("B", [SeatSpec(2, ("5c", "5d"), 1000, 0, [("preflop", "raise", 4)])],
                 ("2c", "7d", "9h", "Js", "Ks"), ("3h", "4s"), [])
    b.payouts = correct_payouts(b)
    table.hand(a)
    table.hand(b)
    a_events = [e for e in table.events if e["hand_id"] == "A"]
    b_events = [e for e in table.events if e["hand_id"] == "B"]
    cut = next(k for k, e in enumerate(a_events) if e["type"] == "PayoutRecorded")
    stream = [table.events[0], *a_events[:cut], *b_events, *a_events[cut:]]
    stream = [dict(e, seq=k) for k, e in enumerate(stream)]
    kinds = [(f.kind, f.hand_id, f.spot) for f in _report(stream, **options).findings]
    expected = [("mispay", "A", "ante")]
    if options.get("batch") == 1:
        expected = [("incomplete_hand", "A", None), *expected]
    assert kinds == expected
