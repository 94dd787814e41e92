"""The simulator's advantage players: each uses the dealer cards it sees where its pattern
says and plays basic strategy elsewhere, deciding by the game's own equities (not the
detector's model); the honest styles never depend on the dealer's cards."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from events.game.strategy import flop_raise_batch, preflop_raise_batch, river_raise_batch
from events.sim.styles import FIRST_STYLE, STYLES, style_decisions

N = 400


def _deal(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    deck = rng.permuted(np.tile(np.arange(52), (N, 1)), axis=1)
    return deck[:, :2], deck[:, 2:7], deck[:, 7:9]


def _play(style: str, seed: int = 1, dealer_seed: int | None = None,
          informed: bool = True) -> np.ndarray:
    hole, board, dealer = _deal(seed)
    if dealer_seed is not None:  # other dealer cards from the same deck's remains
        rng = np.random.default_rng(dealer_seed)
        for i in range(N):
            rest = np.setdiff1d(np.arange(52), np.concatenate([hole[i], board[i]]))
            dealer[i] = rng.choice(rest, 2, replace=False)
    profile = np.full(N, FIRST_STYLE + STYLES.index(style))
    return style_decisions(np.random.default_rng(7), profile, np.full(N, informed), hole,
                           board, dealer, np.arange(N) % 3 == 0)


def _basic(seed: int = 1) -> np.ndarray:
    hole, board, _ = _deal(seed)
    act = np.full((N, 3), -1, dtype=np.int8)
    pf = preflop_raise_batch(hole)
    fl = flop_raise_batch(hole, board[:, :3])
    rv = river_raise_batch(hole, board)
    act[:, 0] = np.where(pf, 4, 0)
    act[:, 1] = np.where(pf, -1, np.where(fl, 2, 0))
    act[:, 2] = np.where(pf | fl, -1, np.where(rv, 1, 0))
    return act


def test_cheats_do_not_use_the_detectors_model() -> None:
    code = ("import sys, events.sim.styles, events.sim.cheats, events.sim.simulation; "
            "print(sorted(m for m in sys.modules if m.startswith('events.protection')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_each_pattern_uses_what_it_sees_only_where_it_says() -> None:
    basic = _basic()
    for style in ("hole_card_both", "hole_card_one", "hole_card_one_river",
                  "hole_card_one_preflop", "hole_card_both_camo"):
        assert (_play(style, informed=False) == basic).all(), style  # no flash: basic
        act = _play(style)
        differs = act != basic
        assert differs.any(), style
        if style == "hole_card_one_river":  # the same up to the river, then its own call
            assert (act[:, :2] == basic[:, :2]).all()
        if style == "hole_card_one_preflop":  # its own preflop; basic after a check
            checked = act[:, 0] == 0
            assert (act[checked & (basic[:, 0] == 0), 1:] == basic[checked & (
                basic[:, 0] == 0), 1:]).all()
    both, camo = _play("hole_card_both"), _play("hole_card_both_camo")
    # the camouflaged one plays basic strategy on about a third of its decisions
    assert 0.2 < (camo[:, 0] == _basic()[:, 0])[both[:, 0] != _basic()[:, 0]].mean() < 0.5


def test_an_informed_player_gains_and_decides_by_the_dealer_cards() -> None:
    from events.sim.cheats import raise_gain

    hole = np.array([[48, 49]])  # a pair of aces
    board = np.array([[0, 5, 10, 20, 33]])
    gain = raise_gain(np.random.default_rng(0), 2, hole, board, np.array([[44, 45]]))
    assert gain[0] == 4  # aces against kings: the raise wins ante and play, a fold loses 2
    low = raise_gain(np.random.default_rng(0), 2, np.array([[38, 27]]), board,
                     np.array([[50, 51]]))
    assert low[0] == -1  # jack high against aces: raising loses 3, folding 2
    assert not (_play("hole_card_both", dealer_seed=5) == _play("hole_card_both")).all()


def test_honest_styles_never_depend_on_the_dealers_cards() -> None:
    for style in ("always_raise", "never_raise", "random", "paired_board", "draws",
                  "any_ace", "suited", "tilt"):
        assert (_play(style) == _play(style, dealer_seed=3)).all(), style
        assert not (_play(style) == _basic()).all() or style == "basic", style
