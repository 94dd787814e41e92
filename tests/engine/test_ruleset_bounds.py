"""Issue 30 (7): pay tables are bounded where a ruleset file is read; an invalid file is
reported as invalid (file and field), and no command overflows, crashes or loops on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from events.game.rulesets import BUILTIN_DIR, RulesetFileError, load_ruleset
from tests.logs.factory import encode, table_events

ROOT = Path(__file__).resolve().parents[2]
HUGE = ["1000000000000000000:1", "100000000000000000000:1", "10001:1", "1:10001"]


def _casino(tmp_path: Path, pay: str, field: str = "royal_flush") -> Path:
    text = (BUILTIN_DIR / "charlevoix-2011.toml").read_text()
    head, _, tail = text.partition("[trips]")
    old = next(line for line in tail.splitlines() if line.startswith(field))
    rulesets = tmp_path / "rulesets"
    rulesets.mkdir(exist_ok=True)
    path = rulesets / "huge.toml"
    path.write_text(head.replace('title = "Casino', 'title = "Huge') + "[trips]"
                    + tail.replace(old, f'{field} = "{pay}"'))
    return rulesets


@pytest.mark.parametrize("pay", HUGE)
def test_a_pay_beyond_the_bound_names_the_file_and_field(
        tmp_path: Path, pay: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_RULESETS_DIR", str(_casino(tmp_path, pay)))
    with pytest.raises(RulesetFileError) as err:
        load_ruleset("huge")
    assert "huge.toml: trips.royal_flush" in str(err.value)
    assert "10000" in str(err.value)


def test_a_pay_at_the_bound_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_RULESETS_DIR", str(_casino(tmp_path, "10000:1")))
    assert load_ruleset("huge").trips_table[9] == 10000


def test_limits_beyond_any_wager_are_refused(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    rulesets = _casino(tmp_path, "50:1")
    path = rulesets / "huge.toml"
    path.write_text(path.read_text().replace("max_bet = 50000", "max_bet = 10000000000000"))
    monkeypatch.setenv("UTH_RULESETS_DIR", str(rulesets))
    with pytest.raises(RulesetFileError, match=r"huge\.toml: limits\.max_bet: 10000000000000 is"):
        load_ruleset("huge")


def _uth(tmp_path: Path, rulesets: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "UTH_RULESETS_DIR": str(rulesets)}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("pay", HUGE[:2])
def test_simulate_and_audit_say_the_file_is_invalid(tmp_path: Path, pay: str) -> None:
    rulesets = _casino(tmp_path, pay)
    done = _uth(tmp_path, rulesets, "simulate", "--hands", "3", "--ruleset", "huge",
                "--sink", str(tmp_path / "sim.jsonl"), "--quiet")
    assert done.returncode == 2, done.stderr
    assert "huge.toml: trips.royal_flush" in done.stderr
    src = tmp_path / "floor.jsonl"
    src.write_bytes(b"".join(encode(e).replace(b"charlevoix-2011", b"huge") + b"\n"
                             for e in table_events("T1", 2)))
    done = _uth(tmp_path, rulesets, "audit", "--source", str(src), "--json")
    assert "Traceback" not in done.stderr, done.stderr
    findings = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
    text = json.dumps(findings)
    assert "is invalid" in text and "trips.royal_flush" in text
    assert "is not known" not in text


def test_load_of_a_table_with_an_invalid_ruleset_does_not_overflow(tmp_path: Path) -> None:
    rulesets = _casino(tmp_path, HUGE[0])
    src = tmp_path / "floor.jsonl"
    src.write_bytes(b"".join(encode(e).replace(b"charlevoix-2011", b"huge") + b"\n"
                             for e in table_events("T1", 2)))
    done = _uth(tmp_path, rulesets, "load", "--source", str(src), "--warehouse",
                str(tmp_path / "w.duckdb"))
    assert "Traceback" not in done.stderr and "OverflowError" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr
