"""Rating slips: per player and gaming day, what table-games staff rate a player on.

- ``hands``; ``seconds`` played (per table, from the first hand's start to the last hand's
  end that day, added up over tables);
- ``avg_ante`` and ``avg_wager`` (ante + blind + play + trips of a hand), ``handle`` (every
  wager added up), in cents;
- ``theo_win``: the house edge of what was wagered under the ruleset (per ante the
  base-game edge of basic strategy, per Trips wager the table's exact edge), cents;
- ``decision_cost``: separately, what the player's own decisions cost against basic
  strategy (``strategy``), each valued with the player's legal information by the same
  Monte Carlo as the protection statistic (``scoring.Gains.legal_value``): positive when
  the player's choices lose more than basic strategy would;
- ``actual_win``: the house's settled result against the player, and ``win_minus_theo``
  = actual_win - (theo_win + decision_cost).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
import numpy.typing as npt

from events.game.strategy import flop_raise_batch, preflop_raise_batch, river_raise_batch
from events.protection.hands import SeatHands
from events.protection.scoring import Gains

FloatArray = npt.NDArray[np.float64]


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
    theo_win: int
    decision_cost: int
    actual_win: int

    @property
    def win_minus_theo(self) -> int:
        return self.actual_win - (self.theo_win + self.decision_cost)


def decision_costs(sh: SeatHands, gains: Gains) -> FloatArray:
    """Per seat-hand, in cents: the legal-information value the player's decisions gave up
    against basic strategy (the decision where the two differ, raise against check)."""
    h, st, m = sh.dec_hand, sh.dec_street, sh.dec_multiple
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
    raised = m > 0
    sign = np.where(raised, 1.0, -1.0)
    cost_antes = np.where(basic != raised, -sign * gains.legal_value, 0.0)
    out = np.zeros(len(sh))
    np.add.at(out, h, cost_antes * sh.ante[h])
    scored = sh.cards_known
    out[~scored] = 0.0
    return out


def gaming_days(started_ms: npt.NDArray[np.int64], day_start_minutes: int) -> list[str]:
    """The gaming day (ISO date) of each time: the date of the time minus the day start."""
    shift = timedelta(minutes=day_start_minutes)
    return [(datetime.fromtimestamp(ms / 1000, UTC) - shift).date().isoformat()
            for ms in started_ms.tolist()]


def rating_slips(sh: SeatHands, gains: Gains, players: list[str],
                 edges: dict[str, tuple[float, float]], day_start_minutes: int = 360
                 ) -> list[RatingSlip]:
    """Slips per (player, gaming day); ``edges`` maps a ruleset to (base-game edge per
    ante, Trips edge); a ruleset without one adds no theo."""
    days = gaming_days(sh.started_ms, day_start_minutes)
    cost = decision_costs(sh, gains)
    wager = sh.ante + sh.blind + sh.play + sh.trips
    base = np.array([edges.get(r, (0.0, 0.0))[0] for r in sh.ruleset])
    trips_edge = np.array([edges.get(r, (0.0, 0.0))[1] for r in sh.ruleset])
    theo = sh.ante * base + sh.trips * trips_edge
    groups: dict[tuple[str, str], list[int]] = {}
    for i, key in enumerate(zip(players, days, strict=True)):
        groups.setdefault(key, []).append(i)
    out = []
    for (player, day), ix in sorted(groups.items()):
        rows = np.array(ix, dtype=np.int64)
        spans: dict[str, tuple[int, int]] = {}
        for i in ix:
            t = sh.table_id[i]
            lo, hi = spans.get(t, (int(sh.started_ms[i]), int(sh.ended_ms[i])))
            spans[t] = (min(lo, int(sh.started_ms[i])), max(hi, int(sh.ended_ms[i])))
        tables = [sh.table_id[i] for i in ix]
        out.append(RatingSlip(
            player=player, gaming_day=day, table_id=max(set(tables), key=tables.count),
            hands=len(ix),
            seconds=sum(hi - lo for lo, hi in spans.values()) / 1000.0,
            avg_ante=float(sh.ante[rows].mean()), avg_wager=float(wager[rows].mean()),
            handle=int(wager[rows].sum()), theo_win=round(float(theo[rows].sum())),
            decision_cost=round(float(cost[rows].sum())),
            actual_win=-int(sh.result[rows].sum()),
        ))
    return out
