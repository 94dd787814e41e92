"""Theory: exact trips figures from the enumerated seven-card counts, the base-game Monte
Carlo, and the ``uth theory`` command."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from events.game.rulesets import load_ruleset
from events.game.theory import base_game_monte_carlo, theory_report, trips_theory
from pipeline.cli import main

# Published best-five-of-seven counts, royal flush first, then everything below trips.
PUBLISHED = {9: 4_324, 8: 37_260, 7: 224_848, 6: 3_473_184, 5: 4_047_644, 4: 6_180_020,
             3: 6_461_620}
TOTAL = 133_784_560
LOSING = TOTAL - sum(PUBLISHED.values())  # 113,355,660 hands below three of a kind


def _by_hand(pays: tuple[int, ...]) -> tuple[Fraction, Fraction]:
    table = dict(zip((9, 8, 7, 6, 5, 4, 3), pays, strict=True))
    ev = (sum(PUBLISHED[c] * table[c] for c in table) - LOSING) / Fraction(TOTAL)
    second = (sum(PUBLISHED[c] * table[c] ** 2 for c in table) + LOSING) / Fraction(TOTAL)
    return ev, second - ev * ev


@pytest.mark.parametrize(("name", "pays", "edge"), [
    ("charlevoix-2011", (50, 40, 20, 7, 6, 5, 3), 0.0618082),
    ("eu-participation", (50, 40, 30, 8, 7, 4, 3), 0.0349794),
    ("live-online", (50, 40, 30, 8, 7, 4, 3), 0.0349794),
    ("cardroom", (50, 40, 30, 8, 6, 5, 3), 0.0190405),
])
def test_trips_exact(name: str, pays: tuple[int, ...], edge: float) -> None:
    t = trips_theory(load_ruleset(name))
    assert t.total == TOTAL and LOSING == 113_355_660
    assert {c: t.counts[c] for c in PUBLISHED} == PUBLISHED
    ev, var = _by_hand(pays)
    assert t.expected_value == ev and t.variance == var
    assert t.house_edge == pytest.approx(edge, abs=5e-8)
    assert t.sd == pytest.approx(math.sqrt(var))
    assert sum(t.hit_rates.values()) == pytest.approx(20_428_900 / TOTAL)


def test_live_online_trips_return_is_the_published_96_50() -> None:
    # seed 003 states a 96.50% return; the common table gives exactly that
    assert round(100 * (1 - trips_theory(load_ruleset("live-online")).house_edge), 2) == 96.50


def test_trips_sd_charlevoix() -> None:
    # EV = -22,717 / 367,540 (the exact fraction, -0.0618082...), and
    # E[X^2] = (4,324*2,500 + 37,260*1,600 + 224,848*400 + 3,473,184*49 + 4,047,644*36
    #           + 6,180,020*25 + 6,461,620*9 + 113,355,660) / 133,784,560
    t = trips_theory(load_ruleset("charlevoix-2011"))
    second = (4_324 * 2_500 + 37_260 * 1_600 + 224_848 * 400 + 3_473_184 * 49
              + 4_047_644 * 36 + 6_180_020 * 25 + 6_461_620 * 9 + 113_355_660) / TOTAL
    assert t.sd == pytest.approx(math.sqrt(second - (22_717 / 367_540) ** 2), rel=1e-12)
    assert t.sd == pytest.approx(2.4481, abs=1e-4)


def test_base_game_monte_carlo_small() -> None:
    rs = load_ruleset("charlevoix-2011")
    a = base_game_monte_carlo(rs, deals=20_000, seed=7)
    b = base_game_monte_carlo(rs, deals=20_000, seed=7)
    assert a == b  # seedable, deterministic
    assert sum(a.decision_rates.values()) == pytest.approx(1.0)
    # the published practical-strategy edge (about 2.43% per ante) lies in the 95% CI
    assert abs(a.house_edge_per_ante - 0.0243) < a.ci95_per_ante
    assert 0 < a.ci95_per_ante < 0.03
    assert 4.0 < a.average_total_wager < 4.3  # 2 + 4(37.7%) + 2(21%) + 1(23%)
    assert a.house_edge_per_total_wager == pytest.approx(
        a.house_edge_per_ante / a.average_total_wager, rel=1e-9)
    with pytest.raises(ValueError):
        base_game_monte_carlo(rs, deals=10)


def test_report_without_monte_carlo() -> None:
    r = theory_report(load_ruleset("cardroom"), deals=0)
    assert "base_game" not in r
    assert r["trips_table"]["flush"]["pays_to_1"] == 6
    assert next(iter(r["trips_table"])) == "royal_flush"


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["theory", "--ruleset", "charlevoix-2011", "--json", "--hands", "2000"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["trips_house_edge"] == pytest.approx(0.0618082386, abs=1e-10)
    lo, hi = out["base_game"]["ci95_per_ante"]
    assert lo < out["base_game"]["house_edge_per_ante"] < hi


def test_cli_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["theory", "--ruleset", "eu-participation", "--hands", "0"]) == 0
    text = capsys.readouterr().out
    assert "house edge 3.4979%" in text and "4,324" in text


def test_cli_unknown_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["theory", "--ruleset", "atlantis"]) == 2
    err = capsys.readouterr().err
    assert "unknown ruleset 'atlantis'" in err
    assert "charlevoix-2011" in err and "live-online" in err


def test_the_published_exact_edge_is_given_only_for_its_blind_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every shipped ruleset: 2.185% (the published exact figure); a casino's own blind
    table: none, in the JSON and the text (never the shipped table's figure)."""
    import dataclasses

    from tests.protection.test_ratings import CUSTOM_TOML

    shipped = theory_report(load_ruleset("live-online"), deals=0)["published"]
    assert shipped["base_house_edge_per_ante_exact"] == pytest.approx(0.02185, abs=1e-12)
    base = load_ruleset("cardroom")
    other = dataclasses.replace(base, blind_table={**base.blind_table, 6: Fraction(2)})
    assert theory_report(other, deals=0)["published"]["base_house_edge_per_ante_exact"] is None
    toml = tmp_path / "my-casino.toml"
    toml.write_text(CUSTOM_TOML)
    assert main(["theory", "--ruleset", str(toml), "--hands", "200"]) == 0
    assert "published per ante: none for this blind table" in capsys.readouterr().out
    assert main(["theory", "--ruleset", "cardroom", "--hands", "200"]) == 0
    assert "published per ante: 2.185% optimal play (exact)" in capsys.readouterr().out
