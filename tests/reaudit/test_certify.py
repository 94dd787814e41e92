"""The columnar certification (``events.audit.certify`` fed by
``pipeline.hands.hand_columns``, as ``uth reaudit`` and ``uth load`` run it) held to the
reference on random legal hands with one thing changed: it never certifies a hand in which
the audit step finds something, and a hand it certifies has exactly the audit step's rows."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.contract.codec import Rejection, decode_many
from events.contract.schemas import TableOpened
from events.replay.state import TableContext
from pipeline.hands.certified import certify_batch
from pipeline.hands.transforms import audit_events
from tests.audit.builder import Table, encode_lines, random_hand

SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
HOW = ["none", "drop", "repeat", "swap", "recard", "rebet", "repay", "reoutcome",
       "redecide", "reseat", "dispute", "void", "retype", "restreet", "dupcard",
       "dropdecision"]

# the events each change is made to (others: any event of a hand)
TARGETS = {"recard": ("CardsDealt", "CommunityRevealed", "DealerRevealed"),
           "dupcard": ("CardsDealt",), "rebet": ("BetPlaced",),
           "repay": ("PayoutRecorded",), "reoutcome": ("PayoutRecorded",),
           "redecide": ("PlayerDecision",), "restreet": ("PlayerDecision",),
           "void": ("HandEnded",), "dropdecision": ("PlayerDecision",), "retype": ("HandEnded",)}


def floor(seed: int, hands: int = 3, tables: int = 2) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for t in range(tables):
        table = Table(f"T{t}")
        table.open(ruleset=rng.choice(["charlevoix-2011", "cardroom", "eu-participation"]))
        for h in range(hands):
            table.hand(random_hand(rng, f"T{t}-H{h}"))
        out += table.events
    return out


def damage(dicts: list[dict[str, Any]], k: int, how: str, rng: random.Random) -> None:
    """Change event ``k`` (a hand's) as ``how`` says, in place."""
    ev = dicts[k]
    p = dict(ev["payload"])
    if how in ("drop", "dropdecision"):
        del dicts[k]
    elif how == "repeat":
        dicts.insert(k, {**ev, "event_id": ev["event_id"] + "x"})
    elif how == "swap" and dicts[k + 1]["hand_id"] == ev["hand_id"]:
        dicts[k], dicts[k + 1] = dicts[k + 1], dicts[k]
    elif how == "recard" and "cards" in p:
        cards = list(p["cards"])
        cards[rng.randrange(len(cards))] = rng.choice(["2c", "3d", "Ah", "Ks"])
        dicts[k] = {**ev, "payload": {**p, "cards": cards}}
    elif how == "dupcard" and ev["type"] == "CardsDealt":
        other = next(e for e in dicts if e["type"] == "CardsDealt" and e is not ev
                     and e["hand_id"] == ev["hand_id"])
        cards = [other["payload"]["cards"][-1], *p["cards"][1:]]
        dicts[k] = {**ev, "payload": {**p, "cards": cards}}
    elif how in ("rebet", "repay") and "amount" in p:
        dicts[k] = {**ev, "payload": {**p, "amount": p["amount"] + rng.choice([-100, 1, 500])}}
    elif how == "reoutcome" and "outcome" in p:
        dicts[k] = {**ev, "payload": {**p, "outcome": rng.choice(["win", "lose", "push"])}}
    elif how == "redecide" and "action" in p:
        p["action"] = rng.choice(["check", "raise", "fold"])
        if p["action"] != "raise":
            p.pop("multiple", None)
            p.pop("amount", None)
        dicts[k] = {**ev, "payload": p}
    elif how == "reseat" and "seat" in p:
        dicts[k] = {**ev, "payload": {**p, "seat": rng.choice([1, 2, 3, 5, 7])}}
    elif how == "restreet" and "street" in p:
        dicts[k] = {**ev, "payload": {**p, "street": rng.choice(["preflop", "flop",
                                                                "river"])}}
    elif how == "dispute":
        dicts.insert(k + 1, {**ev, "event_id": ev["event_id"] + "d", "type": "DisputeOpened",
                             "payload": {"seat": 1, "claim": "short paid"}})
    elif how == "void" and ev["type"] == "HandEnded":
        dicts[k] = {**ev, "type": "HandVoided", "payload": {"reason": "misdeal"}}
    elif how == "retype" and ev["type"] == "HandEnded":
        dicts[k] = {**ev, "type": "HandStarted",
                    "payload": {"dealer_id": "D1", "seats": [1, 2]}}


def columnar(items: list[Any]) -> tuple[list[str], pa.Table, pa.Table]:
    """The certified hands and their (hands, wagers) rows, fed as ``uth reaudit`` feeds
    them: each hand's events in order, its payloads as stored (JSON)."""
    opened = {ev.table_id: ev for ev in items if isinstance(ev, TableOpened)}
    contexts = {ev.event_id: TableContext.opened(ev) for ev in opened.values()}
    hands: dict[str, list[Any]] = {}
    for ev in items:
        if ev.hand_id is not None:
            hands.setdefault(ev.hand_id, []).append(ev)
    ids = sorted(hands)
    index = pa.table({
        "k": pa.array(range(len(ids)), pa.int64()), "hand_id": pa.array(ids, pa.string()),
        "table_id": [hands[h][0].table_id for h in ids],
        "tables": pa.array([len({e.table_id for e in hands[h]}) for h in ids], pa.int64()),
        "opened_id": [opened[hands[h][0].table_id].event_id for h in ids]})
    events = [(k, e) for k, h in enumerate(ids) for e in hands[h]]
    times = pa.array([e.occurred_at for _, e in events], pa.string())
    table = pa.table({
        "k": pa.array([k for k, _ in events], pa.int64()),
        "type": [type(e).__name__ for _, e in events],
        "occurred_at": times.cast(pa.timestamp("us", tz="UTC")).cast(pa.timestamp("us")),
        "payload": [msgspec.json.encode(e.payload).decode() for _, e in events]})
    hand_rows, wager_rows, refer = certify_batch(index, table, contexts, 0)
    return sorted(set(ids) - set(refer)), hand_rows, wager_rows


def reference(items: list[Any]) -> Any:
    """The audit step's rows of every hand (the feed as ``FEED_SQL`` orders it)."""
    feed = [ev for ev in items if isinstance(ev, TableOpened)]
    hands: dict[str, list[Any]] = {}
    for ev in items:
        if ev.hand_id is not None:
            hands.setdefault(ev.hand_id, []).append(ev)
    for table_id in sorted({ev.table_id for ev in feed}):
        feed += [e for h in sorted(hands) if hands[h][0].table_id == table_id
                 for e in hands[h]]
    return audit_events([(str(k), ev) for k, ev in enumerate(feed)], sorted(hands))


def rows_of(table: pa.Table, hand_ids: list[str]) -> list[tuple[Any, ...]]:
    wanted = set(hand_ids)
    return sorted(tuple(r.values()) for r in table.to_pylist() if r["hand_id"] in wanted)


@SETTINGS
@given(st.integers(0, 2**32), st.integers(0, 10**6), st.sampled_from(HOW))
def test_certified_hands_are_the_references_clean_hands(seed: int, pick: int,
                                                        how: str) -> None:
    dicts = floor(seed)
    rng = random.Random(pick)
    kinds = TARGETS.get(how)
    targets = [k for k, e in enumerate(dicts[:-1]) if e["hand_id"] is not None
               and (kinds is None or e["type"] in kinds)]
    if how != "none":
        damage(dicts, targets[pick % len(targets)], how, rng)
    items = [ev for ev in decode_many(encode_lines(dicts)) if not isinstance(ev, Rejection)]
    certified, hand_rows, wager_rows = columnar(items)
    ref = reference(items)
    found = set(ref.findings["hand_id"].to_pylist())
    assert not found & set(certified), (how, found & set(certified))
    assert rows_of(hand_rows, certified) == rows_of(ref.hands, certified)
    assert rows_of(wager_rows, certified) == rows_of(ref.wagers, certified)
    # the reference's plain hands that are not voided: certified, but for what the
    # certification leaves to the reference by design (none on these floors)
    clean = {h["hand_id"] for h in ref.hands.to_pylist()
             if h["status"] == "settled" and h["hand_id"] not in found}
    if how == "none":
        assert set(certified) == clean


def test_every_clean_settled_hand_of_a_floor_is_certified_with_its_rows() -> None:
    items = decode_many(encode_lines(floor(7, hands=20)))
    certified, hand_rows, wager_rows = columnar(items)
    ref = reference(items)
    found = set(ref.findings["hand_id"].to_pylist())  # (the other rulesets' pay tables)
    clean = sorted(h["hand_id"] for h in ref.hands.to_pylist()
                   if h["status"] == "settled" and h["hand_id"] not in found)
    assert len(clean) >= 20 and found
    assert certified == clean
    assert rows_of(hand_rows, clean) == rows_of(ref.hands, clean)
    assert rows_of(wager_rows, clean) == rows_of(ref.wagers, clean)


@pytest.mark.parametrize("limits", [{"max_bet": 1500}, {"max_trips": 100},
                                    {"min_bet": 2000}, {"seats": 3}])
def test_hands_outside_the_tables_limits_are_never_certified(limits: dict[str, int]) -> None:
    """Hands whose payouts are right but whose bets (or seats) the table's limits refuse:
    the reference finds them, the certification leaves them to it."""
    rng = random.Random(5)
    table = Table("T0")
    table.open(**limits)  # type: ignore[arg-type]
    for h in range(12):
        table.hand(random_hand(rng, f"H{h}"))
    items = decode_many(encode_lines(table.events))
    certified, _, _ = columnar(items)
    found = set(reference(items).findings["hand_id"].to_pylist())
    assert found and not found & set(certified)


def test_a_seat_that_never_decided_on_the_river_is_left_to_the_reference() -> None:
    """A seat's river fold lost: its payouts (the antes lost) still read as a fold, but
    the seat never decided; the reference finds it, the certification does not certify."""
    rng = random.Random(3)
    table = Table("T0")
    table.open()
    for h in range(12):
        table.hand(random_hand(rng, f"H{h}"))
    folds = [e for e in table.events if e["type"] == "PlayerDecision"
             and e["payload"]["action"] == "fold"]
    assert folds
    events = [e for e in table.events if e is not folds[0]]
    items = decode_many(encode_lines(events))
    certified, _, _ = columnar(items)
    found = set(reference(items).findings["hand_id"].to_pylist())
    assert folds[0]["hand_id"] in found and folds[0]["hand_id"] not in certified
