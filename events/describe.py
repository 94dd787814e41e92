"""One event in words, as a supervisor reads it: the evidence document, ``uth tail`` and
the dashboards' hand replay all say an event with :func:`describe`.

Cards are drawn as a person reads them (A♥ 10♠), money as :func:`events.money.money`
writes it (plain, or in the table's currency when one is given).

>>> from events.contract.schemas import BetPlacedPayload
>>> describe_payload("BetPlaced", BetPlacedPayload(seat=2, spot="ante", amount=1000))
'Seat 2 bets 10.00 on the ante.'
>>> describe_payload("BetPlaced", BetPlacedPayload(seat=2, spot="ante", amount=1000), "USD")
'Seat 2 bets $10.00 on the ante.'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from events.contract.schemas import Event
from events.game.cards import glyph
from events.money import money, outcome_words


def glyphs(cards: Iterable[str]) -> str:
    return " ".join(glyph(c) for c in cards)


def describe(ev: Event, currency: str | None = None) -> str:
    """``ev`` as a sentence; amounts in ``currency`` when given."""
    return describe_payload(type(ev).__name__, ev.payload, currency, table_id=ev.table_id,
                            hand_id=ev.hand_id)


def describe_payload(kind: str, p: Any, currency: str | None = None, *,
                     table_id: str | None = None, hand_id: str | None = None) -> str:
    """An event of type ``kind`` with payload ``p`` (the contract's payload Struct) as a
    sentence."""
    def cash(cents: int) -> str:
        return money(cents, currency, symbol=currency is not None)

    if kind == "TableOpened":
        trips = f", trips up to {cash(p.max_trips)}" if p.max_trips else ""
        table = f"Table {table_id}" if table_id else "The table"
        return (f"{table} opens under {p.ruleset}: bets {cash(p.min_bet)} to "
                f"{cash(p.max_bet)}{trips}, {p.seats} seats, {p.currency}.")
    if kind == "TableClosed":
        return "The table closes."
    if kind == "HandStarted":
        shoe = f", shoe {p.shoe_id}" if p.shoe_id else ""
        hand = f"Hand {hand_id}" if hand_id else "The hand"
        return (f"{hand} starts: dealer {p.dealer_id}, seats "
                f"{', '.join(map(str, p.seats))}{shoe}.")
    if kind == "BetPlaced":
        return f"Seat {p.seat} bets {cash(p.amount)} on the {p.spot}."
    if kind == "CardsDealt":
        if p.target == "seat":
            return f"Seat {p.seat} is dealt {glyphs(p.cards)} (face down)."
        if p.target == "dealer":
            return f"The dealer is dealt {glyphs(p.cards)} (face down)."
        return f"The board is dealt {glyphs(p.cards)} (face down)."
    if kind == "CommunityRevealed":
        what = "The flop" if p.street == "flop" else "The turn and river"
        return f"{what}: {glyphs(p.cards)}."
    if kind == "PlayerDecision":
        on = "preflop" if p.street == "preflop" else f"on the {p.street}"
        auto = " (automatic, on a timeout)" if p.auto else ""
        if p.action == "raise":
            return f"Seat {p.seat} raises {p.multiple}x, {cash(p.amount)}, {on}{auto}."
        return f"Seat {p.seat} {p.action}s {on}{auto}."
    if kind == "DealerRevealed":
        return f"The dealer turns over {glyphs(p.cards)}."
    if kind == "PayoutRecorded":
        return (f"Recorded: seat {p.seat}'s {p.spot} "
                f"{outcome_words(p.outcome, p.amount, currency)}.")
    if kind == "HandEnded":
        return "The hand ends."
    if kind == "HandVoided":
        return f"The hand is voided: {p.reason}"
    if kind == "DisputeOpened":
        return f"Seat {p.seat} disputes the hand: {p.claim}"
    if kind == "DisputeResolved":
        adjustment = money(p.adjustment, currency, sign=True, symbol=currency is not None)
        return (f"Seat {p.seat}'s dispute is resolved: {p.resolution} "
                f"(adjustment {adjustment}).")
    if kind == "ChipsPurchased":
        return f"Seat {p.seat} buys {cash(p.amount)} in chips ({p.method})."
    return f"{kind}."
