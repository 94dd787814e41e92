"""What game protection keeps of the seat-hands it has scored: sums, never the rows.

Every figure the analysis reports is a sum over seat-hands or over hands, or one of the
few strongest hands kept as evidence: a player's score is the sum of their gains over the
root of the sum of their null variances (``assess``), a dealer's the sum of their hands'
summed gains over the root of the sum of those sums' squares (``dealers``), a rating
slip's handle, theo and win are sums (``ratings``). :class:`Tally` adds up one slice of
scored seat-hands at a time (:meth:`Tally.add`), so that the analysis of a floor holds
sums per player and dealer, per dealer and table, per player and gaming day, never a row
per seat-hand: its memory grows with the floor's players, dealers and days, not with its
hands.

A slice holds whole hands (the folder adds a hand's seat-hands when it ends). The sums are
exact, whatever the order they are added in: each seat-hand's figures are rounded to a
multiple of 2^-24 before they are added (a float sum of such numbers is exact while it
stays under 2^29), and hands of equal strength are ranked by their ids. So the same
seat-hands give the same sums in one slice or many, in any order (the warehouse adds
each load's hands to the sums it keeps). For the same reason two tallies of different
hands merge exactly (:meth:`Tally.merge`): counts and sums add, the strongest hands are
merged, and the result does not depend on the order (``uth reaudit`` sums each table's
history on its own and merges them).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from events.protection.hands import SeatHands
from events.protection.scoring import SIGN_TESTS, Gains

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
VERSIONS = 3  # both dealer cards, the first, the second
EVIDENCE_HANDS = 5  # hands kept per version as evidence
Top = list[tuple[float, int, str]]  # (-strength, 0, hand_id), strongest first
QUANTUM = 2.0 ** -24  # each seat-hand's figures are added as multiples of this: exact sums


def exact(x: FloatArray) -> FloatArray:
    """``x`` rounded to a multiple of ``QUANTUM`` (so that sums of them are exact)."""
    out: FloatArray = np.round(x / QUANTUM) * QUANTUM
    return out


def _three() -> list[float]:
    return [0.0, 0.0, 0.0]


def _tops() -> list[Top]:
    return [[], [], []]


def _signs() -> list[float]:
    return [0.0] * SIGN_TESTS


def _tests() -> list[float]:
    return [0.0] * (VERSIONS + SIGN_TESTS)


def _merge(top: Top, more: Top) -> Top:
    return sorted(top + more)[:EVIDENCE_HANDS]


@dataclass
class PairSums:
    """One player's seat-hands with one dealer: per version, the gains and null variances
    added up (the one-card versions share their variance), and the strongest seat-hands
    (gain over the root of its variance)."""

    n: int = 0
    gain: list[float] = field(default_factory=_three)
    var: list[float] = field(default_factory=_three)
    top: list[Top] = field(default_factory=_tops)
    # the sign tests of informative decisions (``scoring``), per street and version
    sign: list[float] = field(default_factory=_signs)
    sign_var: list[float] = field(default_factory=_signs)
    # per test (the three value tests, then the twelve sign tests), the sum of the
    # seat-hands' squared statistics: the spread of this player's figures with this
    # dealer as they are, whatever the player sees (``dealers``: a dealer's hands against
    # the same player's hands with other dealers)
    squares: list[float] = field(default_factory=_tests)

    def add(self, other: PairSums) -> None:
        self.n += other.n
        _add(self.gain, other.gain)
        _add(self.var, other.var)
        self.top = [_merge(a, b) for a, b in zip(self.top, other.top, strict=True)]
        _add(self.sign, other.sign)
        _add(self.sign_var, other.sign_var)
        _add(self.squares, other.squares)


def _add(into: list[float], more: list[float]) -> None:
    for k, x in enumerate(more):
        into[k] += x


@dataclass
class PlayerSums:
    dealers: dict[str, PairSums] = field(default_factory=dict)
    decisions: int = 0
    seats: set[int] = field(default_factory=set)
    tables: dict[str, int] = field(default_factory=dict)  # seat-hands per table

    def total(self) -> PairSums:
        """The player's seat-hands with every dealer."""
        out = PairSums()
        for p in self.dealers.values():
            out.add(p)
        return out

    def add(self, other: PlayerSums) -> None:
        for dealer, p in other.dealers.items():
            self.dealers.setdefault(dealer, PairSums()).add(p)
        self.decisions += other.decisions
        self.seats |= other.seats
        for table, n in other.tables.items():
            self.tables[table] = self.tables.get(table, 0) + n


