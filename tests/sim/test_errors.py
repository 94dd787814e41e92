"""Injected dealer mispays: the ground truth lists exactly the payouts that differ from the
settlement, each a realistic error of its kind, at the configured rate."""

from __future__ import annotations

from collections import Counter
from typing import Any

from events.contract.schemas import DisputeResolved
from events.game.rulesets import known_rulesets, load_ruleset
from events.sim.errors import MISPAY_KINDS, wrong_trips_table
from events.sim.simulation import Floor
from tests.sim.handkit import Stream, value

Run = tuple[Stream, list[dict[str, Any]], list[bytes]]


def _differences(stream: Stream) -> dict[tuple[str, int, str], tuple[int, int]]:
    out = {}
    for hand in stream.hands.values():
        correct = hand.correct(stream.ruleset(hand.table_id))
        for key, e in hand.payouts().items():
            if correct[key][1] != e.payload.amount:
                out[(hand.hand_id, *key)] = (correct[key][1], e.payload.amount)
    return out


def test_the_truth_lists_exactly_the_wrong_payouts(errors_run: Run) -> None:
    stream, truth, _ = errors_run
    listed = {(r["hand_id"], r["seat"], r["spot"]): (r["expected"], r["recorded"])
              for r in truth}
    assert len(listed) == len(truth) > 50
    assert listed == _differences(stream)
    for r in truth:
        hand = stream.hands[r["hand_id"]]
        assert r["table_id"] == hand.table_id
        assert r["dealer_id"] == hand.started.payload.dealer_id
        assert r["recorded"] != r["expected"]


def test_each_kind_is_the_error_it_names(errors_run: Run) -> None:
    stream, truth, _ = errors_run
    kinds = Counter(r["kind"] for r in truth)
    assert set(kinds) == set(MISPAY_KINDS)
    for r in truth:
        hand = stream.hands[r["hand_id"]]
        seat, spots = r["seat"], hand.bets()[r["seat"]]
        board = hand.community
        ps, pc = value(hand.hole(seat) + board)
        ds, dc = value(hand.dealer + board)
        kind, rec, exp = r["kind"], r["recorded"], r["expected"]
        if kind == "blind_paid_below_straight":
            assert ps > ds and pc < 4 and (exp, rec) == (0, spots["blind"])
        elif kind == "blind_3to2_paid_1to1":
            assert ps > ds and pc == 5 and (exp, rec) == (spots["blind"] * 3 // 2, spots["blind"])
        elif kind == "ante_taken_not_qualified":
            assert dc == 0 and ps < ds and (exp, rec) == (0, -spots["ante"])
        elif kind == "losing_play_pushed":
            assert ps < ds and (exp, rec) == (-hand.play(seat), 0)
        else:
            assert kind == "trips_paid_wrong_table" and pc >= 3
            own = stream.ruleset(hand.table_id)
            assert exp == spots["trips"] * own.trips_odds(pc)
            others = {load_ruleset(n).trips_odds(pc) for n in known_rulesets()}
            assert rec // spots["trips"] in others - {own.trips_odds(pc)}


def test_mispays_happen_at_the_configured_rate(errors_run: Run) -> None:
    """Eligible wagers (where a dealer can make one of the errors) are mispaid with
    probability rate x the dealer's carelessness factor."""
    from tests.sim.conftest import ERRORS

    stream, truth, _ = errors_run
    floor = Floor(ERRORS)  # the same tables and dealers
    care = {d: c for spec in floor.specs for d, c in zip(spec.dealers, spec.dealer_care,
                                                          strict=True)}
    expected = variance = 0.0
    for hand in stream.hands.values():
        if hand.voided:
            continue
        p = min(1.0, ERRORS.mispay_rate * care[hand.started.payload.dealer_id])
        n = _eligible(stream, hand)
        expected += n * p
        variance += n * p * (1 - p)
    assert abs(len(truth) - expected) < 4.5 * variance ** 0.5


def _eligible(stream: Stream, hand: Any) -> int:
    ruleset = stream.ruleset(hand.table_id)
    wrong = wrong_trips_table(ruleset)
    board = hand.community
    ds, dc = value(hand.dealer + board)
    n = 0
    for seat, spots in hand.bets().items():
        ps, pc = value(hand.hole(seat) + board)
        live = not hand.folded(seat)
        n += live and ps < ds and dc == 0  # ante
        n += live and ps > ds and (pc < 4 or pc == 5)  # blind
        n += live and ps < ds and hand.play(seat) > 0  # play
        n += "trips" in spots and wrong.odds[pc] > 0  # trips
    return n


def test_dispute_resolutions_correct_the_seat_to_the_settlement(errors_run: Run) -> None:
    """A resolved dispute pays an underpaid seat the difference and takes an overpayment
    back: the adjustment is the seat's net correction (expected - recorded)."""
    stream, truth, _ = errors_run
    due: Counter[tuple[str, int]] = Counter()
    for r in truth:
        due[(r["hand_id"], r["seat"])] += r["expected"] - r["recorded"]
    resolved = [e for h in stream.hands.values() for e in h.disputes
                if isinstance(e, DisputeResolved)]
    assert any(e.payload.adjustment > 0 for e in resolved)
    for e in resolved:
        assert e.payload.adjustment == due[(e.hand_id, e.payload.seat)]
