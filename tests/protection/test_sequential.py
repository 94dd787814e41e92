"""Evidence that accumulates: the sequential test adds a player's days up and names the
first day the evidence crossed the line, each look paying its share of the false-alarm
rate (alpha / (pi^2/6 t^2) at the t-th day), so that the shares add up to alpha."""

from __future__ import annotations

import math

from events.protection.assess import (
    SPENDING,
    TESTS,
    THRESHOLD,
    adjusted_score,
    crossing_day,
)
from events.protection.tally import SlipSums


def _day(value: float, var: float = 1.0, sign: float = 0.0) -> SlipSums:
    s = SlipSums()
    s.stats = [value, 0.0, 0.0, 0.0, 0.0, sign] + [0.0] * (TESTS - 6)
    s.stat_var = [var] * TESTS
    return s


def test_the_evidence_adds_up_to_the_day_it_crosses() -> None:
    # each day adds 2 to the sum and 1 to its variance: z after t days = 2 sqrt(t)
    days = [(f"2026-01-0{t}", _day(2.0)) for t in range(1, 10)]
    day = crossing_day(list(reversed(days)))  # in any order: the days are sorted
    t = next(t for t in range(1, 10)
             if adjusted_score(2 * math.sqrt(t), TESTS * SPENDING * t * t) >= THRESHOLD)
    assert day == f"2026-01-0{t}" and t > 1  # no single day crossed alone
    assert crossing_day(days[: t - 1]) is None


def test_any_test_counts_and_a_sign_test_alone_crosses() -> None:
    assert crossing_day([("2026-02-01", _day(0.0, sign=30.0, var=16.0))]) == "2026-02-01"
    assert crossing_day([("2026-02-01", _day(0.0, sign=3.0))]) is None


def test_the_spending_adds_up_to_the_stated_rate() -> None:
    """The looks' shares of alpha add up to 1 over any number of days, and a look's line
    is higher the later the look."""
    shares = sum(1 / (SPENDING * t * t) for t in range(1, 200_000))
    assert abs(shares - 1) < 1e-5
    lines = [next(z / 100 for z in range(300, 800)
                  if adjusted_score(z / 100, TESTS * SPENDING * t * t) >= THRESHOLD)
             for t in (1, 10, 365)]
    assert lines == sorted(lines) and lines[0] > 4.0
