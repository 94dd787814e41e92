"""``player_ratings`` and ``player_alerts`` loaded by the Dagster graph: rating slips that
add up to the audit's own wagers and results, the hole-carder alerted with evidence hands
and dealers, and a load without new events leaves them as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events.sim.simulation import SimConfig, simulate
from pipeline.cli import main
from pipeline.warehouse import query

ROSTER = ("basic", "random", "hole_card_both", "always_raise", "weak", "never_raise")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("players")
    log = f"sqlite:///{d / 'events.db'}"
    simulate(SimConfig(tables=2, hands=250, seed=9, ruleset="charlevoix-2011", roster=ROSTER),
             log, d / "truth.jsonl")
    wh = d / "w.duckdb"
    assert main(["load", "--source", log, "--warehouse", str(wh), "-q"]) == 0
    return wh


def test_rating_slips_add_up_to_the_audited_wagers(loaded: Path) -> None:
    (hands, handle, actual), = query(loaded, """SELECT sum(hands), sum(handle), sum(actual_win)
        FROM player_ratings""")
    (seat_hands,), = query(loaded, """SELECT count(DISTINCT (hand_id, seat)) FROM wagers
        JOIN hands USING (hand_id) WHERE status = 'settled'""")
    (wagered, house), = query(loaded, """SELECT sum(amount), -sum(recorded_result) FROM wagers
        JOIN hands USING (hand_id) WHERE status = 'settled'""")
    assert hands == seat_hands == 500 * 3 // 1  # 2 tables x 250 hands x 3 seats
    assert handle == wagered and actual == house
    rows = query(loaded, """SELECT player, hours, avg_ante, avg_wager, theo_win, decision_cost
        FROM player_ratings""")
    assert len({r[0] for r in rows}) == 6
    for _, hours, ante, wager, theo, _cost in rows:
        assert hours > 0 and wager >= 2 * ante > 0 and theo > 0
    # never raising folds away hands basic strategy plays: it costs more than basic play
    cost = dict(query(loaded, """SELECT player, sum(decision_cost) / sum(hands * avg_ante)
        FROM player_ratings GROUP BY player"""))
    assert cost["T02/seat-3/T02-000001"] > cost["T01/seat-1/T01-000001"] + 0.3


def test_the_hole_carder_is_alerted_with_evidence(loaded: Path) -> None:
    alerts = query(loaded, "SELECT player, pattern, evidence, top_dealer FROM player_alerts")
    assert [a[:2] for a in alerts] == [("T01/seat-2/T01-000001", "hole-card-both")]
    evidence = json.loads(alerts[0][2])
    assert len(evidence) == 5 and all(h.startswith("T01-") for h in evidence)
    dealers = query(loaded, "SELECT dealer_id, hands FROM player_alert_dealers")
    assert alerts[0][3] in {d for d, _ in dealers} and sum(h for _, h in dealers) == 250
    flagged = query(loaded, "SELECT DISTINCT player FROM player_ratings WHERE flagged")
    assert flagged == [("T01/seat-2/T01-000001",)]


def test_a_load_without_new_events_keeps_the_tables(loaded: Path) -> None:
    before = query(loaded, "SELECT * FROM player_alerts")
    assert main(["load", "--source", f"sqlite:///{loaded.parent / 'events.db'}",
                 "--warehouse", str(loaded), "-q"]) == 0
    assert query(loaded, "SELECT * FROM player_alerts") == before


def test_the_hole_carders_dealers_are_not_flagged(loaded: Path) -> None:
    """The hole-carder sees with every dealer: his informed decisions do not concentrate
    on one dealer's hands, so no dealer is flagged for merely dealing to him."""
    assert query(loaded, "SELECT dealer_id, tables, pattern, score FROM dealer_alerts") == []


