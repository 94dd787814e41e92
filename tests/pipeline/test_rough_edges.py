"""Rough edges a new user hit, each a defect: what the commands say must be right, readable
and honest about what they are doing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events.game.rulesets import load_ruleset
from events.game.theory import theory_report
from events.sim.simulation import SimConfig, simulate
from pipeline.cli import build_parser, main


def _voided_floor(tmp_path: Path) -> tuple[Path, str]:
    log = tmp_path / "void.jsonl"
    simulate(SimConfig(tables=2, hands=40, seed=5, void_rate=0.3), str(log))
    for raw in log.read_bytes().splitlines():
        ev = json.loads(raw)
        if ev["type"] == "HandVoided":
            return log, ev["hand_id"]
    raise AssertionError("the floor has no voided hand")


def test_replay_of_a_voided_hand_names_no_hand_and_no_fold(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log, hand = _voided_floor(tmp_path)
    assert main(["replay", hand, "--source", str(log)]) == 0
    seats = [line for line in capsys.readouterr().out.splitlines()
             if line.startswith("Seat ") and ":" in line.split()[1]]
    assert seats, "the replay shows its seats"
    for line in seats:
        assert "no showdown (the hand was voided)" in line
        assert "unknown" not in line and "[]" not in line and "folded" not in line


def test_help_reads_as_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for name in sub.choices:
        with pytest.raises(SystemExit):
            main([name, "--help"])
        text = capsys.readouterr().out
        assert "``" not in text and "%%" not in text, name
    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    assert "T03-000042" in capsys.readouterr().out  # an id of the form the simulator makes


def test_theory_reports_its_progress() -> None:
    seen: list[tuple[int, int]] = []
    theory_report(load_ruleset("cardroom"), deals=120_000, seed=3,
                  progress=lambda done, total: seen.append((done, total)))
    assert [d for d, _ in seen] == sorted({d for d, _ in seen}) and len(seen) >= 3
    assert seen[-1] == (120_000, 120_000)


def test_a_paced_simulation_says_what_it_waits_for(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.commands.simulate import _Progress

    progress = _Progress(4, paced=True)
    for hands in (0, 1, 4, 4):
        progress(hands)
    err = capsys.readouterr().err
    assert err.count("still sending, each at its time") == 1
    assert "disputes opened and resolved later" in err and "Ctrl-C" in err


def test_a_ruleset_file_is_named_whole_in_its_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "casino" / "rulesets" / "house.toml"
    bad.parent.mkdir(parents=True)
    bad.write_text("title = \n")
    assert main(["theory", "--ruleset", str(bad), "--hands", "0"]) == 2
    assert capsys.readouterr().err.startswith(f"uth theory: {bad}: not valid TOML")
