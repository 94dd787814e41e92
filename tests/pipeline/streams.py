"""A small floor written by hand, whose every warehouse figure is worked out in the tests.

Table T1 (charlevoix-2011, CAD), gaming day 2026-11-29:
  buy-ins 100000 + 50000.
  H1 (dealer D1, 20:02:00-20:04:00), community Ah Kh 7h 2c 9d, dealer Ac 5d (pair of aces,
     qualifies).
     seat 1: Qh 3h (flush), ante 1000, blind 1000, trips 500, raises 4x preflop (play 4000):
             ante +1000, blind 3:2 +1500, play +4000, trips 6:1 +3000 -> +9500.
     seat 2: 9s 9c (three nines), ante 2000, blind 2000, checks, checks, raises 1x (2000):
             ante +2000, play +2000, blind should push (trips is below a straight) but
             the dealer paid it 1:1: recorded +2000 -> a mispay of 2000.
  H2 (D1, 20:05:00-20:06:00), community 2s 7d Jc Qd 4h, dealer Kc Ks; seat 1: 8c 8d (pair),
     ante 1000, blind 1000, trips 1000, folds on the river: -1000, -1000, trips -1000.
  H3 (D2, 20:07:00-20:07:30): seat 1 ante 1000, blind 1000, then voided (wagers returned).
Table T2 (eu-participation, EUR):
  buy-in 20000 at 05:52 (gaming day 2026-11-29), buy-in 30000 at 06:05 (2026-11-30).
  H4 (D2, 05:55:00-05:58:00, gaming day 2026-11-29): community 5d 6c 7s Jd 2h, dealer Kd 3c
     (king high: does not qualify); seat 3: 8h 9h (straight), ante 500, blind 500, trips
     500, checks preflop, raises 2x on the flop (1000): ante push, blind 1:1 +500,
     play +1000, trips 4:1 +2000 -> +3500.
  H5 (D2, 06:10:00-06:12:00, gaming day 2026-11-30): community 2d 4s 8c Th Qs, dealer Qh Qc
     (pair of queens); seat 3: 3d 5c, ante 500, blind 500, raises 3x preflop (1500):
     ante -500, blind -500, play -1500 -> -2500.
  T2's seq skips one number between H4 and the second buy-in: one sequence gap.
Also: one event delivered twice (counted once) and one line that is not JSON (dead letter).
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

_enc = msgspec.json.Encoder()
NS = uuid.UUID("6f1c2e2a-7a43-4c59-9d4e-1b1f9b0c2a10")


class Table:
    def __init__(self, table_id: str, seq: int = 0) -> None:
        self.table_id = table_id
        self.seq = seq
        self.events: list[dict[str, Any]] = []

    def add(self, type_: str, at: str, payload: dict[str, Any] | None = None,
            hand_id: str | None = None) -> dict[str, Any]:
        ev = {"event_id": str(uuid.uuid5(NS, f"{self.table_id}/{self.seq}")), "type": type_,
              "schema_version": 1, "table_id": self.table_id, "hand_id": hand_id,
              "seq": self.seq, "occurred_at": at, "payload": payload or {}}
        self.seq += 1
        self.events.append(ev)
        return ev

    def skip(self, n: int = 1) -> None:
        self.seq += n


def _hand(t: Table, hand_id: str, day: str, span: tuple[str, str], dealer: str,
          seats: dict[int, dict[str, Any]], community: list[str], dealer_cards: list[str],
          payouts: list[tuple[int, str, str, int]] | None, voided: bool = False) -> None:
    """The hand's events, timed evenly from span[0] to span[1]."""
    out: list[tuple[str, dict[str, Any]]] = [
        ("HandStarted", {"dealer_id": dealer, "seats": sorted(seats)})]
    for seat, s in seats.items():
        for spot in ("ante", "blind", "trips"):
            if s.get(spot):
                out.append(("BetPlaced", {"seat": seat, "spot": spot, "amount": s[spot]}))
    for seat, s in seats.items():
        out.append(("CardsDealt", {"target": "seat", "seat": seat, "cards": s["cards"]}))
    if voided:
        out.append(("HandVoided", {"reason": "card reader malfunction"}))
    else:
        out.append(("CardsDealt", {"target": "dealer", "cards": dealer_cards}))
        out.append(("CardsDealt", {"target": "community", "cards": community}))
        raised: set[int] = set()
        for street in ("preflop", "flop", "river"):
            if street == "flop":
                out.append(("CommunityRevealed", {"street": "flop", "cards": community[:3]}))
            if street == "river":
                out.append(("CommunityRevealed", {"street": "turn_river",
                                                  "cards": community[3:]}))
            for seat, s in seats.items():
                if seat in raised:
                    continue
                action = s["decisions"][street]
                payload: dict[str, Any] = {"seat": seat, "street": street, "action": action}
                if action == "raise":
                    payload.update(multiple=s["multiple"], amount=s["multiple"] * s["ante"])
                    raised.add(seat)
                out.append(("PlayerDecision", payload))
        out.append(("DealerRevealed", {"cards": dealer_cards}))
        for seat, spot, outcome, amount in payouts or []:
            out.append(("PayoutRecorded", {"seat": seat, "spot": spot, "outcome": outcome,
                                           "amount": amount}))
        out.append(("HandEnded", {}))
    for (type_, payload), at in zip(out, _times(*span, len(out)), strict=True):
        t.add(type_, f"{day}T{at}Z", payload, hand_id)


