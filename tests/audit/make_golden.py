"""Writes the golden hands, one JSON Lines file per scenario, under ``tests/audit/golden/``.

    .venv/bin/python -m tests.audit.make_golden

Every payout below is written by hand (not computed by the engine): the recorded
settlement is what a dealer would record, right or (on purpose) wrong. The findings each
file must give are in ``test_golden.py``, worked out by hand beside the cards.

Table limits (``charlevoix-2011`` tables): ante 10.00 to 500.00, trips up to 100.00. Pays:
blind royal 500:1, straight flush 50:1, quads 10:1, full house 3:1, flush 3:2, straight 1:1;
trips (Charlevoix) royal 50, straight flush 40, quads 20, full house 7, flush 6, straight
5, three of a kind 3; trips (cardroom) quads 30, full house 8.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.audit.builder import Table, encode_lines

GOLDEN = Path(__file__).with_name("golden")


class Hand:
    """A hand written event by event (so any of them can be wrong)."""

    def __init__(self, t: Table, hand_id: str, seats: list[int], dealer: str = "D1") -> None:
        self.t, self.h = t, hand_id
        t.emit("HandStarted", {"dealer_id": dealer, "seats": seats}, hand_id)

    def bet(self, seat: int, ante: int, trips: int = 0, blind: int | None = None) -> Hand:
        self.t.emit("BetPlaced", {"seat": seat, "spot": "ante", "amount": ante}, self.h)
        self.t.emit("BetPlaced", {"seat": seat, "spot": "blind",
                                  "amount": ante if blind is None else blind}, self.h)
        if trips:
            self.t.emit("BetPlaced", {"seat": seat, "spot": "trips", "amount": trips}, self.h)
        return self

    def trips(self, seat: int, amount: int) -> Hand:
        self.t.emit("BetPlaced", {"seat": seat, "spot": "trips", "amount": amount}, self.h)
        return self

    def board(self, cards: str) -> Hand:
        self.t.emit("CardsDealt", {"target": "community", "cards": cards.split()}, self.h)
        return self

    def seat(self, seat: int, cards: str) -> Hand:
        self.t.emit("CardsDealt", {"target": "seat", "seat": seat, "cards": cards.split()},
                    self.h)
        return self

    def dealer(self, cards: str) -> Hand:
        self.t.emit("CardsDealt", {"target": "dealer", "cards": cards.split()}, self.h)
        return self

    def decide(self, seat: int, street: str, action: str, multiple: int = 0,
               ante: int = 0) -> Hand:
        p: dict[str, Any] = {"seat": seat, "street": street, "action": action}
        if action == "raise":
            p.update(multiple=multiple, amount=multiple * ante)
        self.t.emit("PlayerDecision", p, self.h)
        return self

    def flop(self, cards: str) -> Hand:
        self.t.emit("CommunityRevealed", {"street": "flop", "cards": cards.split()}, self.h)
        return self

    def turn_river(self, cards: str) -> Hand:
        self.t.emit("CommunityRevealed", {"street": "turn_river", "cards": cards.split()},
                    self.h)
        return self

    def show(self, cards: str) -> Hand:
        self.t.emit("DealerRevealed", {"cards": cards.split()}, self.h)
        return self

    def pay(self, seat: int, spot: str, amount: int, outcome: str | None = None) -> Hand:
        if outcome is None:
            outcome = "win" if amount > 0 else "lose" if amount < 0 else "push"
        self.t.emit("PayoutRecorded", {"seat": seat, "spot": spot, "outcome": outcome,
                                       "amount": amount}, self.h)
        return self

    def end(self) -> Hand:
        self.t.emit("HandEnded", {}, self.h)
        return self

    def void(self, reason: str) -> Hand:
        self.t.emit("HandVoided", {"reason": reason}, self.h)
        return self

    def dispute(self, seat: int, claim: str) -> Hand:
        self.t.emit("DisputeOpened", {"seat": seat, "claim": claim}, self.h)
        return self

    def resolve(self, seat: int, resolution: str, adjustment: int) -> Hand:
        self.t.emit("DisputeResolved", {"seat": seat, "resolution": resolution,
                                        "adjustment": adjustment}, self.h)
        return self


def charlevoix(table_id: str = "T1") -> Table:
    t = Table(table_id)
    t.open("charlevoix-2011", min_bet=1000, max_bet=50000, max_trips=10000)
    return t


def _kc_board(h: Hand) -> Hand:
    """The board Kc 9d 5s 3h 2c against the dealer's Qd 7s: king-high, no qualifier."""
    return h.board("Kc 9d 5s 3h 2c")


