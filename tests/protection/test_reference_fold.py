"""Game protection takes its seat-hands from the reference fold (one walk of a hand,
issue 32): the stakes, cards and decisions the auditor settles on, each event once."""

from __future__ import annotations

from typing import Any

import pytest

from events.contract.codec import Rejection, decode_many
from events.protection.hands import SeatHandCollector
from events.replay.fold import fold
from events.replay.hands import HandsFold
from events.replay.state import HandState
from tests.audit.builder import HandSpec, SeatSpec, Table, encode_lines


def _spec() -> HandSpec:
    return HandSpec("H1", [SeatSpec(1, ("As", "Kd"), 1000,
                                    decisions=[("preflop", "raise", 4)])],
                    board=("2c", "7d", "9h", "Jc", "3s"), dealer=("5h", "5d"),
                    payouts=[(1, "ante", "win", 1000), (1, "blind", "push", 0),
                             (1, "play", "win", 4000)])


def _events(raw: list[dict[str, Any]]) -> list[Any]:
    return [e for e in decode_many(encode_lines(raw)) if not isinstance(e, Rejection)]


def test_seat_hands_hold_the_stakes_the_reference_settles_on() -> None:
    t = Table()
    t.open()
    t.hand(_spec())
    # a second ante on the spot, before the cards: refused by the rules, not applied
    second = dict(t.events[3], event_id="again", payload={"seat": 1, "spot": "ante",
                                                          "amount": 2000})
    events = _events([*t.events[:4], second, *t.events[4:]])
    collector = SeatHandCollector()
    collector.feed(events)
    sh = collector.take()
    assert sh.ante.tolist() == [1000] and sh.play.tolist() == [4000]
    assert sh.result.tolist() == [5000] and sh.ruleset == ["charlevoix-2011"]


def test_a_redelivered_event_is_applied_once_and_a_timeout_is_marked() -> None:
    t = Table()
    t.open()
    t.hand(_spec())
    raw = list(t.events)
    decision = next(i for i, e in enumerate(raw) if e["type"] == "PlayerDecision")
    raw[decision]["payload"]["auto"] = True
    payout = next(i for i, e in enumerate(raw) if e["type"] == "PayoutRecorded")
    raw = [*raw[:payout + 1], raw[payout], raw[1], *raw[payout + 1:]]  # copies
    ended: list[HandState] = []
    HandsFold(ended.append).feed([*_events(raw), *_events(raw[1:3])])  # (after its end)
    (state,) = ended
    assert state.findings == ()  # no payout counted twice, no second HandStarted
    assert state.payouts[(1, "ante")].extra == 0
    assert [(d.payload.street, d.payload.auto) for d in state.decisions] == [("preflop", True)]
    collector = SeatHandCollector()
    collector.feed(_events(raw))
    sh = collector.take()
    assert sh.result.tolist() == [5000] and len(sh.dec_hand) == 0  # the table's choice


def test_the_fold_of_a_stream_leaves_each_state_a_value() -> None:
    t = Table()
    t.open()
    t.hand(_spec())
    ended: list[HandState] = []
    HandsFold(ended.append).feed(_events(t.events))
    (state,) = ended
    assert not state.owned
    from events.replay.fold import apply

    after = apply(state, _events(t.events[-1:])[0])  # (a late HandEnded: a finding)
    assert after is not state and len(after.findings) == 1 and state.findings == ()


def test_a_folded_hand_is_a_value_no_one_can_change() -> None:
    """The fold changes its own copy in place (events.replay.state._owned) but hands out a
    value: the mappings of every ended state, and of `fold`'s result, are read-only, and a
    later fold from that state leaves it as it was."""
    t = Table()
    t.open()
    t.hand(_spec())
    ended: list[HandState] = []
    HandsFold(ended.append).feed(_events(t.events))
    folded = fold(_events(t.events[1:]), HandState.begin("H1", "T1"))
    for state in (*ended, folded):
        for name in ("seats", "hole", "cards", "payouts", "player_refs"):
            with pytest.raises(TypeError):
                getattr(state, name)[99] = None  # type: ignore[index]
    before = dict(folded.seats)
    fold(_events(t.events[1:]), folded)
    assert dict(folded.seats) == before
