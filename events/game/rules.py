"""Betting rules of one seat, as verify / can / do functions over a frozen state.

``verify_*`` raises :class:`RuleViolation` with a sentence a floor supervisor understands;
``can_*`` answers the same question with a bool; ``place_bet`` and ``decide`` check and
return the new :class:`SeatState`. The contract's order: ante and blind (equal, within the
table limits) and an optional trips bet before any card; then a raise of 4x or 3x the ante
preflop, 2x on the flop, 1x on the river; a seat may check preflop and on the flop, must
raise or fold on the river, and makes no decision after it raised or folded.

>>> from events.game.rulesets import TableLimits
>>> limits = TableLimits(min_bet=500, max_bet=10000, max_trips=2500)
>>> s = place_bet(SeatState(seat=3), "ante", 1000, limits)
>>> s = place_bet(s, "blind", 1000, limits)
>>> s = decide(s, "preflop", "check")
>>> s = decide(s, "flop", "raise", multiple=2, amount=2000)
>>> s.play, s.raised_on, next_street(s)
(2000, 'flop', None)
>>> can_decide(s, "river", "raise", multiple=1, amount=1000)
False
>>> try:
...     decide(s, "river", "raise", multiple=1, amount=1000)
... except RuleViolation as exc:
...     print(exc)
Seat 3 already raised 2x on the flop; a seat that has raised makes no further decision.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from events.game.rulesets import Ruleset, TableLimits
from events.game.settlement import SPOTS
from events.money import money

Street = Literal["preflop", "flop", "river"]
STREETS: tuple[Street, ...] = ("preflop", "flop", "river")
# the wagers a BetPlaced places: every spot but the play, which a raise wagers
BET_SPOTS = tuple(spot for spot in SPOTS if spot != "play")
ACTIONS = ("check", "raise", "fold")
DEFAULT_MULTIPLES: dict[str, tuple[int, ...]] = {"preflop": (4, 3), "flop": (2,), "river": (1,)}


class RuleViolation(ValueError):
    """A bet or decision against the rules. ``kind`` is ``illegal_action`` or
    ``bet_out_of_limits`` (the auditor's finding kinds)."""

    def __init__(self, message: str, kind: str = "illegal_action") -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class SeatState:
    """What one seat has wagered and decided so far in a hand (cents)."""

    seat: int | None = None
    ante: int = 0
    blind: int = 0
    trips: int = 0
    play: int = 0
    play_multiple: int | None = None
    raised_on: Street | None = None
    folded: bool = False
    decided: tuple[Street, ...] = ()


def _who(state: SeatState) -> str:
    return f"Seat {state.seat}" if state.seat is not None else "The player"


def _whose(state: SeatState) -> str:
    return f"Seat {state.seat}'s" if state.seat is not None else "The player's"


def _on(street: str) -> str:
    return "preflop" if street == "preflop" else f"on the {street}"


def multiples(street: str, ruleset: Ruleset | None) -> tuple[int, ...]:
    """The legal raise multiples on ``street`` under ``ruleset`` (default 4x/3x, 2x, 1x)."""
    return ruleset.multiples(street) if ruleset is not None else DEFAULT_MULTIPLES[street]


def _alternatives(values: tuple[int, ...]) -> str:
    words = [f"{v}x" for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


# ---------------------------------------------------------------------------- bets


def bet_ok(ante: int, blind: int, trips: int, spot: str, amount: int,
           limits: TableLimits) -> bool:
    """Whether a bet before any card is legal, over plain values (the seat's ante, blind,
    trips so far): the rule, once. The fold (``events.replay.apply``), the fast path
    (``events.audit.plan``) and :func:`verify_bet` ask it; :func:`verify_bet` words a refusal.
    """
    if spot == "trips":
        return not trips and amount > 0 and (limits.max_trips is None
                                             or amount <= limits.max_trips)
    if not limits.min_bet <= amount <= limits.max_bet or amount <= 0:
        return False
    if spot == "ante":
        return not ante and (not blind or blind == amount)
    return spot == "blind" and not blind and (not ante or ante == amount)


def verify_bet(
    state: SeatState, spot: str, amount: int, limits: TableLimits, *, cards_dealt: bool = False
) -> None:
    """Check a ``BetPlaced``: before any card, once per spot, ante = blind, within limits.

    >>> from events.game.rulesets import TableLimits
    >>> lim = TableLimits(min_bet=500, max_bet=10000, max_trips=2500)
    >>> verify_bet(SeatState(seat=2), "ante", 400, lim)
    Traceback (most recent call last):
    ...
    events.game.rules.RuleViolation: Seat 2's ante of 4.00 is below the table minimum of 5.00.
    """
    if not cards_dealt and bet_ok(state.ante, state.blind, state.trips, spot, amount, limits):
        return
    # refused: which rule, in words
    who, whose = _who(state), _whose(state)
    if spot not in BET_SPOTS:
        raise RuleViolation(f"{who} bet on {spot!r}; before the deal bets go only on the "
                            "ante, blind and trips spots.")
    if cards_dealt:
        raise RuleViolation(f"{who} placed a {spot} bet of {money(amount)} after the first "
                            "card was dealt; bets are placed before any card.")
    if amount <= 0:
        raise RuleViolation(f"{whose} {spot} bet of {money(amount)} is not a bet; it must be "
                            "more than zero.", "bet_out_of_limits")
    placed = getattr(state, spot)
    if placed:
        article = "an" if spot == "ante" else "a"
        raise RuleViolation(f"{who} already has {article} {spot} bet of {money(placed)}; "
                            "a bet cannot be placed twice or changed.")
    if spot == "trips":
        if limits.max_trips is not None and amount > limits.max_trips:
            raise RuleViolation(f"{whose} trips bet of {money(amount)} is above the table's "
                                f"trips maximum of {money(limits.max_trips)}.",
                                "bet_out_of_limits")
        return
    if amount < limits.min_bet:
        raise RuleViolation(f"{whose} {spot} of {money(amount)} is below the table minimum "
                            f"of {money(limits.min_bet)}.", "bet_out_of_limits")
    if amount > limits.max_bet:
        raise RuleViolation(f"{whose} {spot} of {money(amount)} is above the table maximum "
                            f"of {money(limits.max_bet)}.", "bet_out_of_limits")
    other = "blind" if spot == "ante" else "ante"
    other_amount = getattr(state, other)
    if other_amount and other_amount != amount:
        raise RuleViolation(f"{whose} {spot} of {money(amount)} does not equal the {other} of "
                            f"{money(other_amount)}; ante and blind must be equal.")


def can_bet(
    state: SeatState, spot: str, amount: int, limits: TableLimits, *, cards_dealt: bool = False
) -> bool:
    """True when :func:`verify_bet` would accept the bet."""
    try:
        verify_bet(state, spot, amount, limits, cards_dealt=cards_dealt)
    except RuleViolation:
        return False
    return True


def place_bet(
    state: SeatState, spot: str, amount: int, limits: TableLimits, *, cards_dealt: bool = False
) -> SeatState:
    """The seat after a legal bet (raises :class:`RuleViolation` otherwise)."""
    verify_bet(state, spot, amount, limits, cards_dealt=cards_dealt)
    if spot == "ante":
        return replace(state, ante=amount)
    if spot == "blind":
        return replace(state, blind=amount)
    return replace(state, trips=amount)


def in_hand_ok(ante: int, blind: int) -> bool:
    """Whether a seat with this ante and blind may receive cards: both placed, equal."""
    return bool(ante) and ante == blind


def verify_in_hand(state: SeatState) -> None:
    """Check the seat may receive cards: ante and blind both placed and equal.

    >>> verify_in_hand(SeatState(seat=5, ante=500))  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    events.game.rules.RuleViolation: Seat 5 has an ante of 5.00 but no blind;
    ante and blind are both required to play.
    """
    if in_hand_ok(state.ante, state.blind):
        return
    who = _who(state)
    if not state.ante and not state.blind:
        raise RuleViolation(f"{who} has no ante and blind; a seat plays only with both.")
    if not state.blind:
        raise RuleViolation(f"{who} has an ante of {money(state.ante)} but no blind; ante and "
                            "blind are both required to play.")
    if not state.ante:
        raise RuleViolation(f"{who} has a blind of {money(state.blind)} but no ante; ante and "
                            "blind are both required to play.")
    if state.ante != state.blind:
        raise RuleViolation(f"{_whose(state)} ante of {money(state.ante)} does not equal the "
                            f"blind of {money(state.blind)}; ante and blind must be equal.")


# ------------------------------------------------------------------------ decisions


def next_street(state: SeatState) -> Street | None:
    """The street on which the seat decides next; ``None`` once it raised, folded or
    decided on the river.

    >>> next_street(SeatState(ante=500, blind=500, decided=("preflop",)))
    'flop'
    """
    if state.folded or state.play or len(state.decided) >= len(STREETS):
        return None
    return STREETS[len(state.decided)]


def decision_ok(
    ante: int, play: int, folded: bool, decided: int, street: str, action: str,
    multiple: int | None, amount: int | None, allowed: tuple[int, ...],
    current_street: str | None = None,
) -> bool:
    """Whether a decision is legal, over plain values (the seat's ante, play, whether it
    folded, how many streets it decided; ``allowed``: :func:`multiples` of the street;
    ``current_street``: the hand's, when known): the rule, once. The fold, the fast path
    and :func:`verify_decision` ask it; :func:`verify_decision` words a refusal.

    >>> decision_ok(500, 0, False, 2, "river", "check", None, None, (1,), "river")
    False
    """
    if (not ante or folded or play or decided >= len(STREETS) or STREETS[decided] != street
            or (current_street is not None and street != current_street)):
        return False
    if action == "raise":
        return multiple is not None and multiple in allowed and amount == multiple * ante
    if multiple is not None or amount is not None:
        return False
    return street != "river" if action == "check" else action == "fold" and street == "river"


def verify_decision(
    state: SeatState,
    street: str,
    action: str,
    multiple: int | None = None,
    amount: int | None = None,
    *,
    ruleset: Ruleset | None = None,
    current_street: str | None = None,
) -> None:
    """Check a ``PlayerDecision`` against the seat's state and the street.

    ``current_street`` is the street the hand is at (``preflop`` before the flop is
    revealed, ``flop`` after it, ``river`` after the turn and river); when given, a
    decision for another street is a violation. Multiples come from ``ruleset`` (default
    4x/3x, 2x, 1x).

    >>> s = SeatState(seat=1, ante=500, blind=500, decided=("preflop", "flop"))
    >>> verify_decision(s, "river", "check")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    events.game.rules.RuleViolation: Seat 1 checked on the river;
    on the river a seat that has not raised must raise 1x or fold.
    >>> verify_decision(s, "river", "raise", multiple=1,
    ...                 amount=400)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    events.game.rules.RuleViolation: Seat 1's 1x raise of 4.00 should be 5.00
    (1 times the ante of 5.00).
    """
    if street in STREETS and decision_ok(
            state.ante, state.play, state.folded, len(state.decided), street, action, multiple,
            amount, multiples(street, ruleset), current_street):
        return
    # refused: which rule, in words
    who, whose = _who(state), _whose(state)
    if street not in STREETS:
        raise RuleViolation(f"{who} decided on {street!r}, which is not a street "
                            "(preflop, flop, river).")
    if action not in ACTIONS:
        raise RuleViolation(f"{who} made the decision {action!r}; the choices are check, "
                            "raise and fold.")
    if not state.ante:
        raise RuleViolation(f"{who} has no ante, so it is not in the hand and cannot decide.")
    if state.folded:
        raise RuleViolation(f"{who} has folded; a seat that folded makes no further decision.")
    if state.play:
        raised = state.raised_on or "preflop"
        raise RuleViolation(f"{who} already raised {state.play_multiple or '?'}x {_on(raised)}; "
                            "a seat that has raised makes no further decision.")
    if current_street is not None and street != current_street:
        raise RuleViolation(f"{who} decided {_on(street)} while the hand is {_on(current_street)}.")
    expected = next_street(state)
    if street != expected:
        if street in state.decided:
            raise RuleViolation(f"{who} already decided {_on(street)}; one decision per street.")
        raise RuleViolation(f"{who} decided {_on(street)} before deciding {_on(str(expected))}.")
    allowed = multiples(street, ruleset)
    if action == "check":
        if street == "river":
            raise RuleViolation(f"{who} checked on the river; on the river a seat that has not "
                                f"raised must raise {_alternatives(allowed)} or fold.")
    elif action == "fold" and street != "river":
        raise RuleViolation(f"{who} folded {_on(street)}; a seat may fold only on the "
                            "river (it checks or raises before).")
    if action != "raise":
        if multiple is not None or amount is not None:
            raise RuleViolation(f"{whose} {action} carries a raise amount; only a raise does.")
        return
    if multiple is None or amount is None:
        raise RuleViolation(f"{whose} raise {_on(street)} does not say its multiple and amount.")
    if multiple not in allowed:
        raise RuleViolation(f"{who} raised {multiple}x {_on(street)}; the raise {_on(street)} "
                            f"is {_alternatives(allowed)} the ante.")
    if amount != multiple * state.ante:
        raise RuleViolation(f"{whose} {multiple}x raise of {money(amount)} should be "
                            f"{money(multiple * state.ante)} ({multiple} times the ante of "
                            f"{money(state.ante)}).")


def can_decide(
    state: SeatState,
    street: str,
    action: str,
    multiple: int | None = None,
    amount: int | None = None,
    *,
    ruleset: Ruleset | None = None,
    current_street: str | None = None,
) -> bool:
    """True when :func:`verify_decision` would accept the decision."""
    try:
        verify_decision(state, street, action, multiple, amount, ruleset=ruleset,
                        current_street=current_street)
    except RuleViolation:
        return False
    return True


def decide(
    state: SeatState,
    street: Street,
    action: str,
    multiple: int | None = None,
    amount: int | None = None,
    *,
    ruleset: Ruleset | None = None,
    current_street: str | None = None,
) -> SeatState:
    """The seat after a legal decision (raises :class:`RuleViolation` otherwise)."""
    verify_decision(state, street, action, multiple, amount, ruleset=ruleset,
                    current_street=current_street)
    decided = (*state.decided, street)
    if action == "raise":
        assert amount is not None
        return replace(state, play=amount, play_multiple=multiple, raised_on=street,
                       decided=decided)
    return replace(state, folded=action == "fold", decided=decided)


def legal_decisions(
    state: SeatState, street: Street, ruleset: Ruleset | None = None
) -> list[tuple[str, int | None]]:
    """The (action, multiple) pairs the seat may choose on ``street``; empty when none.

    >>> legal_decisions(SeatState(ante=500, blind=500), "preflop")
    [('raise', 4), ('raise', 3), ('check', None)]
    >>> legal_decisions(SeatState(ante=500, blind=500, decided=("preflop", "flop")), "river")
    [('raise', 1), ('fold', None)]
    """
    if next_street(state) != street or not state.ante:
        return []
    out: list[tuple[str, int | None]] = [("raise", m) for m in multiples(street, ruleset)]
    out.append(("fold", None) if street == "river" else ("check", None))
    return out


def verify_settleable(state: SeatState) -> None:
    """Check the seat's play is over before the dealer settles: it raised or folded.

    >>> s = SeatState(seat=4, ante=500, blind=500, decided=("preflop", "flop"))
    >>> verify_settleable(s)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    events.game.rules.RuleViolation: Seat 4 neither raised nor folded before settlement;
    after the river a seat must raise or fold.
    """
    if state.ante and not state.play and not state.folded:
        raise RuleViolation(f"{_who(state)} neither raised nor folded before settlement; after "
                            "the river a seat must raise or fold.")
