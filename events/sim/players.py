"""Players of the simulated floor: who sits where and for how long, what they bet, how they
decide.

A seat alternates between empty spells and *sessions*: one player, one profile, one usual
ante, a buy-in, for a few dozen hands. Decisions are taken for a whole batch of hands at
once, over NumPy arrays, by profile:

- ``basic``: the practical basic strategy (``events.game.strategy``);
- ``loose``: raises with more than basic strategy, never folds on the river;
- ``weak``: raises only strong hands (sometimes 3x instead of 4x), folds more;
- ``hole_card``: sees one or both dealer cards (a game-protection problem) and uses them;
- the styles of ``sim_styles`` (reckless, random, and hole-carders who play the value of
  what they see), seated by a floor's roster (``SimConfig.roster``).

On online tables a player may let the decision timer run out: the table checks for them
before the river and folds on the river, with ``auto: true`` (seed 003).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from events.game.evaluation import category, evaluate5
from events.game.strategy import (
    flop_raise_batch,
    hidden_pair_or_better_batch,
    preflop_raise_batch,
    river_raise_batch,
)
from events.sim.styles import FIRST_STYLE, STYLES, hole_card_styles, style_decisions

PROFILES = ("basic", "loose", "weak", "hole_card", *STYLES)
BASIC, LOOSE, WEAK, HOLE_CARD = range(4)
DEFAULT_PROFILE_WEIGHTS = (0.58, 0.2, 0.18, 0.04)
METHODS = ("cash", "marker", "chips")
MEAN_SESSION_HANDS = 60
SEATED_FOR_THE_RUN = 1 << 40  # a roster player's session: never ends
ONLINE_DECISION_TIMEOUT_RATE = 0.01
DISTRACTED_TIMEOUT_RATE = 0.08

_BUY_IN_UNITS = (15, 20, 20, 25, 30, 40, 50)
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
I8 = npt.NDArray[np.int8]


@dataclass(frozen=True)
class Player:
    """One seat session: a player's profile, stakes and habits (cents)."""

    profile: int
    sees: int  # dealer cards a hole-card player sees: 1 or 2 (0 for the others)
    unit: int  # the usual ante
    trips_prob: float  # chance of a trips bet on a hand
    trips: int  # the trips stake when betting trips
    buy_in: int  # first purchase, and each top-up when short
    method: str  # cash, marker or chips
    timeout: float  # chance of letting a decision time out (online tables)
    hands: int  # session length in hands
    flasher: int = -1  # a hole-carder sees cards only when this dealer deals (-1: always)


