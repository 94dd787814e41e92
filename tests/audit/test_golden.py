"""Golden hands: one JSON Lines file per scenario (``tests/audit/golden``, written by
``make_golden.py``), with the findings each must give worked out by hand below.

Tables are ``charlevoix-2011`` (ante 10.00..500.00, trips up to 100.00) unless said.
Amounts are cents; a finding is (kind, hand, seat, spot, expected, recorded).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from events.audit.auditor import audit, evidence
from events.contract.codec import decode_many
from events.contract.schemas import TableOpened

GOLDEN = Path(__file__).with_name("golden")

F = tuple[str, str | None, int | None, str | None, int | None, int | None]

EXPECTED: dict[str, list[F]] = {
    # Board Jh Th 8h 4c 2s, dealer 9c 7d: straight to the jack (qualifies). Seat 3 Ah 3h:
    # flush, ace high, beats it. Ante 10.25 raised 4x (41.00), trips 5.00. Recorded: ante
    # +10.25, blind 3:2 on 10.25 = 15.375 rounded down +15.37, play +41.00, trips flush 6:1
    # +30.00: all right.
    "flush_beats_straight": [],
    # Board Kc 9d 5s 3h 2c, dealer Qd 7s: king high, does not qualify. Seat 1 4d 6h: six-high
    # straight, ante 20.00 raised 3x (60.00), trips 10.00: ante push, blind 1:1 +20.00, play
    # +60.00, trips straight 5:1 +50.00. Seat 2 As 8c: ace high beats king high, raised 1x on
    # the river: ante push, blind push (below a straight), play +10.00. All right.
    "dealer_does_not_qualify": [],
    # Board Qs Qd 7c 7h 3s, dealer Ah 7d: sevens full of queens. Seat 4 3c 3d: threes full of
    # queens, loses. Ante, blind -10.00, play -40.00; trips full house 7:1 +70.00. Right.
    "dealer_wins": [],
    # Board Kh 9c 6d 4s 2h, dealer Ad Jc: ace high, no qualifier. Seat 2 Qc Ts (king high,
    # loses to ace high), raised 1x on the river: ante push, blind -10.00, play -10.00.
    # Seat 6 8h 7h folds on the river: ante, blind -10.00; trips (high card) -5.00. Right.
    "loses_to_unqualified_dealer": [],
    # Board 9s Ts Jd Qh Kc: both play the board's king-high straight. Tie: ante, blind, play
    # push; trips straight 5:1 +50.00. Right.
    "tie_board_plays": [],
    # Board As Ks Qs 7d 2c. Seat 1 Js Ts: royal flush; dealer 7h 7c: three sevens. Blind
    # 500:1 on 10.00 = +5,000.00, trips 50:1 on 2.00 = +100.00, ante +10.00, play +40.00.
    # Seat 3 2d 2h: three deuces, folds on the river: ante, blind -10.00, trips 3:1 +30.00.
    "royal_and_fold_with_trips": [],
    # Cardroom table (trips quads 30:1), players' cards dealt before the board. Seat 1 5s 2c
    # on 5c 5d 5h Ks 9d: four fives; dealer Kd Kh: kings full. Raised 2x on the flop
    # (10.00). Ante +5.00, blind quads 10:1 +50.00, play +10.00, trips 30:1 +150.00. Right.
    "players_first_cardroom": [],
    # H1 (board and dealer as flush_beats_straight): seat 1 Ah 3h flush, ante 10.00, trips
    # 10.00: blind should be 3:2 = +15.00, recorded 1:1 +10.00; trips should be 6:1 +60.00,
    # recorded from another table's 7:1, +70.00. Seat 2 5d 5s (pair) raised 4x, loses to the
    # straight: play should be -40.00, recorded as a push. H2 (Kc board, dealer Qd 7s, no
    # qualifier): seat 1 Ac 8d wins with ace high; ante should push, the dealer took it.
    "mispays": [
        ("mispay", "H1", 1, "blind", 1500, 1000),
        ("mispay", "H1", 1, "trips", 6000, 7000),
        ("mispay", "H1", 2, "play", -4000, 0),
        ("mispay", "H2", 1, "ante", 0, -1000),
    ],
    # Seat 1 (straight, raised 4x) never gets its play paid: +40.00 missing. Seat 2 folded:
    # its blind is settled twice, a play payout (no raise) and a trips payout (no bet).
    "missing_and_unexpected_payouts": [
        ("missing_payout", "H1", 1, "play", 4000, None),
        ("unexpected_payout", "H1", 2, "blind", None, -1000),
        ("unexpected_payout", "H1", 2, "play", None, 1000),
        ("unexpected_payout", "H1", 2, "trips", None, -500),
    ],
    # Seat 2 bets trips after the deal; seat 2 raises again on the flop after its 4x; seat 1
    # checks on the river (and so is settled as a fold: also flagged at settlement); a
    # decision arrives after HandEnded. Payouts are right for what was on the table.
    "illegal_actions": [
        ("illegal_action", "H1", 2, "trips", None, None),
        ("illegal_action", "H1", 2, "play", None, None),
        ("illegal_action", "H1", 1, None, None, None),
        ("illegal_action", "H1", 1, None, None, None),
        ("illegal_action", "H1", None, None, None, None),
    ],
    # Seat 1 (ace high against a king-high dealer) raises 1x on the river after the dealer's
    # cards are turned over: flagged; the raise stands and is paid (+10.00), ante and blind
    # push (no qualifier, below a straight).
    "decision_after_reveal": [("illegal_action", "H1", 1, "play", None, None)],
    # Kc on the board and in seat 1's hand: the seat's seven cards cannot be evaluated.
    "duplicate_card": [
        ("duplicate_card", "H1", 1, None, None, None),
        ("incomplete_hand", "H1", 1, None, None, None),
    ],
    # Seat 1 ante and blind 5.00 (minimum 10.00); seat 2 trips 200.00 (maximum 100.00).
    # The bets stand and are settled as made: payouts right.
    "bets_out_of_limits": [
        ("bet_out_of_limits", "H1", 1, "ante", None, None),
        ("bet_out_of_limits", "H1", 1, "blind", None, None),
        ("bet_out_of_limits", "H1", 2, "trips", None, None),
    ],
    # The flop shows 6s where 5s was dealt; the dealer shows 7h where 7s was dealt.
    "reveal_mismatch": [
        ("reveal_mismatch", "H1", None, None, None, None),
        ("reveal_mismatch", "H1", None, None, None, None),
    ],
    # seq 15-16 lost; an intruder claims seq 6. The corrupt copy is rejected, the good twin
    # audited; the redelivered seq 7 is counted, not audited twice; T2's swap is put right.
    "sequence_faults": [
        ("sequence_conflict", "H1", None, None, None, None),
        ("sequence_gap", None, None, None, None, None),
    ],
    # H1 stops after a raise (H2 starts): incomplete. H3 stops at the deal: incomplete.
    "incomplete_hands": [
        ("incomplete_hand", "H1", None, None, None, None),
        ("incomplete_hand", "H3", None, None, None, None),
    ],
    # H1 voided, every wager pushed: right. H2 voided but the ante recorded as lost: a
    # voided hand returns it (0). H3 voided with no payouts recorded: right.
    "voids": [("mispay", "H2", 1, "ante", 0, -1000)],
    # H1: flush blind paid 1:1 (+10.00 instead of +15.00); the dispute is resolved with
    # +5.00: right. H2: settled right; its dispute stays open. H3: ante taken from a winner
    # against a non-qualifying dealer (0 instead of -10.00); resolved with +5.00 where +10.00
    # was due.
    "disputes": [
        ("mispay", "H1", 1, "blind", 1500, 1000),
        ("mispay", "H3", 1, "ante", 0, -1000),
        ("adjustment_mismatch", "H3", 1, None, 1000, 500),
    ],
    "unknown_ruleset": [("unknown_ruleset", "H1", None, None, None, None)],
    # Ante 10.00, blind 20.00: flagged at the bet; settled as placed (blind 1:1 on 20.00).
    "ante_blind_unequal": [("illegal_action", "H1", 1, "blind", None, None)],
}

SUMMARY = {
    "sequence_faults": {"events": 44, "hands": 3, "findings": 2, "rejected_events": 1,
                        "duplicates_ignored": 1},
    "incomplete_hands": {"events": 27, "hands": 3, "findings": 2, "rejected_events": 0,
                         "duplicates_ignored": 0},
    "disputes": {"events": 50, "hands": 3, "findings": 3, "rejected_events": 0,
                 "duplicates_ignored": 0},
}


def load(name: str) -> list[Any]:
    return decode_many((GOLDEN / f"{name}.jsonl").read_bytes().splitlines())


def key(f: Any) -> F:
    return (f.kind, f.hand_id, f.seat, f.spot, f.expected, f.recorded)


def test_every_scenario_has_a_file_and_an_expectation() -> None:
    assert sorted(p.stem for p in GOLDEN.glob("*.jsonl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_golden_findings(name: str) -> None:
    report = audit(load(name))
    assert sorted(map(key, report.findings), key=repr) == sorted(EXPECTED[name], key=repr)
    if name in SUMMARY:
        assert report.summary == SUMMARY[name]
    for f in report.findings:
        assert f.table_id and f.detail.endswith((".", ")"))
        if f.hand_id is not None and f.kind != "sequence_conflict":
            assert f.dealer_id == "D1"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_single_hand_path_agrees(name: str) -> None:
    """Each hand alone through the supervisor's path (``evidence``: the fold event by
    event, ``evaluate_hand``, ``settle``) gives the hand's findings of the batch audit."""
    items = [e for e in load(name) if not hasattr(e, "code")]
    report = audit(items)
    opened = {e.table_id: e for e in items if isinstance(e, TableOpened)}
    for hand in {e.hand_id for e in items if e.hand_id is not None}:
        events = [e for e in items if e.hand_id == hand]
        if name == "sequence_faults":
            seen: dict[int, Any] = {}
            for e in events:
                seen.setdefault(e.seq, e)
            events = sorted(seen.values(), key=lambda e: e.seq)
        doc = evidence([opened[events[0].table_id], *events])
        mine = sorted(((f["kind"], f["seat"], f["spot"], f["expected"], f["recorded"],
                        f["detail"]) for f in doc["findings"]), key=repr)
        theirs = sorted(((f.kind, f.seat, f.spot, f.expected, f.recorded, f.detail)
                         for f in report.findings if f.hand_id == hand
                         and not f.kind.startswith("sequence")), key=repr)
        assert mine == theirs, hand


