"""The analysis keeps sums, not seat-hands (``events.protection.tally``): the same seat-hands
added a slice at a time give the same players, dealers and slips as added at once; the
report is built a slice at a time as hands end, with every resolved dispute counted."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import events.protection.report as report_module
from events.protection.assess import assess_players, player_keys
from events.protection.dealers import dealer_alerts
from events.protection.ratings import decision_costs, gaming_days, slips_of
from events.protection.report import report_of, slices
from events.protection.scoring import Gains
from events.protection.state import rows_of
from events.protection.tally import Tally
from events.sim.simulation import SimConfig, simulate
from pipeline.commands.protect import protect_source
from tests.protection.conftest import scored


@pytest.fixture(scope="module")
def mixed_floor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Players who come and go (seat sessions), every ruleset, voids and disputes."""
    sink = tmp_path_factory.mktemp("mixed") / "floor.jsonl"
    simulate(SimConfig(tables=3, hands=400, seed=5, ruleset="mixed", mispay_rate=0.01,
                       void_rate=0.02, dispute_rate=0.05), str(sink))
    return sink


def _gain_rows(gains: Gains, lo: int, hi: int) -> Gains:
    """The seat-hands' gains of rows ``lo`` to ``hi`` (the tally reads no decision's)."""
    return Gains(*(getattr(gains, f.name)[lo:hi] if f.name not in ("legal_value", "legal_max")
                   else getattr(gains, f.name)[:0] for f in dataclasses.fields(gains)))


def _same(a: Any, b: Any, path: str = "") -> None:
    """Equal, floats to 1e-9 (sums added in another order)."""
    if isinstance(a, float):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9), (path, a, b)
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), (path, a, b)
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]")
    else:
        assert a == b, (path, a, b)


@pytest.mark.parametrize("floor", ["target", "mixed"])
def test_slices_add_up_to_the_whole(floor: str, target_floor: tuple[Path, Any],
                                    mixed_floor: Path) -> None:
    source = target_floor[0] if floor == "target" else mixed_floor
    sh, gains, keys = scored(source)
    days = gaming_days(sh.started_ms, 360, "UTC")
    costs = decision_costs(sh, gains, np.random.default_rng(2222))
    whole = Tally.of(sh, gains, keys, days, costs)
    sliced = Tally()
    cuts = 0
    for part in slices(sh, 311):
        lo = sliced.seat_hands
        hi = lo + len(part)
        assert part.hand_id[0] != sh.hand_id[lo - 1] or lo == 0  # whole hands
        sliced.add(part, _gain_rows(gains, lo, hi), keys[lo:hi], days[lo:hi], costs[lo:hi])
        cuts += 1
    assert cuts > 10 and sliced.seat_hands == whole.seat_hands == len(sh)
    assert sliced.hands == whole.hands == len(set(zip(sh.table_id, sh.hand_id, strict=True)))
    players = assess_players(whole, min_hands=1)
    assert players and any(len(a.dealers) > 1 for a in players)
    _same(assess_players(sliced, min_hands=1), players)
    _same(dealer_alerts(sliced, min_hands=1), dealer_alerts(whole, min_hands=1))
    slips = slips_of(whole)
    _same(slips_of(sliced), slips)
    # the slips' money adds up to the seat-hands' own
    assert sum(s.handle for s in slips) == int((sh.ante + sh.blind + sh.play + sh.trips).sum())
    assert sum(s.actual_win for s in slips) == -int((sh.result + sh.adjustment).sum())
    if floor == "target":  # the hole-carders: flagged from the sums as from the rows
        assert sum(a.flagged for a in players) >= 4
        assert all(len(a.evidence) == 5 for a in players if a.flagged)


def test_seat_sessions_carry_from_slice_to_slice(mixed_floor: Path) -> None:
    sh, _, keys = scored(mixed_floor)
    sessions: dict[Any, Any] = {}
    carried: list[str] = []
    for part in slices(sh, 97):
        carried += player_keys(part, sessions)
    assert carried == keys
    assert len(set(keys)) > 3 * 7  # players came and went: sessions, not seats