def _round_up(amount: int, step: int) -> int:
    return -(-amount // step) * step


def new_player(
    rng: np.random.Generator,
    min_bet: int,
    max_bet: int,
    max_trips: int | None,
    online: bool,
    weights: tuple[float, ...],
    profile_name: str | None = None,
) -> Player:
    """Draw one player for a session at a table with these limits (of the given profile,
    seated for the whole run, when named)."""
    u = rng.random(11).tolist()
    cum = np.cumsum(weights).tolist()
    profile = min(sum(1 for c in cum if c <= u[0] * cum[-1]), len(weights) - 1)
    flasher = -1
    if profile_name is not None:
        name, flasher = split_profile(profile_name)
        profile = PROFILES.index(name)
    sees = (2 if u[1] < 0.35 else 1) if profile == HOLE_CARD else 0
    multiples = [m for m in (1, 1, 1, 1, 2, 2, 2, 3, 5, 10) if m * min_bet <= max_bet] or [1]
    unit = min(max_bet, min_bet * multiples[int(u[2] * len(multiples))])
    trips_prob = 0.92 if u[3] < 0.6 else 0.04
    trips = [unit, max(100, unit // 2 // 100 * 100), min_bet][int(u[4] * 3)]
    if max_trips is not None:
        trips = min(trips, max_trips)
    buy_in = _round_up(unit * _BUY_IN_UNITS[int(u[5] * len(_BUY_IN_UNITS))], 1000)
    method = "cash" if online or u[6] < 0.78 else ("chips" if u[6] < 0.9 else "marker")
    timeout = 0.0
    if online:
        timeout = DISTRACTED_TIMEOUT_RATE if u[7] < 0.1 else ONLINE_DECISION_TIMEOUT_RATE
    # a geometric number of hands (mean MEAN_SESSION_HANDS), at least five
    hands = max(5, math.ceil(math.log(1.0 - u[8]) / math.log(1.0 - 1.0 / MEAN_SESSION_HANDS)))
    if profile_name is not None:
        hands, sees = SEATED_FOR_THE_RUN, (2 if profile_name == "hole_card" else 0)
        timeout = 0.0
    return Player(profile, sees, unit, trips_prob, trips, buy_in, method, timeout, hands,
                  flasher)


def split_profile(entry: str) -> tuple[str, int]:
    """A roster entry: ``hole_card_both`` (always), or ``hole_card_both@2`` (only when the
    table's second dealer deals): (profile, dealer index or -1)."""
    name, _, dealer = entry.partition("@")
    if not dealer:
        return name, -1
    if name not in hole_card_styles() or not dealer.isdigit() or int(dealer) < 1:
        raise ValueError(f"roster entry {entry!r}: only the hole_card_* styles take "
                         "@N, the table's Nth dealer (from 1)")
    return name, int(dealer) - 1


class SeatPlan:
    """Occupancy of one table's seats, hand after hand: sessions and empty spells.

    ``next(rows)`` returns an (rows, seats) array of session indices (-1 = empty);
    ``players[i]`` is session i's player. State carries over between calls.
    """

    def __init__(
        self,
        rng: np.random.Generator,
        seats: int,
        busyness: float,
        limits: tuple[int, int, int | None],
        online: bool,
        weights: tuple[float, ...],
        roster: tuple[str, ...] | None = None,
    ) -> None:
        self.rng = rng
        self.seats = seats
        self.busyness = busyness
        self.limits = limits
        self.online = online
        self.weights = weights
        self.players: list[Player] = []
        # per session: unit, trips stake, buy-in, profile, sees, method (index in METHODS),
        # the dealer a hole-carder needs (-1: any)
        self.ints = np.zeros((64, 7), dtype=np.int64)
        self.floats = np.zeros((64, 2), dtype=np.float64)  # trips_prob, timeout
        self.session = [-1] * seats  # current session per seat, -1 when empty
        self.left = [0] * seats  # hands left in the current session or empty spell
        if roster is not None:  # seats 1..len(roster) taken for the run, the others empty
            for j in range(seats):
                if j < len(roster):
                    self._sit(j, roster[j])
                else:
                    self.left[j] = SEATED_FOR_THE_RUN
            return
        for j in range(seats):
            if rng.random() < busyness:
                self._sit(j)
                self.left[j] = 1 + int(rng.integers(self.players[self.session[j]].hands))
            else:
                self.left[j] = int(rng.integers(1 + self._gap_mean()))

    def _gap_mean(self) -> int:
        return max(1, round(MEAN_SESSION_HANDS * (1 - self.busyness) / self.busyness))

    def _sit(self, j: int, profile_name: str | None = None) -> None:
        lo, hi, trips = self.limits
        player = new_player(self.rng, lo, hi, trips, self.online, self.weights, profile_name)
        self.players.append(player)
        i = len(self.players) - 1
        if i >= len(self.ints):
            self.ints = np.concatenate([self.ints, np.zeros_like(self.ints)])
            self.floats = np.concatenate([self.floats, np.zeros_like(self.floats)])
        self.ints[i] = (player.unit, player.trips, player.buy_in, player.profile, player.sees,
                        METHODS.index(player.method), player.flasher)
        self.floats[i] = (player.trips_prob, player.timeout)
        self.session[j] = i
        self.left[j] = player.hands

    def next(self, rows: int) -> npt.NDArray[np.int32]:
        out = np.full((rows, self.seats), -1, dtype=np.int32)
        for j in range(self.seats):
            r = 0
            while r < rows:
                if self.left[j] <= 0:
                    if self.session[j] >= 0:  # the player leaves
                        self.session[j] = -1
                        self.left[j] = int(self.rng.geometric(1.0 / self._gap_mean())) - 1
                    else:
                        self._sit(j)
                    continue
                n = min(self.left[j], rows - r)
                out[r : r + n, j] = self.session[j]
                self.left[j] -= n
                r += n
        return out


def buy_chips(occ: npt.NDArray[np.int32], occm: BoolArray, starts: BoolArray,
              buy_in: IntArray, need: IntArray, result: IntArray, stacks: dict[int, int]
              ) -> tuple[IntArray, dict[int, int]]:
    """Chips bought before each cell's hand: the buy-in when a player sits down, and a
    top-up whenever the stack cannot cover the hand's largest loss (6 antes + trips).

    ``occ`` (R, S) holds session numbers (-1 empty), ``starts`` marks a session's first
    hand, the others are per cell (occupied seat in a hand, row by row); ``stacks`` are the
    chips of the sessions still seated before these hands. Returns the chips bought per
    cell and the stacks after the last hand."""
    n_rows, n_seats = occ.shape
    cell_r, cell_j = np.nonzero(occm)
    chips_m = np.zeros((n_rows, n_seats), dtype=np.int64)
    need_m = np.zeros_like(chips_m)
    res_m = np.zeros_like(chips_m)
    buy_m = np.zeros_like(chips_m)
    need_m[cell_r, cell_j] = need
    res_m[cell_r, cell_j] = result
    buy_m[cell_r, cell_j] = buy_in
    chips_m[starts] = buy_m[starts]
    carry = np.zeros_like(chips_m)
    for j in range(n_seats):
        s = int(occ[0, j])
        if s >= 0 and not starts[0, j]:
            carry[0, j] = stacks.get(s, 0)
    # a segment per session stretch in each column: the stack restarts at its start
    seg_start = starts | (occm & np.vstack([np.ones((1, n_seats), np.bool_),
                                            np.zeros((n_rows - 1, n_seats), np.bool_)]))
    prev_res = np.vstack([np.zeros((1, n_seats), np.int64), res_m[:-1]])
    prev_res[seg_start] = 0
    while True:
        x = (chips_m + carry + prev_res) * occm
        flat = x.T.ravel()
        cum = np.cumsum(flat)
        starts_flat = seg_start.T.ravel()
        seg_id = np.cumsum(starts_flat)
        base_at = np.concatenate([[0], cum])[np.flatnonzero(starts_flat)]
        base = np.where(seg_id > 0, base_at[np.maximum(seg_id - 1, 0)], 0)
        stack = (cum - base).reshape(n_seats, n_rows).T
        short = occm & (stack < need_m)
        if not short.any():
            break
        cols = np.flatnonzero(short.any(axis=0))
        first = short[:, cols].argmax(axis=0)
        chips_m[first, cols] += buy_m[first, cols]
    after = {int(occ[-1, j]): int(stack[-1, j] + res_m[-1, j])
             for j in range(n_seats) if occ[-1, j] >= 0}
    return chips_m[cell_r, cell_j], after


# ----------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class Decisions:
    """Per cell (an occupied seat in a hand): the action on each street.

    ``act[:, k]`` for street k (0 preflop, 1 flop, 2 river): -1 no decision (already
    raised), 0 check (fold on the river), m > 0 raise m times the ante. ``auto[:, k]``
    marks decisions the table took on a timeout.
    """

    act: I8
    auto: BoolArray

    @property
    def multiple(self) -> I8:
        """The play wager in antes (0 when the seat folded)."""
        return np.asarray(self.act.max(axis=1).clip(min=0), dtype=np.int8)

    @property
    def raised_on(self) -> I8:
        """Street of the raise, -1 for a fold."""
        raised = self.act > 0
        return np.where(raised.any(axis=1), raised.argmax(axis=1), -1).astype(np.int8)


def _preflop_key(cards: IntArray) -> IntArray:
    """Orders two-card holdings roughly by strength: pairs above unpaired, then ranks."""
    r = cards >> 2
    hi, lo = np.maximum(r[:, 0], r[:, 1]), np.minimum(r[:, 0], r[:, 1])
    key: IntArray = np.where(hi == lo, 1000 + hi, hi * 13 + lo)
    return key


def decide(
    rng: np.random.Generator,
    profile: IntArray,
    sees: IntArray,
    timeout: npt.NDArray[np.float64],
    hole: IntArray,
    board: IntArray,
    dealer: IntArray,
    p_strength: IntArray,
    d_strength: IntArray,
    informed: BoolArray | None = None,
    lost: BoolArray | None = None,
) -> Decisions:
    """Decisions of N cells: their profiles, hole cards (N, 2), the board (N, 5, deal
    order: flop first), the dealer's cards (N, 2) and the final strengths; ``informed``:
    whether a hole-carder of ``sim_styles`` sees the cards this hand (default: yes);
    ``lost``: the cell's player lost the hand before at this seat (``sim_styles``' tilt)."""
    n = len(profile)
    u = rng.random((n, 7))
    act = np.full((n, 3), -1, dtype=np.int8)
    auto = np.zeros((n, 3), dtype=np.bool_)
    basic_pf = preflop_raise_batch(hole)
    loose, weak = profile == LOOSE, profile == WEAK
    hole2, hole1 = (profile == HOLE_CARD) & (sees == 2), (profile == HOLE_CARD) & (sees == 1)

    # preflop
    hr = hole >> 2
    hi, lo = np.maximum(hr[:, 0], hr[:, 1]), np.minimum(hr[:, 0], hr[:, 1])
    suited = (hole[:, 0] & 3) == (hole[:, 1] & 3)
    premium = ((hi == lo) & (hi >= 5)) | ((hi == 12) & (lo >= 8)) | ((hi == 11) & (lo == 10)
                                                                      & suited)
    raise_pf = basic_pf.copy()
    raise_pf[loose] = basic_pf[loose] | (u[loose, 0] < 0.35)
    raise_pf[weak] = basic_pf[weak] & premium[weak]
    raise_pf[hole2] = _preflop_key(hole[hole2]) > _preflop_key(dealer[hole2])
    raise_pf[hole1] = basic_pf[hole1] | (hi[hole1] > (dealer[hole1, 0] >> 2))
    mult = np.where((weak & (u[:, 1] < 0.5)) | (loose & (u[:, 1] < 0.15)), 3, 4)
    timed = u[:, 4] < timeout
    auto[:, 0] = timed
    act[:, 0] = np.where(raise_pf & ~timed, mult, 0)

    # flop: seats that checked
    live = np.flatnonzero(act[:, 0] == 0)
    if live.size:
        flop = board[live, :3]
        raise_fl = flop_raise_batch(hole[live], flop)
        lv, wk, h2 = loose[live], weak[live], hole2[live]
        own = np.flatnonzero(lv | wk | h2)  # profiles that look at their own made hand
        if own.size:
            p5 = evaluate5(np.concatenate([hole[live[own]], flop[own]], axis=1))
            pc5 = category(p5)
            o_lv, o_wk, o_h2 = lv[own], wk[own], h2[own]
            pick = own[o_lv]
            raise_fl[pick] |= (pc5[o_lv] >= 1) | (u[live[pick], 2] < 0.2)
            pick = own[o_wk]
            raise_fl[pick] &= pc5[o_wk] >= 2
            pick = own[o_h2]
            if pick.size:
                d5 = evaluate5(np.concatenate([dealer[live[pick]], flop[pick]], axis=1))
                raise_fl[pick] = p5[o_h2] > d5
        timed = u[live, 5] < timeout[live]
        auto[live, 1] = timed
        act[live, 1] = np.where(raise_fl & ~timed, 2, 0)

    # river: seats that checked twice must raise 1x or fold
    live = np.flatnonzero(act[:, 1] == 0)
    if live.size:
        lv, wk, h2 = loose[live], weak[live], hole2[live]
        raise_rv = np.ones(live.size, dtype=np.bool_)  # loose players always call
        basic = np.flatnonzero(~(lv | wk | h2))
        if basic.size:
            raise_rv[basic] = river_raise_batch(hole[live[basic]], board[live[basic]])
        raise_rv[wk] = hidden_pair_or_better_batch(hole[live[wk]], board[live[wk]])
        raise_rv[h2] = p_strength[live[h2]] >= d_strength[live[h2]]
        timed = u[live, 6] < timeout[live]
        auto[live, 2] = timed
        act[live, 2] = np.where(raise_rv & ~timed, 1, 0)
    styled = np.flatnonzero(profile >= FIRST_STYLE)
    if styled.size:
        seen = np.ones(styled.size, np.bool_) if informed is None else informed[styled]
        act[styled] = style_decisions(rng, profile[styled], seen, hole[styled], board[styled],
                                      dealer[styled], None if lost is None else lost[styled])
        auto[styled] = False
    return Decisions(act, auto)
