"""``times_valid``'s NumPy check of the common time form accepts exactly what the contract's
regular expression accepts (it never decides alone against a time: other forms go to the
regex)."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from events.schemas import _REAL_TIME, _common_form, times_valid


def _events(times: list[str]) -> list[Any]:
    return [SimpleNamespace(occurred_at=t) for t in times]


def _by_regex(times: list[str]) -> bool:
    return bool(times) and all("\n" not in t and _REAL_TIME(t) is not None for t in times)


def _mutant(rng: random.Random, digits: int = 3) -> str:
    base = list(f"{rng.randint(0, 9999):04d}-{rng.randint(0, 19):02d}-{rng.randint(0, 39):02d}T"
                f"{rng.randint(0, 29):02d}:{rng.randint(0, 69):02d}:{rng.randint(0, 69):02d}."
                f"{rng.randrange(10 ** digits):0{digits}d}Z")
    for _ in range(rng.choice([0, 0, 1, 2])):
        base[rng.randrange(len(base))] = rng.choice("0123456789-T:.Z\n x٣")
    text = "".join(base)
    if rng.random() < 0.1:
        text = rng.choice([text[:-1] + "+00:00", text[:-5] + "Z", text[:-1] + "123Z", text + "Z"])
    return text


@pytest.mark.parametrize("seed", range(10))
def test_numpy_check_agrees_with_the_regex(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        digits = rng.choice([3, 3, 1, 6, 9, 10])  # one width per batch, as a feed has
        times = [_mutant(rng, rng.choice([digits, digits, digits, 3]))
                 for _ in range(rng.randint(0, 4))]
        assert times_valid(_events(times)) == _by_regex(times), times
        joined = "\n".join(times) + "\n"
        if _common_form(joined, len(times)):  # the fast path never accepts a bad time
            assert _by_regex(times), times


def test_common_form_is_taken_by_the_fast_path() -> None:
    times = ["2026-11-29T21:03:11.123Z", "2026-02-31T23:59:60.000Z"]
    assert _common_form("\n".join(times) + "\n", 2)
    assert not _common_form("2026-13-29T21:03:11.123Z\n", 1)
    assert not _common_form("2026-11-29T21:03:11.123+00:00\n", 1)  # left to the regex
    # the warehouse's feed writes microseconds: six digits, the same fast path
    assert _common_form("2026-11-29T21:03:11.123456Z\n2026-11-29T21:03:12.000000Z\n", 2)
    assert not _common_form("2026-11-29T21:03:11.123456Z\n2026-11-29T21:03:12.000Z\n", 2)
    assert not _common_form("2026-11-29T24:03:11.123456Z\n", 1)
    assert not _common_form("2026-11-29T21:03:11Z\n", 1)  # no fraction: the regex decides
    assert times_valid(_events(["2026-11-29T21:03:11Z", "2026-11-29T21:03:11.5Z"]))
    assert times_valid(_events(["2026-11-29T21:03:11.123456+00:00"]))
    assert not times_valid(_events([]))
