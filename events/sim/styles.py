"""Playing styles of the simulated players beyond ``sim_players``' four: honest styles
from reckless to random and styles that lean on what they can see, and advantage players
who decide from the game's own equities with the dealer cards they see (``cheats``,
written apart from the detector's model).

Honest (each decides from its own cards, the board and what the table showed):

- ``always_raise``: raises 4x before every flop;
- ``never_raise``: checks every street and folds on the river;
- ``random``: raises on each street by a coin (a third of the time preflop and on the
  flop, half on the river), 4x or 3x preflop;
- ``paired_board``: basic strategy, and raises the flop on a paired flop, calls the river
  on a paired board;
- ``draws``: basic strategy, and raises the flop with four to a flush or four ranks in a
  row;
- ``any_ace``: basic strategy, and raises the flop when an ace shows on it, calls the
  river when one shows on the board;
- ``suited``: basic strategy, and raises preflop with any two suited cards;
- ``tilt``: basic strategy, but after a hand the dealer's cards beat theirs, raises
  preflop with any pair, king or queen, and calls every river.

Advantage players (``hole_card_*``): basic strategy, except where they use the dealer
card(s) they see: ``hole_card_both`` (both cards, every decision), ``hole_card_one``
(the first card, every decision), ``hole_card_one_river`` (the first card, the river
only), ``hole_card_one_preflop`` (the first card, preflop only), ``hole_card_both_camo``
(both cards, but basic strategy on a third of decisions, by a coin, to blend in). Any of
them may see only when one dealer deals (``@N`` in a roster: a dealer who flashes): the
table passes ``informed`` per cell, and an uninformed one plays basic strategy.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from events.game.strategy import flop_raise_batch, preflop_raise_batch, river_raise_batch
from events.sim.cheats import raise_gain

STYLES = ("always_raise", "never_raise", "random", "hole_card_both", "hole_card_one",
          "hole_card_one_river", "hole_card_one_preflop", "hole_card_both_camo",
          "paired_board", "draws", "any_ace", "suited", "tilt")
FIRST_STYLE = 4  # profile index of STYLES[0] (after sim_players' basic, loose, weak, hole_card)
(ALWAYS, NEVER, RANDOM, SEES_BOTH, SEES_ONE, ONE_RIVER, ONE_PREFLOP, BOTH_CAMO, PAIRED,
 DRAWS, ANY_ACE, SUITED, TILT) = range(FIRST_STYLE, FIRST_STYLE + len(STYLES))
CHEATS = (SEES_BOTH, SEES_ONE, ONE_RIVER, ONE_PREFLOP, BOTH_CAMO)
BOTH_CARDS = (SEES_BOTH, BOTH_CAMO)
CAMOUFLAGE = 1 / 3  # the share of decisions the camouflaged advantage player plays plainly
IntArray = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
BoolArray = npt.NDArray[np.bool_]


def hole_card_styles() -> dict[str, str]:
    """Each advantage-play style and the dealer cards it sees (``both`` or ``first``)."""
    return {"hole_card_both": "both", "hole_card_one": "first",
            "hole_card_one_river": "first", "hole_card_one_preflop": "first",
            "hole_card_both_camo": "both"}


def _uses(profile: IntArray, street: int) -> BoolArray:
    """The advantage players who use what they see on this street."""
    out = np.isin(profile, (SEES_BOTH, SEES_ONE, BOTH_CAMO))
    out |= profile == (ONE_PREFLOP if street == 0 else ONE_RIVER if street == 2 else -1)
    return out


def _informed_raise(rng: np.random.Generator, street: int, profile: IntArray, hole: IntArray,
                    board: IntArray, dealer: IntArray) -> BoolArray:
    """Raise when the game's equities with the seen dealer cards say so."""
    up = np.zeros(len(hole), dtype=np.bool_)
    both = np.isin(profile, BOTH_CARDS)
    for rows, seen in ((np.flatnonzero(both), dealer[:, :2]),
                       (np.flatnonzero(~both), dealer[:, :1])):
        if rows.size:
            up[rows] = raise_gain(rng, street, hole[rows], board[rows], seen[rows]) > 0
    return up


def _ranks(cards: IntArray) -> IntArray:
    out: IntArray = cards >> 2
    return out