def test_theo_is_exact_and_disputes_count_in_the_actual_win(tmp_path: Path) -> None:
    """Per slip the base theo is the antes x 2.1850% rounded once, the Trips theo the Trips
    wagers x the exact edge; the actual win is the settled result less what resolved
    disputes paid the player, all of it."""
    from fractions import Fraction

    from events.game.rulesets import load_ruleset
    from events.game.theory import trips_theory
    from events.protection.ratings import cents

    log = f"sqlite:///{tmp_path / 'events.db'}"
    simulate(SimConfig(tables=1, hands=200, seed=3, ruleset="charlevoix-2011",
                       roster=("basic", "random"), mispay_rate=0.05, dispute_rate=0.05),
             log, tmp_path / "truth.jsonl")
    wh = tmp_path / "w.duckdb"
    assert main(["load", "--source", log, "--warehouse", str(wh), "-q"]) == 0
    (adjusted,), = query(wh, """SELECT sum(CAST(payload->>'adjustment' AS BIGINT))
        FROM events WHERE type = 'DisputeResolved'""")
    assert adjusted  # the simulator's disputes paid (or took back) something
    (paid,), = query(wh, """SELECT sum(CAST(payload->>'amount' AS BIGINT)) FROM events
        WHERE type = 'PayoutRecorded'""")
    # the audit books an adjustment in the seat's recorded result: the house win agrees
    (house,), = query(wh, """SELECT -sum(recorded_result) FROM wagers JOIN hands
        USING (hand_id) WHERE status = 'settled'""")
    (actual, adjustments), = query(wh, """SELECT sum(actual_win), sum(dispute_adjustment)
        FROM player_ratings""")
    assert adjustments == adjusted and actual == -paid - adjusted == house
    trips_edge = -trips_theory(load_ruleset("charlevoix-2011")).expected_value
    slips = query(wh, """SELECT r.player, r.theo_base, r.theo_trips, r.theo_win,
        sum(w.amount) FILTER (WHERE w.spot = 'ante'),
        coalesce(sum(w.amount) FILTER (WHERE w.spot = 'trips'), 0)
        FROM player_ratings r JOIN hands h ON h.table_id = r.table_id
            AND h.gaming_day = r.gaming_day AND h.status = 'settled'
        JOIN wagers w ON w.hand_id = h.hand_id
            AND w.seat = CAST(split_part(r.player, 'seat-', 2)[1:1] AS INTEGER)
        GROUP BY ALL""")
    assert len(slips) == 2
    for _, base, trips, theo, antes, trips_staked in slips:
        assert base == cents(Fraction(antes) * Fraction(21850, 1_000_000))
        assert trips == cents(trips_staked * trips_edge) and theo == base + trips


def test_a_custom_blind_table_loads_with_no_base_theo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A floor dealt under a casino's own ruleset (another blind table): the warehouse's
    slips have no base theo, no theo and no decisions' cost (NULL, never a guessed figure),
    and the Trips theo at the exact edge of its trips table."""
    from events.game.rulesets import load_ruleset
    from events.game.theory import trips_theory
    from events.protection.ratings import cents
    from tests.protection.test_ratings import CUSTOM_TOML

    (tmp_path / "my-casino.toml").write_text(CUSTOM_TOML)
    monkeypatch.setenv("UTH_RULESETS_DIR", str(tmp_path))
    log = f"sqlite:///{tmp_path / 'events.db'}"
    simulate(SimConfig(tables=1, hands=80, seed=4, ruleset="my-casino",
                       roster=("basic", "loose")), log, tmp_path / "truth.jsonl")
    wh = tmp_path / "w.duckdb"
    assert main(["load", "--source", log, "--warehouse", str(wh), "-q"]) == 0
    rows = query(wh, """SELECT theo_base, theo_win, decision_cost, win_minus_theo, theo_trips,
        (SELECT coalesce(sum(amount), 0) FROM wagers w WHERE w.spot = 'trips'
            AND w.seat = CAST(split_part(r.player, 'seat-', 2)[1:1] AS INTEGER))
        FROM player_ratings r""")
    edge = -trips_theory(load_ruleset("my-casino")).expected_value
    assert len(rows) == 2
    for base, theo, cost, vs, trips, staked in rows:
        assert (base, theo, cost, vs) == (None, None, None, None)
        assert trips == cents(staked * edge)
