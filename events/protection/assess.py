"""Players assessed: per-player scores from the seat-hands' gains, flags, the pattern the
decisions match, the strongest hands as evidence, and the dealers alerts concentrate on.

A player is the pseudonym of ``player_ref`` when the table sends one, otherwise a *seat
session*: the same seat at one table over consecutive hands of that table, ended by a hand
the seat sits out. A player's score in each version (both dealer cards, the first, the
second) is the standardized sum of the gains of their seat-hands,

    z = sum(g) / sqrt(sum(var)),

about N(0, 1) for any honest player (``scoring``), over all their hands and over the hands
of each dealer they sat with (a hole-carder who sees only when one dealer flashes). The
player's score is the largest of those k scores adjusted by the union bound,
Phi^-1(1 - k (1 - Phi(z_max))), and the player is flagged when it reaches ``THRESHOLD``
(3.72): a one-sided false-alarm rate of at most 1e-4 per honest player, whatever k
(docs/game-protection.md states the rate measured on honest floors).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from events.protection.draws import KeyedDraws, seat_hand_keys
from events.protection.hands import SeatHands
from events.protection.scoring import SIGN_TESTS, Decisions, Gains, score
from events.protection.tally import VERSIONS, PairSums, SlipSums, Tally, first_most

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
_NORMAL = NormalDist()
FALSE_ALARM_RATE = 1e-4  # per honest player assessed
THRESHOLD = -_NORMAL.inv_cdf(FALSE_ALARM_RATE)  # 3.719 on the adjusted score
MIN_HANDS = 50
DEALER_MIN_HANDS = 30  # a dealer's hands tested on their own from this many
# a longer pause between a seat's hands ends its seat session (the analytics' table and
# dealer sessions end at the same 30 minutes: pipeline.analytics.common)
SESSION_GAP_MS = 30 * 60 * 1000


def false_alarm_bound(threshold: float = THRESHOLD) -> float:
    """An honest player's chance of a flag is at most 1 - Phi(threshold) (the union bound
    over every score tested, which the adjusted score already carries)."""
    return 0.5 * math.erfc(threshold / math.sqrt(2.0))


@dataclass(frozen=True)
class DealerShare:
    dealer_id: str
    hands: int
    gain: float  # antes, in the player's pattern
    z: float


@dataclass(frozen=True)
class Assessment:
    """One player's assessment (the ``uth protect --json`` object)."""

    player: str
    table_id: str
    seats: tuple[int, ...]
    hands: int
    decisions: int
    score: float
    z_both: float
    z_one: float
    flagged: bool
    pattern: str | None
    evidence: tuple[str, ...]
    dealers: tuple[DealerShare, ...]
    gain: float  # antes gained from the hidden cards, in the pattern's version
    only_with_dealer: str | None = None  # the evidence is that dealer's hands only
    # the test that scored highest: "value" (the gains' sum), "sign <street>" (the sign
    # test of that street's informative decisions) or "sign all" (every street's, counted
    # per hand); the streets whose sign test in the
    # pattern's version reaches 2 in the strongest group
    test: str = "value"
    streets: tuple[str, ...] = ()
    z_sign: float = 0.0  # the largest of the nine sign tests over all the player's hands
    # the sequential test: the gaming day the evidence over the player's whole history
    # first crossed the line (``crossing_day``), or None
    crossed_on: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"player": self.player, "table_id": self.table_id, "seats": list(self.seats),
                "hands": self.hands, "decisions": self.decisions, "score": round(self.score, 3),
                "z_both": round(self.z_both, 3), "z_one": round(self.z_one, 3),
                "flagged": self.flagged, "pattern": self.pattern,
                "evidence": list(self.evidence), "gain_antes": round(self.gain, 2),
                "only_with_dealer": self.only_with_dealer, "test": self.test,
                "streets": list(self.streets), "z_sign": round(self.z_sign, 3),
                "crossed_on": self.crossed_on,
                "dealers": [{"dealer_id": d.dealer_id, "hands": d.hands,
                             "gain_antes": round(d.gain, 2), "z": round(d.z, 3)}
                            for d in self.dealers]}


