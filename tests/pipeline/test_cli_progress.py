"""`uth protect` (players, --dealers, --ratings) and `uth theory` say how far they are on
standard error while they run, when it is a terminal (issue 36): they ran for seconds with
nothing shown. Standard output (--json included) carries no progress, and a standard error
that is not a terminal (a pipe, a log file) gets none."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from pipeline.cli import main


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("progress") / "floor.jsonl"
    assert main(["simulate", "--tables", "1", "--hands", "60", "--seed", "4", "--fast",
                 "--sink", str(path), "--quiet"]) == 0
    return path


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        stderr: io.StringIO, *argv: str) -> str:
    capsys.readouterr()
    monkeypatch.setattr(sys, "stderr", stderr)
    assert main(list(argv)) == 0
    monkeypatch.undo()
    return capsys.readouterr().out


@pytest.mark.parametrize("extra", [(), ("--dealers",), ("--ratings",), ("--json",),
                                   ("--ratings", "--json")])
def test_protect_shows_progress_on_a_terminal(floor: Path, extra: tuple[str, ...],
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    tty = Terminal()
    out = run(monkeypatch, capsys, tty, "protect", "--source", str(floor), "--min-hands", "1",
              *extra)
    shown = tty.getvalue()
    lines = [x for x in shown.split("\r") if x.strip()]
    assert any(x.startswith("uth protect: ") and "records read" in x for x in lines), shown
    assert any("events read" in x for x in lines), shown
    assert shown.endswith("\r") and not shown.split("\r")[-2].strip()  # cleared at the end
    assert "uth protect:" not in out and "\r" not in out
    if "--json" in extra:
        assert out and all(json.loads(line) for line in out.splitlines())
    quiet = io.StringIO()  # not a terminal: nothing
    assert run(monkeypatch, capsys, quiet, "protect", "--source", str(floor), "--min-hands",
               "1", *extra) == out
    assert quiet.getvalue() == ""


def test_theory_shows_each_phase_on_a_terminal(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    tty = Terminal()
    out = run(monkeypatch, capsys, tty, "theory", "--ruleset", "charlevoix-2011", "--json",
              "--hands", "1000")
    lines = [x for x in tty.getvalue().split("\r") if x.strip()]
    assert any(x.startswith("uth theory: Trips") for x in lines), lines
    assert any(x.startswith("uth theory: base game") and "1,000/1,000 deals" in x
               for x in lines), lines
    assert json.loads(out)["base_game"]["deals"] == 1000
    quiet = io.StringIO()
    run(monkeypatch, capsys, quiet, "theory", "--ruleset", "charlevoix-2011", "--hands", "0")
    assert quiet.getvalue() == ""
