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
from statistics import NormalDist

from events.protection.assess import (
    DEALER_MIN_HANDS,
    MIN_HANDS,
    THRESHOLD,
    adjusted_score,
    model_z,
)
from events.protection.hands import SeatHands
from events.protection.scoring import Gains
from events.protection.tally import VERSIONS, PairSums, Tally

NAMES = ("both", "first", "second")
# a flagged dealer "flashes" when the gain there beats elsewhere by the contrast's one-sided
# threshold at this family-wise rate over the dealers assessed (Bonferroni): with 24
# dealers, 2.86
CONTRAST_ALPHA = 0.05
TOP_PLAYERS = 3  # the players named, most gain at the dealer's hands first


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


def contrast_threshold(dealers: int) -> float:
    """The contrast a flagged dealer's gain must reach to be called his (``flashes``):
    one-sided, ``CONTRAST_ALPHA`` over ``dealers`` dealers."""
    return -NormalDist().inv_cdf(CONTRAST_ALPHA / max(dealers, 1))


def _self_normalized(total: float, squares: float) -> float:
    return total / math.sqrt(squares) if squares > 0 else 0.0


def _contrast(s1: float, q1: float, n1: int, s2: float, q2: float, n2: int) -> float:
    """(mean 1 - mean 2) standardized by the two samples' own second moments."""
    if n1 == 0 or n2 == 0:
        return 0.0
    var = q1 / (n1 * n1) + q2 / (n2 * n2)
    return (s1 / n1 - s2 / n2) / math.sqrt(var) if var > 0 else 0.0


def assess_dealers(sh: SeatHands, gains: Gains, players: list[str],
                   min_hands: int = MIN_HANDS, threshold: float = THRESHOLD
                   ) -> list[DealerAlert]:
    """Every dealer of these seat-hands with at least ``min_hands`` hands (see
    :func:`dealer_alerts`)."""
    return dealer_alerts(Tally.of(sh, gains, players), min_hands, threshold)


def dealer_alerts(tally: Tally, min_hands: int = MIN_HANDS, threshold: float = THRESHOLD
                  ) -> list[DealerAlert]:
    """Every dealer with at least ``min_hands`` hands, strongest score first."""
    sat: dict[str, list[tuple[str, PairSums]]] = {}  # dealer -> (player, their seat-hands)
    for player, player_sums in tally.players.items():
        for d, pair in player_sums.dealers.items():
            sat.setdefault(d, []).append((player, pair))
    out = []
    assessed = sum(1 for sums in tally.dealers.values() if sums.hands.n >= min_hands)
    contrast_line = contrast_threshold(assessed)
    for d, sums in sorted(tally.dealers.items()):
        hands = sums.hands
        if hands.n < min_hands:
            continue
        zs = [_self_normalized(hands.total[v], hands.squares[v]) for v in range(VERSIONS)]
        tables = sorted(sums.at_table)
        # the tests: everyone at the dealer's hands, then each player with enough of them
        best_z, best_v, best_player = max(zs), zs.index(max(zs)), None
        tested = sorted(((p, pair) for p, pair in sat[d] if pair.n >= DEALER_MIN_HANDS),
                        key=lambda t: t[0])
        for p, pair in tested:
            for v in range(VERSIONS):
                z = model_z(pair.gain[v], pair.var[v])
                if z > best_z:
                    best_z, best_v, best_player = z, v, p
        score = adjusted_score(best_z, VERSIONS * (1 + len(tested)))
        if best_player is None:  # everyone's gain here against the tables' other dealers
            others = [tally.tables[t].minus(sums.at_table[t]) for t in tables]
            contrast = _contrast(hands.total[best_v], hands.squares[best_v], hands.n,
                                 sum(o.total[best_v] for o in others),
                                 sum(o.squares[best_v] for o in others),
                                 sum(o.n for o in others))
        else:  # the player's gain here against their gain with the other dealers
            here = tally.players[best_player].dealers[d]
            every = tally.players[best_player].total()
            contrast = _contrast(here.gain[best_v], here.var[best_v], here.n,
                                 every.gain[best_v] - here.gain[best_v],
                                 every.var[best_v] - here.var[best_v], every.n - here.n)
        flagged = score >= threshold
        pattern = None
        if flagged:
            pattern = "flashes" if contrast >= contrast_line else "hosts-hole-carders"
        gains_there = sorted(((p, pair.gain[best_v]) for p, pair in sat[d]),
                             key=lambda kv: (-kv[1], kv[0]))
        out.append(DealerAlert(
            dealer_id=d, tables=tuple(tables), hands=hands.n, seat_hands=sums.seat_hands,
            score=score, z=(zs[0], zs[1], zs[2]), contrast=contrast, flagged=flagged,
            pattern=pattern, gain=hands.total[best_v],
            evidence=tuple(hand for _, _, hand in sums.top[best_v]),
            players=tuple(gains_there[:TOP_PLAYERS])))
    out.sort(key=lambda a: (-a.score, a.dealer_id))
    return out
