"""Dealers assessed: a dealer whose hands host players who gain from the dealer's hidden
cards (a dealer who flashes them), flagged on the dealer's own statistic.

Every seat-hand's gain ``g`` (``scoring``) has conditional mean 0 under honest play, so the
sum of a hand's gains over its seats, ``G``, has mean 0 too when nobody at the hand used the
hidden cards. Players at one hand share the dealer's cards, so their gains are correlated
and the sum of their null variances is not ``G``'s variance; hands, though, are independent
deals, so over a dealer's hands the self-normalized sum

    z = sum(G) / sqrt(sum(G^2))

is about N(0, 1) when no player at the dealer's hands sees the cards (its tails are no
heavier than the normal law's for symmetric G, and the test on honest floors measures it).
Three versions as for players (both cards, the first, the second); the dealer's **score**
is the strongest adjusted by the union bound over the three, and the dealer is **flagged**
from the players' threshold, 3.72: at most 1 false alarm in 10,000 dealers whose players
are honest.

A flag says the dealer's hands host hole-card play; it does not say whose fault it is. A
player who sees the cards with every dealer raises every one of their dealers' statistics.
So each dealer's gain per hand is compared with the gain per hand of the other dealers at
the same tables (``contrast``, standardized the same way): the **pattern** is ``flashes``
when the contrast also reaches the threshold (the gain is this dealer's), else
``hosts-hole-carders`` (the players gain whoever deals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from events.protection.assess import (
    DEALER_MIN_HANDS,
    EVIDENCE_HANDS,
    MIN_HANDS,
    THRESHOLD,
    VERSIONS,
    adjusted_score,
)
from events.protection.hands import SeatHands
from events.protection.scoring import Gains

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
NAMES = ("both", "first", "second")
CONTRAST = 2.0  # a flagged dealer "flashes" when the gain there beats elsewhere by this


@dataclass(frozen=True)
class DealerAlert:
    """One dealer's assessment (``uth protect --dealers``)."""

    dealer_id: str
    tables: tuple[str, ...]
    hands: int
    seat_hands: int
    score: float
    z: tuple[float, float, float]  # both, first, second
    contrast: float  # the strongest version's gain per hand against the tables' others
    flagged: bool
    pattern: str | None  # flashes, hosts-hole-carders, or None
    gain: float  # antes, in the strongest version, all players
    evidence: tuple[str, ...]  # hands with the largest summed gain
    players: tuple[tuple[str, float], ...]  # the players with the most gain there

    def to_json(self) -> dict[str, object]:
        return {"dealer_id": self.dealer_id, "tables": list(self.tables),
                "hands": self.hands, "seat_hands": self.seat_hands,
                "score": round(self.score, 3),
                "z": {n: round(z, 3) for n, z in zip(NAMES, self.z, strict=True)},
                "contrast": round(self.contrast, 3), "flagged": self.flagged,
                "pattern": self.pattern, "gain_antes": round(self.gain, 2),
                "evidence": list(self.evidence),
                "players": [{"player": p, "gain_antes": round(g, 2)} for p, g in self.players]}


def _self_normalized(total: float, squares: float) -> float:
    return total / math.sqrt(squares) if squares > 0 else 0.0


def _contrast(s1: float, q1: float, n1: int, s2: float, q2: float, n2: int) -> float:
    """(mean 1 - mean 2) standardized by the two samples' own second moments."""
    if n1 == 0 or n2 == 0:
        return 0.0
    var = q1 / (n1 * n1) + q2 / (n2 * n2)
    return (s1 / n1 - s2 / n2) / math.sqrt(var) if var > 0 else 0.0


def _model_z(g: FloatArray, v: FloatArray) -> float:
    total = float(v.sum())
    return float(g.sum()) / math.sqrt(total) if total > 0 else 0.0


