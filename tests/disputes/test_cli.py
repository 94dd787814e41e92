"""``uth disputes``: every dispute with the fields the issue names and the replay's verdict,
checked against the builder's own settlement (tests/disputes/floor.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cli import main
from tests.disputes import floor

FIELDS = ["hand_id", "table_id", "seat", "dealer_id", "claim", "opened_at", "status",
          "resolution", "adjustment", "owed", "adjustment_correct", "note"]


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return floor.write(tmp_path_factory.mktemp("disputes") / "floor.jsonl")


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict]:
    assert main(["disputes", *argv, "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_every_dispute_with_its_fields_and_verdict(log: Path, capsys) -> None:
    rows = run_json(capsys, "--source", str(log))
    assert [list(r) for r in rows] == [FIELDS] * 4
    by_hand = {r["hand_id"]: r for r in rows}
    assert set(by_hand) == set(floor.CLAIM)
    specs = {s.hand_id: s for s in floor.specs()}
    for hand_id, row in by_hand.items():
        assert row["owed"] == floor.OWED[hand_id], hand_id
        assert row["seat"] == floor.disputed_seat(specs[hand_id])
        assert row["dealer_id"] == floor.dealer_of(hand_id)
        assert row["table_id"] == "T1" and row["claim"] == floor.CLAIM[hand_id]
        assert row["opened_at"].startswith("2026-11-29T21:")
    assert by_hand["T1-A"]["status"] == "open"
    assert by_hand["T1-A"]["adjustment"] is None and by_hand["T1-A"]["resolution"] is None
    assert by_hand["T1-A"]["adjustment_correct"] is None
    for hand_id, adjustment in floor.ADJUST.items():
        row = by_hand[hand_id]
        assert (row["status"], row["resolution"], row["adjustment"]) == (
            "resolved", "reviewed", adjustment)
        assert row["adjustment_correct"] is (adjustment == floor.OWED[hand_id])
    assert rows[0]["hand_id"] == "T1-A"  # the open queue first


def test_open_only(log: Path, capsys) -> None:
    rows = run_json(capsys, "--source", str(log), "--open")
    assert [r["hand_id"] for r in rows] == ["T1-A"]


def test_text_is_a_table_a_supervisor_reads(log: Path, capsys) -> None:
    assert main(["disputes", "--source", str(log)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4 disputes: 1 open, 3 resolved (1 with a wrong adjustment).")
    lines = {line.split()[1]: line for line in out.splitlines() if line.startswith(
        ("open ", "resolved "))}
    assert " 5.00 " in lines["T1-A"] and " -7.00 " in lines["T1-D"]
    assert "WRONG" in lines["T1-D"] and "right" in lines["T1-B"]


def test_a_log_without_disputes_and_an_unreadable_one(tmp_path: Path, capsys) -> None:
    plain = tmp_path / "plain.jsonl"
    plain.write_bytes(b"\n".join(line for line in floor.write(tmp_path / "all.jsonl")
                                 .read_bytes().splitlines() if b"Dispute" not in line) + b"\n")
    assert main(["disputes", "--source", str(plain)]) == 0
    assert capsys.readouterr().out == "No disputes in this log.\n"
    assert main(["disputes", "--source", str(tmp_path / "missing.jsonl")]) == 2
    assert "uth disputes:" in capsys.readouterr().err


def test_text_times_are_local(log: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_TIMEZONE", "America/Toronto")
    assert main(["disputes", "--source", str(log), "--open"]) == 0
    out = capsys.readouterr().out
    assert "opened (America/Toronto)" in out
    assert " 2026-11-29 16:01:32 " in out  # 21:01:32 UTC
    rows = run_json(capsys, "--source", str(log), "--open")
    assert rows[0]["opened_at"] == "2026-11-29T21:01:32.000Z"  # JSON keeps the contract's
