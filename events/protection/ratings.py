"""Rating slips: per player and gaming day, what table-games staff rate a player on.

- ``hands``; ``seconds`` played (per table, from the first hand's start to the last hand's
  end that day, added up over tables);
- ``avg_ante`` and ``avg_wager`` (ante + blind + play + trips of a hand), ``handle`` (every
  wager added up), in cents;
- theoretical win, the exact house edge of what was wagered under the ruleset, in two
  parts: ``theo_base``, the antes x the base game's exact edge under computer-perfect play
  (``events.game.theory.exact_base_edge``: 2.1850% for the blind table and multiples of every
  shipped ruleset), and ``theo_trips``, the Trips wagers x the ruleset's exact Trips edge
  (``events.game.theory.trips_theory``); ``theo_win`` is their sum. A part is ``None``
  (unknown) when a hand of the slip was played under a ruleset without an exact figure
  (another blind table or other multiples; a ruleset the engine does not know): never a
  guessed figure. Each part is rounded once per slip to the nearest cent (half a cent up),
  from exact fractions;
- ``decision_cost``: separately, what the player's own decisions cost against basic
  strategy (``events.game.strategy``): at each decision where the two differ (raise against
  check or fold, or a 3x raise where basic strategy raises 4x), the expected value given
  up, valued with the player's legal information by the protection statistic's machinery
  (``values``, ``scoring``; after a check, basic strategy's own continuation), times the
  ante, in cents (rounded once per slip): a hand's costs add up to its EV gap to basic
  strategy. ``None`` when a hand's ruleset has another base game (the values assume the
  shipped blind table and multiples);
- ``dispute_adjustment``: what resolved disputes of the slip's hands paid to (+) or took
  from (-) the player, counted in ``actual_win``: the house's settled result against the
  player minus those adjustments; ``win_minus_theo`` = actual_win - (theo_win +
  decision_cost), ``None`` when either is unknown.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from events.game.rulesets import RulesetError, load_ruleset
from events.game.strategy import flop_raise_batch, preflop_raise_batch, river_raise_batch
from events.game.theory import exact_base_edge, trips_theory
from events.localtime import gaming_day_of
from events.protection.draws import KeyedDraws
from events.protection.hands import SeatHands
from events.protection.scoring import CHUNK, COMPLETIONS, NULL_HOLDINGS, Gains, null_holdings
from events.protection.tally import Tally, first_most
from events.protection.values import MAX_MULTIPLE, VISIBLE, completions, value_both

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
HALF = Fraction(1, 2)
SEED = 2222  # the decisions' cost's own Monte Carlo draws: the same events, the same slips
COST_STREAM = 10  # their streams among a seat-hand's keyed draws (``draws``)


@dataclass(frozen=True)
class Edges:
    """A ruleset's exact house edges, per unit staked; ``None`` where none is known."""

    base: Fraction | None  # ante + blind + play, per ante, computer-perfect play
    trips: Fraction | None


def ruleset_edges(names: Iterable[str]) -> dict[str, Edges]:
    """The exact edges of each ruleset named (looked up as ``events.game.rulesets`` does)."""
    out = {}
    for name in sorted(set(names)):
        try:
            ruleset = load_ruleset(name)
        except RulesetError:
            out[name] = Edges(None, None)
            continue
        out[name] = Edges(exact_base_edge(ruleset), -trips_theory(ruleset).expected_value)
    return out


def cents(amount: Fraction) -> int:
    """The nearest whole cent, half a cent up."""
    return math.floor(amount + HALF)


@dataclass(frozen=True)
class RatingSlip:
    player: str
    gaming_day: str  # ISO date
    table_id: str  # where most of the day's hands were played
    hands: int
    seconds: float
    avg_ante: float
    avg_wager: float
    handle: int
    theo_base: int | None
    theo_trips: int | None
    decision_cost: int | None
    actual_win: int  # the house's, resolved disputes' adjustments included
    dispute_adjustment: int = 0  # paid to the player by resolved disputes

    @property
    def theo_win(self) -> int | None:
        if self.theo_base is None or self.theo_trips is None:
            return None
        return self.theo_base + self.theo_trips

    @property
    def win_minus_theo(self) -> int | None:
        theo = self.theo_win
        if theo is None or self.decision_cost is None:
            return None
        return self.actual_win - (theo + self.decision_cost)


def basic_raises(sh: SeatHands) -> npt.NDArray[np.bool_]:
    """Per decision: does basic strategy raise there (its raises are 4x, 2x, 1x)?"""
    h, st = sh.dec_hand, sh.dec_street
    basic = np.zeros(len(h), dtype=np.bool_)
    for street in range(3):
        rows = np.flatnonzero(st == street)
        if not rows.size:
            continue
        hole, board = sh.hole[h[rows]], sh.board[h[rows]]
        if street == 0:
            basic[rows] = preflop_raise_batch(hole)
        elif street == 1:
            basic[rows] = flop_raise_batch(hole, board[:, :3])
        else:
            basic[rows] = river_raise_batch(hole, board)
    return basic


