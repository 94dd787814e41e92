"""A small log whose disputes have known answers, built with the auditor's test builder.

Four hands of table T1, each disputed by the seat of its first won wager, after all four have ended:

- ``T1-A``: the seat's first won wager recorded 500 short; the dispute is still open (owed +500).
- ``T1-B``: the same short pay; resolved with an adjustment of +500 (right).
- ``T1-C``: paid right; resolved with no adjustment (owed 0, right).
- ``T1-D``: the seat's first won wager recorded 700 over; resolved with no adjustment (owed -700,
  wrong).

``OWED`` is computed from the builder's own settlement (``events.game.settlement.settle``), not
from the replay the commands use.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.audit.builder import HandSpec, Table, encode_lines, random_hand

SHORT, OVER = 500, 700
CLAIM = {"T1-A": "my ante was paid short <b>now</b>", "T1-B": "ante short",
         "T1-C": "I think the trips lost wrongly", "T1-D": "dealer's hand"}
ADJUST = {"T1-B": 500, "T1-C": 0, "T1-D": 0}  # resolved disputes' adjustments
SHIFT = {"T1-A": -SHORT, "T1-B": -SHORT, "T1-C": 0, "T1-D": OVER}  # recorded minus correct


def specs() -> list[HandSpec]:
    rng = random.Random(23)
    out = []
    for hand_id in CLAIM:
        spec = random_hand(rng, hand_id, max_seats=3, ruleset="charlevoix-2011")
        while not any(outcome == "win" for *_, outcome, _a in spec.payouts):
            spec = random_hand(rng, hand_id, max_seats=3, ruleset="charlevoix-2011")
        won = _won(spec)
        spec.payouts = [(s, spot, outcome, amount + SHIFT[hand_id]
                         if (s, spot) == won else amount)
                        for s, spot, outcome, amount in spec.payouts]
        out.append(spec)
    return out


def _won(spec: HandSpec) -> tuple[int, str]:
    """The first wager the table recorded as won: the one mispaid (a win stays a win)."""
    return next((s, spot) for s, spot, outcome, _a in spec.payouts if outcome == "win")


def disputed_seat(spec: HandSpec) -> int:
    return _won(spec)[0]


def events(start: str = "2026-11-29T21:00:00") -> list[dict[str, Any]]:
    table = Table("T1", start=start)
    table.open(currency="USD")
    hands = specs()
    for spec in hands:
        table.hand(spec)
    for spec in hands:
        seat = disputed_seat(spec)
        table.emit("DisputeOpened", {"seat": seat, "claim": CLAIM[spec.hand_id]}, spec.hand_id)
        if spec.hand_id in ADJUST:
            table.emit("DisputeResolved", {"seat": seat, "resolution": "reviewed",
                                           "adjustment": ADJUST[spec.hand_id]}, spec.hand_id)
    return table.events


def write(path: Path, start: str = "2026-11-29T21:00:00") -> Path:
    path.write_bytes(b"\n".join(encode_lines(events(start))) + b"\n")
    return path


def dealer_of(hand_id: str) -> str:
    return next(s.dealer_id for s in specs() if s.hand_id == hand_id)


OWED = {"T1-A": SHORT, "T1-B": SHORT, "T1-C": 0, "T1-D": -OVER}
