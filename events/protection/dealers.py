"""Dealers assessed: a dealer who flashes his hidden cards, flagged where the informed
decisions of the players at his tables concentrate on his hands, against the same players'
decisions with other dealers: not merely because hole-carders sat at his tables.

**The flag.** Each seat-hand carries, per version (both dealer cards, the first, the
second), its sign statistic over every street (``scoring``: the hand's right decisions with
the hidden card(s) known, minus their mean over null holdings). For a player who sat at
least ``DEALER_MIN_HANDS`` hands with a dealer and as many with others, the contrast

    t = (mean at the dealer - mean with the others) / sqrt(s1^2 / n1 + s2^2 / n2)

(Welch's t: s^2 the samples' own variances) compares the player with himself. Dealers
take their shifts whatever the cards, so when the player plays alike with every dealer
(honest, or seeing the cards with everyone) the two means estimate the same figure and
``t`` follows Student's law, whatever the player sees; the contrast ``c`` is the normal
score of the same tail. A dealer who flashes makes the player's decisions informed on his
hands only. The dealer's **score** is the strongest contrast over the players tested and the three
versions, adjusted by the union bound; he is **flagged** (pattern ``flashes``) from the
players' threshold, 3.72: at most 1 false alarm in 10,000 dealers who do not flash.

**A note, not a flag.** Every seat-hand's gain ``g`` (``scoring``) has conditional mean 0
under honest play, so the sum of a hand's gains over its seats, ``G``, has mean 0 too when
nobody at the hand used the hidden cards; over a dealer's hands (independent deals) the
self-normalized sum z = sum(G) / sqrt(sum(G^2)) is about N(0, 1). With each player's own
score at the dealer, the strongest adjusted by the union bound is ``hosts_score``: when it
reaches the threshold the dealer's hands **host** hole-card play (``note``
``hosts-hole-carders``), which says where to look, not that the dealer did anything: a
player who sees the cards with every dealer raises every one of their scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from events.protection.assess import (
    DEALER_MIN_HANDS,
    MIN_HANDS,
    THRESHOLD,
    adjusted_score,
    model_z,
)
from events.protection.hands import SeatHands
from events.protection.scoring import Gains
from events.protection.tally import VERSIONS, DealerSums, PairSums, Tally

NAMES = ("both", "first", "second")
EVERY_STREET = 3 * 3  # the sign tests' column of every street together (``scoring``)
CONTRASTS = VERSIONS  # tests per player at a dealer: the three versions' sign tests
TOP_PLAYERS = 3  # the players named, the strongest contrast first
HOSTS = "hosts-hole-carders"  # the note of a dealer whose hands host hole-card play


@dataclass(frozen=True)
class DealerAlert:
    """One dealer's assessment (``uth protect --dealers``)."""

    dealer_id: str
    tables: tuple[str, ...]
    hands: int
    seat_hands: int
    score: float  # the strongest contrast, adjusted: the flag's
    z: tuple[float, float, float]  # everyone at the dealer's hands: both, first, second
    contrast: float  # the strongest player's contrast (his hands here against elsewhere)
    flagged: bool
    pattern: str | None  # flashes, or None
    gain: float  # antes, in the strongest contrast's version, all players
    evidence: tuple[str, ...]  # hands with the largest summed gain
    players: tuple[tuple[str, float], ...]  # the players whose contrast is strongest
    hosts_score: float = 0.0  # everyone's gain at the dealer's hands, adjusted (a note)
    note: str | None = None  # hosts-hole-carders when hosts_score reaches the threshold

    def to_json(self) -> dict[str, object]:
        return {"dealer_id": self.dealer_id, "tables": list(self.tables),
                "hands": self.hands, "seat_hands": self.seat_hands,
                "score": round(self.score, 3),
                "z": {n: round(z, 3) for n, z in zip(NAMES, self.z, strict=True)},
                "contrast": round(self.contrast, 3), "flagged": self.flagged,
                "pattern": self.pattern, "gain_antes": round(self.gain, 2),
                "evidence": list(self.evidence),
                "players": [{"player": p, "gain_antes": round(g, 2)} for p, g in self.players],
                "hosts_score": round(self.hosts_score, 3), "note": self.note}


def _self_normalized(total: float, squares: float) -> float:
    return total / math.sqrt(squares) if squares > 0 else 0.0


