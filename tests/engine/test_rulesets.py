"""Rulesets: the four named in the contract, casino drop-in files, and clear errors."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from events.game.rulesets import (
    ENV_VAR,
    RulesetFileError,
    TableLimits,
    UnknownRulesetError,
    known_rulesets,
    load_ruleset,
    load_ruleset_file,
    parse_ruleset,
)

BUILTIN = Path(__file__).resolve().parents[2] / "events" / "game" / "rulesets"

# the contract's table, royal flush first: RF, SF, quads, full house, flush, straight, trips
CONTRACT_TRIPS = {
    "charlevoix-2011": (50, 40, 20, 7, 6, 5, 3),
    "eu-participation": (50, 40, 30, 8, 7, 4, 3),
    "live-online": (50, 40, 30, 8, 7, 4, 3),
    "cardroom": (50, 40, 30, 8, 6, 5, 3),
}
CONTRACT_BLIND = {9: Fraction(500), 8: Fraction(50), 7: Fraction(10), 6: Fraction(3),
                  5: Fraction(3, 2), 4: Fraction(1)}


def test_known_rulesets_are_the_contracts_four() -> None:
    assert known_rulesets() == sorted(CONTRACT_TRIPS)


@pytest.mark.parametrize("name", sorted(CONTRACT_TRIPS))
def test_pay_tables_match_the_contract(name: str) -> None:
    rs = load_ruleset(name)
    assert rs.name == name
    assert tuple(rs.trips_table[c] for c in (9, 8, 7, 6, 5, 4, 3)) == CONTRACT_TRIPS[name]
    assert set(rs.trips_table) == {3, 4, 5, 6, 7, 8, 9}
    assert rs.blind_table == CONTRACT_BLIND
    assert rs.rounding == "down"
    assert rs.preflop_multiples == (4, 3) and rs.flop_multiples == (2,)
    assert rs.river_multiples == (1,)
    assert rs.source and all(s.endswith(".txt") for s in rs.source)
    assert rs.min_bet <= rs.max_bet


def test_limits_and_seats() -> None:
    assert load_ruleset("live-online").max_seats is None
    for name in ("charlevoix-2011", "eu-participation", "cardroom"):
        assert load_ruleset(name).max_seats == 7
    eu = load_ruleset("eu-participation")
    assert (eu.max_bet, eu.max_trips, eu.currency) == (10000, 10000, "EUR")  # EUR 100
    assert load_ruleset("charlevoix-2011").currency == "CAD"
    assert eu.limits() == TableLimits(500, 10000, 10000, 7)
    assert eu.limits(min_bet=1000).min_bet == 1000
    assert eu.trips_odds(2) == 0 and eu.blind_odds(3) is None


def test_load_by_path() -> None:
    rs = load_ruleset_file(BUILTIN / "cardroom.toml")
    assert rs.name == "cardroom" and rs.trips_table[5] == 6


def test_unknown_name_lists_known_ones() -> None:
    with pytest.raises(UnknownRulesetError) as err:
        load_ruleset("vegas-strip")
    msg = str(err.value)
    assert "vegas-strip" in msg
    for name in CONTRACT_TRIPS:
        assert name in msg
    assert isinstance(err.value, ValueError)


def _casino_file(directory: Path, name: str, flush: str = '"5:1"') -> Path:
    text = (BUILTIN / "cardroom.toml").read_text().replace('flush = "6:1"', f"flush = {flush}")
    path = directory / f"{name}.toml"
    path.write_text(text)
    return path


def test_casino_drops_in_a_file_via_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _casino_file(tmp_path, "my-casino")
    assert "my-casino" not in known_rulesets()
    monkeypatch.setenv(ENV_VAR, str(tmp_path))  # read at call time, not at import
    assert "my-casino" in known_rulesets()
    rs = load_ruleset("my-casino")
    assert rs.trips_table[5] == 5 and rs.trips_table[4] == 5


def test_casino_dir_argument_overrides_builtin(tmp_path: Path) -> None:
    _casino_file(tmp_path, "cardroom", flush='"7:1"')
    assert load_ruleset("cardroom").trips_table[5] == 6
    assert load_ruleset("cardroom", extra_dirs=[tmp_path]).trips_table[5] == 7


def test_edited_file_is_reread(tmp_path: Path) -> None:
    path = _casino_file(tmp_path, "house")
    assert load_ruleset_file(path).trips_table[5] == 5
    path.write_text(path.read_text().replace('flush = "5:1"', 'flush = "9:1"'))
    assert load_ruleset_file(path).trips_table[5] == 9


BAD_CASES = [
    ('flush = "6:1"', "flush = 6", "trips.flush: '6' must be a ratio like 6:1"),
    ('flush = "6:1"', 'flush = "six"', "trips.flush: 'six' must be a ratio"),
    ('flush = "6:1"', 'flush = "13:2"', "trips.flush: '13:2' must pay whole units"),
    ('flush = "3:2"', 'flush = "3-2"', "blind.flush: '3-2' must be a ratio"),
    ('min_bet = 500', 'min_bet = -5', "limits.min_bet: -5 must be a whole number of cents"),
    ('min_bet = 500', 'min_bet = 99999', "limits.min_bet: 99999 is above limits.max_bet"),
    ('max_seats = 7', 'max_seats = 0', "limits.max_seats: 0 must be 1..1000"),
    ('currency = "USD"', 'currency = "dollars"', "currency: 'dollars' must be a three-letter"),
    ('rounding = "down"', 'rounding = "nearest"', "rounding: 'nearest' is not supported"),
    ('straight = "1:1"', 'straigth = "1:1"', "blind.straigth: unknown field"),
    ('three_of_a_kind = "3:1"', "", "trips.three_of_a_kind: missing"),
    ('river = [1]', 'river = ["one"]', "play.river: ['one'] must be a list"),
    ('decks = ["single"]', 'decks = ["six"]', "dealing.decks: ['six'] must be a list from"),
    ('title = "Regulated cardroom"', 'title = "x"\nname = "other"', "name: 'other' must equal"),
]


@pytest.mark.parametrize(("old", "new", "message"), BAD_CASES)
def test_invalid_file_names_file_and_field(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    text = (BUILTIN / "cardroom.toml").read_text()
    assert old in text
    if old.startswith("straight =") or old.startswith("flush = \"3"):
        head, _, tail = text.partition("[blind]")  # edit the blind table only
        text = head + "[blind]" + tail.replace(old, new, 1)
    elif old.startswith("flush = \"6") or old.startswith("three"):
        head, _, tail = text.partition("[trips]")
        text = head + "[trips]" + tail.replace(old, new, 1)
    else:
        text = text.replace(old, new, 1)
    path = tmp_path / "rulesets" / "cardroom.toml"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(RulesetFileError) as err:
        load_ruleset_file(path)
    assert str(err.value).startswith(f"{path}: ")  # the whole path, as the operator named it
    assert message in str(err.value)


def test_not_toml_and_missing_sections(tmp_path: Path) -> None:
    with pytest.raises(RulesetFileError, match=r"^rulesets/x.toml: not valid TOML"):
        parse_ruleset(b"title = ", "rulesets/x.toml")
    with pytest.raises(RulesetFileError, match=r"^rulesets/x.toml: limits: missing section"):
        parse_ruleset(b'currency = "EUR"\n', "rulesets/x.toml")
    with pytest.raises(RulesetFileError, match="no such ruleset file"):
        load_ruleset_file(tmp_path / "nothing.toml")
