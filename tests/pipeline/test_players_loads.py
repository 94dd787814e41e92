"""One answer: the warehouse's player tables are the same whether the floor came in one
load or in several with other boundaries (hands cut in the middle, disputes arriving
after their hands), and the same as ``uth protect`` over the log; each load scores only
the hands it brought."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from events.sim.simulation import SimConfig, simulate
from pipeline.cli import main
from pipeline.warehouse import query

ROSTER = ("basic", "hole_card_one", "random", "hole_card_both", "weak", "never_raise")
TABLES = ("player_ratings", "player_alerts", "player_alert_dealers", "dealer_alerts")


def _rows(wh: Path) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    for table in TABLES:
        rows = query(wh, f"SELECT * FROM {table} ORDER BY ALL")
        out[table] = [tuple(round(v, 9) if isinstance(v, float) else v for v in r)
                      for r in rows]
    return out


def _load(log: Path, wh: Path) -> None:
    assert main(["load", "--source", str(log), "--warehouse", str(wh), "-q"]) == 0


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[bytes]]:
    d = tmp_path_factory.mktemp("loads")
    sink = d / "floor.jsonl"
    simulate(SimConfig(tables=2, hands=160, seed=31, ruleset="charlevoix-2011",
                       roster=ROSTER, mispay_rate=0.05, dispute_rate=0.08),
             str(sink), d / "truth.jsonl")
    return d, sink.read_bytes().splitlines(keepends=True)


def _in_loads(d: Path, lines: list[bytes], cuts: tuple[float, ...], name: str) -> Path:
    log, wh = d / f"{name}.jsonl", d / f"{name}.duckdb"
    log.write_bytes(b"")
    done = 0
    for cut in (*cuts, 1.0):
        upto = int(len(lines) * cut)
        with log.open("ab") as f:
            f.write(b"".join(lines[done:upto]))
        done = upto
        _load(log, wh)
    return wh


def test_any_load_boundaries_give_the_same_tables(floor: tuple[Path, list[bytes]]) -> None:
    d, lines = floor
    once = _in_loads(d, lines, (), "once")
    want = _rows(once)
    assert want["player_alerts"]  # the hole-carders are there to be found
    assert query(once, "SELECT count(*) FROM events WHERE type = 'DisputeResolved'")[0][0]
    for name, cuts in (("thirds", (0.33, 0.67)), ("many", (0.11, 0.29, 0.5, 0.51, 0.83))):
        assert _rows(_in_loads(d, lines, cuts, name)) == want, name


def test_each_load_scores_only_the_hands_it_brought(floor: tuple[Path, list[bytes]],
                                                    tmp_path: Path) -> None:
    from pipeline.players.transforms import update_players
    from pipeline.warehouse import writing

    _, lines = floor
    log, wh = tmp_path / "floor.jsonl", tmp_path / "w.duckdb"
    log.write_bytes(b"".join(lines[: len(lines) // 2]))
    _load(log, wh)
    (first,), = query(wh, "SELECT count(*) FROM protection_seat_hands")
    with log.open("ab") as f:
        f.write(b"".join(lines[len(lines) // 2:]))
    assert main(["load", "--source", str(log), "--warehouse", str(wh), "-q"]) == 0
    (total,), = query(wh, """SELECT count(*) FROM wagers JOIN hands USING (hand_id)
        WHERE spot = 'ante' AND status = 'settled'""")
    (kept,), = query(wh, "SELECT count(*) FROM protection_seat_hands")
    assert 0 < first < kept == total  # every seat-hand scored once, none twice
    with writing(wh) as con:  # nothing new: nothing scored
        assert update_players(con, 360) == {}


def test_the_command_gives_the_warehouses_answer(floor: tuple[Path, list[bytes]]) -> None:
    from pipeline.commands.protect import protect_source

    d, lines = floor
    wh = _in_loads(d, lines, (0.4,), "command")
    report = protect_source(str(d / "floor.jsonl"), ratings=(360, "UTC"))
    flagged = [a for a in report.assessments if a.flagged]
    alerts = query(wh, """SELECT player, score, pattern, evidence, only_with_dealer, streets,
        test, CAST(crossed_on AS VARCHAR) FROM player_alerts ORDER BY player""")
    assert [(a.player, round(a.score, 9), a.pattern, a.evidence, a.only_with_dealer,
             ",".join(a.streets), a.test, a.crossed_on)
            for a in sorted(flagged, key=lambda a: a.player)] == [
        (p, round(s, 9), pat, tuple(json.loads(e)), only, st, test, crossed)
        for p, s, pat, e, only, st, test, crossed in alerts]
    assert all(a.crossed_on for a in flagged)  # one day's floor: crossed on that day
    scores = dict(query(wh, "SELECT DISTINCT player, protection_score FROM player_ratings"))
    for a in report.assessments:
        assert round(scores[a.player], 9) == round(a.score, 9)
    dealers = query(wh, "SELECT dealer_id, score, evidence FROM dealer_alerts ORDER BY 1")
    assert [(x.dealer_id, round(x.score, 9), list(x.evidence))
            for x in sorted(report.dealer_alerts, key=lambda x: x.dealer_id) if x.flagged] == [
        (i, round(s, 9), json.loads(e)) for i, s, e in dealers]
    slips = query(wh, """SELECT player, CAST(gaming_day AS VARCHAR), decision_cost,
        dispute_adjustment, actual_win FROM player_ratings ORDER BY 1, 2""")
    assert sorted((s.player, s.gaming_day, s.decision_cost, s.dispute_adjustment,
                   s.actual_win) for s in report.slips) == slips