def _paired(cards: IntArray) -> BoolArray:
    r = np.sort(_ranks(cards), axis=1)
    return np.asarray((r[:, 1:] == r[:, :-1]).any(axis=1))


def _draw(hole: IntArray, flop: IntArray) -> BoolArray:
    """Four to a flush, or four ranks in a row (ace high or low), among hole and flop."""
    cards = np.concatenate([hole, flop], axis=1)
    suits = cards & 3
    flush4 = np.stack([(suits == s).sum(axis=1) for s in range(4)], axis=1).max(axis=1) >= 4
    have = np.zeros((len(cards), 14), dtype=np.bool_)
    r = _ranks(cards)
    np.put_along_axis(have, r + 1, True, axis=1)
    have[:, 0] = have[:, 13]  # the ace low
    run4 = have[:, :-3] & have[:, 1:-2] & have[:, 2:-1] & have[:, 3:]
    return np.asarray(flush4 | np.any(run4, axis=1))


def _honest_extra(street: int, p: IntArray, hole: IntArray, board: IntArray,
                  lost: BoolArray) -> BoolArray:
    """Where the honest styles that lean on what they see raise beyond basic strategy."""
    up = np.zeros(len(p), dtype=np.bool_)
    r = _ranks(hole)
    if street == 0:
        up |= (p == SUITED) & ((hole[:, 0] & 3) == (hole[:, 1] & 3))
        up |= (p == TILT) & lost & ((r[:, 0] == r[:, 1]) | (r.max(axis=1) >= 10))
    elif street == 1:
        flop = board[:, :3]
        up |= (p == PAIRED) & _paired(flop)
        up |= (p == DRAWS) & _draw(hole, flop)
        up |= (p == ANY_ACE) & (_ranks(flop) == 12).any(axis=1)
    else:
        up |= (p == PAIRED) & _paired(board)
        up |= (p == ANY_ACE) & (_ranks(board) == 12).any(axis=1)
        up |= (p == TILT) & lost
    return up


def style_decisions(rng: np.random.Generator, profile: IntArray, informed: BoolArray,
                    hole: IntArray, board: IntArray, dealer: IntArray,
                    lost: BoolArray | None = None) -> I8:
    """``act`` rows (as ``sim_players.Decisions``) of cells playing one of the STYLES;
    ``lost``: the cell's player lost their hand before at this seat (default: no)."""
    n = len(profile)
    act = np.full((n, 3), -1, dtype=np.int8)
    coin = rng.random((n, 4))
    camo = (rng.random((n, 3)) if (profile == BOTH_CAMO).any()
            else np.ones((n, 3)))  # drawn only when needed: other floors keep their draws
    lost = np.zeros(n, dtype=np.bool_) if lost is None else lost
    cheat = np.isin(profile, CHEATS)
    live = np.ones(n, dtype=np.bool_)
    for street in range(3):
        rows = np.flatnonzero(live)
        if not rows.size:
            break
        p = profile[rows]
        h, b = hole[rows], board[rows]
        if street == 0:
            basic = preflop_raise_batch(h)
        elif street == 1:
            basic = flop_raise_batch(h, b[:, :3])
        else:
            basic = river_raise_batch(h, b)
        plain = (cheat[rows] | (p >= PAIRED))  # basic strategy, but where they differ
        up = plain & basic
        up |= _honest_extra(street, p, h, b, lost[rows])
        up |= (p == ALWAYS) & (street == 0)
        up |= (p == RANDOM) & (coin[rows, street] < (1 / 3, 1 / 3, 0.5)[street])
        uses = (cheat[rows] & informed[rows] & _uses(p, street)
                & ~((p == BOTH_CAMO) & (camo[rows, street] < CAMOUFLAGE)))
        s = np.flatnonzero(uses)
        if s.size:
            r = rows[s]
            up[s] = _informed_raise(rng, street, profile[r], hole[r], board[r], dealer[r])
        if street == 0:
            mult = np.where((p == RANDOM) & (coin[rows, 3] < 0.5), 3, 4)
            act[rows, 0] = np.where(up, mult, 0)
        else:
            act[rows, street] = np.where(up, (4, 2, 1)[street], 0)
        live[rows[up]] = False
    return act