Sessions = dict[tuple[str, int], tuple[int, str, int]]  # (table, seat): its last hand's
# (ordinal, session name, end)


def player_keys(sh: SeatHands, sessions: Sessions | None = None) -> list[str]:
    """The player of each seat-hand: its pseudonym, or its seat session's name (a session
    ends with a hand the seat sits out, or a pause of more than ``SESSION_GAP_MS`` between
    the seat's hands: a table closed overnight does not join two evenings' players).
    ``sessions`` carries the seats' sessions from one slice of seat-hands to the next."""
    keys: list[str] = [""] * len(sh)
    last: Sessions = {} if sessions is None else sessions
    for i in np.lexsort((sh.ordinal, sh.seat)).tolist():
        ref = sh.player_ref[i]
        if ref is not None:
            keys[i] = ref
            continue
        where = (sh.table_id[i], int(sh.seat[i]))
        prev = last.get(where)
        ordinal = int(sh.ordinal[i])
        if (prev is not None and prev[0] == ordinal - 1
                and int(sh.started_ms[i]) - prev[2] <= SESSION_GAP_MS):
            name = prev[1]
        else:
            name = f"{where[0]}/seat-{where[1]}/{sh.hand_id[i]}"
        keys[i] = name
        last[where] = (ordinal, name, int(sh.ended_ms[i]))
    return keys


def keyed_draws(sh: SeatHands, seed: int) -> KeyedDraws:
    """The draws of each seat-hand, seeded by its table, hand and seat (``draws``)."""
    return KeyedDraws(seat_hand_keys(sh.table_id, sh.hand_id, sh.seat.tolist(), seed))


def gains_of(sh: SeatHands, rng: np.random.Generator | int) -> Gains:
    """The gains of every seat-hand whose cards are known (zero, var 0, for the others).
    ``rng``: a seed (each seat-hand's draws its own: a gain does not depend on the
    seat-hands scored with it), or one generator for all."""
    known = np.flatnonzero(sh.cards_known)
    where = np.full(len(sh), -1, dtype=np.int64)
    where[known] = np.arange(len(known))
    dec = Decisions(where[sh.dec_hand], sh.dec_street, sh.dec_multiple)
    draws = keyed_draws(sh, rng).rows(known) if isinstance(rng, int) else rng
    part = score(draws, sh.hole[known], sh.board[known], sh.dealer[known], dec)

    def spread(values: FloatArray) -> FloatArray:
        out = np.zeros(len(sh))
        out[known] = values
        return out

    def spread2(values: FloatArray | None) -> FloatArray:
        out = np.zeros((len(sh), SIGN_TESTS))
        if values is not None:
            out[known] = values
        return out

    return Gains(spread(part.both), spread(part.var_both), spread(part.one_a),
                 spread(part.one_b), spread(part.var_one), part.legal_value,
                 part.legal_max, spread2(part.signs), spread2(part.sign_var))


def model_z(gain: float, var: float) -> float:
    """A sum of gains standardized by the sum of their null variances."""
    return gain / math.sqrt(var) if var > 0 else 0.0


def _versions(p: PairSums) -> tuple[float, float, float]:
    return (model_z(p.gain[0], p.var[0]), model_z(p.gain[1], p.var[1]),
            model_z(p.gain[2], p.var[2]))


STREETS = ("preflop", "flop", "river")
SIGN_NAMES = (*STREETS, "all")  # the sign tests' streets, then every street together
TESTS = VERSIONS + SIGN_TESTS  # per group of hands: three value tests, twelve sign tests
STREET_MARK = 2.0  # a street is named in an alert when its sign test reaches this


