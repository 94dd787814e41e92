"""Events of a hand that arrive after it was settled are judged on the hand's own table,
whatever table sent them and however the input was batched."""

from __future__ import annotations

from typing import Any

import pytest

from events.audit import Auditor
from events.codec import decode_many
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
