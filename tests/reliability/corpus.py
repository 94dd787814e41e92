"""The bad-input corpus: one JSON Lines file per class of bad input, valid events around it.

Run ``.venv/bin/python -m tests.reliability.corpus`` to (re)write ``tests/reliability/corpus/``;
``test_bad_input.py`` checks that the committed files equal what this module generates, so the
files and their manifest can never drift apart.

Every file is one table of ``charlevoix-2011`` (limits 10.00 .. 500.00 CAD, trips up to 100.00):
``TableOpened``, then three hands. Hands 1 and 3 are always valid and correctly settled (by the
project's engine); the class's defect sits in hand 2:

- *codec classes* add one bad line in the middle of hand 2 (a corrupted copy or a line of
  garbage). It takes no ``seq`` of its own, so the valid events still form a gap-free, complete,
  correctly settled stream: the decoder must reject the bad line with a reason, and nothing else
  may change (no finding at all from the auditor);
- *audit classes* make hand 2 itself break a rule of the game with well-formed events (a card
  dealt twice, a bet over the limit ...). The decoder accepts every line; the auditor must flag
  hand 2 with a finding of the expected kind and leave hands 1 and 3 alone.

Everything is deterministic (event ids are UUID5 of the class and ``seq``; times step 7 s).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgspec

from events.game.evaluation import evaluate_hand
from events.game.rulesets import load_ruleset
from events.game.settlement import Wagers, settle

CORPUS_DIR = Path(__file__).with_name("corpus")
MANIFEST = "manifest.json"
RULESET = "charlevoix-2011"
MIN_BET, MAX_BET, MAX_TRIPS = 1000, 50000, 10000
_NS = uuid.UUID("6f1d3c52-2b8e-4f0e-9a57-0c1e5b2d7a10")
_enc = msgspec.json.Encoder()

Ev = dict[str, Any]


@dataclass(frozen=True)
class SeatPlan:
    """One seat's hand: hole cards, stakes and the decision it makes (or ``fold``)."""

    seat: int
    hole: tuple[str, str]
    ante: int = 1000
    blind: int | None = None  # None: equal to the ante
    trips: int = 0
    raise_on: str | None = None  # preflop | flop | river | None (folds on the river)
    multiple: int = 0
    extra: tuple[tuple[str, str, int], ...] = ()  # (street, action, multiple) after the raise


@dataclass(frozen=True)
class HandPlan:
    community: tuple[str, str, str, str, str]
    dealer: tuple[str, str]
    seats: tuple[SeatPlan, ...]
    extra_payouts: tuple[tuple[int, str, str, int], ...] = ()  # (seat, spot, outcome, amount)
    fold_on_flop: tuple[int, ...] = ()  # seats that fold on the flop (illegal)


HANDS = (
    HandPlan(  # seat 1 raises 4x with AK and wins with a pair of aces; seat 2 folds the river
        community=("Ah", "7s", "2d", "9c", "Jh"), dealer=("Qd", "3c"),
        seats=(SeatPlan(1, ("As", "Kd"), trips=500, raise_on="preflop", multiple=4),
               SeatPlan(2, ("4h", "6c"))),
    ),
    HandPlan(  # seat 3 raises 2x on the flop with two pair and beats the dealer's pair
        community=("8s", "8d", "Tc", "5h", "Kc"), dealer=("Qs", "2c"),
        seats=(SeatPlan(3, ("Td", "5s"), trips=1000, raise_on="flop", multiple=2),),
    ),
    HandPlan(  # seat 2 calls 1x on the river and loses to a dealer flush
        community=("Qh", "9h", "4h", "2s", "7d"), dealer=("Ah", "3h"),
        seats=(SeatPlan(2, ("Qc", "6d"), raise_on="river", multiple=1),
               SeatPlan(5, ("Jd", "Js"), ante=2500, raise_on="preflop", multiple=3)),
    ),
)


@dataclass
class Stream:
    """Events of one table as dicts, with ``seq`` counted from 0."""

    name: str
    table_id: str
    events: list[Ev] = field(default_factory=list)

    def add(self, type_: str, payload: dict[str, Any], hand_id: str | None = None) -> Ev:
        seq = len(self.events)
        ev = {
            "event_id": str(uuid.uuid5(_NS, f"{self.name}/{seq}")), "type": type_,
            "schema_version": 1, "table_id": self.table_id, "hand_id": hand_id, "seq": seq,
            "occurred_at": _time(seq), "payload": payload,
        }
        self.events.append(ev)
        return ev


def _time(seq: int) -> str:
    s = 7 * seq
    return f"2026-11-29T21:{(s // 60) % 60:02d}:{s % 60:02d}.000Z"


def _strength(cards: tuple[str, ...]) -> tuple[int, int]:
    hv = evaluate_hand(list(cards))
    return hv.strength, hv.category


