"""The fast path against the reference on hands with one thing wrong, of every finding kind,
under every shipped ruleset and both dealing orders: the lean auditor (plan, judge, and the
reference for what they do not certify) gives exactly the findings of the reference alone,
and the reference names the kind of the damage."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.findings import FINDING_KINDS
from tests.audit.test_paths_every_ruleset import ORDERS, RULESETS, both_paths, floor

Events = list[dict[str, Any]]


def _renumber(dicts: Events) -> Events:
    """``seq`` and ids consecutive again, so that only the damage itself is wrong."""
    return [{**d, "seq": k, "event_id": f"T1-{k:06d}"} for k, d in enumerate(dicts)]


def _at(dicts: Events, hand: str, type_: str, pick: int,
        test: Callable[[dict[str, Any]], bool] = lambda d: True) -> int | None:
    found = [k for k, d in enumerate(dicts)
             if d["hand_id"] == hand and d["type"] == type_ and test(d["payload"])]
    return found[pick % len(found)] if found else None


def _set(dicts: Events, k: int, **payload: Any) -> Events:
    out = list(dicts)
    out[k] = {**out[k], "payload": {**out[k]["payload"], **payload}}
    return out


def _used(dicts: Events, hand: str) -> set[str]:
    return {c for d in dicts if d["hand_id"] == hand for c in d["payload"].get("cards", ())}


def damage(kind: str, dicts: Events, pick: int) -> Events | None:
    """``dicts`` (a table: its opening, then three hands) with one thing wrong in its
    second hand that the reference words as ``kind``; None when this floor has nothing
    to damage that way."""
    hand = "T1-H1"
    if kind == "mispay":
        k = _at(dicts, hand, "PayoutRecorded", pick, lambda p: p["outcome"] == "win")
        return None if k is None else _set(dicts, k, amount=dicts[k]["payload"]["amount"] + 100)
    if kind == "missing_payout":
        k = _at(dicts, hand, "PayoutRecorded", pick)
        return None if k is None else _renumber(dicts[:k] + dicts[k + 1:])
    if kind == "unexpected_payout":
        k = _at(dicts, hand, "PayoutRecorded", pick)
        seats = {d["payload"]["seat"] for d in dicts
                 if d["hand_id"] == hand and d["type"] == "BetPlaced"
                 and d["payload"]["spot"] == "trips"}
        bettors = [d["payload"]["seat"] for d in dicts
                   if d["hand_id"] == hand and d["type"] == "BetPlaced"]
        free = [s for s in bettors if s not in seats]
        if k is None or not free:
            return None
        extra = {**dicts[k], "payload": {"seat": free[0], "spot": "trips", "outcome": "win",
                                         "amount": 500}}
        return _renumber([*dicts[:k], extra, *dicts[k:]])
    if kind == "illegal_action":  # a fold before the river
        k = _at(dicts, hand, "PlayerDecision", 0)
        assert k is not None
        seat = dicts[k]["payload"]["seat"]
        return _set_whole(dicts, k, {"seat": seat, "street": "preflop", "action": "fold"})
    if kind == "duplicate_card":  # a seat's card is also on the board
        k = _at(dicts, hand, "CardsDealt", pick, lambda p: p["target"] == "seat")
        board = _at(dicts, hand, "CardsDealt", 0, lambda p: p["target"] == "community")
        assert k is not None and board is not None
        cards = list(dicts[k]["payload"]["cards"])
        cards[0] = dicts[board]["payload"]["cards"][pick % 5]
        return _set(dicts, k, cards=cards)
    if kind == "bet_out_of_limits":  # a trips bet above the table's limit, or an ante
        k = _at(dicts, hand, "BetPlaced", pick, lambda p: p["spot"] == "blind")
        limit = dicts[0]["payload"].get("max_trips")
        if k is None:
            return None
        if limit is None:  # the ante and blind above the table's maximum
            high = dicts[0]["payload"]["max_bet"] + 100
            return _set(_set(dicts, k - 1, amount=high), k, amount=high)
        taken = {d["payload"]["seat"] for d in dicts if d["hand_id"] == hand
                 and d["type"] == "BetPlaced" and d["payload"]["spot"] == "trips"}
        seat = dicts[k]["payload"]["seat"]
        if seat in taken:
            return None
        extra = {**dicts[k], "payload": {"seat": seat, "spot": "trips", "amount": limit + 100}}
        return _renumber([*dicts[:k + 1], extra, *dicts[k + 1:]])
    if kind == "reveal_mismatch":  # the flop shown is not the board dealt
        k = _at(dicts, hand, "CommunityRevealed", 0, lambda p: p["street"] == "flop")
        assert k is not None
        other = next(c for c in ("2c", "3d", "4h", "5s", "6c", "7d", "8h")
                     if c not in _used(dicts, hand))
        cards = list(dicts[k]["payload"]["cards"])
        cards[pick % 3] = other
        return _set(dicts, k, cards=cards)
    if kind == "adjustment_mismatch":  # a dispute settled with money the replay does not owe
        k = _at(dicts, hand, "HandEnded", 0)
        seat = _at(dicts, hand, "BetPlaced", pick)
        assert k is not None and seat is not None
        s = dicts[seat]["payload"]["seat"]
        opened = {**dicts[k], "type": "DisputeOpened", "payload": {"seat": s, "claim": "short"}}
        resolved = {**dicts[k], "type": "DisputeResolved",
                    "payload": {"seat": s, "resolution": "paid", "adjustment": 12345}}
        return _renumber([*dicts[:k + 1], opened, resolved, *dicts[k + 1:]])
    if kind == "incomplete_hand":  # no end: the next hand starts
        k = _at(dicts, hand, "HandEnded", 0)
        assert k is not None
        return _renumber(dicts[:k] + dicts[k + 1:])
    if kind == "unknown_ruleset":
        return _set(dicts, 0, ruleset="no-such-rules")
    if kind == "sequence_gap":  # an event lost: its seq is missing
        k = _at(dicts, hand, "BetPlaced", pick)
        assert k is not None
        return dicts[:k] + dicts[k + 1:]
    if kind == "sequence_conflict":  # two different events at one seq
        k = _at(dicts, hand, "BetPlaced", pick)
        assert k is not None
        twin = {**dicts[k], "event_id": "T1-twin",
                "payload": {**dicts[k]["payload"], "amount": dicts[k]["payload"]["amount"] + 1}}
        return [*dicts[:k + 1], twin, *dicts[k + 1:]]
    raise AssertionError(f"no damage for {kind}")


def _set_whole(dicts: Events, k: int, payload: dict[str, Any]) -> Events:
    out = list(dicts)
    out[k] = {**out[k], "payload": payload}
    return out


def test_every_finding_kind_has_a_damage() -> None:
    dicts = floor(1, "charlevoix-2011", "community_first")
    for kind in FINDING_KINDS:
        damage(kind, dicts, 0)  # raises for a kind it cannot make


@pytest.mark.parametrize("kind", FINDING_KINDS)
@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("order", ORDERS)
@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), pick=st.integers(0, 10**6))
def test_one_thing_wrong_same_findings_by_both_paths(kind: str, ruleset: str, order: str,
                                                    seed: int, pick: int) -> None:
    rng = random.Random(seed)
    damaged = None
    while damaged is None:  # a floor with something to damage that way (most have)
        damaged = damage(kind, floor(rng.randrange(2**32), ruleset, order), pick)
    fast, reference = both_paths(damaged)
    assert fast == reference
    assert kind in {f.kind for f in reference}, [(f.kind, f.detail) for f in reference]
