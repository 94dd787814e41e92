"""Simulated floors shared by the simulator tests (built once per session)."""

from __future__ import annotations

import pytest

from events.sim.simulation import Floor, SimConfig
from tests.sim.handkit import Stream, read

# every ruleset (so both dealing orders, two-deck shoes and online tables), all error kinds
FLOOR = SimConfig(tables=8, hands=250, seed=2024, ruleset="mixed", mispay_rate=0.0,
                  void_rate=0.03, dispute_rate=0.03)
ERRORS = SimConfig(tables=4, hands=600, seed=99, ruleset="mixed", mispay_rate=0.05,
                   void_rate=0.02, dispute_rate=0.05)


def run(config: SimConfig) -> tuple[list[bytes], Floor]:
    floor = Floor(config)
    lines = [line for chunk in floor.chunks() for line in chunk.lines()]
    return lines, floor


@pytest.fixture(scope="session")
def floor_lines() -> list[bytes]:
    return run(FLOOR)[0]


@pytest.fixture(scope="session")
def floor(floor_lines: list[bytes]) -> Stream:
    return read(floor_lines)


@pytest.fixture(scope="session")
def errors_run() -> tuple[Stream, list[dict[str, object]], list[bytes]]:
    lines, fl = run(ERRORS)
    return read(lines), fl.truth(), lines