def test_the_report_is_built_a_slice_at_a_time(mixed_floor: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """With the disputes read first, seat-hands are scored as their hands end, in slices of
    at most ``SLICE`` and a batch; the counts and the slips' money are the whole's (the
    dispute of a hand long scored included), the scores from the slices' own draws."""
    sh, _, _ = scored(mixed_floor)
    assert sh.adjustment.any()  # resolved disputes' adjustments on the floor
    whole = protect_source(str(mixed_floor), min_hands=1, ratings=(360, "UTC"))
    added: list[int] = []
    real_add = Tally.add

    def spy(self: Tally, part: Any, *args: Any) -> None:
        added.append(len(part))
        real_add(self, part, *args)

    monkeypatch.setattr(Tally, "add", spy)
    monkeypatch.setattr(report_module, "SLICE", 300)
    sliced = protect_source(str(mixed_floor), min_hands=1, ratings=(360, "UTC"))
    assert len(added) > 10 and max(added) < 300 + 2000 * 7 // 60  # a slice and a batch
    assert (sliced.hands, sliced.seat_hands) == (whole.hands, whole.seat_hands)
    money = [(s.player, s.gaming_day, s.hands, s.handle, s.theo_win, s.actual_win,
              s.dispute_adjustment) for s in whole.slips]
    assert [(s.player, s.gaming_day, s.hands, s.handle, s.theo_win, s.actual_win,
             s.dispute_adjustment) for s in sliced.slips] == money
    assert sum(s.dispute_adjustment for s in whole.slips) == int(sh.adjustment.sum())
    assert [a.player for a in sorted(sliced.assessments, key=lambda a: a.player)] == [
        a.player for a in sorted(whole.assessments, key=lambda a: a.player)]


@pytest.fixture(scope="module")
def mixed_scored(mixed_floor: Path) -> tuple[Any, ...]:
    """The mixed floor's seat-hands scored once, with their players, days and costs, and
    its slices of whole hands (about 97 seat-hands each) as row ranges."""
    sh, gains, keys = scored(mixed_floor)
    days = gaming_days(sh.started_ms, 360, "UTC")
    costs = decision_costs(sh, gains, np.random.default_rng(2222))
    cuts, lo = [], 0
    for part in slices(sh, 97):
        cuts.append((lo, lo + len(part)))
        lo += len(part)
    one = _tally_of((sh, gains, keys, days, costs, cuts), list(range(len(cuts))))
    return (sh, gains, keys, days, costs, cuts, _state(one),
            report_of(one, min_hands=1, ratings=True))


def _tally_of(scored_floor: tuple[Any, ...], parts: list[int]) -> Tally:
    """The sums of the slices numbered in ``parts``, added to one tally in that order."""
    sh, gains, keys, days, costs, cuts = scored_floor[:6]
    tally = Tally()
    for i in parts:
        lo, hi = cuts[i]
        tally.add(sh.rows(lo, hi), _gain_rows(gains, lo, hi), keys[lo:hi], days[lo:hi],
                  costs[lo:hi])
    return tally


def _state(tally: Tally) -> list[tuple[str, str, str]]:
    """The tally as the warehouse stores it (JSON numbers: exact), in one order."""
    return sorted(rows_of(tally, {}))


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_merged_tallies_are_one_pass(mixed_scored: tuple[Any, ...], data: Any) -> None:
    """Merging tallies is exact and order-free: the hands split into groups (any slices,
    any order within a group), each group summed on its own and the groups merged in any
    order, give the very sums (to the last bit) and so the very report of one pass; and
    folding A then B into one tally equals merging A's tally with B's."""
    cuts, one, report = mixed_scored[5:]
    k = data.draw(st.integers(2, 5), label="groups")
    group = data.draw(st.lists(st.integers(0, k - 1), min_size=len(cuts),
                               max_size=len(cuts)), label="group of each slice")
    parts = [data.draw(st.permutations([i for i, g in enumerate(group) if g == j]))
             for j in range(k)]
    tallies = [_tally_of(mixed_scored, p) for p in parts]
    before = [_state(t) for t in tallies]
    merged = Tally()
    for j in data.draw(st.permutations(range(k)), label="merge order"):
        merged.merge(tallies[j])
    assert [_state(t) for t in tallies] == before  # the merged tallies are left as they were
    assert _state(merged) == one
    assert report_of(merged, min_hands=1, ratings=True) == report
    assert report.assessments and report.slips and report.dealer_alerts
    a_then_b = _tally_of(mixed_scored, parts[0] + parts[1])
    a_with_b = _tally_of(mixed_scored, parts[0])
    a_with_b.merge(tallies[1])
    assert _state(a_then_b) == _state(a_with_b)