def flush_beats_straight() -> list[dict[str, Any]]:
    t = charlevoix()
    (Hand(t, "H1", [3]).bet(3, 1025, trips=500).board("Jh Th 8h 4c 2s").seat(3, "Ah 3h")
     .dealer("9c 7d").decide(3, "preflop", "raise", 4, 1025).flop("Jh Th 8h")
     .turn_river("4c 2s").show("9c 7d")
     .pay(3, "ante", 1025).pay(3, "blind", 1537).pay(3, "play", 4100).pay(3, "trips", 3000)
     .end())
    return t.events


def dealer_does_not_qualify() -> list[dict[str, Any]]:
    t = charlevoix()
    h = _kc_board(Hand(t, "H1", [1, 2]).bet(1, 2000, trips=1000).bet(2, 1000))
    (h.seat(1, "4d 6h").seat(2, "As 8c").dealer("Qd 7s")
     .decide(1, "preflop", "raise", 3, 2000).decide(2, "preflop", "check")
     .flop("Kc 9d 5s").decide(2, "flop", "check").turn_river("3h 2c")
     .decide(2, "river", "raise", 1, 1000).show("Qd 7s")
     .pay(1, "ante", 0).pay(1, "blind", 2000).pay(1, "play", 6000).pay(1, "trips", 5000)
     .pay(2, "ante", 0).pay(2, "blind", 0).pay(2, "play", 1000).end())
    return t.events


def dealer_wins() -> list[dict[str, Any]]:
    t = charlevoix()
    (Hand(t, "H1", [4]).bet(4, 1000, trips=1000).board("Qs Qd 7c 7h 3s").seat(4, "3c 3d")
     .dealer("Ah 7d").decide(4, "preflop", "raise", 4, 1000).flop("Qs Qd 7c")
     .turn_river("7h 3s").show("Ah 7d")
     .pay(4, "ante", -1000).pay(4, "blind", -1000).pay(4, "play", -4000)
     .pay(4, "trips", 7000).end())
    return t.events


def loses_to_unqualified_dealer() -> list[dict[str, Any]]:
    t = charlevoix()
    (Hand(t, "H1", [2, 6]).bet(2, 1000).bet(6, 1000, trips=500).board("Kh 9c 6d 4s 2h")
     .seat(2, "Qc Ts").seat(6, "8h 7h").dealer("Ad Jc")
     .decide(2, "preflop", "check").decide(6, "preflop", "check").flop("Kh 9c 6d")
     .decide(2, "flop", "check").decide(6, "flop", "check").turn_river("4s 2h")
     .decide(2, "river", "raise", 1, 1000).decide(6, "river", "fold").show("Ad Jc")
     .pay(2, "ante", 0).pay(2, "blind", -1000).pay(2, "play", -1000)
     .pay(6, "ante", -1000).pay(6, "blind", -1000).pay(6, "trips", -500).end())
    return t.events


def tie_board_plays() -> list[dict[str, Any]]:
    t = charlevoix()
    (Hand(t, "H1", [1]).bet(1, 1000, trips=1000).board("9s Ts Jd Qh Kc").seat(1, "4h 5h")
     .dealer("2c 3d").decide(1, "preflop", "raise", 4, 1000).flop("9s Ts Jd")
     .turn_river("Qh Kc").show("2c 3d")
     .pay(1, "ante", 0).pay(1, "blind", 0).pay(1, "play", 0).pay(1, "trips", 5000).end())
    return t.events


def royal_and_fold_with_trips() -> list[dict[str, Any]]:
    t = charlevoix()
    (Hand(t, "H1", [1, 3]).bet(1, 1000, trips=200).bet(3, 1000, trips=1000)
     .board("As Ks Qs 7d 2c").seat(1, "Js Ts").seat(3, "2d 2h").dealer("7h 7c")
     .decide(1, "preflop", "raise", 4, 1000).decide(3, "preflop", "check")
     .flop("As Ks Qs").decide(3, "flop", "check").turn_river("7d 2c")
     .decide(3, "river", "fold").show("7h 7c")
     .pay(1, "ante", 1000).pay(1, "blind", 500000).pay(1, "play", 4000)
     .pay(1, "trips", 10000)
     .pay(3, "ante", -1000).pay(3, "blind", -1000).pay(3, "trips", 3000).end())
    return t.events


