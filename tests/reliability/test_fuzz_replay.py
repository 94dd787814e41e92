"""Fuzzing the replayer and the auditor with hands that go wrong in every way the contract
allows: events dropped, repeated, swapped, moved; cards, seats, streets, actions, multiples
and amounts changed. Whatever arrives, replay, the evidence document and the audit never
raise, and every finding is of a known kind with a sentence.

Budget: the ``reliability`` Hypothesis profile in ``make test``, ``fuzz`` in ``make fuzz``.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from events.audit.auditor import audit
from events.audit.evidence import evidence
from events.contract.codec import Rejection, decode_line
from events.findings import FINDING_KINDS
from events.game.cards import DECK
from events.replay.fold import PARTIES, replay, visible
from tests.reliability import corpus
from tests.reliability.budget import fuzz_budget

TABLE = corpus.table("fz").events  # TableOpened + 3 hands
OPENED = TABLE[0]
HANDS = {h: [e for e in TABLE if e["hand_id"] == h] for h in ("fz-h1", "fz-h2", "fz-h3")}

# what a mutation may put in a payload field (all valid for the schema or close to it)
FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "seat": st.integers(1, 8),
    "amount": st.sampled_from([1, 500, 999, 1000, 2000, 3000, 4000, 50000, 60000, -1000,
                               -4000, 0, 10**12]),
    "spot": st.sampled_from(["ante", "blind", "trips", "play"]),
    "street": st.sampled_from(["preflop", "flop", "river", "turn_river"]),
    "action": st.sampled_from(["check", "raise", "fold"]),
    "multiple": st.sampled_from([None, 1, 2, 3, 4]),
    "outcome": st.sampled_from(["win", "lose", "push"]),
    "target": st.sampled_from(["community", "seat", "dealer"]),
    "auto": st.booleans(),
    "seats": st.lists(st.integers(1, 8), min_size=1, max_size=4, unique=True),
    "reason": st.text(max_size=20),
}
CARD = st.sampled_from(DECK)


@st.composite
def mutated_hand(draw: st.DrawFn) -> list[dict[str, Any]]:
    events = [dict(e) for e in HANDS[draw(st.sampled_from(sorted(HANDS)))]]
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["drop", "repeat", "swap", "move", "card", "field",
                                   "retype", "reseq"]))
        i = draw(st.integers(0, len(events) - 1))
        ev = events[i]
        if op == "drop" and len(events) > 1:
            del events[i]
        elif op == "repeat":
            events.insert(draw(st.integers(0, len(events))), dict(ev))
        elif op == "swap":
            j = draw(st.integers(0, len(events) - 1))
            events[i], events[j] = events[j], events[i]
        elif op == "move":
            events.insert(draw(st.integers(0, len(events) - 1)), events.pop(i))
        elif op == "card" and "cards" in ev["payload"]:
            cards = list(ev["payload"]["cards"])
            cards[draw(st.integers(0, len(cards) - 1))] = draw(CARD)
            events[i] = {**ev, "payload": {**ev["payload"], "cards": cards}}
        elif op == "field" and ev["payload"]:
            key = draw(st.sampled_from(sorted(FIELD_VALUES)))
            value = draw(FIELD_VALUES[key])
            payload = {**ev["payload"], key: value}
            if value is None:
                payload.pop(key)
            events[i] = {**ev, "payload": payload}
        elif op == "retype":  # the same payload under another event type
            events[i] = {**ev, "type": draw(st.sampled_from(sorted(
                {e["type"] for e in TABLE} | {"HandVoided", "DisputeOpened"})))}
        elif op == "reseq":  # a fresh id (a conflicting copy) or a seq out of place
            events[i] = {**ev, "event_id": f"fz-{draw(st.integers(0, 9))}",
                         "seq": draw(st.integers(0, 80))}
    return events


def _decode(events: list[dict[str, Any]]) -> list[Any]:
    return [decode_line(corpus.encode(e), n) for n, e in enumerate(events, 1)]


def _check_findings(findings: Any) -> None:
    for f in findings:
        assert f.kind in FINDING_KINDS, f
        assert isinstance(f.detail, str) and f.detail.strip(), f
        json.dumps(f.to_json())


@fuzz_budget()
@given(mutated_hand(), st.data())
def test_fuzz_replay_never_raises(events: list[dict[str, Any]], data: st.DataObject) -> None:
    decoded = [d for d in _decode(events) if not isinstance(d, Rejection)]
    hand_events = [e for e in decoded if e.hand_id is not None]
    if not hand_events:
        return
    rep = replay(hand_events)
    assert len(rep.states) == len(hand_events) + 1
    _check_findings(rep.final.findings)
    n = data.draw(st.integers(0, len(hand_events)))
    for party in (*PARTIES, "seat:3"):
        json.dumps(visible(rep.at(n), party))
    doc = evidence(decode_opened() + hand_events, at=data.draw(st.none() | st.just(n)))
    json.dumps(doc)


def decode_opened() -> list[Any]:
    out = decode_line(corpus.encode(OPENED), 0)
    assert not isinstance(out, Rejection)
    return [out]


@fuzz_budget()
@given(st.lists(mutated_hand(), min_size=1, max_size=3))
def test_fuzz_audit_never_raises(hands: list[list[dict[str, Any]]]) -> None:
    """Several broken hands of one table after its TableOpened, and a clean table beside
    them: the audit goes through, and the clean table has no finding."""
    broken = [OPENED] + [e for h in hands for e in h]
    clean = corpus.table("fzclean").events
    mixed = []
    for i in range(max(len(broken), len(clean))):
        mixed += [x[i] for x in (broken, clean) if i < len(x)]
    report = audit(_decode(mixed))
    _check_findings(report.findings)
    assert [f for f in report.findings if f.table_id == clean[0]["table_id"]] == []
    assert report.summary["events"] + report.summary["rejected_events"] + \
        report.summary["duplicates_ignored"] <= len(mixed)


def test_unmutated_hands_replay_without_findings() -> None:
    """The anchor of the fuzz: the hands it starts from are clean."""
    for events in HANDS.values():
        rep = replay([e for e in _decode(events) if not isinstance(e, Rejection)])
        assert rep.final.findings == ()
