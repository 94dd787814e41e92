"""Betting rules: bets before the deal, ante = blind, limits, 4x/3x-2x-1x, one play wager."""

from __future__ import annotations

import pytest

from events.game.rules import (
    RuleViolation,
    SeatState,
    can_bet,
    can_decide,
    decide,
    legal_decisions,
    next_street,
    place_bet,
    verify_bet,
    verify_decision,
    verify_in_hand,
    verify_settleable,
)
from events.game.rulesets import TableLimits, load_ruleset
from events.money import money

LIM = TableLimits(min_bet=500, max_bet=10000, max_trips=2500, seats=7)


def seated(ante: int = 1000) -> SeatState:
    s = place_bet(SeatState(seat=3), "ante", ante, LIM)
    return place_bet(s, "blind", ante, LIM)


def violation(fn: object, *args: object, **kwargs: object) -> RuleViolation:
    assert callable(fn)
    with pytest.raises(RuleViolation) as err:
        fn(*args, **kwargs)
    return err.value


def test_money() -> None:
    assert money(123456) == "1,234.56" and money(5) == "0.05" and money(-250) == "-2.50"


def test_bets_in_limits() -> None:
    s = seated()
    assert (s.ante, s.blind, s.trips) == (1000, 1000, 0)
    s = place_bet(s, "trips", 2500, LIM)
    assert s.trips == 2500
    verify_in_hand(s)
    assert can_bet(SeatState(), "ante", 500, LIM) and can_bet(SeatState(), "ante", 10000, LIM)


@pytest.mark.parametrize(("state", "spot", "amount", "kind", "text"), [
    (SeatState(seat=3), "ante", 499, "bet_out_of_limits",
     "Seat 3's ante of 4.99 is below the table minimum of 5.00."),
    (SeatState(seat=3), "blind", 10001, "bet_out_of_limits",
     "Seat 3's blind of 100.01 is above the table maximum of 100.00."),
    (SeatState(seat=3), "trips", 2600, "bet_out_of_limits",
     "Seat 3's trips bet of 26.00 is above the table's trips maximum of 25.00."),
    (SeatState(seat=3, ante=1000), "blind", 1500, "illegal_action",
     "Seat 3's blind of 15.00 does not equal the ante of 10.00; ante and blind must be equal."),
    (SeatState(seat=3, blind=1000), "ante", 500, "illegal_action",
     "Seat 3's ante of 5.00 does not equal the blind of 10.00"),
    (SeatState(seat=3, ante=1000), "ante", 1000, "illegal_action",
     "Seat 3 already has an ante bet of 10.00; a bet cannot be placed twice or changed."),
    (SeatState(seat=3), "play", 1000, "illegal_action", "bets go only on the ante, blind"),
    (SeatState(seat=3), "trips", 0, "bet_out_of_limits", "must be more than zero"),
])
def test_bad_bets(state: SeatState, spot: str, amount: int, kind: str, text: str) -> None:
    err = violation(verify_bet, state, spot, amount, LIM)
    assert text in str(err) and err.kind == kind
    assert not can_bet(state, spot, amount, LIM)


def test_bet_after_the_deal() -> None:
    err = violation(place_bet, seated(), "trips", 500, LIM, cards_dealt=True)
    assert str(err) == ("Seat 3 placed a trips bet of 5.00 after the first card was dealt; "
                        "bets are placed before any card.")


def test_trips_unbounded_without_max_trips() -> None:
    assert can_bet(SeatState(), "trips", 10**9, TableLimits(500, 1000))


def test_in_hand_needs_ante_and_blind() -> None:
    assert "no ante and blind" in str(violation(verify_in_hand, SeatState(seat=1)))
    assert "but no ante" in str(violation(verify_in_hand, SeatState(seat=1, blind=500)))
    assert "does not equal" in str(violation(verify_in_hand, SeatState(1, ante=500, blind=600)))


def test_preflop_raise_4x_and_3x() -> None:
    for m in (4, 3):
        s = decide(seated(), "preflop", "raise", multiple=m, amount=m * 1000)
        assert (s.play, s.play_multiple, s.raised_on, next_street(s)) == (m * 1000, m,
                                                                          "preflop", None)
    err = violation(decide, seated(), "preflop", "raise", multiple=2, amount=2000)
    assert str(err) == "Seat 3 raised 2x preflop; the raise preflop is 4x or 3x the ante."


