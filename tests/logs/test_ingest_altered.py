"""Issue 30 (2): a copy with a stored event's ``event_id`` and ``seq`` but other contents is
dead-lettered once, with its reason, into every local sink; an exact copy is a duplicate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events.logs.jsonl import rejected_path
from events.logs.sqlite import SqliteLog
from pipeline.cli import main
from tests.logs.factory import encode, event


def _events(amount: int) -> list[bytes]:
    opened = event("TableOpened", "T1", 0, {"ruleset": "charlevoix-2011", "min_bet": 500,
                                            "max_bet": 50000, "seats": 7, "currency": "CAD"},
                   event_id="a0")
    chips = event("ChipsPurchased", "T1", 1, {"seat": 1, "amount": amount, "method": "cash"},
                  event_id="c1")
    return [encode(opened), encode(chips)]


def _sink_url(kind: str, tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'out.db'}" if kind == "sqlite" else str(tmp_path / "out.jsonl")


def _dead(kind: str, url: str) -> list[dict[str, object]]:
    if kind == "sqlite":
        with SqliteLog(url) as log:
            return log.dead_letters()
    path = rejected_path(Path(url))
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def _ingest(src: Path, sink: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["ingest", "--source", str(src), "--sink", sink, "--json"]) == 0
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("kind", ["sqlite", "jsonl"])
def test_an_altered_copy_is_dead_lettered_once_and_an_exact_copy_is_a_duplicate(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sink = _sink_url(kind, tmp_path)
    first = tmp_path / "first.jsonl"
    first.write_bytes(b"\n".join(_events(1500)) + b"\n")
    assert _ingest(first, sink, capsys)["written"] == 2
    altered = tmp_path / "altered.jsonl"
    altered.write_bytes(b"\n".join(_events(9900)) + b"\n")
    for _ in range(2):  # a rerun dead-letters it again at the same place: stored once
        report = _ingest(altered, sink, capsys)
        assert (report["written"], report["duplicates"], report["rejected"]) == (0, 1, 1)
        assert report["rejected_by_reason"] == {"conflict": 1}
        assert report["accounted"] is True
    (dead,) = _dead(kind, sink)
    assert dead["code"] == "conflict"
    assert "T1 seq 1 event c1 is already stored with other contents" in str(dead["reason"])
    # the exact copy again: a duplicate, nothing more dead-lettered
    report = _ingest(first, sink, capsys)
    assert (report["written"], report["duplicates"], report["rejected"]) == (0, 2, 0)
    assert len(_dead(kind, sink)) == 1


def test_an_altered_copy_in_the_same_run_is_dead_lettered(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    both = tmp_path / "both.jsonl"
    one, two = _events(1500), _events(9900)
    both.write_bytes(b"\n".join([*one, two[1]]) + b"\n")
    sink = _sink_url("sqlite", tmp_path)
    report = _ingest(both, sink, capsys)
    assert (report["written"], report["duplicates"], report["rejected"]) == (2, 0, 1)


def test_a_copy_outside_the_trackers_window_is_still_compared(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Same ``event_id`` at another ``seq``: the SQLite sink's index skips it; its bytes
    differ from the stored ones, so it is a conflict, not a duplicate."""
    sink = _sink_url("sqlite", tmp_path)
    first = tmp_path / "first.jsonl"
    first.write_bytes(b"\n".join(_events(1500)) + b"\n")
    _ingest(first, sink, capsys)
    moved = event("ChipsPurchased", "T1", 2, {"seat": 1, "amount": 1500, "method": "cash"},
                  event_id="c1")
    other = tmp_path / "moved.jsonl"
    other.write_bytes(encode(moved) + b"\n")
    report = _ingest(other, sink, capsys)
    assert (report["written"], report["duplicates"], report["rejected"]) == (0, 0, 1)


@pytest.mark.parametrize("kind", ["sqlite", "jsonl"])
def test_a_longer_resimulation_into_a_log_loses_nothing_without_a_trace(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sink = _sink_url(kind, tmp_path)
    assert main(["simulate", "--tables", "2", "--hands", "50", "--seed", "7", "--sink", sink,
                 "--quiet"]) == 0
    longer = tmp_path / "longer.jsonl"
    assert main(["simulate", "--tables", "2", "--hands", "55", "--seed", "7", "--sink",
                 str(longer), "--quiet"]) == 0
    capsys.readouterr()
    report = _ingest(longer, sink, capsys)
    assert report["accounted"] is True
    if kind == "sqlite":
        with SqliteLog(sink) as log:
            stored = {r.value for r in log.records()}
    else:
        stored = set(Path(sink).read_bytes().splitlines())
    dead = {str(d["event_id"]) for d in _dead(kind, sink)}
    lines = longer.read_bytes().splitlines()
    for line in lines:  # every line is stored as it is, or dead-lettered with its reason
        assert line in stored or json.loads(line)["event_id"] in dead
    assert report["rejected"] == len(dead) > 0


@pytest.mark.kafka
def test_a_conflict_resent_after_a_restart_into_kafka_is_dead_lettered(
        tmp_path: Path, kafka_url: str) -> None:
    """Issue 30 (3): the forwarder restarts (a new run, its position stored); the source
    then holds a second event for a seq already forwarded, and an altered copy of one."""
    from events.logs import open_log
    from events.logs.forward import Forwarder
    from tests.logs.factory import lines

    url = f"sqlite:///{tmp_path / 'outbox.db'}"
    first = lines(1, 2)  # 31 events of T1
    with SqliteLog(url) as src:
        src.append([("T1", x) for x in first], [json.loads(x)["event_id"] for x in first])
    with SqliteLog(url) as src, open_log(kafka_url) as sink:
        report = Forwarder(src, sink, consumer="fwd", batch_size=10).run()
        assert (report.written, report.rejected_total) == (31, 0)
    again = json.loads(first[5])
    other = {**again, "event_id": "00000000-0000-4000-8000-000000000005"}
    altered = json.loads(first[7])
    altered["occurred_at"] = altered["occurred_at"].replace(".000Z", ".500Z")
    with SqliteLog(url) as src:
        src.append([("T1", encode(other)), ("T1", encode(altered))])
    with SqliteLog(url) as src, open_log(kafka_url) as sink:
        report = Forwarder(src, sink, consumer="fwd", batch_size=10).run()
        assert (report.read, report.written, report.duplicates) == (2, 0, 0)
        assert report.rejected == {"conflict": 2}
        assert len(list(sink.records())) == 31
