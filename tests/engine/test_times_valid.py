"""``times_valid``'s NumPy check of the common time form accepts exactly what the contract's
regular expression accepts (it never decides alone against a time: other forms go to the
regex)."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace
from typing import Any

import pytest

from events.contract.codec import Rejection, decode_line
from events.contract.times import _common_form, time_problem, times_valid


def _events(times: list[str]) -> list[Any]:
    return [SimpleNamespace(occurred_at=t) for t in times]


def _by_regex(times: list[str]) -> bool:
    return bool(times) and all("\n" not in t and time_problem(t) is None for t in times)


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
    times = ["2026-11-29T21:03:11.123Z", "2028-02-29T23:59:59.000Z"]
    assert _common_form("\n".join(times) + "\n", 2)
    assert not _common_form("2026-13-29T21:03:11.123Z\n", 1)
    assert not _common_form("2026-11-29T21:03:11.123+00:00\n", 1)  # left to the regex
    # the warehouse's feed writes microseconds: six digits, the same fast path
    assert _common_form("2026-11-29T21:03:11.123456Z\n2026-11-29T21:03:12.000000Z\n", 2)
    assert not _common_form("2026-11-29T21:03:11.123456Z\n2026-11-29T21:03:12.000Z\n", 2)
    assert not _common_form("2026-11-29T24:03:11.123456Z\n", 1)
    assert not _common_form("2026-11-29T21:03:11Z\n", 1)  # no fraction: the regex decides
    assert times_valid(_events(["2026-11-29T21:03:11Z", "2026-11-29T21:03:11.5Z"]))
    # mixed widths whose lengths add up to a whole number of rows: not the fast path's
    mixed = ["2026-11-29T21:03:11.123Z", "2026-11-29T21:03:11.12345Z", "2026-11-29T21:03:11.1Z"]
    assert len("\n".join(mixed) + "\n") == 3 * 25
    assert not _common_form("\n".join(mixed) + "\n", 3)
    assert times_valid(_events(mixed))
    assert times_valid(_events(["2026-11-29T21:03:11.123456+00:00"]))
    assert not times_valid(_events([]))


@pytest.mark.parametrize("text", [
    "2026-02-31T10:00:00.000Z", "2026-04-31T10:00:00.000Z", "2027-02-29T10:00:00.000Z",
    "2100-02-29T10:00:00.000Z", "2026-12-31T23:59:60.000Z", "2026-12-31T23:59:60Z",
    "202\u0663-11-29T21:03:11.123Z", "2026-11-29T21:03:11.12\u0663Z"])
def test_times_the_warehouse_cannot_store_are_refused_with_a_reason(text: str) -> None:
    """A day the month lacks, a leap second, a non-ASCII digit: refused by both paths,
    so that such an event is dead-lettered instead of failing every load of its batch."""
    problem = time_problem(text)
    assert problem is not None and text[:7] in problem
    assert not times_valid(_events([text]))
    assert not times_valid(_events(["2026-11-29T21:03:11.123Z", text]))
    if text.isascii() and "." in text:
        assert not _common_form(text + "\n", 1)
    line = json.dumps({"event_id": "e1", "type": "TableClosed", "schema_version": 1,
                       "table_id": "T1", "hand_id": None, "seq": 0, "occurred_at": text,
                       "payload": {}})
    rejected = decode_line(line.encode(), 7)
    assert isinstance(rejected, Rejection) and "occurred_at" in rejected.reason


@pytest.mark.parametrize("text", [
    "2028-02-29T10:00:00.000Z", "2000-02-29T10:00:00Z", "2026-01-31T23:59:59.999999Z",
    "2026-12-31T23:59:59+00:00"])
def test_real_month_ends_are_accepted(text: str) -> None:
    assert time_problem(text) is None
    assert times_valid(_events([text, text]))