def test_mispay_sentences() -> None:
    details = {(f.hand_id, f.seat, f.spot): f.detail for f in audit(load("mispays")).findings}
    assert details[("H1", 1, "blind")] == (
        "Seat 1's blind of 10.00 should win 15.00 (the player wins with a flush, which pays "
        "3:2 on the blind); the table recorded win 10.00.")
    assert details[("H2", 1, "ante")] == (
        "Seat 1's ante of 10.00 should push (the dealer does not qualify (high card)); the "
        "table recorded lose 10.00.")


def test_rounding_down_of_three_to_two() -> None:
    report = audit(load("flush_beats_straight"))
    blind = next(w for w in report.wagers if w.spot == "blind")
    assert (blind.amount, blind.correct_outcome, blind.correct_result) == (1025, "win", 1537)


def test_wager_rows_and_hand_rows() -> None:
    report = audit(load("royal_and_fold_with_trips"))
    rows = {(w.seat, w.spot): (w.amount, w.recorded_result, w.correct_result, w.player_category)
            for w in report.wagers}
    assert rows == {
        (1, "ante"): (1000, 1000, 1000, 9), (1, "blind"): (1000, 500000, 500000, 9),
        (1, "play"): (4000, 4000, 4000, 9), (1, "trips"): (200, 10000, 10000, 9),
        (3, "ante"): (1000, -1000, -1000, 3), (3, "blind"): (1000, -1000, -1000, 3),
        (3, "trips"): (1000, 3000, 3000, 3),
    }
    (hand,) = report.hands
    assert (hand.status, hand.seats, hand.seat_count, hand.dealing_order, hand.ruleset,
            hand.currency) == ("settled", "1,3", 2, "community_first", "charlevoix-2011", "CAD")
    assert str(hand.gaming_day) == "2026-11-29"
    first = audit(load("players_first_cardroom")).hands[0]
    assert (first.dealing_order, first.ruleset, first.currency) == (
        "players_first", "cardroom", "USD")