def assess_dealers(sh: SeatHands, gains: Gains, players: list[str],
                   min_hands: int = MIN_HANDS, threshold: float = THRESHOLD
                   ) -> list[DealerAlert]:
    """Every dealer with at least ``min_hands`` hands, strongest score first."""
    versions = ((gains.both, gains.var_both), (gains.one_a, gains.var_one),
                (gains.one_b, gains.var_one))
    hand_of: dict[tuple[str, str], int] = {}
    seat_hand = np.empty(len(sh), dtype=np.int64)
    for i, key in enumerate(zip(sh.table_id, sh.hand_id, strict=True)):
        seat_hand[i] = hand_of.setdefault(key, len(hand_of))
    n = len(hand_of)
    per_hand = np.zeros((VERSIONS, n))
    for v, (g, _) in enumerate(versions):
        np.add.at(per_hand[v], seat_hand, g)
    hand_ids = [""] * n
    dealer = [""] * n
    table = [""] * n
    for i, h in enumerate(seat_hand.tolist()):
        hand_ids[h], dealer[h], table[h] = sh.hand_id[i], sh.dealer_id[i], sh.table_id[i]
    by_dealer: dict[str, list[int]] = {}
    by_table: dict[str, list[int]] = {}
    for h in range(n):
        by_dealer.setdefault(dealer[h], []).append(h)
        by_table.setdefault(table[h], []).append(h)
    seats_of: dict[str, dict[str, list[int]]] = {}  # dealer -> player -> seat-hands
    for i, (d, p) in enumerate(zip(sh.dealer_id, players, strict=True)):
        seats_of.setdefault(d, {}).setdefault(p, []).append(i)
    player_rows = {p: np.array(ix, dtype=np.int64) for p, ix in _by_player(players).items()}
    out = []
    for d, rows_list in sorted(by_dealer.items()):
        if len(rows_list) < min_hands:
            continue
        rows = np.array(rows_list, dtype=np.int64)
        g = per_hand[:, rows]
        zs = [_self_normalized(float(g[v].sum()), float((g[v] ** 2).sum()))
              for v in range(VERSIONS)]
        tables = sorted({table[h] for h in rows_list})
        # the tests: everyone at the dealer's hands, then each player with enough of them
        best_z, best_v, best_player = max(zs), int(np.argmax(zs)), None
        tested = [(p, np.array(ix, dtype=np.int64)) for p, ix in sorted(seats_of[d].items())
                  if len(ix) >= DEALER_MIN_HANDS]
        for p, ix in tested:
            for v, (pg, pv) in enumerate(versions):
                z = _model_z(pg[ix], pv[ix])
                if z > best_z:
                    best_z, best_v, best_player = z, v, p
        score = adjusted_score(best_z, VERSIONS * (1 + len(tested)))
        if best_player is None:  # everyone's gain here against the tables' other dealers
            others = np.array([h for t in tables for h in by_table[t] if dealer[h] != d],
                              dtype=np.int64)
            o = per_hand[best_v, others]
            gv = g[best_v]
            contrast = _contrast(float(gv.sum()), float((gv ** 2).sum()), len(rows),
                                 float(o.sum()), float((o ** 2).sum()), len(others))
        else:  # the player's gain here against their gain with the other dealers
            pg, pv = versions[best_v]
            mine = player_rows[best_player]
            here = np.array([sh.dealer_id[i] == d for i in mine.tolist()], dtype=np.bool_)
            a, b = mine[here], mine[~here]
            contrast = _contrast(float(pg[a].sum()), float(pv[a].sum()), len(a),
                                 float(pg[b].sum()), float(pv[b].sum()), len(b))
        flagged = score >= threshold
        pattern = None
        if flagged:
            pattern = "flashes" if contrast >= CONTRAST else "hosts-hole-carders"
        top = rows[np.argsort(-g[best_v], kind="stable")[:EVIDENCE_HANDS]]
        out.append(DealerAlert(
            dealer_id=d, tables=tuple(tables), hands=len(rows),
            seat_hands=sum(len(ix) for ix in seats_of[d].values()), score=score,
            z=(zs[0], zs[1], zs[2]), contrast=contrast, flagged=flagged, pattern=pattern,
            gain=float(g[best_v].sum()), evidence=tuple(hand_ids[h] for h in top.tolist()),
            players=_top_players(seats_of[d], versions[best_v][0])))
    out.sort(key=lambda a: (-a.score, a.dealer_id))
    return out


def _by_player(players: list[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, p in enumerate(players):
        out.setdefault(p, []).append(i)
    return out


def _top_players(seats: dict[str, list[int]], g: FloatArray, top: int = 3
                 ) -> tuple[tuple[str, float], ...]:
    """The players with the largest gain at the dealer's hands."""
    by = {p: float(g[ix].sum()) for p, ix in seats.items()}
    return tuple(sorted(by.items(), key=lambda kv: (-kv[1], kv[0]))[:top])