def _contrast(s1: float, q1: float, n1: int, s2: float, q2: float, n2: int) -> float:
    """Welch's t of (mean 1 - mean 2), from each sample's sum, sum of squares and count,
    as the standard normal score of the same tail: Wallace's approximation
    z = sqrt(df ln(1 + t^2 / df)) (8 df + 1) / (8 df + 3), with the Welch-Satterthwaite
    degrees of freedom (so that a short shift's few hands do not pass a Student tail off
    as a normal one)."""
    if n1 < 2 or n2 < 2:
        return 0.0
    v1 = max(q1 - s1 * s1 / n1, 0.0) / (n1 - 1) / n1  # the variance of each mean
    v2 = max(q2 - s2 * s2 / n2, 0.0) / (n2 - 1) / n2
    if v1 + v2 <= 0:
        return 0.0
    t = (s1 / n1 - s2 / n2) / math.sqrt(v1 + v2)
    df = (v1 + v2) ** 2 / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1))
    z = math.sqrt(df * math.log1p(t * t / df)) * (8 * df + 1) / (8 * df + 3)
    return math.copysign(z, t)


def player_contrast(here: PairSums, every: PairSums, version: int) -> float:
    """The player's sign statistic over every street, in ``version``, on one dealer's hands
    (``here``) against his hands with the other dealers (``every`` minus ``here``)."""
    k = EVERY_STREET + version
    return _contrast(here.sign[k], here.squares[VERSIONS + k], here.n,
                     every.sign[k] - here.sign[k],
                     every.squares[VERSIONS + k] - here.squares[VERSIONS + k],
                     every.n - here.n)


def assess_dealers(sh: SeatHands, gains: Gains, players: list[str],
                   min_hands: int = MIN_HANDS, threshold: float = THRESHOLD
                   ) -> list[DealerAlert]:
    """Every dealer of these seat-hands with at least ``min_hands`` hands (see
    :func:`dealer_alerts`)."""
    return dealer_alerts(Tally.of(sh, gains, players), min_hands, threshold)


def _hosts(sums: DealerSums, sat: list[tuple[str, PairSums]]
           ) -> tuple[float, int, list[float]]:
    """The note's score: everyone at the dealer's hands, and each player with enough of
    them, by their gains (adjusted), with its version and the three all-player scores."""
    hands = sums.hands
    zs = [_self_normalized(hands.total[v], hands.squares[v]) for v in range(VERSIONS)]
    best_z, best_v = max(zs), zs.index(max(zs))
    tested = [pair for _, pair in sat if pair.n >= DEALER_MIN_HANDS]
    for pair in tested:
        for v in range(VERSIONS):
            z = model_z(pair.gain[v], pair.var[v])
            if z > best_z:
                best_z, best_v = z, v
    return adjusted_score(best_z, VERSIONS * (1 + len(tested))), best_v, zs


def dealer_alerts(tally: Tally, min_hands: int = MIN_HANDS, threshold: float = THRESHOLD
                  ) -> list[DealerAlert]:
    """Every dealer with at least ``min_hands`` hands, strongest score first."""
    sat: dict[str, list[tuple[str, PairSums]]] = {}  # dealer -> (player, their seat-hands)
    totals = {player: sums.total() for player, sums in tally.players.items()}
    for player, player_sums in sorted(tally.players.items()):
        for d, pair in player_sums.dealers.items():
            sat.setdefault(d, []).append((player, pair))
    out = []
    for d, sums in sorted(tally.dealers.items()):
        if sums.hands.n < min_hands:
            continue
        hosts, hosts_v, zs = _hosts(sums, sat[d])
        # each player with enough hands here and elsewhere: here against elsewhere
        contrasts = sorted(
            ((player_contrast(pair, totals[p], v), v, p) for p, pair in sat[d]
             if pair.n >= DEALER_MIN_HANDS and totals[p].n - pair.n >= DEALER_MIN_HANDS
             for v in range(CONTRASTS)), key=lambda t: (-t[0], t[2], t[1]))
        tested = len(contrasts) // CONTRASTS
        best, version = (contrasts[0][0], contrasts[0][1]) if contrasts else (0.0, hosts_v)
        score = adjusted_score(best, CONTRASTS * tested) if tested else 0.0
        flagged = score >= threshold
        named: list[tuple[str, float]] = []
        for _, _, p in contrasts:
            if p not in {q for q, _ in named}:
                named.append((p, next(pair for q, pair in sat[d] if q == p).gain[version]))
        out.append(DealerAlert(
            dealer_id=d, tables=tuple(sorted(sums.at_table)), hands=sums.hands.n,
            seat_hands=sums.seat_hands, score=score, z=(zs[0], zs[1], zs[2]),
            contrast=best, flagged=flagged, pattern="flashes" if flagged else None,
            gain=sums.hands.total[version],
            evidence=tuple(hand for _, _, hand in sums.top[version]),
            players=tuple(named[:TOP_PLAYERS]), hosts_score=hosts,
            note=HOSTS if hosts >= threshold else None))
    out.sort(key=lambda a: (-a.score, -a.hosts_score, a.dealer_id))
    return out
