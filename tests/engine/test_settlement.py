"""Settlement golden tests (one per branch of the contract, amounts worked by hand),
a property test against hand comparison, and batch == single settlement."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.game.cards import DECK
from events.game.evaluation import category, evaluate7, evaluate_hand
from events.game.rulesets import load_ruleset
from events.game.settlement import (
    LOSE,
    NO_WAGER,
    PUSH,
    WIN,
    SettlementError,
    SpotResult,
    Wagers,
    net,
    settle,
    settle_batch,
)

RS = load_ruleset("charlevoix-2011")  # trips 50, 40, 20, 7, 6, 5, 3; blind 500, 50, 10, 3, 3:2, 1


def deal(board: str, player: str, dealer: str, wagers: Wagers, folded: bool = False,
         ruleset_name: str = "charlevoix-2011") -> dict[str, tuple[str, int]]:
    p = evaluate_hand(player + board)
    d = evaluate_hand(dealer + board)
    results = settle(load_ruleset(ruleset_name), wagers, folded, p.strength, p.category,
                     d.strength, d.category)
    return {r.spot: (r.outcome, r.amount) for r in results}


def test_fold_loses_ante_and_blind_no_play() -> None:
    # Folded on the river: ante 10.00 and blind 10.00 lose, there is no play wager.
    out = deal("Kh9d6c4s2h", "Qc3d", "7c5d", Wagers(ante=1000, blind=1000), folded=True)
    assert out == {"ante": ("lose", -1000), "blind": ("lose", -1000)}


def test_fold_still_pays_trips() -> None:
    # Board 7c7dKs4h2c + 7s3d = three sevens. Folded anyway: ante/blind lose 10.00 each,
    # trips 5.00 at 3:1 wins 15.00, whatever the dealer (who has kings full) holds.
    out = deal("7c7dKs4h2c", "7s3d", "KhKd", Wagers(ante=1000, blind=1000, trips=500), True)
    assert out == {"ante": ("lose", -1000), "blind": ("lose", -1000), "trips": ("win", 1500)}


def test_player_wins_dealer_qualifies_blind_pushes_below_straight() -> None:
    # Player pair of aces (king kicker) beats the dealer's pair of nines (qualifies).
    # Preflop 4x raise on a 10.00 ante: play 40.00 wins 40.00, ante wins 10.00, the
    # blind pushes (a pair is below a straight). Trips 5.00 on a pair loses 5.00.
    out = deal("Ah9d6c4s2h", "AcKd", "9h8c", Wagers(1000, 1000, trips=500, play=4000))
    assert out == {"ante": ("win", 1000), "blind": ("push", 0), "play": ("win", 4000),
                   "trips": ("lose", -500)}


def test_player_wins_dealer_does_not_qualify_ante_pushes() -> None:
    # Board KhJd7c4s2h. Player Ac3d: ace high. Dealer Qc8d: king high, no pair: the dealer
    # does not qualify. Ante pushes, blind pushes (high card), play 1x 10.00 wins 10.00.
    out = deal("KhJd7c4s2h", "Ac3d", "Qc8d", Wagers(1000, 1000, play=1000))
    assert out == {"ante": ("push", 0), "blind": ("push", 0), "play": ("win", 1000)}


def test_player_wins_straight_dealer_does_not_qualify() -> None:
    # Board 9c8d6hKc2s, player Th7s: straight ten high. Dealer Qd3c: king high (no
    # qualifier): ante 10.00 pushes, blind 10.00 wins 1:1 = 10.00, play 3x = 30.00 wins
    # 30.00, trips 5.00 on a straight at 5:1 wins 25.00.
    out = deal("9c8d6hKc2s", "Th7s", "Qd3c", Wagers(1000, 1000, trips=500, play=3000))
    assert out == {"ante": ("push", 0), "blind": ("win", 1000), "play": ("win", 3000),
                   "trips": ("win", 2500)}


def test_flush_blind_three_to_two_rounds_down_on_odd_cents() -> None:
    # Board Ah9h6h4c2s, player Kh3h: ace-high flush. Dealer QsQd: pair, qualifies.
    # Ante 10.25 wins 10.25; blind 10.25 at 3:2 = 15.375 -> 15.37 (rounded down: 1537);
    # play 2x = 20.50 wins 20.50; trips 5.05 on a flush at 6:1 = 30.30.
    out = deal("Ah9h6h4c2s", "Kh3h", "QsQd", Wagers(1025, 1025, trips=505, play=2050))
    assert out == {"ante": ("win", 1025), "blind": ("win", 1537), "play": ("win", 2050),
                   "trips": ("win", 3030)}
    # one cent of blind on a flush: 3 * 1 // 2 = 1 cent; three cents: 9 // 2 = 4 cents
    assert deal("Ah9h6h4c2s", "Kh3h", "QsQd", Wagers(1, 1))["blind"] == ("win", 1)
    assert deal("Ah9h6h4c2s", "Kh3h", "QsQd", Wagers(3, 3))["blind"] == ("win", 4)


def test_royal_flush_pays_blind_500_and_trips_50() -> None:
    # Board AsKsQs2d7c, player JsTs: royal flush. Dealer 2c2h: three deuces, qualifies.
    # Ante 5.00 wins 5.00; blind 5.00 x 500 = 2,500.00; play 4x = 20.00 wins 20.00;
    # trips 1.00 x 50 = 50.00.
    out = deal("AsKsQs2d7c", "JsTs", "2c2h", Wagers(500, 500, trips=100, play=2000))
    assert out == {"ante": ("win", 500), "blind": ("win", 250000), "play": ("win", 2000),
                   "trips": ("win", 5000)}


def test_trips_table_differs_by_ruleset() -> None:
    # Quads (board 8c8d8hKs2c + 8s4d): charlevoix pays 20:1, eu-participation 30:1.
    # Dealer KcKd: kings full, loses to quads. Blind 10.00 on quads at 10:1 = 100.00.
    w = Wagers(1000, 1000, trips=100, play=4000)
    ch = deal("8c8d8hKs2c", "8s4d", "KcKd", w)
    eu = deal("8c8d8hKs2c", "8s4d", "KcKd", w, ruleset_name="eu-participation")
    assert ch["trips"] == ("win", 2000) and eu["trips"] == ("win", 3000)
    assert ch["blind"] == eu["blind"] == ("win", 10000)


def test_dealer_wins_and_qualifies_everything_loses() -> None:
    # Board Kh9d6c4s2h, player QcJd: king high. Dealer 9c3d: pair of nines. Play 1x 10.00,
    # ante 10.00, blind 10.00 all lose; trips 5.00 (king high) loses.
    out = deal("Kh9d6c4s2h", "QcJd", "9c3d", Wagers(1000, 1000, trips=500, play=1000))
    assert out == {"ante": ("lose", -1000), "blind": ("lose", -1000), "play": ("lose", -1000),
                   "trips": ("lose", -500)}


def test_dealer_wins_without_qualifying_ante_pushes() -> None:
    # Board KhJd7c4s2h, player 9c8d: K-J-9-8-7. Dealer Qc3d: K-Q-J-7-4, better but no pair.
    # Ante pushes; blind 10.00 and play 1x 10.00 lose.
    out = deal("KhJd7c4s2h", "9c8d", "Qc3d", Wagers(1000, 1000, play=1000))
    assert out == {"ante": ("push", 0), "blind": ("lose", -1000), "play": ("lose", -1000)}


def test_tie_everything_pushes_trips_still_settles() -> None:
    # The board AsKsQdJcTh is a straight for both: a tie. Ante, blind and play 4x push,
    # even though the hand is a straight; trips 5.00 on the straight wins 5:1 = 25.00.
    out = deal("AsKsQdJcTh", "2c3d", "4h5c", Wagers(1000, 1000, trips=500, play=4000))
    assert out == {"ante": ("push", 0), "blind": ("push", 0), "play": ("push", 0),
                   "trips": ("win", 2500)}


def test_tie_with_unqualified_dealer_pushes() -> None:
    # Board AhKd9c7s5h, player 3c2d and dealer 4c2h both play the board: ace high, a tie.
    out = deal("AhKd9c7s5h", "3c2d", "4c2h", Wagers(1000, 1000, play=1000))
    assert out == {"ante": ("push", 0), "blind": ("push", 0), "play": ("push", 0)}


def test_results_in_order_and_net() -> None:
    res = settle(RS, Wagers(1000, 1000, trips=500, play=4000), False, 10, 0, 5, 0)
    assert [r.spot for r in res] == ["ante", "blind", "play", "trips"]
    assert res[0] == SpotResult("ante", "push", 0)
    assert net(res) == 0 + 0 + 4000 - 500


def test_invalid_wagers() -> None:
    with pytest.raises(SettlementError):
        settle(RS, Wagers(1000, 1000, play=1000), True, 1, 0, 2, 0)
    with pytest.raises(SettlementError):
        settle(RS, Wagers(-1, 1000), False, 1, 0, 2, 0)
    with pytest.raises(SettlementError):
        settle_batch(RS, [10], [10], [0], [True], [1], [0], [2], [0])


cards9 = st.lists(st.integers(0, 51), min_size=9, max_size=9, unique=True)


@settings(max_examples=400, deadline=None)
@given(cards=cards9, ante=st.integers(1, 100_000), trips=st.integers(0, 50_000),
       multiple=st.sampled_from([0, 1, 2, 3, 4]), ruleset=st.sampled_from(
           ["charlevoix-2011", "eu-participation", "live-online", "cardroom"]))
def test_settlement_agrees_with_hand_comparison(
    cards: list[int], ante: int, trips: int, multiple: int, ruleset: str
) -> None:
    rs = load_ruleset(ruleset)
    board, player, dealer = cards[:5], cards[5:7], cards[7:9]
    p = evaluate_hand([DECK[c] for c in player + board])
    d = evaluate_hand([DECK[c] for c in dealer + board])
    folded = multiple == 0
    w = Wagers(ante, ante, trips, ante * multiple)
    out = {r.spot: r for r in settle(rs, w, folded, p.strength, p.category, d.strength,
                                     d.category)}
    assert set(out) == {"ante", "blind"} | ({"play"} if w.play else set()) | (
        {"trips"} if trips else set())
    for r in out.values():  # amount signs match the outcome, as PayoutRecorded requires
        assert (r.outcome == "win") == (r.amount > 0)
        assert (r.outcome == "push") == (r.amount == 0)
    if trips:
        assert out["trips"].amount == (trips * rs.trips_table[p.category]
                                       if p.category >= 3 else -trips)
    if folded:
        assert out["ante"].amount == out["blind"].amount == -ante
        return
    main = out["ante"].amount + out["blind"].amount + out["play"].amount
    qualifies = d.category >= 1
    if p.strength > d.strength:
        assert main > 0 and out["play"].amount == w.play
        assert out["ante"].amount == (ante if qualifies else 0)
        assert (out["blind"].amount > 0) == (p.category >= 4)
    elif p.strength < d.strength:
        assert main < 0 and out["play"].amount == -w.play
        assert out["ante"].amount == (-ante if qualifies else 0)
        assert out["blind"].amount == -ante
    else:
        assert main == 0 and all(out[s].outcome == "push" for s in ("ante", "blind", "play"))


def test_settle_batch_equals_settle_on_random_deals() -> None:
    rng = np.random.default_rng(20111215)
    n = 4000
    cards = np.argsort(rng.random((n, 52)), axis=1)[:, :9]
    board = cards[:, :5]
    p_s = evaluate7(np.concatenate([cards[:, 5:7], board], axis=1))
    d_s = evaluate7(np.concatenate([cards[:, 7:9], board], axis=1))
    # make ties and straights+ frequent enough to matter
    p_s[:200] = d_s[:200]
    p_c, d_c = category(p_s), category(d_s)
    ante = rng.integers(1, 5000, n)
    mult = rng.choice([0, 0, 1, 2, 3, 4], n)
    folded = mult == 0
    play = ante * mult
    trips = np.where(rng.random(n) < 0.5, rng.integers(1, 2000, n), 0)
    for name in ("charlevoix-2011", "eu-participation"):
        rs = load_ruleset(name)
        batch = settle_batch(rs, ante, play, trips, folded, p_s, p_c, d_s, d_c)
        code = {"win": WIN, "push": PUSH, "lose": LOSE}
        for i in range(n):
            single = settle(rs, Wagers(int(ante[i]), int(ante[i]), int(trips[i]), int(play[i])),
                            bool(folded[i]), int(p_s[i]), int(p_c[i]), int(d_s[i]), int(d_c[i]))
            got = {r.spot: (code[r.outcome], r.amount) for r in single}
            for spot, (codes, amounts) in batch.items():
                if spot in got:
                    assert (int(codes[i]), int(amounts[i])) == got[spot], (name, i, spot)
                else:
                    assert (int(codes[i]), int(amounts[i])) == (NO_WAGER, 0), (name, i, spot)
