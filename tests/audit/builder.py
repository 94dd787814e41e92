"""Hands as event streams for the auditor's tests and benchmark.

Not the simulator: a small, explicit builder. :class:`Table` numbers events per table and
gives them deterministic ids and times; :func:`hand_events` writes one hand from a
:class:`HandSpec` (cards, bets, decisions and the payouts to record); :func:`random_hand`
deals a random legal hand and records the engine's settlement (for property tests and the
benchmark; the golden files' payouts are written by hand instead).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import msgspec

from events.game.cards import DECK
from events.game.evaluation import evaluate_hand
from events.game.rulesets import load_ruleset
from events.game.settlement import Wagers, settle

_enc = msgspec.json.Encoder()

Payout = tuple[int, str, str, int]  # seat, spot, outcome, amount


@dataclass
class SeatSpec:
    seat: int
    hole: tuple[str, str]
    ante: int
    trips: int = 0
    decisions: list[tuple[str, str, int | None]] = field(default_factory=list)


@dataclass
class HandSpec:
    hand_id: str
    seats: list[SeatSpec]
    board: tuple[str, ...]
    dealer: tuple[str, str]
    payouts: list[Payout]
    dealer_id: str = "D1"
    order: str = "community_first"
    void: str | None = None


class Table:
    """Events of one table: ``seq`` from 0, ids ``<table>-<seq>``, one second apart."""

    def __init__(self, table_id: str = "T1", start: str = "2026-11-29T21:00:00",
                 seq: int = 0) -> None:
        self.table_id = table_id
        self.seq = seq
        h, m, s = (int(x) for x in start[11:19].split(":"))
        self.day = start[:10]
        self.clock = h * 3600 + m * 60 + s
        self.events: list[dict[str, Any]] = []

    def emit(self, type_: str, payload: dict[str, Any], hand_id: str | None = None,
             event_id: str | None = None) -> dict[str, Any]:
        t = self.clock + self.seq
        day, t = self.day, t % 86400
        ev = {
            "event_id": event_id or f"{self.table_id}-{self.seq:06d}", "type": type_,
            "schema_version": 1, "table_id": self.table_id, "hand_id": hand_id,
            "seq": self.seq,
            "occurred_at": f"{day}T{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}.000Z",
            "payload": payload,
        }
        self.seq += 1
        self.events.append(ev)
        return ev

    def open(self, ruleset: str = "charlevoix-2011", min_bet: int = 1000,
             max_bet: int = 50000, max_trips: int | None = 10000, seats: int = 7,
             currency: str = "CAD") -> None:
        payload: dict[str, Any] = {"ruleset": ruleset, "min_bet": min_bet, "max_bet": max_bet,
                                   "seats": seats, "currency": currency}
        if max_trips is not None:
            payload["max_trips"] = max_trips
        self.emit("TableOpened", payload)

    def hand(self, spec: HandSpec) -> None:
        hand_events(self, spec)


def hand_events(t: Table, spec: HandSpec) -> None:
    h = spec.hand_id
    t.emit("HandStarted", {"dealer_id": spec.dealer_id,
                           "seats": [s.seat for s in spec.seats]}, h)
    for s in spec.seats:
        t.emit("BetPlaced", {"seat": s.seat, "spot": "ante", "amount": s.ante}, h)
        t.emit("BetPlaced", {"seat": s.seat, "spot": "blind", "amount": s.ante}, h)
        if s.trips:
            t.emit("BetPlaced", {"seat": s.seat, "spot": "trips", "amount": s.trips}, h)
    board = {"target": "community", "cards": list(spec.board)}
    if spec.order == "community_first":
        t.emit("CardsDealt", board, h)
    for s in spec.seats:
        t.emit("CardsDealt", {"target": "seat", "seat": s.seat, "cards": list(s.hole)}, h)
    t.emit("CardsDealt", {"target": "dealer", "cards": list(spec.dealer)}, h)
    if spec.order != "community_first":
        t.emit("CardsDealt", board, h)
    if spec.void is not None:
        for seat, spot, outcome, amount in spec.payouts:
            t.emit("PayoutRecorded", {"seat": seat, "spot": spot, "outcome": outcome,
                                      "amount": amount}, h)
        t.emit("HandVoided", {"reason": spec.void}, h)
        return
    for street, reveal in (("preflop", ("flop", spec.board[:3])),
                           ("flop", ("turn_river", spec.board[3:])), ("river", None)):
        for s in spec.seats:
            for st, action, multiple in s.decisions:
                if st != street:
                    continue
                payload: dict[str, Any] = {"seat": s.seat, "street": st, "action": action}
                if action == "raise":
                    assert multiple is not None
                    payload["multiple"] = multiple
                    payload["amount"] = multiple * s.ante
                t.emit("PlayerDecision", payload, h)
        if reveal is not None:
            t.emit("CommunityRevealed", {"street": reveal[0], "cards": list(reveal[1])}, h)
    t.emit("DealerRevealed", {"cards": list(spec.dealer)}, h)
    for seat, spot, outcome, amount in spec.payouts:
        t.emit("PayoutRecorded", {"seat": seat, "spot": spot, "outcome": outcome,
                                  "amount": amount}, h)
    t.emit("HandEnded", {}, h)


def correct_payouts(spec: HandSpec, ruleset: str = "charlevoix-2011") -> list[Payout]:
    """The engine's settlement of ``spec`` (ante, blind, play, trips per seat)."""
    rs = load_ruleset(ruleset)
    dealer = evaluate_hand([*spec.dealer, *spec.board])
    out: list[Payout] = []
    for s in spec.seats:
        me = evaluate_hand([*s.hole, *spec.board])
        raise_ = next((d for d in s.decisions if d[1] == "raise"), None)
        folded = raise_ is None
        play = raise_[2] * s.ante if raise_ is not None and raise_[2] else 0
        for r in settle(rs, Wagers(s.ante, s.ante, s.trips, play), folded, me.strength,
                        me.category, dealer.strength, dealer.category):
            out.append((s.seat, r.spot, r.outcome, r.amount))
    return out


