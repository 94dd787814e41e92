"""Settle finished hands with the engine and compare with what the table recorded.

:func:`settle_hand` is the reference: one hand, each seat settled by the engine's
``settle`` from ``evaluate_hand`` (names and best five cards, for a supervisor), then each
recorded payout compared with the correct one. It words every finding. The auditor's fast
path (:mod:`events.audit.judge`) only certifies the hands it finds right and leaves every
other one to this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from events.findings import (
    ILLEGAL_ACTION,
    INCOMPLETE_HAND,
    MISPAY,
    MISSING_PAYOUT,
    UNKNOWN_RULESET,
    Finding,
)
from events.game.evaluation import evaluate_hand
from events.game.rules import RuleViolation, SeatState, verify_settleable
from events.game.rulesets import Ruleset
from events.game.settlement import (
    BLIND_MIN_CATEGORY,
    QUALIFYING_CATEGORY,
    SPOTS,
    Wagers,
    settle,
)
from events.money import money, outcome_words
from events.replay.fold import HandState, Paid

HAND_WORDS = ("high card only", "a pair", "two pair", "three of a kind", "a straight",
              "a flush", "a full house", "four of a kind", "a straight flush", "a royal flush")
HAND_NOUNS = ("high card", "pair", "two pair", "three of a kind", "straight", "flush",
              "full house", "four of a kind", "straight flush", "royal flush")


@dataclass(frozen=True, slots=True)
class WagerCheck:
    """One wager: its stake, the correct settlement (``None`` when it cannot be computed)
    and the recorded payout (``None`` when missing)."""

    seat: int
    spot: str
    stake: int
    correct_outcome: str | None
    correct_amount: int | None
    paid: Paid | None

    @property
    def ok(self) -> bool:
        return (self.correct_outcome is None or (self.paid is not None
                and self.paid.outcome == self.correct_outcome
                and self.paid.amount == self.correct_amount and not self.paid.extra))


@dataclass(frozen=True)
class SeatResult:
    """A seat's hand and its wagers, settled."""

    seat: int
    wagers: SeatState
    folded: bool
    strength: int | None
    category: int | None
    checks: tuple[WagerCheck, ...]
    name: str | None = None
    best_five: tuple[str, ...] = ()


@dataclass(frozen=True)
class HandSettlement:
    """A finished (or abandoned) hand, settled: ``status`` settled, voided or incomplete.
    ``findings`` holds the fold's findings and those of the settlement."""

    state: HandState
    status: str
    seats: tuple[SeatResult, ...]
    findings: tuple[Finding, ...]
    dealer_strength: int | None = None
    dealer_category: int | None = None
    dealer_name: str | None = None
    dealer_best_five: tuple[str, ...] = ()

    @property
    def dealer_qualifies(self) -> bool | None:
        if self.dealer_category is None:
            return None
        return self.dealer_category >= QUALIFYING_CATEGORY


def odds_text(odds: Fraction | int) -> str:
    f = Fraction(odds)
    return f"{f.numerator}:{f.denominator}"


def reason(ruleset: Ruleset | None, spot: str, outcome: str | None, folded: bool,
           p_cat: int | None, d_cat: int | None, cmp: int) -> str:
    """Why a wager settles as it does, in a supervisor's words."""
    if outcome is None or p_cat is None:
        return "it cannot be settled"
    if spot == "trips":
        if outcome == "win" and ruleset is not None:
            return f"{HAND_WORDS[p_cat]} pays {ruleset.trips_odds(p_cat)}:1 on trips"
        return f"trips needs three of a kind or better; the player has {HAND_WORDS[p_cat]}"
    if folded:
        return "the seat folded"
    if cmp == 0:
        return "the player ties the dealer"
    qualifies = d_cat is not None and d_cat >= QUALIFYING_CATEGORY
    dealer = HAND_NOUNS[d_cat] if d_cat is not None else "unknown hand"
    if spot == "ante" and not qualifies:
        return f"the dealer does not qualify ({dealer})"
    if cmp < 0:
        return f"the dealer's {dealer} beats the player's {HAND_NOUNS[p_cat]}"
    if spot == "blind":
        odds = ruleset.blind_odds(p_cat) if ruleset is not None else None
        if p_cat < BLIND_MIN_CATEGORY or odds is None:
            return f"the player wins with {HAND_WORDS[p_cat]}; below a straight the blind pushes"
        return f"the player wins with {HAND_WORDS[p_cat]}, which pays {odds_text(odds)} " \
               "on the blind"
    return f"the player's {HAND_NOUNS[p_cat]} beats the dealer's {dealer}"