@dataclass
class HandSums:
    """Hands (a dealer's, a dealer's at one table, a table's): how many, and per version
    the sum of each hand's summed gains and of their squares."""

    n: int = 0
    total: list[float] = field(default_factory=_three)
    squares: list[float] = field(default_factory=_three)

    def add(self, other: HandSums) -> None:
        self.n += other.n
        _add(self.total, other.total)
        _add(self.squares, other.squares)

    def minus(self, other: HandSums) -> HandSums:
        return HandSums(self.n - other.n,
                        [a - b for a, b in zip(self.total, other.total, strict=True)],
                        [a - b for a, b in zip(self.squares, other.squares, strict=True)])


@dataclass
class DealerSums:
    hands: HandSums = field(default_factory=HandSums)
    seat_hands: int = 0
    at_table: dict[str, HandSums] = field(default_factory=dict)
    top: list[Top] = field(default_factory=_tops)  # hands by their summed gain

    def add(self, other: DealerSums) -> None:
        self.hands.add(other.hands)
        self.seat_hands += other.seat_hands
        for table, h in other.at_table.items():
            self.at_table.setdefault(table, HandSums()).add(h)
        self.top = [_merge(a, b) for a, b in zip(self.top, other.top, strict=True)]


@dataclass
class SlipSums:
    """One player's seat-hands of one gaming day."""

    hands: int = 0
    ante: int = 0
    wager: int = 0
    result: int = 0
    adjustment: int = 0
    cost: float = 0.0
    tables: dict[str, list[int]] = field(default_factory=dict)  # [seat-hands, start, end]
    stakes: dict[str, list[int]] = field(default_factory=dict)  # ruleset: [antes, trips]
    # the day's part of the player's tests (three value, twelve sign: ``assess.tests_of``),
    # sums and null variances: what the sequential test adds up day after day
    stats: list[float] = field(default_factory=lambda: [0.0] * (VERSIONS + SIGN_TESTS))
    stat_var: list[float] = field(default_factory=lambda: [0.0] * (VERSIONS + SIGN_TESTS))

    def add(self, other: SlipSums) -> None:
        for name in ("hands", "ante", "wager", "result", "adjustment", "cost"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for table, (n, start, end) in other.tables.items():
            span = self.tables.setdefault(table, [0, start, end])
            span[:] = [span[0] + n, min(span[1], start), max(span[2], end)]
        for ruleset, (antes, trips) in other.stakes.items():
            stake = self.stakes.setdefault(ruleset, [0, 0])
            stake[:] = [stake[0] + antes, stake[1] + trips]
        _add(self.stats, other.stats)
        _add(self.stat_var, other.stat_var)


def first_most(counts: dict[str, int]) -> str:
    """The key with the largest count (of equal counts, the first in sorted order)."""
    return min(counts, key=lambda k: (-counts[k], k))


def _codes(keys: Sequence[Hashable]) -> tuple[IntArray, list[Any]]:
    """Each key's index among the distinct keys (in first-seen order), and those keys."""
    index: dict[object, int] = {}
    codes = np.fromiter((index.setdefault(k, len(index)) for k in keys), dtype=np.int64,
                        count=len(keys))
    return codes, list(index)


def _tops_of(group: IntArray, groups: int, key: FloatArray, names: list[str]) -> list[Top]:
    """The ``EVIDENCE_HANDS`` rows of each group with the largest ``key`` (ties: the
    smaller hand id)."""
    out: list[Top] = [[] for _ in range(groups)]
    if not len(group):
        return out
    rank = np.unique(np.asarray(names, dtype=object), return_inverse=True)[1].reshape(-1)
    rows = np.lexsort((rank, -key, group))
    g = group[rows]
    start = np.searchsorted(g, g, side="left")
    keep = rows[np.arange(len(rows)) - start < EVIDENCE_HANDS]
    for i in keep.tolist():
        out[int(group[i])].append((-float(key[i]), 0, names[i]))
    return out


class Tally:
    """Sums of scored seat-hands, one slice at a time (:meth:`add`)."""

    def __init__(self) -> None:
        self.players: dict[str, PlayerSums] = {}
        self.dealers: dict[str, DealerSums] = {}
        self.tables: dict[str, HandSums] = {}
        self.slips: dict[tuple[str, str], SlipSums] = {}
        self.rulesets: set[str] = set()
        self.seat_hands = 0
        self.hands = 0

    @classmethod
    def of(cls, sh: SeatHands, gains: Gains, players: list[str], days: list[str] | None = None,
           costs: FloatArray | None = None) -> Tally:
        tally = cls()
        tally.add(sh, gains, players, days, costs)
        return tally

    def merge(self, other: Tally) -> None:
        """Add the sums of ``other`` (of other hands) to these: exactly, so that merging
        the tallies of any split of the hands, in any order, gives the sums of adding them
        all to one (``other`` is left as it was)."""
        for key, p in other.players.items():
            self.players.setdefault(key, PlayerSums()).add(p)
        for key, d in other.dealers.items():
            self.dealers.setdefault(key, DealerSums()).add(d)
        for key, h in other.tables.items():
            self.tables.setdefault(key, HandSums()).add(h)
        for slip, s in other.slips.items():
            self.slips.setdefault(slip, SlipSums()).add(s)
        self.rulesets |= other.rulesets
        self.seat_hands += other.seat_hands
        self.hands += other.hands

    def add(self, sh: SeatHands, gains: Gains, players: list[str],
            days: list[str] | None = None, costs: FloatArray | None = None) -> None:
        """Add a slice of whole hands: its seat-hands, their gains and players, and (for
        rating slips) each seat-hand's gaming day and decisions' cost in cents."""
        n = len(sh)
        if not n:
            return
        g = (exact(gains.both), exact(gains.one_a), exact(gains.one_b))
        v = (exact(gains.var_both), exact(gains.var_one), exact(gains.var_one))
        if gains.signs is None or gains.sign_var is None:
            signs = sign_var = np.zeros((n, SIGN_TESTS))
        else:
            signs, sign_var = exact(gains.signs), exact(gains.sign_var)
        self._add_players(sh, g, v, players, signs, sign_var)
        self._add_hands(sh, g)
        if days is not None:
            stats = np.column_stack([*g, signs])
            stat_var = np.column_stack([*v, sign_var])
            self._add_slips(sh, players, days, exact(costs) if costs is not None
                            else np.zeros(n), stats, stat_var)
        self.rulesets.update(sh.ruleset)
        self.seat_hands += n

    def _add_players(self, sh: SeatHands, g: tuple[FloatArray, ...],
                     v: tuple[FloatArray, ...], players: list[str], signs: FloatArray,
                     sign_var: FloatArray) -> None:
        n = len(sh)
        pair, pairs = _codes(list(zip(players, sh.dealer_id, strict=True)))
        m = len(pairs)
        counts = np.bincount(pair, minlength=m).tolist()
        gain = [np.bincount(pair, weights=g[k], minlength=m).tolist() for k in range(VERSIONS)]
        var = [np.bincount(pair, weights=v[k], minlength=m).tolist() for k in range(VERSIONS)]
        tops = [_tops_of(pair, m, g[k] / np.sqrt(np.maximum(v[k], 1e-12)), sh.hand_id)
                for k in range(VERSIONS)]
        sign = [np.bincount(pair, weights=signs[:, k], minlength=m).tolist()
                for k in range(SIGN_TESTS)]
        svar = [np.bincount(pair, weights=sign_var[:, k], minlength=m).tolist()
                for k in range(SIGN_TESTS)]
        squares = [np.bincount(pair, weights=exact(x * x), minlength=m).tolist()
                   for x in (*g, *signs.T)]
        for j, (player, dealer) in enumerate(pairs):
            sums = self.players.setdefault(player, PlayerSums())
            p = sums.dealers.setdefault(dealer, PairSums())
            p.n += counts[j]
            for k in range(VERSIONS):
                p.gain[k] += gain[k][j]
                p.var[k] += var[k][j]
                p.top[k] = _merge(p.top[k], tops[k][j])
            for k in range(SIGN_TESTS):
                p.sign[k] += sign[k][j]
                p.sign_var[k] += svar[k][j]
            for k, sq in enumerate(squares):
                p.squares[k] += sq[j]
        decisions = np.bincount(sh.dec_hand, minlength=n).tolist()
        for player, table, seat, d in zip(players, sh.table_id, sh.seat.tolist(), decisions,
                                          strict=True):
            sums = self.players[player]
            sums.decisions += d
            sums.seats.add(seat)
            sums.tables[table] = sums.tables.get(table, 0) + 1

    def _add_hands(self, sh: SeatHands, g: tuple[FloatArray, ...]) -> None:
        hand, keys = _codes(list(zip(sh.table_id, sh.hand_id, sh.dealer_id, strict=True)))
        h = len(keys)
        per_hand = [np.bincount(hand, weights=g[k], minlength=h).astype(np.float64)
                    for k in range(VERSIONS)]
        dealer, dealers = _codes([d for _, _, d in keys])
        at, pairs = _codes([(d, t) for t, _, d in keys])
        table, tables = _codes([t for t, _, _ in keys])
        seat_hands = np.bincount(dealer[hand], minlength=len(dealers)).tolist()
        names = [hand_id for _, hand_id, _ in keys]
        tops = [_tops_of(dealer, len(dealers), per_hand[k], names) for k in range(VERSIONS)]
        for j, d in enumerate(dealers):
            sums = self.dealers.setdefault(d, DealerSums())
            sums.seat_hands += seat_hands[j]
            for k in range(VERSIONS):
                sums.top[k] = _merge(sums.top[k], tops[k][j])
        for codes, targets in (
                (dealer, [self.dealers[d].hands for d in dealers]),
                (at, [self.dealers[d].at_table.setdefault(t, HandSums()) for d, t in pairs]),
                (table, [self.tables.setdefault(t, HandSums()) for t in tables])):
            m = len(targets)
            counts = np.bincount(codes, minlength=m).tolist()
            total = [np.bincount(codes, weights=x, minlength=m).tolist() for x in per_hand]
            squares = [np.bincount(codes, weights=exact(x * x), minlength=m).tolist()
                       for x in per_hand]
            for j, target in enumerate(targets):
                target.n += counts[j]
                for k in range(VERSIONS):
                    target.total[k] += total[k][j]
                    target.squares[k] += squares[k][j]
        self.hands += h

    def _add_slips(self, sh: SeatHands, players: list[str], days: list[str],
                   costs: FloatArray, stats: FloatArray, stat_var: FloatArray) -> None:
        slip, keys = _codes(list(zip(players, days, strict=True)))
        m = len(keys)
        wager = sh.ante + sh.blind + sh.play + sh.trips
        ints = []
        for values in (sh.ante, wager, sh.result, sh.adjustment):
            out = np.zeros(m, dtype=np.int64)
            np.add.at(out, slip, values)
            ints.append(out.tolist())
        counts = np.bincount(slip, minlength=m).tolist()
        cost = np.bincount(slip, weights=costs, minlength=m).tolist()
        slips = [self.slips.setdefault(key, SlipSums()) for key in keys]
        for j, s in enumerate(slips):
            s.hands += counts[j]
            s.ante += ints[0][j]
            s.wager += ints[1][j]
            s.result += ints[2][j]
            s.adjustment += ints[3][j]
            s.cost += cost[j]
        for k in range(stats.shape[1]):
            total = np.bincount(slip, weights=stats[:, k], minlength=m).tolist()
            var = np.bincount(slip, weights=stat_var[:, k], minlength=m).tolist()
            for j, s in enumerate(slips):
                s.stats[k] += total[j]
                s.stat_var[k] += var[j]
        at, spans = _codes(list(zip(slip.tolist(), sh.table_id, strict=True)))
        n_at = len(spans)
        start = np.full(n_at, np.iinfo(np.int64).max, dtype=np.int64)
        end = np.full(n_at, np.iinfo(np.int64).min, dtype=np.int64)
        np.minimum.at(start, at, sh.started_ms)
        np.maximum.at(end, at, sh.ended_ms)
        seat_hands = np.bincount(at, minlength=n_at).tolist()
        for j, (i, table) in enumerate(spans):
            tables = slips[i].tables
            lo, hi = int(start[j]), int(end[j])
            span = tables.get(table)
            if span is None:
                tables[table] = [seat_hands[j], lo, hi]
            else:
                span[0] += seat_hands[j]
                span[1] = min(span[1], lo)
                span[2] = max(span[2], hi)
        under, stakes = _codes(list(zip(slip.tolist(), sh.ruleset, strict=True)))
        for values, place in ((sh.ante, 0), (sh.trips, 1)):
            out = np.zeros(len(stakes), dtype=np.int64)
            np.add.at(out, under, values)
            for j, (i, ruleset) in enumerate(stakes):
                slips[i].stakes.setdefault(ruleset, [0, 0])[place] += int(out[j])
