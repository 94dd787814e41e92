"""Issue 30 (8): the work of auditing one hand is bounded; a hand past the bound is reported
once as ``overlong_hand``; ``--follow`` reports a hand that never ends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from events.audit.auditor import Auditor, audit
from events.audit.follow import FollowAuditor
from events.audit.intake import MAX_HAND_EVENTS
from events.contract.codec import decode_many
from events.logs import open_log
from pipeline.cli import main
from tests.logs.factory import encode, event, table_events

EXTRA = MAX_HAND_EVENTS + 500


def _numbered(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "seq": k} for k, e in enumerate(events)]


def _dispute(k: int) -> dict[str, Any]:
    return event("DisputeOpened", "T1", 0, {"seat": 1, "claim": f"claim {k}"}, "T1-h0")


def _flood(where: str) -> list[dict[str, Any]]:
    """A table, one hand (16 events), and ``EXTRA`` events more in that hand: disputes
    after its end, or repeated decisions in its middle."""
    base = list(table_events("T1", 1))
    if where == "after":
        return _numbered([*base, *map(_dispute, range(EXTRA))])
    checks = [event("PlayerDecision", "T1", 0, {"seat": 1, "street": "river",
                                                 "action": "check"}, "T1-h0")
              for _ in range(EXTRA)]
    return _numbered([*base[:2], *checks, *base[2:]])


@pytest.mark.parametrize("where", ["after", "inside"])
def test_a_flooded_hand_is_reported_once_and_audited_up_to_the_bound(where: str) -> None:
    report = audit(decode_many([encode(e) for e in _flood(where)]))
    overlong = [f for f in report.findings if f.kind == "overlong_hand"]
    assert len(overlong) == 1 and overlong[0].hand_id == "T1-h0"
    assert f"more than {MAX_HAND_EVENTS:,} events" in overlong[0].detail
    assert report.summary["events"] == 16 + EXTRA  # every event counted ...
    # ... but no more of the hand than the bound audited (the disputes past it are not)
    assert len(report.disputes) <= MAX_HAND_EVENTS
    assert len(report.findings) <= MAX_HAND_EVENTS + 2


def test_late_events_of_a_settled_hand_are_bounded_too() -> None:
    """The hand is settled first; the flood comes in later batches, one event at a time."""
    events = _flood("after")
    auditor = Auditor(records=False)
    auditor.feed_many(decode_many([encode(e) for e in events[:16]]))
    auditor.flush()
    assert "T1-h0" in auditor.completed
    for k in range(16, len(events), 700):
        auditor.feed_many(decode_many([encode(e) for e in events[k:k + 700]]))
        auditor.flush()
    report = auditor.finish()
    assert [f.kind for f in report.findings].count("overlong_hand") == 1
    # (a clean hand keeps only its nets and disputes: the disputes count toward the bound)
    assert EXTRA - MAX_HAND_EVENTS <= auditor.overlong["T1-h0"] <= 16 + EXTRA - MAX_HAND_EVENTS


def test_the_audit_command_shows_the_finding(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "flood.jsonl"
    src.write_bytes(b"".join(encode(e) + b"\n" for e in _flood("inside")))
    main(["audit", "--source", str(src), "--json", "--kind", "overlong_hand"])
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["kind"] for r in rows if "kind" in r] == ["overlong_hand"]


def _stalled_floor(gap_minutes: int) -> list[dict[str, Any]]:
    """A hand that stops after its bets; then the table goes on without it (chips bought
    ``gap_minutes`` later), and never ends it."""
    base = list(table_events("T1", 1))[:4]  # opened, started, ante, blind
    chips = event("ChipsPurchased", "T1", 0, {"seat": 2, "amount": 5000, "method": "cash"})
    last = base[-1]["occurred_at"]
    minute = int(last[14:16]) + gap_minutes
    chips["occurred_at"] = f"{last[:11]}{21 + minute // 60:02d}:{minute % 60:02d}{last[16:]}"
    return _numbered([*base, chips])


class _Sink:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def __call__(self, messages: list[tuple[str, bytes]]) -> None:
        self.messages += [json.loads(v) for _, v in messages]


@pytest.mark.parametrize(("gap", "reported"), [(45, True), (10, False)])
def test_follow_reports_a_hand_silent_while_its_table_goes_on(
        tmp_path: Path, gap: int, reported: bool) -> None:
    url = f"sqlite:///{tmp_path / 'log.db'}"
    events = _stalled_floor(gap)
    with open_log(url) as log:
        log.append([(e["table_id"], encode(e)) for e in events])
    sink = _Sink()
    with open_log(url) as log:
        calls = iter(range(10))
        FollowAuditor(log, sink, stop=lambda: next(calls) >= 5).run()
    stalled = [m for m in sink.messages if m.get("kind") == "incomplete_hand"]
    assert bool(stalled) is reported
    if reported:
        (message,) = stalled
        assert message["hand_id"] == "T1-h0" and "has not ended" in message["detail"]
        assert f"{gap:,} minutes" in message["detail"]


def test_follow_reports_an_overlong_hand_as_it_happens(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'log.db'}"
    events = _flood("inside")[:-3]  # the hand has not ended yet
    with open_log(url) as log:
        log.append([(e["table_id"], encode(e)) for e in events])
    sink = _Sink()
    with open_log(url) as log:
        calls = iter(range(100))
        FollowAuditor(log, sink, stop=lambda: next(calls) >= 20).run()
    assert [m["kind"] for m in sink.messages].count("overlong_hand") == 1


def test_positions_of_events_past_the_bound_are_not_kept() -> None:
    """An open hand flooded past the bound (``--follow`` never sees its end): what the
    auditor keeps of it, positions included, stays bounded."""
    events = _flood("inside")[:-3]
    # the flood arrives last first: the sequencer holds it, then hands it on one by one
    events = [*events[:3], *reversed(events[3:])]
    auditor = Auditor(records=False, keep=False)
    lines = [encode(e) for e in events]
    auditor.feed_many(list(zip(range(len(lines)), decode_many(lines), strict=True)))
    assert auditor.overlong["T1-h0"] > 0
    assert len(auditor.open["T1-h0"][1]) == MAX_HAND_EVENTS
    assert len(auditor.positions["T1-h0"]) <= MAX_HAND_EVENTS


class _Clock:
    """A wall clock that moves ``step`` seconds each time the follower's loop asks
    whether to stop (each poll); it stops the follower after ``polls``."""

    def __init__(self, step: float, polls: int) -> None:
        self.now = 1000.0
        self.step = step
        self.polls = polls

    def __call__(self) -> float:
        return self.now

    def stop(self) -> bool:
        self.now += self.step
        self.polls -= 1
        return self.polls < 0


@pytest.mark.parametrize(("step", "reported"), [(600, True), (60, False)])
def test_follow_reports_a_hand_whose_table_went_silent(
        tmp_path: Path, step: float, reported: bool) -> None:
    """A hand stops after its bets and its table sends nothing more at all: no later event
    of the table will ever show it stalled, so the follower's own clock does (issue 30, 8).
    Ten polls: 100 minutes of silence are past the 30; 10 are not."""
    url = f"sqlite:///{tmp_path / 'log.db'}"
    ended = _numbered(list(table_events("T2", 1)))  # another table, its hand ended
    events = [*_numbered(list(table_events("T1", 1))[:4]), *ended]
    with open_log(url) as log:
        log.append([(e["table_id"], encode(e)) for e in events])
    sink = _Sink()
    clock = _Clock(step, polls=10)
    with open_log(url) as log:
        FollowAuditor(log, sink, stop=clock.stop, clock=clock).run()
    stalled = [m for m in sink.messages if m.get("kind") == "incomplete_hand"]
    if not reported:
        assert stalled == []
        return
    (message,) = stalled  # once, though every later poll finds it still silent
    assert message["hand_id"] == "T1-h0" and message["table_id"] == "T1"
    assert "has not ended" in message["detail"] and "sent nothing" in message["detail"]
    assert "30 minutes" in message["detail"]


def test_replay_of_an_overlong_hand_is_bounded_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``uth replay`` keeps what the auditor keeps of a flooded hand: its first
    ``MAX_HAND_EVENTS`` events and its end; the rest is counted and the replay says it is
    an ``overlong_hand`` replayed in part (issue 30, 8)."""
    src = tmp_path / "flood.jsonl"
    src.write_bytes(b"".join(encode(e) + b"\n" for e in _flood("inside")))
    assert main(["replay", "T1-h0", "--source", str(src), "--json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    steps = doc["steps"]
    assert len(steps) == MAX_HAND_EVENTS + 1
    assert steps[0]["type"] == "HandStarted" and steps[-1]["type"] == "HandEnded"
    assert "overlong_hand" in err and f"more than {MAX_HAND_EVENTS:,} events" in err
    assert "no proof of the whole hand" in err
    assert f"{16 + EXTRA - 1 - (MAX_HAND_EVENTS + 1):,} more records" in err