def _times(start: str, end: str, n: int) -> list[str]:
    """n times from start to end (HH:MM:SS), the last one exactly ``end``."""
    def secs(text: str) -> int:
        h, m, s = (int(x) for x in text.split(":"))
        return h * 3600 + m * 60 + s
    a, b = secs(start), secs(end)
    out = [a + (b - a) * i // (n - 1) for i in range(n)]
    return [f"{x // 3600:02d}:{x % 3600 // 60:02d}:{x % 60:02d}" for x in out]


def floor() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(table T1 events, table T2 events)."""
    t1 = Table("T1")
    t1.add("TableOpened", "2026-11-29T20:00:00Z", {
        "ruleset": "charlevoix-2011", "min_bet": 500, "max_bet": 50000, "seats": 7,
        "currency": "CAD", "max_trips": 10000})
    t1.add("ChipsPurchased", "2026-11-29T20:01:00Z", {"seat": 1, "amount": 100000,
                                                       "method": "cash"})
    t1.add("ChipsPurchased", "2026-11-29T20:01:30Z", {"seat": 2, "amount": 50000,
                                                       "method": "cash"})
    _hand(t1, "H1", "2026-11-29", ("20:02:00", "20:04:00"), "D1", {
        1: {"ante": 1000, "blind": 1000, "trips": 500, "cards": ["Qh", "3h"], "multiple": 4,
            "decisions": {"preflop": "raise"}},
        2: {"ante": 2000, "blind": 2000, "cards": ["9s", "9c"], "multiple": 1,
            "decisions": {"preflop": "check", "flop": "check", "river": "raise"}},
    }, ["Ah", "Kh", "7h", "2c", "9d"], ["Ac", "5d"], [
        (1, "ante", "win", 1000), (1, "blind", "win", 1500), (1, "play", "win", 4000),
        (1, "trips", "win", 3000), (2, "ante", "win", 2000), (2, "blind", "win", 2000),
        (2, "play", "win", 2000)])
    _hand(t1, "H2", "2026-11-29", ("20:05:00", "20:06:00"), "D1", {
        1: {"ante": 1000, "blind": 1000, "trips": 1000, "cards": ["8c", "8d"],
            "decisions": {"preflop": "check", "flop": "check", "river": "fold"}},
    }, ["2s", "7d", "Jc", "Qd", "4h"], ["Kc", "Ks"], [
        (1, "ante", "lose", -1000), (1, "blind", "lose", -1000), (1, "trips", "lose", -1000)])
    _hand(t1, "H3", "2026-11-29", ("20:07:00", "20:07:30"), "D2", {
        1: {"ante": 1000, "blind": 1000, "cards": ["4c", "4d"]},
    }, [], [], None, voided=True)

    t2 = Table("T2")
    t2.add("TableOpened", "2026-11-30T05:50:00Z", {
        "ruleset": "eu-participation", "min_bet": 500, "max_bet": 20000, "seats": 7,
        "currency": "EUR"})
    t2.add("ChipsPurchased", "2026-11-30T05:52:00Z", {"seat": 3, "amount": 20000,
                                                       "method": "cash"})
    _hand(t2, "H4", "2026-11-30", ("05:55:00", "05:58:00"), "D2", {
        3: {"ante": 500, "blind": 500, "trips": 500, "cards": ["8h", "9h"], "multiple": 2,
            "decisions": {"preflop": "check", "flop": "raise"}},
    }, ["5d", "6c", "7s", "Jd", "2h"], ["Kd", "3c"], [
        (3, "ante", "push", 0), (3, "blind", "win", 500), (3, "play", "win", 1000),
        (3, "trips", "win", 2000)])
    t2.skip()  # one event of T2 never arrives
    t2.add("ChipsPurchased", "2026-11-30T06:05:00Z", {"seat": 3, "amount": 30000,
                                                       "method": "marker"})
    _hand(t2, "H5", "2026-11-30", ("06:10:00", "06:12:00"), "D2", {
        3: {"ante": 500, "blind": 500, "cards": ["3d", "5c"], "multiple": 3,
            "decisions": {"preflop": "raise"}},
    }, ["2d", "4s", "8c", "Th", "Qs"], ["Qh", "Qc"], [
        (3, "ante", "lose", -500), (3, "blind", "lose", -500), (3, "play", "lose", -1500)])
    return t1.events, t2.events


def dispute(hand_events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A dispute on H1 seat 2 weeks later, resolved by taking the 2000 overpaid back."""
    t1 = Table("T1", seq=max(e["seq"] for e in hand_events if e["table_id"] == "T1") + 1)
    t1.add("DisputeOpened", "2026-12-12T21:00:00Z",
           {"seat": 2, "claim": "supervisor review of the blind paid"}, "H1")
    t1.add("DisputeResolved", "2026-12-12T21:30:00Z",
           {"seat": 2, "resolution": "blind paid in error, recovered", "adjustment": -2000},
           "H1")
    return t1.events


def lines(events: list[dict[str, Any]]) -> list[bytes]:
    return [_enc.encode(e) for e in events]


def interleave(*tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tables' events merged by time (each table's own order kept)."""
    return sorted((e for t in tables for e in t), key=lambda e: (e["occurred_at"], e["seq"]))


def floor_lines() -> list[bytes]:
    """The whole floor as log lines: both tables by time, one redelivered event (a copy of
    H2's HandStarted) and one line that is not JSON."""
    t1, t2 = floor()
    events = interleave(t1, t2)
    out = lines(events)
    h2_start = next(i for i, e in enumerate(events) if e["hand_id"] == "H2")
    out.insert(h2_start + 5, out[h2_start])
    out.insert(3, b'{"event_id": "broken", "type": "HandStarted"')
    return out