def players_first_cardroom() -> list[dict[str, Any]]:
    t = Table("T2")
    t.open("cardroom", min_bet=500, max_bet=50000, max_trips=10000, currency="USD")
    (Hand(t, "H1", [1]).bet(1, 500, trips=500).seat(1, "5s 2c").dealer("Kd Kh")
     .board("5c 5d 5h Ks 9d").decide(1, "preflop", "check").flop("5c 5d 5h")
     .decide(1, "flop", "raise", 2, 500).turn_river("Ks 9d").show("Kd Kh")
     .pay(1, "ante", 500).pay(1, "blind", 5000).pay(1, "play", 1000).pay(1, "trips", 15000)
     .end())
    return t.events


def mispays() -> list[dict[str, Any]]:
    t = charlevoix()
    (Hand(t, "H1", [1, 2]).bet(1, 1000, trips=1000).bet(2, 1000).board("Jh Th 8h 4c 2s")
     .seat(1, "Ah 3h").seat(2, "5d 5s").dealer("9c 7d")
     .decide(1, "preflop", "raise", 4, 1000).decide(2, "preflop", "raise", 4, 1000)
     .flop("Jh Th 8h").turn_river("4c 2s").show("9c 7d")
     .pay(1, "ante", 1000).pay(1, "blind", 1000).pay(1, "play", 4000).pay(1, "trips", 7000)
     .pay(2, "ante", -1000).pay(2, "blind", -1000).pay(2, "play", 0).end())
    h = _kc_board(Hand(t, "H2", [1]).bet(1, 1000))
    (h.seat(1, "Ac 8d").dealer("Qd 7s").decide(1, "preflop", "check").flop("Kc 9d 5s")
     .decide(1, "flop", "check").turn_river("3h 2c").decide(1, "river", "raise", 1, 1000)
     .show("Qd 7s").pay(1, "ante", -1000).pay(1, "blind", 0).pay(1, "play", 1000).end())
    return t.events


def missing_and_unexpected_payouts() -> list[dict[str, Any]]:
    t = charlevoix()
    h = _kc_board(Hand(t, "H1", [1, 2]).bet(1, 1000).bet(2, 1000))
    (h.seat(1, "4d 6h").seat(2, "As 8c").dealer("Qd 7s")
     .decide(1, "preflop", "raise", 4, 1000).decide(2, "preflop", "check").flop("Kc 9d 5s")
     .decide(2, "flop", "check").turn_river("3h 2c").decide(2, "river", "fold").show("Qd 7s")
     .pay(1, "ante", 0).pay(1, "blind", 1000)
     .pay(2, "ante", -1000).pay(2, "blind", -1000).pay(2, "blind", -1000)
     .pay(2, "play", 1000).pay(2, "trips", -500).end())
    return t.events


def illegal_actions() -> list[dict[str, Any]]:
    t = charlevoix()
    h = _kc_board(Hand(t, "H1", [1, 2]).bet(1, 1000).bet(2, 1000))
    (h.seat(1, "8h 8s").seat(2, "4d 6h").dealer("Qd 7s").trips(2, 500)
     .decide(1, "preflop", "check").decide(2, "preflop", "raise", 4, 1000)
     .flop("Kc 9d 5s").decide(1, "flop", "check").decide(2, "flop", "raise", 2, 1000)
     .turn_river("3h 2c").decide(1, "river", "check").show("Qd 7s")
     .pay(1, "ante", -1000).pay(1, "blind", -1000)
     .pay(2, "ante", 0).pay(2, "blind", 1000).pay(2, "play", 4000).pay(2, "trips", 2500)
     .end().decide(1, "river", "raise", 1, 1000))
    return t.events


def decision_after_reveal() -> list[dict[str, Any]]:
    t = charlevoix()
    h = _kc_board(Hand(t, "H1", [1]).bet(1, 1000))
    (h.seat(1, "As 8c").dealer("Qd 7s").decide(1, "preflop", "check").flop("Kc 9d 5s")
     .decide(1, "flop", "check").turn_river("3h 2c").show("Qd 7s")
     .decide(1, "river", "raise", 1, 1000)
     .pay(1, "ante", 0).pay(1, "blind", 0).pay(1, "play", 1000).end())
    return t.events