def add_hand(stream: Stream, hand_id: str, plan: HandPlan) -> None:
    """Append one hand's events; payouts are the engine's correct settlement."""
    rs = load_ruleset(RULESET)
    stream.add("HandStarted", {"dealer_id": "D-17", "seats": [s.seat for s in plan.seats],
                               "shoe_id": "S-1"}, hand_id)
    for s in plan.seats:
        stream.add("BetPlaced", {"seat": s.seat, "spot": "ante", "amount": s.ante}, hand_id)
        stream.add("BetPlaced", {"seat": s.seat, "spot": "blind",
                                 "amount": s.ante if s.blind is None else s.blind}, hand_id)
        if s.trips:
            stream.add("BetPlaced", {"seat": s.seat, "spot": "trips", "amount": s.trips},
                       hand_id)
    stream.add("CardsDealt", {"target": "community", "cards": list(plan.community)}, hand_id)
    for s in plan.seats:
        stream.add("CardsDealt", {"target": "seat", "seat": s.seat, "cards": list(s.hole)},
                   hand_id)
    stream.add("CardsDealt", {"target": "dealer", "cards": list(plan.dealer)}, hand_id)
    done: set[int] = set()
    folded: set[int] = set()

    def decide(street: str) -> None:
        for s in plan.seats:
            if s.seat in folded:
                continue
            if s.seat in done:
                for street_, action, multiple in s.extra:
                    if street_ == street:
                        stream.add("PlayerDecision", _decision(s, street, action, multiple),
                                   hand_id)
                continue
            if street == "flop" and s.seat in plan.fold_on_flop:
                stream.add("PlayerDecision", _decision(s, street, "fold", 0), hand_id)
                folded.add(s.seat)
            elif s.raise_on == street:
                stream.add("PlayerDecision", _decision(s, street, "raise", s.multiple), hand_id)
                done.add(s.seat)
            elif street == "river":
                stream.add("PlayerDecision", _decision(s, street, "fold", 0), hand_id)
                folded.add(s.seat)
            else:
                stream.add("PlayerDecision", _decision(s, street, "check", 0), hand_id)

    decide("preflop")
    stream.add("CommunityRevealed", {"street": "flop", "cards": list(plan.community[:3])},
               hand_id)
    decide("flop")
    stream.add("CommunityRevealed", {"street": "turn_river", "cards": list(plan.community[3:])},
               hand_id)
    decide("river")
    stream.add("DealerRevealed", {"cards": list(plan.dealer)}, hand_id)
    d_strength, d_cat = _strength(plan.dealer + plan.community)
    for s in plan.seats:
        p_strength, p_cat = _strength(s.hole + plan.community)
        blind = s.ante if s.blind is None else s.blind
        play = s.ante * s.multiple if s.seat in done else 0
        for r in settle(rs, Wagers(s.ante, blind, s.trips, play), s.seat in folded,
                        p_strength, p_cat, d_strength, d_cat):
            stream.add("PayoutRecorded", {"seat": s.seat, "spot": r.spot,
                                          "outcome": r.outcome, "amount": r.amount}, hand_id)
    for seat, spot, outcome, amount in plan.extra_payouts:
        stream.add("PayoutRecorded", {"seat": seat, "spot": spot, "outcome": outcome,
                                      "amount": amount}, hand_id)
    stream.add("HandEnded", {}, hand_id)


def _decision(s: SeatPlan, street: str, action: str, multiple: int) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": s.seat, "street": street, "action": action}
    if action == "raise":
        out |= {"multiple": multiple, "amount": multiple * s.ante}
    return out


def table(name: str, middle: HandPlan | None = None) -> Stream:
    """``TableOpened`` and the three hands (``middle`` replaces hand 2)."""
    stream = Stream(name, f"T-{name}")
    stream.add("TableOpened", {"ruleset": RULESET, "min_bet": MIN_BET, "max_bet": MAX_BET,
                               "max_trips": MAX_TRIPS, "seats": 7, "currency": "CAD"})
    for i, plan in enumerate(HANDS, 1):
        add_hand(stream, f"{name}-h{i}", middle if (i == 2 and middle) else plan)
    return stream


def encode(ev: Ev) -> bytes:
    return _enc.encode(ev)


# --- codec classes: (name, build the bad line from the event it sits before, expected code,
#     a phrase the reason must contain) -----------------------------------------------------

