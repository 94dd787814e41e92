"""Finding things from the command line: ``uth audit`` filters and CSV, ``uth hands``
searching a log, ``uth replay`` suggesting the nearest ids. The log is the disputes floor
(tests/disputes/floor.py): four hands of table T1, one dealer each, three mispaid, and
built to be searched: their cards, seats and dealers are the builder's."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from pipeline.cli import main
from tests.audit.builder import HandSpec, SeatSpec, Table, encode_lines
from tests.disputes import floor


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return floor.write(tmp_path_factory.mktemp("finding") / "floor.jsonl")


def out_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def findings(capsys: pytest.CaptureFixture[str], log: Path, *extra: str) -> list[dict]:  # type: ignore[type-arg]
    text = out_of(capsys, "audit", "--source", str(log), "--csv", *extra)
    return list(csv.DictReader(io.StringIO(text)))


def test_audit_filters(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    every = [json.loads(line) for line in out_of(
        capsys, "audit", "--source", str(log), "--json").splitlines()][:-1]
    assert len(every) == 4
    mispays = findings(capsys, log, "--kind", "mispay")
    assert sorted(r["finding_id"] for r in mispays) == sorted(
        f["finding_id"] for f in every if f["kind"] == "mispay")
    dealer = floor.dealer_of("T1-D")
    assert {r["hand_id"] for r in findings(capsys, log, "--dealer", dealer)} == {"T1-D"}
    assert findings(capsys, log, "--table", "T9") == []
    # the mispay of T1-A is recorded at 21:00:13 UTC, the others after 21:00:20
    first = findings(capsys, log, "--until", "2026-11-29T21:00:15Z")
    assert [r["hand_id"] for r in first] == ["T1-A"]
    later = findings(capsys, log, "--since", "2026-11-29T21:00:15Z")
    assert len(later) == 3 and "T1-A" not in {r["hand_id"] for r in later}


def test_audit_times_are_local_unless_marked(log: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_TIMEZONE", "America/Toronto")  # 21:00 UTC is 16:00 there
    assert [r["hand_id"] for r in findings(capsys, log, "--until", "2026-11-29T16:00:15")] == [
        "T1-A"]
    assert findings(capsys, log, "--until", "2026-11-29T21:00:15") != []  # local: all
    assert findings(capsys, log, "--until", "2026-11-28") == []  # a day: to its end


def test_audit_text_says_what_it_kept(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = out_of(capsys, "audit", "--source", str(log), "--kind", "mispay", "--table", "T1")
    assert "Shown: 3 of 4 findings (table T1; kind mispay)." in text


def test_csv_cells_are_never_formulas(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = Table("T5")
    table.open()
    table.hand(HandSpec("T5-1", [SeatSpec(1, ("As", "Ad"), 1000, decisions=[
        ("preflop", "raise", 4)])], ("Ac", "Ah", "2d", "7s", "9c"), ("3c", "4d"),
        [(1, "ante", "win", 1), (1, "blind", "win", 10000), (1, "play", "win", 4000)],
        dealer_id="=HYPERLINK(\"x\")"))
    log = tmp_path / "f.jsonl"
    log.write_bytes(b"\n".join(encode_lines(table.events)) + b"\n")
    rows = findings(capsys, log)
    assert rows and all(r["dealer_id"] == "'=HYPERLINK(\"x\")" for r in rows)
    assert any(r["expected"].lstrip("-").replace(".", "", 1).isdigit()
               for r in rows)  # numbers stay numbers (currency units)


def hands(capsys: pytest.CaptureFixture[str], log: Path, *extra: str) -> list[str]:
    text = out_of(capsys, "hands", "--source", str(log), "--json", *extra)
    return [json.loads(line)["hand_id"] for line in text.splitlines()]


def test_hands_search(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    specs = {s.hand_id: s for s in floor.specs()}
    assert hands(capsys, log) == ["T1-D", "T1-C", "T1-B", "T1-A"]  # latest first
    assert hands(capsys, log, "--limit", "1") == ["T1-D"]
    assert hands(capsys, log, "--dealer", floor.dealer_of("T1-B")) == ["T1-B"]
    seat = specs["T1-C"].seats[0].seat
    assert hands(capsys, log, "--seat", str(seat)) == [
        h for h in ("T1-D", "T1-C", "T1-B", "T1-A") if seat in [s.seat for s in specs[h].seats]]
    hole = specs["T1-A"].seats[0].hole
    assert hands(capsys, log, "--card", hole[0].lower(), "--card", hole[1]) == ["T1-A"]
    assert hands(capsys, log, "--status", "voided") == []
    assert hands(capsys, log, "--since", "2026-11-29T21:00:15Z", "--until",
                 "2026-11-29T21:00:40Z") == ["T1-C", "T1-B"]
    for outcome, sign in (("win", 1), ("lose", -1)):
        want = [h for h in ("T1-D", "T1-C", "T1-B", "T1-A") if any(
            (net > 0) - (net < 0) == sign for net in _nets(specs[h]).values())]
        assert hands(capsys, log, "--outcome", outcome) == want


def _nets(spec: HandSpec) -> dict[int, int]:
    out: dict[int, int] = {}
    for seat, _spot, _outcome, amount in spec.payouts:
        out[seat] = out.get(seat, 0) + amount
    return out


def test_hands_text(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = out_of(capsys, "hands", "--source", str(log), "--table", "T1")
    assert text.startswith("4 of 4 hands match.")
    assert "Replay one: uth replay HAND_ID" in text
    assert out_of(capsys, "hands", "--source", str(log), "--table", "T2").startswith(
        "No hand of the 4")


def test_replay_suggests_the_nearest_ids(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "T1-E", "--source", str(log)]) == 1
    err = capsys.readouterr().err
    assert "hand T1-E is not in" in err and "did you mean T1-D, T1-C, T1-B, T1-A?" in err
    assert main(["replay", "completely-else", "--source", str(log)]) == 1
    assert "did you mean" not in capsys.readouterr().err


def test_hands_count_a_redelivered_payout_once(log: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    lines = log.read_bytes().splitlines(keepends=True)
    payout = next(line for line in lines if b"PayoutRecorded" in line and b"T1-A" in line)
    again = tmp_path / "again.jsonl"
    again.write_bytes(b"".join(lines) + payout)  # the same event delivered twice
    text = out_of(capsys, "hands", "--source", str(again), "--json")
    nets = {json.loads(line)["hand_id"]: json.loads(line)["nets"] for line in text.splitlines()}
    spec = next(s for s in floor.specs() if s.hand_id == "T1-A")
    assert nets["T1-A"] == {str(k): v for k, v in sorted(_nets(spec).items())}


def test_hands_show_the_reference_folds_hand(log: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Hand search folds each hand with the reference (``events.replay.fold``): a payout
    recorded after the hand ended is not applied there (the auditor flags it), so it is
    not the hand's recorded net here either; nor does a second board dealt replace the
    first."""
    from events.contract.schemas import decode_event
    from events.replay.fold import replay

    lines = log.read_bytes().splitlines(keepends=True)
    events = [json.loads(line) for line in lines]
    last_seq = max(e["seq"] for e in events if e["table_id"] == "T1")
    payout = next(e for e in events if e["type"] == "PayoutRecorded" and e["hand_id"] == "T1-A")
    board = next(e for e in events if e["type"] == "CardsDealt" and e["hand_id"] == "T1-A"
                 and e["payload"]["target"] == "community")
    late = {**payout, "event_id": "late-payout", "seq": last_seq + 1,
            "payload": {**payout["payload"], "amount": payout["payload"]["amount"] + 12345}}
    second = {**board, "event_id": "second-board", "seq": last_seq + 2,
              "payload": {**board["payload"], "cards": list(reversed(board["payload"]["cards"]))}}
    at = next(i for i, e in enumerate(events) if e["type"] == "HandEnded"
              and e["hand_id"] == "T1-A")
    changed = tmp_path / "late.jsonl"
    extra = [json.dumps(second).encode() + b"\n"]
    changed.write_bytes(b"".join([*lines[:at], *extra, *lines[at:], json.dumps(late).encode()
                                  + b"\n"]))
    text = out_of(capsys, "hands", "--source", str(changed), "--json")
    shown = next(json.loads(line) for line in text.splitlines()
                 if json.loads(line)["hand_id"] == "T1-A")
    hand = [decode_event(line) for line in changed.read_bytes().splitlines()
            if b'"T1-A"' in line]
    final = replay(hand).final
    nets: dict[str, int] = {}
    for (seat, _spot), paid in final.payouts.items():
        nets[str(seat)] = nets.get(str(seat), 0) + paid.amount
    assert shown["nets"] == dict(sorted(nets.items()))
    spec = next(s for s in floor.specs() if s.hand_id == "T1-A")
    assert shown["nets"] == {str(k): v for k, v in sorted(_nets(spec).items())}
    assert shown["board"] == board["payload"]["cards"] == list(final.community)