def duplicate_card() -> list[dict[str, Any]]:
    t = charlevoix()
    h = _kc_board(Hand(t, "H1", [1]).bet(1, 1000))
    (h.seat(1, "Kc 4d").dealer("Qd 7s").decide(1, "preflop", "raise", 4, 1000)
     .flop("Kc 9d 5s").turn_river("3h 2c").show("Qd 7s")
     .pay(1, "ante", 0).pay(1, "blind", 0).pay(1, "play", 4000).end())
    return t.events


def bets_out_of_limits() -> list[dict[str, Any]]:
    t = charlevoix()
    h = _kc_board(Hand(t, "H1", [1, 2]).bet(1, 500).bet(2, 1000, trips=20000))
    (h.seat(1, "As 8c").seat(2, "4d 6h").dealer("Qd 7s")
     .decide(1, "preflop", "check").decide(2, "preflop", "raise", 4, 1000).flop("Kc 9d 5s")
     .decide(1, "flop", "check").turn_river("3h 2c").decide(1, "river", "raise", 1, 500)
     .show("Qd 7s")
     .pay(1, "ante", 0).pay(1, "blind", 0).pay(1, "play", 500)
     .pay(2, "ante", 0).pay(2, "blind", 1000).pay(2, "play", 4000).pay(2, "trips", 100000)
     .end())
    return t.events


def reveal_mismatch() -> list[dict[str, Any]]:
    t = charlevoix()
    h = _kc_board(Hand(t, "H1", [1]).bet(1, 1000))
    (h.seat(1, "4d 6h").dealer("Qd 7s").decide(1, "preflop", "raise", 4, 1000)
     .flop("Kc 9d 6s").turn_river("3h 2c").show("Qd 7h")
     .pay(1, "ante", 0).pay(1, "blind", 1000).pay(1, "play", 4000).end())
    return t.events


def _clean(t: Table, hand_id: str) -> None:
    """A correct one-seat hand: straight against a dealer who does not qualify."""
    h = _kc_board(Hand(t, hand_id, [1]).bet(1, 1000))
    (h.seat(1, "4d 6h").dealer("Qd 7s").decide(1, "preflop", "raise", 4, 1000)
     .flop("Kc 9d 5s").turn_river("3h 2c").show("Qd 7s")
     .pay(1, "ante", 0).pay(1, "blind", 1000).pay(1, "play", 4000).end())


def sequence_faults() -> list[dict[str, Any]]:
    """T1: a clean hand (seq 0-14), two buy-ins lost (seq 15-16 never sent), a clean hand
    from seq 17. Delivered with: a corrupt copy of seq 4 (a card ``Xx``) before its good
    twin, seq 7 sent twice (a redelivery), an intruder with seq 6 and another event id (a
    conflict). T2: a clean hand delivered with seq 4 and 5 swapped."""
    t1 = charlevoix("T1")
    _clean(t1, "H1")
    t1.emit("ChipsPurchased", {"seat": 1, "amount": 10000, "method": "cash"})
    t1.emit("ChipsPurchased", {"seat": 2, "amount": 10000, "method": "cash"})
    _clean(t1, "H2")
    t2 = charlevoix("T2")
    _clean(t2, "H3")
    sent = [e for e in t1.events if e["seq"] not in (15, 16)]
    by_seq = {e["seq"]: e for e in sent}
    assert by_seq[4]["payload"]["target"] == "community"
    assert by_seq[6]["payload"]["target"] == "dealer"
    corrupt = {**by_seq[4], "payload": {**by_seq[4]["payload"],
                                        "cards": ["Kc", "Xx", "5s", "3h", "2c"]}}
    intruder = {**by_seq[6], "event_id": "T1-intruder",
                "payload": {"target": "dealer", "cards": ["Qd", "7c"]}}
    t2_events = list(t2.events)
    t2_events[4], t2_events[5] = t2_events[5], t2_events[4]
    return [*sent[:4], corrupt, *sent[4:10], by_seq[7], intruder, *sent[10:], *t2_events]


def incomplete_hands() -> list[dict[str, Any]]:
    t = charlevoix()
    h = _kc_board(Hand(t, "H1", [1]).bet(1, 1000))
    h.seat(1, "4d 6h").dealer("Qd 7s").decide(1, "preflop", "raise", 4, 1000)
    _clean(t, "H2")
    _kc_board(Hand(t, "H3", [1]).bet(1, 1000)).seat(1, "4d 6h")
    return t.events


