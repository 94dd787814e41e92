"""uth tail: events printed as people read them."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from events.contract.codec import decode_line
from events.describe import describe
from events.logs.publisher import TablePublisher
from events.money import money
from pipeline.cli import main
from pipeline.commands.tail import line
from tests.logs.factory import encode, event

ROOT = Path(__file__).resolve().parents[2]


def ev(type_: str, payload: dict[str, object], hand: str | None = "T1-7") -> object:
    out = decode_line(encode(event(type_, "T1", 4, payload, hand_id=hand)), 1)
    assert not hasattr(out, "code"), out
    return out


@pytest.mark.parametrize(
    ("type_", "payload", "text"),
    [
        ("CardsDealt", {"target": "seat", "seat": 3, "cards": ["As", "Td"]},
         "Seat 3 is dealt A♠ 10♦ (face down)."),
        ("CommunityRevealed", {"street": "flop", "cards": ["2h", "9s", "Jc"]},
         "The flop: 2♥ 9♠ J♣."),
        ("PlayerDecision", {"seat": 2, "street": "preflop", "action": "raise", "multiple": 4,
                            "amount": 2000}, "Seat 2 raises 4x, 20.00, preflop."),
        ("PlayerDecision", {"seat": 2, "street": "river", "action": "fold", "auto": True},
         "Seat 2 folds on the river (automatic, on a timeout)."),
        ("PayoutRecorded", {"seat": 1, "spot": "blind", "outcome": "win", "amount": 750},
         "Recorded: seat 1's blind win 7.50."),
        ("PayoutRecorded", {"seat": 1, "spot": "ante", "outcome": "lose", "amount": -500},
         "Recorded: seat 1's ante lose 5.00."),
        ("DealerRevealed", {"cards": ["Kh", "Kc"]}, "The dealer turns over K♥ K♣."),
        ("HandVoided", {"reason": "shuffler jam"}, "The hand is voided: shuffler jam"),
        ("DisputeResolved", {"seat": 4, "resolution": "repaid", "adjustment": 1500},
         "Seat 4's dispute is resolved: repaid (adjustment +15.00)."),
    ],
)
def test_events_are_said_as_the_evidence_says_them(type_: str, payload: dict[str, object],
                                                   text: str) -> None:
    event_ = ev(type_, payload)
    assert describe(event_) == text  # (the one describer: evidence, tail and the replay)
    assert line(event_).endswith("  " + text)


def test_line_layout_and_money() -> None:
    opened = ev("TableOpened", {"ruleset": "cardroom", "min_bet": 500, "max_bet": 100000,
                                "seats": 6, "currency": "EUR", "max_trips": 2500}, hand=None)
    assert line(opened) == (
        "2026-11-29 21:00:04.000  T1     -          TableOpened        "
        "Table T1 opens under cardroom: "
        "bets 5.00 to 1,000.00, trips up to 25.00, 6 seats, EUR.")
    assert (money(5), money(-123456), money(0, sign=True)) == ("0.05", "-1,234.56", "0.00")


def test_no_follow_prints_events_and_rejections(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "x.jsonl"
    src.write_bytes(encode(event("TableClosed", "T1", 0)) + b"\n" + b"{oops\n"
                    + encode(event("TableClosed", "T2", 0)) + b"\n")
    assert main(["tail", "--source", str(src), "--no-follow", "--table", "T1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["2026-11-29 21:00:00.000  T1     -          TableClosed        "
                   "The table closes."]
    assert main(["tail", "--source", str(src), "--no-follow", "-n", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("!! line 2: malformed JSON") and "T2" in out[1]


def test_a_table_with_no_event_is_said(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "x.jsonl"
    src.write_bytes(encode(event("TableClosed", "T1", 0)) + b"\n")
    for extra in ([], ["--from-start"]):
        assert main(["tail", "--source", str(src), "--no-follow", "--table", "T99",
                     *extra]) == 1
        said = capsys.readouterr()
        assert said.out == "" and "no event of table T99" in said.err


def test_following_a_table_with_no_event_says_so_while_it_waits(tmp_path: Path) -> None:
    """Issue 36: `uth tail --table T99` (following, the default) printed nothing at all."""
    db = tmp_path / "outbox.db"
    TablePublisher(db).publish({"type": "TableClosed", "table_id": "T9"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "tail", "--source", f"sqlite:///{db}",
         "--table", "T99"], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None and proc.stdout is not None
        ready, _, _ = select.select([proc.stderr], [], [], 60)
        assert ready, "nothing said within 60 s"
        said = proc.stderr.readline()
        assert "no event of table T99" in said and "waiting" in said, said
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0 and proc.stdout.read() == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_follow_prints_new_events_and_stops_on_sigterm(tmp_path: Path) -> None:
    db = tmp_path / "outbox.db"
    pub = TablePublisher(db)
    pub.publish({"type": "TableClosed", "table_id": "T9"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "tail", "--source", f"sqlite:///{db}"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
        text=True)
    try:
        assert proc.stdout is not None
        assert "T9" in proc.stdout.readline()
        pub.publish({"type": "ChipsPurchased", "table_id": "T9",
                     "payload": {"seat": 2, "amount": 10000, "method": "cash"}})
        assert "Seat 2 buys 100.00 in chips (cash)." in proc.stdout.readline()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        pub.close()


def test_last_lines_of_every_backend_are_the_last_n_of_the_log(
        log_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``-n 3`` shows three lines, not three per partition (Kafka, 3 partitions), and
    with ``--table`` the last three of that table; in time order."""
    from events.logs import open_log

    events = [{**event("ChipsPurchased", f"T{k % 4}", k // 4,
                       {"seat": 1, "amount": 100 * (k + 1), "method": "cash"}),
               "occurred_at": f"2026-11-29T21:{k // 60:02d}:{k % 60:02d}.000Z"}
              for k in range(40)]
    with open_log(log_url) as log:
        log.append([(e["table_id"], encode(e)) for e in events])
    assert main(["tail", "--source", log_url, "--no-follow", "-n", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [o.split()[2] for o in out] == ["T1", "T2", "T3"]
    assert "buys 40.00" in out[-1]
    assert main(["tail", "--source", log_url, "--no-follow", "-n", "3", "--table", "T0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [o.split()[2] for o in out] == ["T0"] * 3
    assert ["buys 29.00" in out[0], "buys 37.00" in out[-1]] == [True, True]