# ------------------------------------------------------------------------- closing checks


def _closing(state: HandState) -> tuple[str, list[Finding], bool]:
    """Status, the findings of the whole-hand checks, and whether wagers can be settled."""
    found: list[Finding] = []
    if state.ended is None:
        found.append(state.finding(INCOMPLETE_HAND, "The hand never ended: no HandEnded or "
                                   "HandVoided was received; its wagers were not audited."))
        return "incomplete", found, False
    if not state.started:
        found.append(state.finding(INCOMPLETE_HAND, "The hand has no HandStarted event; its "
                                   "dealer and seats in play are unknown."))
    if state.ended == "voided":
        return "voided", found, True
    if state.payouts:
        if not state.dealer_revealed:
            found.append(state.finding(ILLEGAL_ACTION, "The hand was settled without the "
                                       "dealer's cards being revealed."))
        else:
            early = sorted(k for k, p in state.payouts.items() if p.before_reveal)
            if early:
                which = ", ".join(f"seat {s} {spot}" for s, spot in early)
                found.append(state.finding(ILLEGAL_ACTION, "Payouts were recorded before the "
                                           f"dealer's cards were revealed ({which})."))
    for seat in sorted(state.seats):
        try:
            verify_settleable(state.seats[seat])
        except RuleViolation as exc:
            found.append(state.finding(ILLEGAL_ACTION, f"{exc} It is settled as a fold.",
                                       seat=seat))
    ok = True
    if state.ruleset is None:
        table = state.table
        if table is None:
            why = "no TableOpened was received for the table, so its rules are unknown"
        elif table.ruleset_invalid:
            why = (f"the ruleset {table.ruleset_name!r} of the table is invalid "
                   f"({table.ruleset_error})")
        else:
            why = f"the ruleset {table.ruleset_name!r} of the table is not known"
        found.append(state.finding(UNKNOWN_RULESET, f"The hand cannot be settled: {why}."))
        ok = False
    missing = []
    if len(_community(state)) != 5:
        missing.append("the community cards")
    if len(_dealer(state)) != 2:
        missing.append("the dealer's cards")
    if missing and any(_has_stake(s) for s in state.seats.values()):
        found.append(state.finding(INCOMPLETE_HAND, f"The hand cannot be settled: "
                                   f"{' and '.join(missing)} are not known."))
        ok = False
    return "settled", found, ok


def _community(state: HandState) -> tuple[str, ...]:
    return state.community or state.revealed


def _dealer(state: HandState) -> tuple[str, ...]:
    return state.dealer or state.dealer_revealed


def _has_stake(s: SeatState) -> bool:
    return bool(s.ante or s.blind or s.trips or s.play)


def _seven(state: HandState, seat: int) -> tuple[str, ...] | None:
    hole = state.hole.get(seat)
    if hole is None:
        return None
    cards = hole + _community(state)
    return cards if len(set(cards)) == 7 else None


def _dealer_seven(state: HandState) -> tuple[str, ...] | None:
    cards = _dealer(state) + _community(state)
    return cards if len(set(cards)) == 7 and len(cards) == 7 else None


# ---------------------------------------------------------------------------- comparison