def voids() -> list[dict[str, Any]]:
    t = charlevoix()
    (_kc_board(Hand(t, "H1", [1]).bet(1, 1000, trips=500)).seat(1, "4d 6h").dealer("Qd 7s")
     .pay(1, "ante", 0).pay(1, "blind", 0).pay(1, "trips", 0).void("shuffler jam"))
    (_kc_board(Hand(t, "H2", [1]).bet(1, 1000)).seat(1, "As 8c").dealer("Qd 7s")
     .decide(1, "preflop", "raise", 4, 1000)
     .pay(1, "ante", -1000).pay(1, "blind", 0).pay(1, "play", 0).void("card reader fault"))
    (_kc_board(Hand(t, "H3", [1]).bet(1, 1000)).seat(1, "As 8c").dealer("Qd 7s")
     .void("dealer misdeal"))
    return t.events


def disputes() -> list[dict[str, Any]]:
    t = charlevoix()
    (Hand(t, "H1", [1]).bet(1, 1000).board("Jh Th 8h 4c 2s").seat(1, "Ah 3h").dealer("9c 7d")
     .decide(1, "preflop", "raise", 4, 1000).flop("Jh Th 8h").turn_river("4c 2s")
     .show("9c 7d").pay(1, "ante", 1000).pay(1, "blind", 1000).pay(1, "play", 4000).end())
    _clean(t, "H2")
    h3 = _kc_board(Hand(t, "H3", [1]).bet(1, 1000))
    (h3.seat(1, "Ac 8d").dealer("Qd 7s").decide(1, "preflop", "check").flop("Kc 9d 5s")
     .decide(1, "flop", "check").turn_river("3h 2c").decide(1, "river", "raise", 1, 1000)
     .show("Qd 7s").pay(1, "ante", -1000).pay(1, "blind", 0).pay(1, "play", 1000).end())
    t.emit("DisputeOpened", {"seat": 1, "claim": "my flush paid 1:1 on the blind"}, "H1")
    t.emit("DisputeResolved", {"seat": 1, "resolution": "paid the 3:2 difference",
                               "adjustment": 500}, "H1")
    t.emit("DisputeOpened", {"seat": 1, "claim": "I think my straight was underpaid"}, "H2")
    t.emit("DisputeOpened", {"seat": 1, "claim": "ante taken, dealer had no pair"}, "H3")
    t.emit("DisputeResolved", {"seat": 1, "resolution": "half returned", "adjustment": 500},
           "H3")
    return t.events


def unknown_ruleset() -> list[dict[str, Any]]:
    t = Table("T1")
    t.open("house-special", min_bet=1000, max_bet=50000, max_trips=10000)
    _clean(t, "H1")
    return t.events


def ante_blind_unequal() -> list[dict[str, Any]]:
    t = charlevoix()
    h = _kc_board(Hand(t, "H1", [1]).bet(1, 1000, blind=2000))
    (h.seat(1, "4d 6h").dealer("Qd 7s").decide(1, "preflop", "raise", 4, 1000)
     .flop("Kc 9d 5s").turn_river("3h 2c").show("Qd 7s")
     .pay(1, "ante", 0).pay(1, "blind", 2000).pay(1, "play", 4000).end())
    return t.events


SCENARIOS = {
    "flush_beats_straight": flush_beats_straight,
    "dealer_does_not_qualify": dealer_does_not_qualify,
    "dealer_wins": dealer_wins,
    "loses_to_unqualified_dealer": loses_to_unqualified_dealer,
    "tie_board_plays": tie_board_plays,
    "royal_and_fold_with_trips": royal_and_fold_with_trips,
    "players_first_cardroom": players_first_cardroom,
    "mispays": mispays,
    "missing_and_unexpected_payouts": missing_and_unexpected_payouts,
    "illegal_actions": illegal_actions,
    "decision_after_reveal": decision_after_reveal,
    "duplicate_card": duplicate_card,
    "bets_out_of_limits": bets_out_of_limits,
    "reveal_mismatch": reveal_mismatch,
    "sequence_faults": sequence_faults,
    "incomplete_hands": incomplete_hands,
    "voids": voids,
    "disputes": disputes,
    "unknown_ruleset": unknown_ruleset,
    "ante_blind_unequal": ante_blind_unequal,
}


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, make in SCENARIOS.items():
        lines = encode_lines(make())
        (GOLDEN / f"{name}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        print(f"{name}: {len(lines)} events")


if __name__ == "__main__":
    main()