def random_hand(rng: random.Random, hand_id: str, *, max_seats: int = 7,
                min_bet: int = 1000, max_bet: int = 50000, max_trips: int = 10000,
                order: str | None = None, ruleset: str = "charlevoix-2011") -> HandSpec:
    """A random legal hand whose recorded payouts are the engine's settlement."""
    deck = list(DECK)
    rng.shuffle(deck)
    n = rng.randint(1, max_seats)
    seat_nos = sorted(rng.sample(range(1, 8), n)) if max_seats <= 7 else list(range(1, n + 1))
    seats = []
    for i, seat in enumerate(seat_nos):
        ante = rng.randrange(min_bet, max_bet + 1, 100) if rng.random() < 0.3 else min_bet
        trips = rng.choice((0, 0, min(max_trips, ante), min_bet // 2 or 1))
        r = rng.random()
        if r < 0.35:
            dec = [("preflop", "raise", rng.choice((4, 3)))]
        elif r < 0.55:
            dec = [("preflop", "check", None), ("flop", "raise", 2)]
        elif r < 0.8:
            dec = [("preflop", "check", None), ("flop", "check", None), ("river", "raise", 1)]
        else:
            dec = [("preflop", "check", None), ("flop", "check", None), ("river", "fold", None)]
        seats.append(SeatSpec(seat, (deck[2 * i], deck[2 * i + 1]), ante, trips, dec))
    k = 2 * n
    spec = HandSpec(hand_id, seats, tuple(deck[k:k + 5]), (deck[k + 5], deck[k + 6]), [],
                    dealer_id=f"D{rng.randint(1, 4)}",
                    order=order or rng.choice(("community_first", "players_first")))
    spec.payouts = correct_payouts(spec, ruleset)
    return spec


def floor_lines(tables: int, hands: int, seed: int = 1) -> list[bytes]:
    """A floor of ``tables`` tables playing ``hands`` hands each, interleaved round-robin,
    as JSON Lines (the benchmark's input)."""
    rng = random.Random(seed)
    per_table = []
    for t in range(tables):
        table = Table(f"T{t + 1:03d}")
        table.open()
        for h in range(hands):
            table.hand(random_hand(rng, f"T{t + 1:03d}-H{h:06d}"))
        per_table.append(table.events)
    out: list[bytes] = []
    longest = max(len(e) for e in per_table)
    for i in range(longest):
        for events in per_table:
            if i < len(events):
                out.append(_enc.encode(events[i]))
    return out


def encode_lines(events: list[dict[str, Any]]) -> list[bytes]:
    return [_enc.encode(e) for e in events]