def basic_continuation_values(sh: SeatHands, decisions: IntArray,
                              rng: np.random.Generator | KeyedDraws) -> FloatArray:
    """E[V(raise) - V(check, then basic strategy) | what the player had seen], in antes, for
    preflop and flop decisions: the protection statistic's own valuation (``values``:
    board completions, dealer holdings drawn from the cards the player's view leaves), with
    basic strategy's river rule after a check instead of the statistic's cheaper one, so
    that a hand's decision costs add up to its EV gap to basic strategy."""
    out = np.zeros(len(decisions))
    for street in (0, 1):
        idx = np.flatnonzero(sh.dec_street[decisions] == street)
        for lo in range(0, len(idx), CHUNK):
            part = idx[lo:lo + CHUNK]
            dec = decisions[part]
            h = sh.dec_hand[dec]
            hole, board = sh.hole[h], sh.board[h]
            chosen = sh.dec_multiple[dec]
            valued = np.where(chosen > 0, chosen, MAX_MULTIPLE[street])
            draws = rng.rows(h) if isinstance(rng, KeyedDraws) else rng
            comp = completions(draws, street, hole, board, COMPLETIONS[street],
                               COST_STREAM + street)
            n, k = comp.ps.shape
            river = river_raise_batch(np.repeat(hole, k, axis=0), comp.board.reshape(-1, 5))
            comp = replace(comp, river_raise=river.reshape(n, k))
            seen = np.full(len(h), VISIBLE[street], dtype=np.int64)
            held = null_holdings(draws, hole, board, seen, sh.dealer[h], NULL_HOLDINGS,
                                 COST_STREAM + 2 + street)[:, 1:]
            out[part] = value_both(street, valued, comp, held).mean(axis=1)
    return out


def decision_costs(sh: SeatHands, gains: Gains,
                   rng: np.random.Generator | KeyedDraws | None = None) -> FloatArray:
    """Per seat-hand, in cents: the expected value the player's decisions gave up against
    basic strategy, valued with the player's legal information. A check where basic
    strategy raises (or a raise where it checks) preflop or on the flop is valued afresh
    with basic strategy's continuation (``rng``; without one, by the statistic's own values
    in ``gains``); a river decision exactly; a 3x raise where basic raises 4x by the value
    of the larger raise over it."""
    h, m = sh.dec_hand, sh.dec_multiple
    basic = basic_raises(sh)
    raised = m > 0
    # legal_value: E[V(raise as chosen, or the largest after a check) - V(check)]
    legal = gains.legal_value.copy()
    if rng is not None:
        redo = np.flatnonzero((basic != raised) & (sh.dec_street < 2))
        legal[redo] = basic_continuation_values(sh, redo, rng)
    cost_antes = np.where(
        basic,
        np.where(raised, gains.legal_max - gains.legal_value, legal),
        np.where(raised, -legal, 0.0))
    out = np.zeros(len(sh))
    np.add.at(out, h, cost_antes * sh.ante[h])
    out[~sh.cards_known] = 0.0
    return out


def gaming_days(started_ms: npt.NDArray[np.int64], day_start_minutes: int,
                zone: str = "UTC") -> list[str]:
    """The gaming day (ISO date) of each time, as the warehouse counts it: the local date
    (in ``zone``) of the time ``day_start_minutes`` of local time earlier."""
    return [gaming_day_of(datetime.fromtimestamp(ms / 1000, UTC), day_start_minutes, zone)
            .isoformat() for ms in started_ms.tolist()]


def _theo(stakes: dict[str, int], edges: dict[str, Fraction | None]) -> int | None:
    """Sum of amount x edge over a slip's rulesets, rounded once; ``None`` when an amount
    was staked under a ruleset with no edge."""
    total = Fraction(0)
    for ruleset, amount in stakes.items():
        if amount == 0:
            continue
        edge = edges.get(ruleset)
        if edge is None:
            return None
        total += edge * amount
    return cents(total)


def rating_slips(sh: SeatHands, gains: Gains, players: list[str],
                 edges: dict[str, Edges] | None = None, day_start_minutes: int = 360,
                 zone: str = "UTC", seed: int = SEED) -> list[RatingSlip]:
    """Slips per (player, gaming day in ``zone``) of these seat-hands (see
    :func:`slips_of`)."""
    days = gaming_days(sh.started_ms, day_start_minutes, zone)
    cost = decision_costs(sh, gains, np.random.default_rng(seed))
    return slips_of(Tally.of(sh, gains, players, days, cost), edges)


def slips_of(tally: Tally, edges: dict[str, Edges] | None = None) -> list[RatingSlip]:
    """Slips per (player, gaming day), in that order; ``edges`` per ruleset (default
    :func:`ruleset_edges` of the rulesets played). A slip's table is the one where most of
    its hands were played (of equal counts, the first by name)."""
    if edges is None:
        edges = ruleset_edges(tally.rulesets)
    unknown = Edges(None, None)
    base_edge = {r: edges.get(r, unknown).base for r in tally.rulesets}
    trips_edge = {r: edges.get(r, unknown).trips for r in tally.rulesets}
    out = []
    for (player, day), s in sorted(tally.slips.items()):
        base = _theo({r: antes for r, (antes, _) in s.stakes.items()}, base_edge)
        out.append(RatingSlip(
            player=player, gaming_day=day,
            table_id=first_most({t: span[0] for t, span in s.tables.items()}),
            hands=s.hands,
            seconds=sum(end - start for _, start, end in s.tables.values()) / 1000.0,
            avg_ante=s.ante / s.hands, avg_wager=s.wager / s.hands, handle=s.wager,
            theo_base=base,
            theo_trips=_theo({r: trips for r, (_, trips) in s.stakes.items()}, trips_edge),
            decision_cost=None if base is None else round(s.cost),
            actual_win=-s.result - s.adjustment,
            dispute_adjustment=s.adjustment,
        ))
    return out