def _compare(state: HandState, seat_no: int, s: SeatState, folded: bool,
             expected: dict[str, tuple[str, int]] | None, p_cat: int | None,
             d_cat: int | None, cmp: int, found: list[Finding]) -> tuple[WagerCheck, ...]:
    """Checks of one seat's wagers against its payouts; findings appended to ``found``."""
    payouts = state.payouts
    checks: list[WagerCheck] = []
    voided = state.ended == "voided"
    for spot in SPOTS:
        stake = s.play if spot == "play" else getattr(s, spot)
        if not stake:
            continue
        paid = payouts.get((seat_no, spot))
        if voided:
            want: tuple[str, int] | None = ("push", 0)
        elif expected is None:
            want = None
        else:
            want = expected.get(spot)
        if want is None:
            checks.append(WagerCheck(seat_no, spot, stake, None, None, paid))
            continue
        out, amount = want
        checks.append(WagerCheck(seat_no, spot, stake, out, amount, paid))
        if paid is None:
            if voided:
                continue  # a voided hand returns every wager; no payout needs recording
            why = reason(state.ruleset, spot, out, folded, p_cat, d_cat, cmp)
            found.append(Finding(
                MISSING_PAYOUT, state.hand_id, state.table_id, state.dealer_id, seat_no, spot,
                amount, None, f"Seat {seat_no}'s {spot} of {money(stake)} was never settled; "
                f"it should {_should(out, amount)} ({why}).", None, state.ended_at))
        elif paid.outcome != out or paid.amount != amount:
            if voided:
                why = f"the hand was voided ({state.void_reason}): every wager is returned"
            else:
                why = reason(state.ruleset, spot, out, folded, p_cat, d_cat, cmp)
            found.append(Finding(
                MISPAY, state.hand_id, state.table_id, state.dealer_id, seat_no, spot, amount,
                paid.amount, f"Seat {seat_no}'s {spot} of {money(stake)} should "
                f"{_should(out, amount)} ({why}); the table recorded "
                f"{outcome_words(paid.outcome, paid.amount)}.", paid.event_id,
                paid.occurred_at))
    return tuple(checks)


def _should(outcome: str, amount: int) -> str:
    return "push" if outcome == "push" else f"{outcome} {money(abs(amount))}"


def _cmp(a: int, b: int) -> int:
    return (a > b) - (a < b)


def _expected_scalar(ruleset: Ruleset, s: SeatState, folded: bool, ps: int, pc: int, ds: int,
                     dc: int) -> dict[str, tuple[str, int]]:
    results = settle(ruleset, Wagers(s.ante, s.blind, s.trips, 0 if folded else s.play),
                     folded, ps, pc, ds, dc)
    return {r.spot: (r.outcome, r.amount) for r in results}


def _settled_seats(state: HandState) -> list[tuple[int, SeatState, bool]]:
    return [(n, s, s.folded or not s.play) for n, s in sorted(state.seats.items())
            if _has_stake(s)]


def settle_hand(state: HandState) -> HandSettlement:
    """Settle one hand with names and best five cards (the supervisor's path)."""
    status, found, ok = _closing(state)
    if status == "incomplete":
        return HandSettlement(state, status, (), state.findings + tuple(found))
    seats: list[SeatResult] = []
    dealer = None
    d7 = _dealer_seven(state) if ok and status == "settled" else None
    if d7 is not None:
        dealer = evaluate_hand(d7)
    for n, s, folded in _settled_seats(state):
        p7 = _seven(state, n) if dealer is not None else None
        hv = evaluate_hand(p7) if p7 is not None else None
        expected = None
        cmp = 0
        if hv is not None and dealer is not None and state.ruleset is not None:
            cmp = _cmp(hv.strength, dealer.strength)
            expected = _expected_scalar(state.ruleset, s, folded, hv.strength, hv.category,
                                        dealer.strength, dealer.category)
        elif dealer is not None:
            found.append(_unsettled_seat(state, n))
        checks = _compare(state, n, s, folded, expected, hv.category if hv else None,
                          dealer.category if dealer else None, cmp, found)
        seats.append(SeatResult(n, s, folded, hv.strength if hv else None,
                                hv.category if hv else None, checks,
                                hv.name if hv else None, hv.best_five if hv else ()))
    return HandSettlement(
        state, status, tuple(seats), state.findings + tuple(found),
        dealer.strength if dealer else None, dealer.category if dealer else None,
        dealer.name if dealer else None, dealer.best_five if dealer else ())


def _unsettled_seat(state: HandState, seat: int) -> Finding:
    if seat not in state.hole:
        why = "its cards were never dealt"
    else:
        why = "its cards repeat a card of the board"
    return state.finding(INCOMPLETE_HAND, f"Seat {seat}'s wagers cannot be settled: {why}.",
                         seat=seat)


