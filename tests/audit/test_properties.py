"""Property tests of the auditor over random legal hands (``builder.random_hand``, payouts
from the engine): a legal hand audits clean, one changed payout is exactly one mispay, the
fast paths agree with the fold, and delivery order or batch size change nothing."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.audit.auditor import Auditor, audit
from events.audit.judge import judge
from events.audit.plan import fast_plan
from events.contract.codec import decode_many
from events.contract.schemas import PlayerDecision, TableOpened, decode_event
from events.game.rules import (
    RuleViolation,
    SeatState,
    bet_ok,
    decision_ok,
    multiples,
    verify_bet,
    verify_decision,
)
from events.game.rulesets import TableLimits, load_ruleset
from events.replay.fold import HandState, TableContext, fold
from tests.audit.builder import Table, encode_lines, random_hand

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def floor(seed: int, hands: int = 3, tables: int = 2) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for t in range(tables):
        table = Table(f"T{t}")
        table.open()
        for h in range(hands):
            table.hand(random_hand(rng, f"T{t}-H{h}"))
        out += table.events
    return out


def events_of(dicts: list[dict[str, Any]]) -> list[Any]:
    return decode_many(encode_lines(dicts))


def lean(items: list[Any]) -> Any:
    """The auditor's lean path (no warehouse rows: plain hands judged in bulk)."""
    auditor = Auditor(records=False)
    auditor.feed_many(items)
    return auditor.finish()


@SETTINGS
@given(st.integers(0, 2**32))
def test_legal_hands_audit_clean(seed: int) -> None:
    dicts = floor(seed)
    report = audit(events_of(dicts))
    assert report.findings == []
    assert lean(events_of(dicts)).findings == []
    assert report.summary["events"] == len(dicts)
    assert all(h.status == "settled" for h in report.hands)
    assert all(w.recorded_result == w.correct_result for w in report.wagers)


@SETTINGS
@given(st.integers(0, 2**32), st.integers(0, 10**6), st.integers(-50000, 50000))
def test_one_changed_payout_is_exactly_one_mispay(seed: int, pick: int, delta: int) -> None:
    dicts = floor(seed)
    payouts = [e for e in dicts if e["type"] == "PayoutRecorded"]
    target = payouts[pick % len(payouts)]
    before = target["payload"]["amount"]
    after = before + (delta or 1)
    target["payload"] = {**target["payload"], "amount": after,
                         "outcome": "win" if after > 0 else "lose" if after < 0 else "push"}
    report = audit(events_of(dicts))
    assert [(f.kind, f.hand_id, f.seat, f.spot, f.expected, f.recorded)
            for f in report.findings] == [
        ("mispay", target["hand_id"], target["payload"]["seat"], target["payload"]["spot"],
         before, after)]
    assert lean(events_of(dicts)).findings == report.findings


@SETTINGS
@given(st.integers(0, 2**32), st.integers(0, 10**6), st.sampled_from(
    ["drop", "repeat", "swap", "recard", "rebet"]))
def test_lean_path_finds_what_the_full_path_finds(seed: int, pick: int, how: str) -> None:
    """Damage one event of a floor (lose it, send it twice, swap it with the next, change
    its cards or its amount): the lean path and the full path report the same."""
    dicts = floor(seed, hands=2, tables=2)
    k = 1 + pick % (len(dicts) - 2)
    ev = dicts[k]
    if how == "drop":
        dicts = [*dicts[:k], *dicts[k + 1:]]
    elif how == "repeat":
        dicts = [*dicts[:k], {**ev, "event_id": ev["event_id"] + "x", "seq": ev["seq"]},
                 *dicts[k:]]
    elif how == "swap":
        dicts[k], dicts[k + 1] = dicts[k + 1], dicts[k]
    elif how == "recard" and "cards" in ev["payload"]:
        cards = list(ev["payload"]["cards"])
        cards[0] = "2c" if cards[0] != "2c" else "3d"
        dicts[k] = {**ev, "payload": {**ev["payload"], "cards": cards}}
    elif how == "rebet" and "amount" in ev["payload"] and ev["type"] == "BetPlaced":
        dicts[k] = {**ev, "payload": {**ev["payload"], "amount": ev["payload"]["amount"] + 100}}
    items = events_of(dicts)
    full = audit(items)
    assert lean(items).findings == full.findings


@SETTINGS
@given(st.integers(0, 2**32), st.integers(0, 10**6), st.sampled_from(
    ["drop", "repeat", "swap", "reorder_payouts"]))