def test_statuses_of_voided_and_incomplete_hands() -> None:
    assert {h.hand_id: h.status for h in audit(load("voids")).hands} == {
        "H1": "voided", "H2": "voided", "H3": "voided"}
    assert {h.hand_id: h.status for h in audit(load("incomplete_hands")).hands} == {
        "H1": "incomplete", "H2": "settled", "H3": "incomplete"}
    rows = {(w.hand_id, w.spot): (w.recorded_result, w.correct_outcome, w.correct_result)
            for w in audit(load("voids")).wagers}
    assert rows[("H2", "ante")] == (-1000, "push", 0)
    assert rows[("H3", "ante")] == (None, "push", 0)


def test_disputes_verdicts_and_accounting() -> None:
    report = audit(load("disputes"))
    verdicts = {d.hand_id: (d.status, d.expected_net, d.recorded_net, d.adjustment)
                for d in report.disputes}
    # H1: correct net +10 +15 +40 = +65.00, recorded +60.00; resolved with +5.00.
    # H2: straight against no qualifier: 0 + 10 + 40 = +50.00, recorded the same; open.
    # H3: 0 + 0 + 10 = +10.00, recorded -10 + 0 + 10 = 0.00; resolved with +5.00.
    assert verdicts == {"H1": ("resolved", 6500, 6000, 500), "H2": ("open", 5000, 5000, None),
                        "H3": ("resolved", 1000, 0, 500)}
    h2 = next(d for d in report.disputes if d.hand_id == "H2")
    assert h2.verdict == "Seat 1 was settled correctly: net +50.00 on the hand."
    # the adjustments enter the accounting: laid on the wager they correct
    rows = {(w.hand_id, w.spot): w.recorded_result for w in report.wagers}
    assert rows[("H1", "blind")] == 1500
    assert rows[("H3", "ante")] == -500
    assert sum(w.recorded_result or 0 for w in report.wagers) == 6000 + 500 + 5000 + 0 + 500


def test_rejected_input_has_reason_and_position() -> None:
    report = audit(list(enumerate(load("sequence_faults"), 1)))
    (rejected,) = report.rejected
    assert rejected.position == 5
    assert rejected.reason == "CardsDealt.cards[1]: 'Xx' is not a card (rank 23456789TJQKA, " \
                              "suit cdhs)"
    gap = next(f for f in report.findings if f.kind == "sequence_gap")
    assert gap.detail == "Table T1: seq 15 to 16 never arrived (2 events lost before seq 17)."
    assert gap.position == 19