def test_flop_2x_only_after_check() -> None:
    s = decide(seated(), "preflop", "check")
    assert next_street(s) == "flop"
    assert not can_decide(s, "flop", "raise", multiple=4, amount=4000)
    assert not can_decide(s, "flop", "raise", multiple=1, amount=1000)
    s = decide(s, "flop", "raise", multiple=2, amount=2000)
    assert s.play == 2000 and s.raised_on == "flop"


def test_river_raise_1x_or_fold_never_check() -> None:
    s = decide(decide(seated(), "preflop", "check"), "flop", "check")
    assert legal_decisions(s, "river") == [("raise", 1), ("fold", None)]
    err = violation(decide, s, "river", "check")
    assert "on the river a seat that has not raised must raise 1x or fold" in str(err)
    assert not can_decide(s, "river", "raise", multiple=2, amount=2000)
    assert decide(s, "river", "raise", multiple=1, amount=1000).play == 1000
    f = decide(s, "river", "fold")
    assert f.folded and f.play == 0 and next_street(f) is None
    verify_settleable(f)
    err = violation(decide, f, "river", "raise", multiple=1, amount=1000)
    assert str(err) == "Seat 3 has folded; a seat that folded makes no further decision."


def test_fold_only_on_the_river() -> None:
    err = violation(decide, seated(), "preflop", "fold")
    assert str(err) == ("Seat 3 folded preflop; a seat may fold only on the river "
                        "(it checks or raises before).")
    s = decide(seated(), "preflop", "check")
    assert "folded on the flop" in str(violation(decide, s, "flop", "fold"))


def test_one_play_wager_no_decision_after_raise() -> None:
    s = decide(seated(), "preflop", "raise", multiple=4, amount=4000)
    err = violation(decide, s, "flop", "raise", multiple=2, amount=2000)
    assert str(err) == ("Seat 3 already raised 4x preflop; a seat that has raised makes no "
                        "further decision.")
    assert not can_decide(s, "flop", "check")
    assert legal_decisions(s, "flop") == []


def test_amount_must_be_multiple_times_ante() -> None:
    err = violation(decide, seated(1025), "preflop", "raise", multiple=3, amount=3000)
    assert str(err) == ("Seat 3's 3x raise of 30.00 should be 30.75 (3 times the ante of "
                        "10.25).")


def test_streets_in_order_once_each() -> None:
    assert "before deciding preflop" in str(violation(decide, seated(), "flop", "check"))
    s = decide(seated(), "preflop", "check")
    assert "already decided preflop" in str(violation(decide, s, "preflop", "check"))
    err = violation(verify_decision, s, "flop", "check", current_street="preflop")
    assert str(err) == "Seat 3 decided on the flop while the hand is preflop."
    assert can_decide(s, "flop", "check", current_street="flop")


def test_decision_shapes() -> None:
    assert "carries a raise amount" in str(violation(decide, seated(), "preflop", "check",
                                                     multiple=4, amount=4000))
    assert "does not say its multiple" in str(violation(decide, seated(), "preflop", "raise"))
    assert "not in the hand" in str(violation(decide, SeatState(seat=3), "preflop", "check"))
    assert "not a street" in str(violation(verify_decision, seated(), "turn", "check"))
    assert "choices are check" in str(violation(verify_decision, seated(), "preflop", "call"))


def test_settleable_needs_raise_or_fold() -> None:
    s = decide(decide(seated(), "preflop", "check"), "flop", "check")
    assert "neither raised nor folded" in str(violation(verify_settleable, s))
    verify_settleable(decide(seated(), "preflop", "raise", multiple=3, amount=3000))


def test_multiples_come_from_the_ruleset() -> None:
    rs = load_ruleset("cardroom")
    assert legal_decisions(seated(), "preflop", rs) == [("raise", 4), ("raise", 3),
                                                        ("check", None)]


def test_the_legality_refuses_what_is_no_bet_and_words_it() -> None:
    """``bet_ok`` is the one legality of a bet (the fold and the fast path ask it): a bet of
    nothing, on any spot, is refused, and ``verify_bet`` says why."""
    from events.game.rules import bet_ok

    lim = TableLimits(min_bet=0, max_bet=10000, max_trips=None)
    for spot in ("ante", "blind", "trips"):
        for amount in (0, -500):
            assert not bet_ok(0, 0, 0, spot, amount, lim)
            with pytest.raises(RuleViolation, match="is not a bet"):
                verify_bet(SeatState(seat=1), spot, amount, lim)
