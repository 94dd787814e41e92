"""Issue 30, "Nothing lost": each fault a second round of probing found, end to end through
the ``uth`` command, with its counts in the ledger (lost must be 0)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from events.audit.auditor import audit
from events.audit.intake import MAX_HAND_EVENTS
from events.contract.codec import decode_many
from events.logs.jsonl import rejected_path
from events.logs.sqlite import SqliteLog
from tests.reliability import corpus
from tests.reliability.helpers import uth


def _ingest(src: Path, sink: str, *extra: str) -> dict[str, Any]:
    done = uth("ingest", "--source", str(src), "--sink", sink, "--json", *extra)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    assert out["accounted"] is True
    return out


def _record(ledger: Any, name: str, report: dict[str, Any], flagged: int = 0) -> None:
    ledger.record("fault", name, sent=report["read"], processed=report["written"],
                  rejected=report["rejected"], ignored=report["duplicates"], flagged=flagged)


@pytest.mark.parametrize("sink_kind", ["sqlite", "jsonl"])
def test_an_altered_copy_of_a_stored_event_is_dead_lettered(
        tmp_path: Path, sink_kind: str, ledger: Any) -> None:
    events = corpus.table("alt").events
    lines = [corpus.encode(e) for e in events]
    src = tmp_path / "floor.jsonl"
    src.write_bytes(b"".join(x + b"\n" for x in lines))
    sink = (f"sqlite:///{tmp_path / 'log.db'}" if sink_kind == "sqlite"
            else str(tmp_path / "log.jsonl"))
    _ingest(src, sink)
    k = next(i for i, e in enumerate(events) if e["type"] == "PayoutRecorded")
    altered = {**events[k], "occurred_at": events[k]["occurred_at"].replace("Z", "1Z")}
    assert corpus.encode(altered) != lines[k]
    again = tmp_path / "again.jsonl"
    again.write_bytes(b"".join(x + b"\n" for x in [*lines[:k], corpus.encode(altered)]))
    report = _ingest(again, sink)
    assert (report["rejected"], report["duplicates"]) == (1, k)
    if sink_kind == "sqlite":
        with SqliteLog(sink) as log:
            dead = log.dead_letters()
    else:
        dead = [json.loads(x) for x in rejected_path(Path(sink)).read_text().splitlines()]
    assert [d["code"] for d in dead] == ["conflict"]
    assert "with other contents" in str(dead[0]["reason"])
    _record(ledger, "a copy of a stored event with other contents (same event_id, seq)",
            report)


def test_a_longer_resimulation_ingested_into_its_log(tmp_path: Path, ledger: Any) -> None:
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    assert uth("simulate", "--tables", "2", "--hands", "40", "--seed", "3", "--sink", sink,
               "--fast").returncode == 0
    longer = tmp_path / "longer.jsonl"
    assert uth("simulate", "--tables", "2", "--hands", "44", "--seed", "3", "--sink",
               str(longer), "--fast").returncode == 0
    report = _ingest(longer, sink)
    assert report["rejected"] > 0  # the seqs the two runs number differently
    with SqliteLog(sink) as log:
        stored = {r.value for r in log.records()}
        dead = {d["event_id"] for d in log.dead_letters()}
    for line in longer.read_bytes().splitlines():
        assert line in stored or json.loads(line)["event_id"] in dead
    _record(ledger, "a longer resimulation ingested into a shorter one's log", report)


def test_a_source_replaced_at_its_path(tmp_path: Path, ledger: Any) -> None:
    src = tmp_path / "floor.jsonl"
    sink = f"sqlite:///{tmp_path / 'log.db'}"
    first = [corpus.encode(e) for e in corpus.table("old").events]
    src.write_bytes(b"".join(x + b"\n" for x in first))
    _ingest(src, sink, "--consumer", "fwd")
    new = [corpus.encode(e) for e in corpus.table("new").events][:40]  # shorter
    tmp = tmp_path / "rotated.jsonl"
    tmp.write_bytes(b"".join(x + b"\n" for x in new))
    os.replace(tmp, src)
    report = _ingest(src, sink, "--consumer", "fwd")
    assert report["written"] == 40 and len(report["notes"]) == 1
    _record(ledger, "a JSON Lines source rotated (replaced at its path, shorter)", report,
            flagged=len(report["notes"]))


def test_a_hand_flooded_with_events(ledger: Any) -> None:
    stream = corpus.table("flood")
    events = stream.events
    end = next(i for i, e in enumerate(events) if e["type"] == "HandEnded")
    hand = events[end]["hand_id"]
    flood = [{**events[end], "type": "DisputeOpened", "event_id": f"flood-{k}",
              "payload": {"seat": 1, "claim": "again"}} for k in range(MAX_HAND_EVENTS + 10)]
    all_events = [*events[:end + 1], *flood, *events[end + 1:]]
    lines = [corpus.encode({**e, "seq": k}) for k, e in enumerate(all_events)]
    report = audit(decode_many(lines))
    overlong = [f for f in report.findings if f.kind == "overlong_hand"]
    assert [f.hand_id for f in overlong] == [hand]
    assert report.summary["events"] == len(lines)
    ledger.record("fault", "one hand flooded past the bound of events per hand",
                  sent=len(lines), processed=report.summary["events"], flagged=len(overlong))


def test_a_hand_whose_table_goes_silent_under_follow(tmp_path: Path, ledger: Any) -> None:
    """``uth audit --follow``: a hand stops and its table sends nothing more; the follower's
    own clock reports it once (an ``incomplete_hand``), the table's other hands audited."""
    from events.audit.follow import FollowAuditor
    from events.logs import open_log
    from tests.audit.test_overlong import _Clock, _Sink

    events = corpus.table("silent").events
    cut = next(i for i, e in enumerate(events) if e["type"] == "HandStarted" and i > 2) + 3
    lines = [corpus.encode(e) for e in events[:cut]]  # hand 2 stops after its bets
    url = f"sqlite:///{tmp_path / 'log.db'}"
    with open_log(url) as log:
        log.append([(events[0]["table_id"], x) for x in lines])
    sink, clock = _Sink(), _Clock(600, polls=10)
    with open_log(url) as log:
        summary = FollowAuditor(log, sink, stop=clock.stop, clock=clock).run()
    stalled = [m for m in sink.messages if m.get("kind") == "incomplete_hand"]
    assert [m["hand_id"] for m in stalled] == [events[cut - 1]["hand_id"]]
    assert summary["events"] == len(lines)
    ledger.record("fault", "a hand whose table goes silent [uth audit --follow]",
                  sent=len(lines), processed=summary["events"], flagged=len(stalled))
