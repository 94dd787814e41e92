"""The fast path (plan, then judge) against the reference (the fold and ``settle_hand``)
under every shipped ruleset and both dealing orders: a legal floor, and the same floor with
one payout changed, give the same findings by either path, and the reference finds the
change as exactly one mispay. (The contract accepts either dealing order at any table.)"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.audit.auditor import Auditor, audit
from events.contract.codec import decode_many
from events.game.rulesets import load_ruleset
from tests.audit.builder import Table, encode_lines, random_hand

RULESETS = ("charlevoix-2011", "eu-participation", "cardroom", "live-online")
ORDERS = ("community_first", "players_first")


def floor(seed: int, ruleset: str, order: str, hands: int = 3) -> list[dict[str, object]]:
    rules = load_ruleset(ruleset)
    rng = random.Random(seed)
    table = Table("T1")
    table.open(ruleset=ruleset, min_bet=rules.min_bet, max_bet=rules.max_bet,
               max_trips=rules.max_trips, seats=rules.max_seats or 7, currency=rules.currency)
    for h in range(hands):
        table.hand(random_hand(rng, f"T1-H{h}", min_bet=rules.min_bet, max_bet=rules.max_bet,
                               max_trips=rules.max_trips or rules.max_bet, order=order,
                               ruleset=ruleset, max_seats=min(7, rules.max_seats or 7)))
    return table.events


def both_paths(dicts: list[dict[str, object]]) -> tuple[list[object], list[object]]:
    items = decode_many(encode_lines(dicts))
    lean = Auditor(records=False)
    lean.feed_many(items)
    return lean.finish().findings, audit(items).findings


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("order", ORDERS)
@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32), pick=st.integers(0, 10**6), delta=st.sampled_from(
    [100, -100, 5]))
def test_fast_path_and_reference_agree(ruleset: str, order: str, seed: int, pick: int,
                                       delta: int) -> None:
    dicts = floor(seed, ruleset, order)
    fast, reference = both_paths(dicts)
    assert fast == reference
    assert reference == []
    # a win paid more or less, or a loss taken more (a push's amount is 0 by the contract)
    payouts = [k for k, d in enumerate(dicts) if d["type"] == "PayoutRecorded"
               and d["payload"]["outcome"] in ("win", "lose")]  # type: ignore[index]
    if not payouts:
        return
    k = payouts[pick % len(payouts)]
    changed = dict(dicts[k])
    payload = dict(changed["payload"])  # type: ignore[arg-type]
    amount = int(payload["amount"])
    payload["amount"] = (amount + delta if amount + delta > 0 else amount + abs(delta)) \
        if payload["outcome"] == "win" else amount - abs(delta)
    changed["payload"] = payload
    dicts[k] = changed
    fast, reference = both_paths(dicts)
    assert fast == reference
    mispays = [f for f in reference if f.kind == "mispay"]
    assert [f.event_id for f in mispays] == [changed["event_id"]], [
        (f.kind, f.detail) for f in reference]