def tests_of(p: PairSums) -> list[tuple[float, int, int | None]]:
    """Every test of a group of seat-hands: (z, version, street or None for the value
    test), the value tests first."""
    out: list[tuple[float, int, int | None]] = [(z, v, None) for v, z in
                                                enumerate(_versions(p))]
    out += [(model_z(p.sign[k], p.sign_var[k]), k % 3, k // 3) for k in range(SIGN_TESTS)]
    return out


DEALER_TESTS = 2 * VERSIONS  # per dealer's group: the value tests, the every-street signs


def dealer_tests(p: PairSums) -> list[tuple[float, int, int | None]]:
    """The tests of one dealer's hands with a player: the value tests and the sign tests of
    every street together (a dealer who flashes shows his cards for the whole hand; the
    fewer tests, the lower the bar each must reach)."""
    return [t for t in tests_of(p) if t[2] is None or t[2] == len(STREETS)]


def _streets(p: PairSums, version: int) -> tuple[str, ...]:
    return tuple(STREETS[s] for s in range(3)
                 if model_z(p.sign[3 * s + version], p.sign_var[3 * s + version]) >= STREET_MARK)


SPENDING = math.pi ** 2 / 6  # sum of 1/t^2: the t-th look gets alpha / (SPENDING t^2)


def crossing_day(days: list[tuple[str, SlipSums]], threshold: float = THRESHOLD
                 ) -> str | None:
    """The sequential test over a player's whole history: after each gaming day they
    played (the t-th), the fifteen tests of all their hands so far, adjusted for fifteen
    tests and a false-alarm share alpha / (SPENDING t^2) of that look (the shares add up
    to alpha over any number of days: an honest player crosses, ever, with probability at
    most 1e-4). The first day the line is crossed, or None."""
    totals = [0.0] * TESTS
    var = [0.0] * TESTS
    for t, (day, slip) in enumerate(sorted(days, key=lambda d: d[0]), start=1):
        for k in range(TESTS):
            totals[k] += slip.stats[k]
            var[k] += slip.stat_var[k]
        z = max(model_z(totals[k], var[k]) for k in range(TESTS))
        if adjusted_score(z, TESTS * SPENDING * t * t) >= threshold:
            return day
    return None


def adjusted_score(z_max: float, tests: float) -> float:
    """The largest of ``tests`` standard normal scores as one: Phi^-1(1 - p) for the
    union-bound p = tests (1 - Phi(z_max)), at least 0."""
    z = min(z_max, 37.0)  # erfc underflows past 38; a score that high is a flag anyway
    p = tests * 0.5 * math.erfc(z / math.sqrt(2.0))
    return 0.0 if p >= 0.5 else -_NORMAL.inv_cdf(p)


def assess(sh: SeatHands, gains: Gains, keys: list[str], min_hands: int = MIN_HANDS,
           threshold: float = THRESHOLD) -> list[Assessment]:
    """Every player of these seat-hands with at least ``min_hands`` of them (see
    :func:`assess_players`)."""
    return assess_players(Tally.of(sh, gains, keys), min_hands, threshold)


def assess_players(tally: Tally, min_hands: int = MIN_HANDS, threshold: float = THRESHOLD
                   ) -> list[Assessment]:
    """Every player with at least ``min_hands`` seat-hands, strongest score first.

    A player's scores are tested over all their hands and over the hands of each dealer
    they sat with for at least ``DEALER_MIN_HANDS`` (a hole-carder who sees only when one
    dealer deals), the former by the three value tests and the twelve sign tests
    (``tests_of``), the latter by the value tests and the every-street sign tests
    (``dealer_tests``);
    the score is the strongest, adjusted for how many were tested (weighted Bonferroni:
    half the rate to the tests over all hands, half to the dealers' groups). The
    pattern is the version strongest over the hands of that test; the evidence, that
    test's hands with the largest gain in the pattern's version for its variance."""
    out = []
    days: dict[str, list[tuple[str, SlipSums]]] = {}
    for (who, day), slip in tally.slips.items():
        days.setdefault(who, []).append((day, slip))
    for player, sums in tally.players.items():
        every = sums.total()
        if every.n < min_hands:
            continue
        groups: list[tuple[str | None, PairSums]] = [(None, every)]
        if len(sums.dealers) > 1:
            groups += [(d, p) for d, p in sorted(sums.dealers.items())
                       if p.n >= DEALER_MIN_HANDS]
        scored = [(*max(tests_of(p) if d is None else dealer_tests(p), key=lambda t: t[0]),
                   d, p) for d, p in groups]
        # weighted Bonferroni: half the false-alarm rate to the tests over all the
        # player's hands, half shared by the dealers' groups (all of it when none)
        weights = [TESTS * (2 if len(groups) > 1 else 1)] + [
            DEALER_TESTS * 2 * (len(groups) - 1)] * (len(groups) - 1)
        score, _, version, street, only, best = max(
            ((adjusted_score(t[0], w), *t) for t, w in zip(scored, weights, strict=True)),
            key=lambda t: (t[0], t[1], t[4] is None))
        flagged = score >= threshold
        if street is None:  # the value test: both cards when that version is the stronger
            z_both, z_a, z_b = _versions(best)
            version = 0 if z_both >= max(z_a, z_b) else (1 if z_a >= z_b else 2)
        pattern = "hole-card-both" if version == 0 else "hole-card-one"
        overall = _versions(every)
        shares = [DealerShare(d, p.n, p.gain[version], model_z(p.gain[version], p.var[version]))
                  for d, p in sums.dealers.items()]
        shares.sort(key=lambda s: (-s.z, s.dealer_id))
        out.append(Assessment(
            player=player,
            table_id=first_most(sums.tables),
            seats=tuple(sorted(sums.seats)),
            hands=every.n,
            decisions=sums.decisions,
            score=score, z_both=overall[0], z_one=max(overall[1:]), flagged=flagged,
            pattern=pattern if flagged else None,
            evidence=tuple(hand for _, _, hand in best.top[version]),
            dealers=tuple(shares),
            gain=every.gain[version],
            only_with_dealer=only if flagged else None,
            test="value" if street is None else f"sign {SIGN_NAMES[street]}",
            streets=_streets(best, version) if flagged else (),
            z_sign=max(z for z, _, street in tests_of(every)
                       if street is not None and street < len(STREETS)),
            crossed_on=crossing_day(days.get(player, []), threshold),
        ))
    out.sort(key=lambda a: (-a.score, a.player))
    return out


@dataclass(frozen=True)
class DealerView:
    """A dealer seen through the flagged players' hands: how many of them sat with the
    dealer, their hands and hidden-card gains there, and the strongest of their scores
    with that dealer (a dealer who flashes: the gains concentrate on them)."""

    dealer_id: str
    flagged_players: int
    hands: int
    gain: float
    max_z: float
    gain_share: float  # of the flagged players' gains
    hand_share: float  # of their hands

    def to_json(self) -> dict[str, object]:
        return {"dealer_id": self.dealer_id, "flagged_players": self.flagged_players,
                "hands": self.hands, "gain_antes": round(self.gain, 2),
                "max_z": round(self.max_z, 3), "gain_share": round(self.gain_share, 4),
                "hand_share": round(self.hand_share, 4)}


def dealer_view(assessments: list[Assessment]) -> list[DealerView]:
    """The dealers the flagged players' alerts concentrate on, most gain first. (Players
    at one hand share the dealer's cards, so their gains are not independent: the view
    adds them up but flags nothing on its own.)"""
    flagged = [a for a in assessments if a.flagged]
    hands = sum(a.hands for a in flagged)
    gain = sum(max(a.gain, 0.0) for a in flagged)
    by: dict[str, list[DealerShare]] = {}
    for a in flagged:
        for d in a.dealers:
            by.setdefault(d.dealer_id, []).append(d)
    out = [DealerView(k, len(v), sum(d.hands for d in v), sum(d.gain for d in v),
                      max(d.z for d in v), sum(d.gain for d in v) / gain if gain else 0.0,
                      sum(d.hands for d in v) / hands if hands else 0.0)
           for k, v in by.items()]
    out.sort(key=lambda d: (-d.gain, d.dealer_id))
    return out
