"""Simulated floors with a roster, written once per session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from events.sim.simulation import SimConfig, simulate

# the floor: 40 players at 8 tables, 400 hands each; 2 see both dealer cards, 2 the
# first; the honest range from basic strategy to reckless
TARGET_ROSTER = (("basic",) * 10 + ("loose",) * 5 + ("weak",) * 5 + ("always_raise",) * 4
                 + ("never_raise",) * 4 + ("random",) * 8
                 + ("hole_card_both",) * 2 + ("hole_card_one",) * 2)
HONEST = ("basic", "loose", "weak", "always_raise", "never_raise", "random", "paired_board",
          "draws", "any_ace", "suited", "tilt")


def write_floor(path: Path, tables: int, hands: int, roster: tuple[str, ...], seed: int,
                ruleset: str = "charlevoix-2011", dealers: int = 3
                ) -> tuple[Path, list[dict[str, Any]]]:
    sink, truth = path / "floor.jsonl", path / "truth.jsonl"
    simulate(SimConfig(tables=tables, hands=hands, seed=seed, ruleset=ruleset,
                       roster=roster, dealers=dealers), str(sink), truth)
    rows = [json.loads(line) for line in truth.read_text().splitlines()]
    return sink, [r for r in rows if r.get("record") == "player"]


@pytest.fixture(scope="session")
def target_floor(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    # the roster shuffled so that the hole-carders sit at different tables and seats
    import random

    roster = list(TARGET_ROSTER)
    random.Random(3).shuffle(roster)
    return write_floor(tmp_path_factory.mktemp("target"), 8, 400, tuple(roster), seed=22)


@pytest.fixture(scope="session")
def target_report(target_floor: tuple[Path, list[dict[str, Any]]]) -> Any:
    from pipeline.commands.protect import protect_source

    return protect_source(str(target_floor[0]))


def scored(source: Path) -> tuple[Any, Any, list[str]]:
    """The seat-hands of a floor, their gains and players, as the analysis scores a floor
    of one slice (``protect`` keeps only their sums): for the tests that look at them."""

    from events.contract.codec import Rejection, decode_many
    from events.protection.assess import gains_of, player_keys
    from events.protection.hands import SeatHandCollector
    from events.protection.report import SEED, SLICE

    folder = SeatHandCollector()
    folder.feed([e for e in decode_many(source.read_bytes().splitlines())
                 if not isinstance(e, Rejection)])
    sh = folder.take()
    assert len(sh) <= SLICE  # one slice
    return sh, gains_of(sh, SEED), player_keys(sh)
