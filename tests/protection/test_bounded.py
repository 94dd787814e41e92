"""The protection analysis holds a floor's seat-hands packed as they end, and draws the
null holdings a slice of seat-hands at a time (what a 1,000,000-hand warehouse needs to
fit in memory); neither changes a number: the same events and seed give the same report
whatever the slice."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import events.protection.scoring as scoring
from events.contract.codec import Rejection, decode_many
from events.protection.assess import gains_of
from events.protection.hands import SeatHandCollector


def _seat_hands(floor: Path) -> Any:
    folder = SeatHandCollector()
    items = decode_many(floor.read_bytes().splitlines())
    folder.feed([e for e in items if not isinstance(e, Rejection)])
    return folder.seat_hands()


def test_draws_do_not_depend_on_the_slice(target_floor: tuple[Path, list[Any]],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    sh = _seat_hands(target_floor[0])
    assert len(sh) > 5000
    whole = gains_of(sh, np.random.default_rng(22))
    monkeypatch.setattr(scoring, "HOLDINGS_CHUNK", 777)
    sliced = gains_of(sh, np.random.default_rng(22))
    for f in dataclasses.fields(whole):
        assert np.array_equal(getattr(whole, f.name), getattr(sliced, f.name)), f.name
    monkeypatch.setattr(scoring, "HOLDINGS_CHUNK", 777)
    other = gains_of(sh, np.random.default_rng(23))
    assert not np.array_equal(whole.both, other.both)  # (the draws do matter)


def test_seat_hands_packed_as_they_end(target_floor: tuple[Path, list[Any]]) -> None:
    sh = _seat_hands(target_floor[0])
    n = len(sh)
    assert len(sh.table_id) == len(sh.player_ref) == len(sh.ruleset) == n
    for name in ("seat", "ante", "blind", "trips", "play", "result", "adjustment",
                 "started_ms", "ended_ms", "ordinal"):
        column = getattr(sh, name)
        assert column.dtype == np.int64 and column.shape == (n,), name
    assert sh.hole.shape == (n, 2) and sh.board.shape == (n, 5) and sh.dealer.shape == (n, 2)
    known = sh.cards_known
    assert known.dtype == np.bool_ and known.all()  # the simulator deals every card
    cards = np.concatenate([sh.hole, sh.dealer, sh.board], axis=1)
    assert all(len(set(row)) == 9 for row in cards.tolist())  # nine different cards
    assert (sh.ante > 0).all() and (sh.blind == sh.ante).all()
    assert (sh.ended_ms >= sh.started_ms).all()
    assert len(sh.dec_hand) and (np.diff(sh.dec_hand) >= 0).all()
    assert set(np.unique(sh.dec_street).tolist()) <= {0, 1, 2}
