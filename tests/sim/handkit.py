"""An independent reading of simulated events for the tests: hands grouped from the stream,
their cards, wagers, decisions and payouts, and the correct settlement computed with the
single-hand evaluator (``evaluate_hand``) and ``settle`` -- not the batch path the
simulator uses."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from events.contract.schemas import (
    BetPlaced,
    CardsDealt,
    CommunityRevealed,
    DealerRevealed,
    DisputeOpened,
    DisputeResolved,
    Event,
    HandEnded,
    HandStarted,
    HandVoided,
    PayoutRecorded,
    PlayerDecision,
    TableOpened,
    decode_event,
)
from events.game.cards import card_index
from events.game.evaluation import evaluate_hand, strength_of
from events.game.rulesets import Ruleset, load_ruleset
from events.game.settlement import Wagers, settle

_CATEGORY_OF_STRENGTH: dict[int, int] = {}


def value(cards: list[str]) -> tuple[int, int]:
    """(strength, category) of a hand by the single-hand path of ``events.game.evaluation``."""
    strength = strength_of([card_index(c) for c in cards])
    cat = _CATEGORY_OF_STRENGTH.get(strength)
    if cat is None:
        cat = _CATEGORY_OF_STRENGTH[strength] = evaluate_hand(cards).category
    return strength, cat


@dataclass
class Hand:
    hand_id: str
    table_id: str
    events: list[Event] = field(default_factory=list)
    disputes: list[Event] = field(default_factory=list)

    def of(self, cls: type[Any]) -> list[Any]:
        return self._by_type.get(cls, [])

    @cached_property
    def _by_type(self) -> dict[type[Any], list[Any]]:
        out: dict[type[Any], list[Any]] = defaultdict(list)
        for e in self.events:
            out[type(e)].append(e)
        return out

    @property
    def started(self) -> HandStarted:
        return self.of(HandStarted)[0]  # type: ignore[no-any-return]

    @property
    def voided(self) -> bool:
        return bool(self.of(HandVoided))

    @property
    def community(self) -> list[str]:
        return [c for e in self.of(CardsDealt) if e.payload.target == "community"
                for c in e.payload.cards]

    @property
    def dealer(self) -> list[str]:
        return [c for e in self.of(CardsDealt) if e.payload.target == "dealer"
                for c in e.payload.cards]

    @cached_property
    def holes(self) -> dict[int, list[str]]:
        return {e.payload.seat: list(e.payload.cards) for e in self.of(CardsDealt)
                if e.payload.target == "seat"}

    def hole(self, seat: int) -> list[str]:
        return self.holes.get(seat, [])

    @cached_property
    def _bets(self) -> dict[int, dict[str, int]]:
        out: dict[int, dict[str, int]] = defaultdict(dict)
        for e in self.of(BetPlaced):
            out[e.payload.seat][e.payload.spot] = e.payload.amount
        return dict(out)

    def bets(self) -> dict[int, dict[str, int]]:
        return self._bets

    @cached_property
    def _decisions(self) -> dict[int, list[PlayerDecision]]:
        out: dict[int, list[PlayerDecision]] = defaultdict(list)
        for e in self.of(PlayerDecision):
            out[e.payload.seat].append(e)
        return out

    def decisions(self, seat: int) -> list[PlayerDecision]:
        return self._decisions.get(seat, [])

    def play(self, seat: int) -> int:
        return sum(d.payload.amount or 0 for d in self.decisions(seat))

    def folded(self, seat: int) -> bool:
        return any(d.payload.action == "fold" for d in self.decisions(seat))

    def payouts(self) -> dict[tuple[int, str], PayoutRecorded]:
        return {(e.payload.seat, e.payload.spot): e for e in self.of(PayoutRecorded)}

    def correct(self, ruleset: Ruleset) -> dict[tuple[int, str], tuple[str, int]]:
        """The correct (outcome, amount) of every wager, by the contract's settlement."""
        if self.voided:
            return {(seat, spot): ("push", 0) for seat, spots in self.bets().items()
                    for spot in [*spots, *(["play"] if self.play(seat) else [])]}
        board = self.community
        ds, dc = value(self.dealer + board)
        out = {}
        for seat, spots in self.bets().items():
            ps, pc = value(self.hole(seat) + board)
            wagers = Wagers(spots["ante"], spots["blind"], spots.get("trips", 0), self.play(seat))
            for r in settle(ruleset, wagers, self.folded(seat), ps, pc, ds, dc):
                out[(seat, r.spot)] = (r.outcome, r.amount)
        return out


@dataclass
class Stream:
    events: list[Event]
    tables: dict[str, list[Event]]
    opened: dict[str, TableOpened]
    hands: dict[str, Hand]

    def ruleset(self, table_id: str) -> Ruleset:
        return load_ruleset(self.opened[table_id].payload.ruleset)


def read(lines: list[bytes]) -> Stream:
    events = [decode_event(line) for line in lines]
    tables: dict[str, list[Event]] = defaultdict(list)
    hands: dict[str, Hand] = {}
    opened: dict[str, TableOpened] = {}
    for e in events:
        tables[e.table_id].append(e)
        if isinstance(e, TableOpened):
            opened[e.table_id] = e
        if e.hand_id is None:
            continue
        hand = hands.setdefault(e.hand_id, Hand(e.hand_id, e.table_id))
        if isinstance(e, DisputeOpened | DisputeResolved):
            hand.disputes.append(e)
        else:
            hand.events.append(e)
    return Stream(events, dict(tables), opened, hands)


END_TYPES = (HandEnded, HandVoided)
REVEALS = (CommunityRevealed, DealerRevealed)