def _truncated(ev: Ev) -> bytes:
    data = encode(ev)
    return data[: len(data) // 2]


def _wrong_type(ev: Ev) -> bytes:
    return encode({**ev, "seq": str(ev["seq"]), "event_id": ev["event_id"][:-4] + "bad1"})


def _unknown_type(ev: Ev) -> bytes:
    return encode({**ev, "type": "CardsBurned", "event_id": ev["event_id"][:-4] + "bad2"})


def _missing_field(ev: Ev) -> bytes:
    bet = {k: v for k, v in ev.items() if k != "occurred_at"}
    return encode({**bet, "event_id": ev["event_id"][:-4] + "bad3"})


def _missing_payload_field(ev: Ev) -> bytes:
    payload = {"seat": 3, "spot": "ante"}  # no amount
    return encode({**ev, "type": "BetPlaced", "payload": payload,
                   "event_id": ev["event_id"][:-4] + "bad4"})


def _not_a_card(ev: Ev) -> bytes:
    return encode({**ev, "type": "CardsDealt", "payload": {"target": "seat", "seat": 3,
                                                           "cards": ["Td", "1s"]},
                   "event_id": ev["event_id"][:-4] + "bad5"})


def _card_twice_in_one_event(ev: Ev) -> bytes:
    return encode({**ev, "type": "CardsDealt", "payload": {"target": "dealer",
                                                           "cards": ["Ks", "Ks"]},
                   "event_id": ev["event_id"][:-4] + "bad6"})


def _huge_payload(ev: Ev) -> bytes:
    return encode({**ev, "type": "HandVoided", "payload": {"reason": "x" * 100_000},
                   "event_id": ev["event_id"][:-4] + "bad7"})


def _non_utf8(ev: Ev) -> bytes:
    data = encode({**ev, "event_id": ev["event_id"][:-4] + "bad8"})
    at = data.index(b'"table_id":"') + len(b'"table_id":"')
    return data[:at] + b"\xff\xfe\xc3(" + data[at:]


def _not_an_object(ev: Ev) -> bytes:
    return b'["HandStarted", 1]'


def _negative_amount(ev: Ev) -> bytes:
    return encode({**ev, "type": "BetPlaced", "payload": {"seat": 3, "spot": "ante",
                                                          "amount": -1000},
                   "event_id": ev["event_id"][:-4] + "bad9"})


def _deep_nesting(ev: Ev) -> bytes:  # 1,000 lists in one another: 2 KB, within the size limit
    data = encode({**ev, "event_id": ev["event_id"][:-4] + "bada"})
    at = data.index(b'"payload":') + len(b'"payload":')
    return data[:at] + b'{"x":' + b"[" * 1000 + b"]" * 1000 + b"}}"


def _repeated_key(ev: Ev) -> bytes:  # msgspec would keep the last amount, DuckDB the first
    data = encode({**ev, "type": "BetPlaced", "payload": {"seat": 3, "spot": "trips",
                                                          "amount": 1000},
                   "event_id": ev["event_id"][:-4] + "badb"})
    return data.replace(b'"amount":1000', b'"amount":1000,"amount":999999')


def _nul_in_table_id(ev: Ev) -> bytes:  # would cut its archive directory at the NUL
    return encode({**ev, "table_id": ev["table_id"] + "\u0000B",
                   "event_id": ev["event_id"][:-4] + "badc"})


def _nfd_table_id(ev: Ev) -> bytes:  # "Café" spelled e + combining accent: another table
    return encode({**ev, "table_id": "Cafe\u0301", "event_id": ev["event_id"][:-4] + "badd"})


def _control_in_dealer_id(ev: Ev) -> bytes:  # would retitle a terminal printing it
    return encode({**ev, "type": "HandStarted", "payload": {
        "dealer_id": "\u001b]0;owned\u0007D-17", "seats": [3]},
        "event_id": ev["event_id"][:-4] + "bade"})


def _at(when: str, suffix: str) -> Callable[[Ev], bytes]:
    """A copy of the event at a time the contract's form allows but the warehouse cannot
    hold in every zone and gaming day (issue 30)."""
    def make(ev: Ev) -> bytes:
        return encode({**ev, "occurred_at": when, "event_id": ev["event_id"][:-4] + suffix})
    return make


CodecClass = tuple[str, Callable[[Ev], bytes], str, str]
CODEC_CLASSES: tuple[CodecClass, ...] = (
    ("truncated-json", _truncated, "bad-json", "truncated JSON"),
    ("wrong-type", _wrong_type, "wrong-type", "seq: expected a whole number"),
    ("unknown-event-type", _unknown_type, "unknown-type", "'CardsBurned' is not an event type"),
    ("missing-envelope-field", _missing_field, "missing-field", "occurred_at: required field"),
    ("missing-payload-field", _missing_payload_field, "missing-field",
     "BetPlaced.amount: required field"),
    ("not-a-card", _not_a_card, "invalid-field", "'1s' is not a card"),
    ("card-twice-in-one-event", _card_twice_in_one_event, "invalid-field", "listed twice"),
    ("negative-wager", _negative_amount, "invalid-field", "BetPlaced.amount: -1000"),
    ("not-an-object", _not_an_object, "not-an-object", "not a list"),
    ("huge-payload", _huge_payload, "too-large", "more than the"),
    ("non-utf8", _non_utf8, "bad-utf8", "not UTF-8"),
    ("deep-nesting", _deep_nesting, "too-deep", "nested too deeply"),
    ("repeated-key", _repeated_key, "duplicate-key", "'amount' appears twice"),
    ("nul-in-table-id", _nul_in_table_id, "invalid-field", "control character (U+0000)"),
    ("nfd-table-id", _nfd_table_id, "invalid-field", "not in Unicode NFC form"),
    ("control-in-dealer-id", _control_in_dealer_id, "invalid-field",
     "HandStarted.dealer_id: '\\x1b]0;owned\\x07D-17' holds a control character"),
    ("year-zero", _at("0000-01-01T00:00:00Z", "bae0"), "invalid-field",
     "outside the years 0002 to 9998"),
    ("before-the-first-gaming-day", _at("0001-01-01T03:00:00Z", "bae1"), "invalid-field",
     "outside the years 0002 to 9998"),
    ("last-hour-of-year-9999", _at("9999-12-31T23:00:00Z", "bae2"), "invalid-field",
     "outside the years 0002 to 9998"),
)

# --- audit classes: (name, the defective hand 2, finding kinds that flag it) --------------

_H2 = HANDS[1]
_S3 = _H2.seats[0]
AUDIT_CLASSES: tuple[tuple[str, HandPlan, tuple[str, ...]], ...] = (
    ("card-dealt-twice",  # the seat's Td is also the dealer's first card
     replace(_H2, dealer=("Td", "2c")), ("duplicate_card",)),
    ("bet-over-limit", replace(_H2, seats=(replace(_S3, ante=60000),)), ("bet_out_of_limits",)),
    ("bet-under-minimum", replace(_H2, seats=(replace(_S3, ante=500),)), ("bet_out_of_limits",)),
    ("trips-over-limit", replace(_H2, seats=(replace(_S3, trips=20000),)),
     ("bet_out_of_limits",)),
    ("ante-not-blind", replace(_H2, seats=(replace(_S3, blind=2000),)),
     ("illegal_action",)),
    ("raise-after-raise",  # raises 2x on the flop, then 1x again on the river
     replace(_H2, seats=(replace(_S3, extra=(("river", "raise", 1),)),)), ("illegal_action",)),
    ("fold-on-the-flop", replace(_H2, fold_on_flop=(3,)), ("illegal_action",)),
    ("payout-for-wager-never-placed",  # no trips bet, but a trips payout (two pair: loses)
     replace(_H2, seats=(replace(_S3, trips=0),), extra_payouts=((3, "trips", "lose", -1000),)),
     ("unexpected_payout",)),
)


def build() -> dict[str, Any]:
    """Write nothing; return {file name: bytes} and the manifest describing each file."""
    files: dict[str, bytes] = {}
    classes: list[dict[str, Any]] = []
    for name, make_bad, code, phrase in CODEC_CLASSES:
        stream = table(name)
        events = stream.events
        # the bad line goes before hand 2's first PlayerDecision (mid-hand)
        at = next(i for i, e in enumerate(events)
                  if e["hand_id"] == f"{name}-h2" and e["type"] == "PlayerDecision")
        lines = [encode(e) for e in events]
        lines.insert(at, make_bad(events[at]))
        files[f"{name}.jsonl"] = b"".join(line + b"\n" for line in lines)
        classes.append({
            "class": name, "stage": "codec", "file": f"{name}.jsonl", "lines": len(lines),
            "valid_events": len(events), "bad_lines": [at + 1], "code": code,
            "reason_contains": phrase, "hands": 3, "findings": [],
        })
    for name, plan, kinds in AUDIT_CLASSES:
        stream = table(name, middle=plan)
        lines = [encode(e) for e in stream.events]
        files[f"{name}.jsonl"] = b"".join(line + b"\n" for line in lines)
        classes.append({
            "class": name, "stage": "audit", "file": f"{name}.jsonl", "lines": len(lines),
            "valid_events": len(lines), "bad_lines": [], "code": None,
            "reason_contains": None, "hands": 3, "flagged_hand": f"{name}-h2",
            "finding_kinds": list(kinds),
        })
    return {"files": files, "manifest": {"ruleset": RULESET, "classes": classes}}


def write(directory: Path = CORPUS_DIR) -> list[Path]:
    built = build()
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for fname, data in built["files"].items():
        (directory / fname).write_bytes(data)
        written.append(directory / fname)
    manifest = directory / MANIFEST
    manifest.write_text(json.dumps(built["manifest"], indent=1) + "\n")
    written.append(manifest)
    return written


if __name__ == "__main__":
    for path in write():
        print(path)
