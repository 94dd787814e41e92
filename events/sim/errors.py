"""What goes wrong on the simulated floor: dealer mispays, voided hands, disputes.

Mispays are the realistic dealer errors of issue 4, each injected only where it changes the
amount recorded, so every injected error is a real difference an auditor must find:

==============================  =====  ============================================
kind                            spot   situation (recorded instead of expected)
==============================  =====  ============================================
``blind_paid_below_straight``   blind  player won with less than a straight: paid 1:1
``blind_3to2_paid_1to1``        blind  player won with a flush: paid 1:1, not 3:2
``ante_taken_not_qualified``    ante   dealer did not qualify, player lost: ante taken
``trips_paid_wrong_table``      trips  trips win paid by another ruleset's table
``losing_play_pushed``          play   play wager lost: pushed
==============================  =====  ============================================

``--mispay-rate P`` is the chance that a wager settled in one of those situations is
mispaid, scaled per dealer by a carelessness factor of mean 1 (some dealers err more).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from events.game.rulesets import Ruleset, known_rulesets, load_ruleset
from events.game.settlement import LOSE, PUSH, SPOTS, WIN
from events.sim.format import json_bytes

ANTE, BLIND, PLAY, TRIPS = range(4)
MISPAY_KINDS = (
    "ante_taken_not_qualified", "blind_paid_below_straight", "blind_3to2_paid_1to1",
    "losing_play_pushed", "trips_paid_wrong_table",
)
(ANTE_TAKEN, BLIND_BELOW_STRAIGHT, BLIND_3TO2, PLAY_PUSHED, TRIPS_WRONG) = range(5)

VOID_REASONS_LIVE = (
    "Card reader malfunction: a card could not be read; all pays and play void.",
    "A card was exposed during the deal; misdeal, all pays and play void.",
    "Shuffler jammed during the round; misdeal, all pays and play void.",
    "Wrong number of cards dealt; misdeal, all pays and play void.",
)
VOID_REASONS_ONLINE = (
    "Malfunction voids all pays and play: the video stream was interrupted.",
    "Malfunction voids all pays and play: card recognition failed.",
)
GENERIC_CLAIMS = (
    "Player says the dealer misread the hands.",
    "Player says their hand beat the dealer's.",
    "Player says the dealer's hand did not qualify.",
    "Player says the trips bet was not paid in full.",
    "Player says they raised and did not fold.",
)
KIND_CLAIMS = {
    ANTE_TAKEN: "Player says the dealer did not qualify, so the ante should have pushed.",
    BLIND_3TO2: "Player says the blind on a flush pays 3 to 2, not even money.",
    TRIPS_WRONG: "Player says the trips bet was paid at the wrong odds.",
}

MINUTE = 60_000
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class WrongTable:
    """Per category, what another ruleset's trips table pays when it differs (0: same)."""

    odds: tuple[int, ...]
    names: tuple[str, ...]


def wrong_trips_table(ruleset: Ruleset) -> WrongTable:
    """The first other known ruleset (by name) whose trips odds differ, per category."""
    odds, names = [0] * 10, [""] * 10
    for name in known_rulesets():
        other = load_ruleset(name)
        if other.name == ruleset.name:
            continue
        for cat in range(3, 10):
            theirs = other.trips_table.get(cat, 0)
            if not odds[cat] and theirs and theirs != ruleset.trips_table.get(cat, 0):
                odds[cat], names[cat] = theirs, other.name
    return WrongTable(tuple(odds), tuple(names))


@dataclass(frozen=True)
class Mispays:
    """Recorded results after injecting errors; ``kind`` (N, 4) is -1 where paid right."""

    codes: npt.NDArray[np.int8]  # (N, 4) outcome codes recorded (settlement codes)
    amounts: IntArray  # (N, 4) amounts recorded
    kind: npt.NDArray[np.int8]