def test_fast_plan_is_the_folds_clean_hand_or_steps_aside(seed: int, pick: int,
                                                          how: str) -> None:
    """On any hand, legal or damaged: the fast path (``fast_plan``, then ``judge``)
    certifies it only when the fold finds nothing in it and it ended, else steps aside."""
    dicts = floor(seed, hands=2, tables=1)
    opened = decode_event(encode_lines(dicts[:1])[0])
    assert isinstance(opened, TableOpened)
    table = TableContext.opened(opened)
    hand = [e for e in dicts[1:] if e["hand_id"] == dicts[1]["hand_id"]]
    k = 1 + pick % (len(hand) - 1)
    if how == "drop":
        hand = [*hand[:k], *hand[k + 1:]]
    elif how == "repeat":
        hand = [*hand[:k], hand[k], *hand[k:]]
    elif how == "swap" and k + 1 < len(hand):
        hand[k], hand[k + 1] = hand[k + 1], hand[k]
    events = events_of(hand)
    slow = fold(events, HandState.begin(events[0].hand_id, "T0", table))
    fast = fast_plan(events, table)
    if fast is not None and judge([fast]).ok[0]:
        assert slow.findings == () and slow.ended is not None
        assert fast.voided == (slow.ended == "voided")
        if not fast.voided:
            assert fast.n_seats == len([s for s in slow.seats.values() if s.ante])
    untouched = events_of([e for e in dicts[1:] if e["hand_id"] == dicts[1]["hand_id"]])
    clean = fast_plan(untouched, table)
    state = fold(untouched, HandState.begin(untouched[0].hand_id, "T0", table))
    assert clean is not None and judge([clean]).ok[0] and state.findings == ()
    assert clean.first == untouched[0] and clean.ended_at == state.ended_at


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.sampled_from(["ante", "blind", "trips"]), st.integers(1, 60000),
       st.integers(0, 60000), st.integers(0, 60000), st.integers(0, 20000))
def test_quick_bet_check_never_accepts_what_the_rules_refuse(
        spot: str, amount: int, ante: int, blind: int, trips: int) -> None:
    limits = TableLimits(1000, 50000, 10000, 7)
    seat = SeatState(seat=1, ante=ante, blind=blind, trips=trips)
    if bet_ok(ante, blind, trips, spot, amount, limits):
        verify_bet(seat, spot, amount, limits)  # does not raise


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.sampled_from(["ante", "blind", "trips", "play"]), st.integers(-100, 60000),
       st.integers(0, 60000), st.integers(0, 60000), st.integers(0, 20000), st.booleans())
def test_the_rules_word_every_bet_their_legality_refuses(
        spot: str, amount: int, ante: int, blind: int, trips: int, dealt: bool) -> None:
    """The legality is ``bet_ok``, once; ``verify_bet`` has a sentence for each refusal."""
    limits = TableLimits(1000, 50000, 10000, 7)
    seat = SeatState(seat=1, ante=ante, blind=blind, trips=trips)
    legal = not dealt and bet_ok(ante, blind, trips, spot, amount, limits)
    try:
        verify_bet(seat, spot, amount, limits, cards_dealt=dealt)
    except RuleViolation:
        assert not legal
    else:
        assert legal


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.sampled_from(["preflop", "flop", "river"]), st.sampled_from(["check", "raise", "fold"]),
       st.integers(1, 4), st.integers(0, 3), st.booleans(), st.booleans(),
       st.sampled_from([0, 3, 5]), st.integers(0, 2))
def test_quick_decision_check_never_accepts_what_the_rules_refuse(
        street: str, action: str, multiple: int, decided: int, folded: bool, raised: bool,
        revealed: int, amount_error: int) -> None:
    ruleset = load_ruleset("charlevoix-2011")
    table = TableContext("T1", ruleset.name, ruleset, ruleset.limits(), "CAD")
    seat = SeatState(seat=1, ante=1000, blind=1000, folded=folded,
                     play=4000 if raised else 0,
                     decided=("preflop", "flop", "river")[:decided])  # type: ignore[arg-type]
    state = HandState("H1", "T1", table, revealed=("As", "Kd", "2c", "3h", "4s")[:revealed])
    payload: dict[str, Any] = {"seat": 1, "street": street, "action": action}
    if action == "raise":
        payload.update(multiple=multiple, amount=multiple * 1000 + amount_error)
    ev = PlayerDecision("e", 1, "T1", "H1", 0, "2026-11-29T21:00:00Z",
                        payload=_payload(payload))
    p = ev.payload
    if decision_ok(seat.ante, seat.play, seat.folded, len(seat.decided), street, action,
                   p.multiple, p.amount, multiples(street, ruleset), state.street):
        try:
            verify_decision(seat, street, action, ev.payload.multiple, ev.payload.amount,
                            ruleset=ruleset, current_street=state.street)
        except RuleViolation as exc:  # pragma: no cover - the assertion's message
            raise AssertionError(f"the quick check accepted: {exc}") from exc


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.sampled_from(["preflop", "flop", "river", "turn"]),
       st.sampled_from(["check", "raise", "fold", "call"]), st.none() | st.integers(1, 4),
       st.none() | st.integers(0, 5000), st.integers(0, 3), st.booleans(), st.booleans(),
       st.none() | st.sampled_from(["preflop", "flop", "river"]), st.sampled_from([0, 1000]))
