"""Playing styles of the simulated players beyond ``sim_players``' four: honest styles
from reckless to random, and hole-carders who play the value of the dealer cards they see.

- ``always_raise``: raises 4x before every flop;
- ``never_raise``: checks every street and folds on the river;
- ``random``: raises on each street by a coin (a third of the time preflop and on the
  flop, half on the river), 4x or 3x preflop;
- ``hole_card_both``: sees both dealer cards and raises whenever raising is worth more
  than checking with them known (``events.protection.values``: computer-perfect play
  over the unseen board, going on by the practical strategy after a check);
- ``hole_card_one``: the same with the first dealer card dealt only.

A hole-carder may see the cards only when one dealer deals (a dealer who flashes): the
table passes ``informed`` per cell, and an uninformed hole-carder plays basic strategy.
"""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np
import numpy.typing as npt

from events.game.strategy import flop_raise_batch, preflop_raise_batch, river_raise_batch
from events.protection.values import Completions, completions, value_both, value_one

STYLES = ("always_raise", "never_raise", "random", "hole_card_both", "hole_card_one")
FIRST_STYLE = 4  # profile index of STYLES[0] (after sim_players' basic, loose, weak, hole_card)
ALWAYS, NEVER, RANDOM, SEES_BOTH, SEES_ONE = range(FIRST_STYLE, FIRST_STYLE + 5)
LOOKAHEAD = (48, 32, 1)  # board completions a hole-carder averages over, per street
IntArray = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
BoolArray = npt.NDArray[np.bool_]


def _informed_raise(rng: np.random.Generator, street: int, profile: IntArray, hole: IntArray,
                    board: IntArray, dealer: IntArray) -> BoolArray:
    """Raise when the value with the seen dealer cards says so (rows: hole-carders)."""
    multiple = np.full(len(hole), (4, 2, 1)[street], dtype=np.int64)
    comp = completions(rng, street, hole, board, LOOKAHEAD[street])
    both = profile == SEES_BOTH
    value = np.empty(len(hole))
    if both.any():
        sub = _rows(comp, both)
        value[both] = value_both(street, multiple[both], sub, dealer[both][:, None, :])[:, 0]
    if (~both).any():
        sub = _rows(comp, ~both)
        value[~both] = value_one(street, multiple[~both], sub, dealer[~both][:, :1])[:, 0]
    return np.asarray(value > 0)


def _rows(comp: Completions, pick: BoolArray) -> Completions:
    return replace(comp, **{f.name: getattr(comp, f.name)[pick] for f in fields(comp)})


def style_decisions(rng: np.random.Generator, profile: IntArray, informed: BoolArray,
                    hole: IntArray, board: IntArray, dealer: IntArray) -> I8:
    """``act`` rows (as ``sim_players.Decisions``) of cells playing one of the STYLES."""
    n = len(profile)
    act = np.full((n, 3), -1, dtype=np.int8)
    coin = rng.random((n, 4))
    seer = ((profile == SEES_BOTH) | (profile == SEES_ONE)) & informed
    basic = ((profile == SEES_BOTH) | (profile == SEES_ONE)) & ~informed
    live = np.ones(n, dtype=np.bool_)
    for street in range(3):
        rows = np.flatnonzero(live)
        if not rows.size:
            break
        p = profile[rows]
        up = np.zeros(rows.size, dtype=np.bool_)
        if street == 0:
            up |= p == ALWAYS
            up |= (p == RANDOM) & (coin[rows, 0] < 1 / 3)
            up |= basic[rows] & preflop_raise_batch(hole[rows])
        elif street == 1:
            up |= (p == RANDOM) & (coin[rows, 1] < 1 / 3)
            up |= basic[rows] & flop_raise_batch(hole[rows], board[rows, :3])
        else:
            up |= (p == RANDOM) & (coin[rows, 2] < 0.5)
            b = np.flatnonzero(basic[rows])
            if b.size:
                up[b] = river_raise_batch(hole[rows[b]], board[rows[b]])
        s = np.flatnonzero(seer[rows])
        if s.size:
            r = rows[s]
            up[s] = _informed_raise(rng, street, profile[r], hole[r], board[r], dealer[r])
        multiple = (4, 2, 1)[street]
        if street == 0:
            mult = np.where((p == RANDOM) & (coin[rows, 3] < 0.5), 3, 4)
            act[rows, 0] = np.where(up, mult, 0)
        else:
            act[rows, street] = np.where(up, multiple, 0)
        live[rows[up]] = False
    return act