def inject_mispays(
    rng: np.random.Generator,
    prob: npt.NDArray[np.float64],
    ruleset: Ruleset,
    wrong: WrongTable,
    ante: IntArray,
    play: IntArray,
    trips: IntArray,
    settled: BoolArray,
    folded: BoolArray,
    ps: IntArray,
    pc: IntArray,
    ds: IntArray,
    dc: IntArray,
    codes: npt.NDArray[np.int8],
    amounts: IntArray,
) -> Mispays:
    """Mispay each eligible wager of N cells with probability ``prob`` (per cell).

    ``codes``/``amounts`` (N, 4) are the correct settlement (ante, blind, play, trips)."""
    n = len(ante)
    u = rng.random((n, 4))
    hit = u < prob[:, None]
    codes, amounts = codes.copy(), amounts.copy()
    kind = np.full((n, 4), -1, dtype=np.int8)
    live = settled & ~folded
    won, lost = live & (ps > ds), live & (ps < ds)
    flush_odds = ruleset.blind_odds(5)

    def apply(mask: BoolArray, spot: int, k: int, code: int, amount: IntArray) -> None:
        m = mask & hit[:, spot]
        codes[m, spot] = code
        amounts[m, spot] = amount[m]
        kind[m, spot] = k

    zero = np.zeros(n, dtype=np.int64)
    apply(lost & (dc == 0), ANTE, ANTE_TAKEN, LOSE, -ante)
    apply(won & (pc < 4), BLIND, BLIND_BELOW_STRAIGHT, WIN, ante)
    if flush_odds == Fraction(3, 2):
        apply(won & (pc == 5) & (ante * 3 // 2 != ante), BLIND, BLIND_3TO2, WIN, ante)
    apply(lost & (play > 0), PLAY, PLAY_PUSHED, PUSH, zero)
    wrong_odds = np.asarray(wrong.odds, dtype=np.int64)[pc]
    apply(settled & (trips > 0) & (wrong_odds > 0), TRIPS, TRIPS_WRONG, WIN, trips * wrong_odds)
    return Mispays(codes, amounts, kind)


def mispay_detail(kind: int, spot: int, ruleset: Ruleset, wrong: WrongTable, cat: int) -> str:
    """A sentence for the ground-truth file."""
    if kind == TRIPS_WRONG:
        return (f"trips paid {wrong.odds[cat]}:1 from the {wrong.names[cat]} table instead of "
                f"{ruleset.trips_odds(cat)}:1")
    return {
        ANTE_TAKEN: "ante taken although the dealer did not qualify (should push)",
        BLIND_BELOW_STRAIGHT: "blind paid 1:1 on a win below a straight (should push)",
        BLIND_3TO2: "blind on a flush paid 1:1 instead of 3:2",
        PLAY_PUSHED: "losing play wager pushed instead of taken",
    }[kind]


Pending = tuple[int, int, str, bytes, bytes]  # due (ms), order, type, hand_id JSON, payload


def new_disputes(rng: np.random.Generator, rate: float, settled: BoolArray, ends: IntArray,
                 hand_json: list[bytes], index: IntArray, cell_j: IntArray,
                 kind: npt.NDArray[np.int8], expected: IntArray, recorded: IntArray,
                 order: int) -> list[Pending]:
    """Disputes of settled hands (each with probability ``rate``), opened 2 to 30 minutes
    after the hand ends and resolved 3 to 20 minutes later. The disputing seat is one the
    dealer underpaid when there is one; the resolution's adjustment is the seat's net
    correction (expected - recorded). ``order`` numbers them after earlier ones."""
    out: list[Pending] = []
    picked = np.flatnonzero(settled & (rng.random(len(ends)) < rate))
    for r in picked.tolist():
        cells = index[r][index[r] >= 0]
        under = [c for c in cells.tolist() if (recorded[c] < expected[c]).any()]
        cell = int(rng.choice(under) if under else rng.choice(cells))
        seat = int(cell_j[cell]) + 1
        adjust = int((expected[cell] - recorded[cell]).sum())  # the net correction
        claims = [KIND_CLAIMS[k] for s, k in enumerate(kind[cell].tolist())
                  if k in KIND_CLAIMS and recorded[cell, s] < expected[cell, s]]
        pick = int(rng.integers(len(GENERIC_CLAIMS)))
        claim = claims[0] if claims else GENERIC_CLAIMS[pick]
        if adjust > 0:
            resolution = (f"Surveillance replay confirms an underpayment of "
                          f"{adjust / 100:.2f}; the difference was paid to the player.")
        elif adjust < 0:
            resolution = (f"Surveillance replay shows the seat was overpaid by "
                          f"{-adjust / 100:.2f}; the overpayment was taken back.")
        else:
            resolution = "Surveillance replay confirms the settlement; no adjustment."
        opened = int(ends[r]) + int(rng.integers(2, 31)) * MINUTE
        resolved = opened + int(rng.integers(3, 21)) * MINUTE
        out.append((opened, order + len(out), "DisputeOpened", hand_json[r],
                    b'{"seat":%d,"claim":%s}' % (seat, json_bytes(claim))))
        out.append((resolved, order + len(out), "DisputeResolved", hand_json[r],
                    b'{"seat":%d,"resolution":%s,"adjustment":%d}'
                    % (seat, json_bytes(resolution), adjust)))
    return out


def truth_rows(table_id: str, dealers: tuple[str, ...], ruleset: Ruleset, wrong: WrongTable,
               kind: npt.NDArray[np.int8], recorded: IntArray, expected: IntArray,
               cell_r: IntArray, cell_j: IntArray, pc: IntArray, dealer_row: IntArray,
               first_hand: int) -> list[dict[str, Any]]:
    """The ground-truth rows of the injected mispays (``hand_no`` numbers the hand)."""
    out = []
    for c, s in zip(*np.nonzero(kind >= 0), strict=True):
        r = int(cell_r[c])
        out.append({
            "hand_id": f"{table_id}-{first_hand + r:06d}",
            "table_id": table_id,
            "dealer_id": dealers[int(dealer_row[r])],
            "seat": int(cell_j[c]) + 1,
            "spot": SPOTS[s],
            "kind": MISPAY_KINDS[int(kind[c, s])],
            "expected": int(expected[c, s]),
            "recorded": int(recorded[c, s]),
            "detail": mispay_detail(int(kind[c, s]), int(s), ruleset, wrong,
                                    int(pc[c])),
            "hand_no": first_hand + r,
        })
    return out