def test_the_rules_word_every_decision_their_legality_refuses(
        street: str, action: str, multiple: int | None, amount: int | None, decided: int,
        folded: bool, raised: bool, current: str | None, ante: int) -> None:
    """The legality is ``decision_ok``, once; ``verify_decision`` has a sentence for each
    refusal."""
    ruleset = load_ruleset("charlevoix-2011")
    seat = SeatState(seat=1, ante=ante, blind=ante, folded=folded, play=4000 if raised else 0,
                     decided=("preflop", "flop", "river")[:decided])  # type: ignore[arg-type]
    legal = street in ("preflop", "flop", "river") and decision_ok(
        ante, seat.play, folded, decided, street, action, multiple, amount,
        multiples(street, ruleset), current)
    try:
        verify_decision(seat, street, action, multiple, amount, ruleset=ruleset,
                        current_street=current)
    except RuleViolation:
        assert not legal
    else:
        assert legal


def _payload(p: dict[str, Any]) -> Any:
    from events.contract.schemas import PlayerDecisionPayload

    return PlayerDecisionPayload(**p)


@SETTINGS
@given(st.integers(0, 2**32), st.randoms(use_true_random=False))
def test_delivery_order_within_reach_and_batches_change_nothing(seed: int,
                                                                rnd: random.Random) -> None:
    """Tables interleaved at random, some events of a table delivered late (the sequencer
    puts them back in order), redelivered copies, batch sizes of 1 or 7 hands: the same
    findings and rows as in order."""
    dicts = floor(seed, hands=3, tables=3)
    lines = encode_lines(dicts)
    baseline = audit(decode_many(lines))
    shuffled = list(lines)
    for _ in range(5):  # a few swaps of neighbours
        i = rnd.randrange(len(shuffled) - 1)
        shuffled[i], shuffled[i + 1] = shuffled[i + 1], shuffled[i]
    shuffled += [lines[rnd.randrange(len(lines))] for _ in range(3)]
    for batch in (1, 7):
        auditor = Auditor(records=True, batch=batch)
        items = decode_many(shuffled)
        for k in range(0, len(items), 11):  # fed in small slices
            auditor.feed_many(items[k:k + 11])
        report = auditor.finish()
        assert report.findings == baseline.findings
        assert report.summary == {**baseline.summary, "duplicates_ignored": 3}
        assert sorted(map(repr, report.wagers)) == sorted(map(repr, baseline.wagers))


@SETTINGS
@given(st.integers(0, 2**32), st.randoms(use_true_random=False))
def test_late_events_on_settled_hands_agree_between_paths(seed: int,
                                                          rnd: random.Random) -> None:
    """Disputes (open, resolved with the right or a wrong adjustment) and stray game events
    arriving after their hands were settled: the lean auditor (which keeps only the nets of
    a clean hand) answers as the full one (which folds the hand's events again)."""
    rng = random.Random(seed)
    table = Table("T0")
    table.open()
    hands = [random_hand(rng, f"H{h}") for h in range(4)]
    for spec in hands:
        table.hand(spec)
    for _ in range(6):
        spec = rnd.choice(hands)
        seat = rnd.choice([s.seat for s in spec.seats] + [7])
        kind = rnd.choice(["open", "resolve", "stray"])
        if kind == "open":
            table.emit("DisputeOpened", {"seat": seat, "claim": "short paid"}, spec.hand_id)
        elif kind == "resolve":
            table.emit("DisputeResolved", {"seat": seat, "resolution": "checked",
                                           "adjustment": rnd.choice([0, 0, 500, -250])},
                       spec.hand_id)
        else:
            table.emit("HandEnded", {}, spec.hand_id)
    items = events_of(table.events)
    results = []
    for records in (False, True):
        auditor = Auditor(records=records, batch=1)
        auditor.feed_many(items)
        report = auditor.finish()
        results.append((report.findings, sorted(report.disputes, key=repr)))
    assert results[0] == results[1]
