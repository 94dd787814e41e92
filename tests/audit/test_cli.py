"""``uth audit`` and ``uth replay`` from the command line, on golden files and on floors
written by ``uth simulate`` (with and without injected mispays, against its ground truth)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main

GOLDEN = Path(__file__).with_name("golden")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line]


def test_audit_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "audit", "--source", str(GOLDEN / "sequence_faults.jsonl"),
                    "--json")
    assert code == 0
    lines = json_lines(out)
    assert lines[-1] == {"summary": {"events": 44, "hands": 3, "findings": 2,
                                     "rejected_events": 1, "duplicates_ignored": 1}}
    kinds = [line.get("kind") for line in lines[:-1]]
    assert sorted(kinds) == ["rejected", "sequence_conflict", "sequence_gap"]
    rejected = next(line for line in lines if line.get("kind") == "rejected")
    assert rejected["position"] == 5 and "'Xx' is not a card" in str(rejected["reason"])
    for line in lines[:-1]:
        if line["kind"] != "rejected":
            assert set(line) >= {"kind", "hand_id", "table_id", "dealer_id", "seat", "spot",
                                 "expected", "recorded", "detail", "finding_id"}


def test_audit_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "audit", "--source", str(GOLDEN / "mispays.jsonl"))
    assert code == 0
    assert out.startswith("Audited 40 events in 2 hands: 4 findings, 0 rejected input lines")
    assert "mispay" in out and "15.00" in out and "70.00" in out


def test_audit_missing_source(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["audit", "--source", str(tmp_path / "nope.jsonl")]) == 2


def test_replay_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    source = str(GOLDEN / "mispays.jsonl")
    code, out = run(capsys, "replay", "H1", "--source", source)
    assert code == 0
    assert "Seat 1 is dealt A♥ 3♥" in out
    assert "Dealer: 9♣ 7♦  Straight, jack high" in out and "qualifies" in out
    assert "Seat 1: A♥ 3♥  Flush, ace high" in out
    assert "MISPAY" in out and "Verdict: 3 findings: 3 mispay" in out
    code, out = run(capsys, "replay", "H1", "--source", source, "--json")
    doc = json.loads(out)
    assert doc["document"] == "uth-hand-evidence" and doc["status"] == "settled"
    blind = next(c for c in doc["seats"][0]["settlement"] if c["spot"] == "blind")
    assert (blind["correct_amount"], blind["recorded_amount"], blind["verdict"]) == (
        1500, 1000, "mispay")
    assert len(doc["events"]) == doc["event_count"] == 23
    assert doc["table_opened"]["payload"]["ruleset"] == "charlevoix-2011"


def test_replay_point_in_time(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "replay", "H1", "--source", str(GOLDEN / "mispays.jsonl"),
                    "--at", "10", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["status"] == "in play" and doc["at"] == 10 and len(doc["steps"]) == 10
    # after the deal (event 10: the dealer's cards) each seat sees only its own cards
    assert doc["visible"]["seat:1"]["hole"] == {"1": ["Ah", "3h"]}
    assert doc["visible"]["public"]["hole"] == {} and doc["visible"]["public"]["dealer"] == []
    assert doc["visible"]["surveillance"]["dealer"] == ["9c", "7d"]


def test_replay_unknown_hand(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "nope", "--source", str(GOLDEN / "mispays.jsonl")]) == 1


def _simulate(tmp_path: Path, sink: str, rate: float) -> Path:
    truth = tmp_path / "truth.jsonl"
    assert main(["simulate", "--tables", "3", "--hands", "120", "--seed", "7",
                 "--ruleset", "mixed", "--mispay-rate", str(rate), "--void-rate", "0.03",
                 "--dispute-rate", "0.05", "--truth", str(truth), "--sink", sink,
                 "--quiet"]) == 0
    return truth


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
def test_simulated_floor_findings_equal_the_ground_truth(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str) -> None:
    sink = (str(tmp_path / "floor.jsonl") if kind == "jsonl"
            else f"sqlite:///{tmp_path / 'floor.db'}")
    truth_path = _simulate(tmp_path, sink, 0.05)
    capsys.readouterr()
    code, out = run(capsys, "audit", "--source", sink, "--json")
    assert code == 0
    lines = json_lines(out)
    findings = [line for line in lines[:-1]]
    truth = json_lines(truth_path.read_text())
    assert len(truth) > 10
    assert sorted((f["hand_id"], f["seat"], f["spot"], f["expected"], f["recorded"])
                  for f in findings if f["kind"] == "mispay") == sorted(
        (t["hand_id"], t["seat"], t["spot"], t["expected"], t["recorded"]) for t in truth)
    assert [f for f in findings if f["kind"] != "mispay"] == []
    assert lines[-1]["summary"]["hands"] == 360  # type: ignore[index]


def test_simulated_floor_without_mispays_has_no_findings(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    sink = str(tmp_path / "floor.jsonl")
    truth = _simulate(tmp_path, sink, 0.0)
    capsys.readouterr()
    code, out = run(capsys, "audit", "--source", sink, "--json")
    assert code == 0
    assert json_lines(out) == [{"summary": {
        "events": len(Path(sink).read_bytes().splitlines()), "hands": 360, "findings": 0,
        "rejected_events": 0, "duplicates_ignored": 0}}]
    assert truth.read_text() == ""


def test_audit_positions_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    source = str(GOLDEN / "mispays.jsonl")
    code, out = run(capsys, "audit", "--source", source, "--json")
    assert code == 0 and {line.get("position") for line in json_lines(out)[:-1]} == {None}
    code, out = run(capsys, "audit", "--source", source, "--json", "--positions")
    lines = (GOLDEN / "mispays.jsonl").read_text().splitlines()
    for finding in json_lines(out)[:-1]:
        line = lines[int(finding["position"]) - 1]  # type: ignore[call-overload]
        assert f'"event_id":"{finding["event_id"]}"' in line
