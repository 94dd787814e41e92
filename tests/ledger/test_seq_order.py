"""The trees are in ``seq`` order, whatever order the events arrived in: the same events in
two arrival orders give the same seals; a late event waits (not yet sealed, the gap named)
until it arrives, then is sealed in its place; an event that arrives with a ``seq`` the
seal already covers is a sequence conflict, named as one (and the ingest dead-letters it)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from events.ledger.keys import generate, load_private
from events.ledger.logs import read_seals, seal_log
from events.logs import open_log
from pipeline.cli import main
from tests.ledger.conftest import materialize, table_of, verify, waiting
from tests.pipeline import streams


def _heads(url: str) -> list[tuple[object, ...]]:
    with open_log(url) as log:
        seal = read_seals(log)[-1]
    return [(h.table_id, h.size, h.last_seq, h.root, h.leaves_sha256)
            for h in seal.parsed().tables] + [tuple(seal.leaves)]


def _write(lines: list[bytes], root: Path, private: Path) -> tuple[str, str]:
    """The lines as a JSON Lines log and as a SQLite log, both sealed."""
    root.mkdir(parents=True)
    jsonl = root / "floor.jsonl"
    jsonl.write_bytes(b"".join(line + b"\n" for line in lines))
    url = f"sqlite:///{root / 'log.db'}"
    with open_log(url) as log:
        log.append([(table_of(line), line) for line in lines])
    for source in (url, str(jsonl)):
        with open_log(source) as log:
            seal_log(log, load_private(private))
    return url, str(jsonl)


def test_two_arrival_orders_give_the_same_seals(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    private, public = generate(tmp_path / "k")
    lines = streams.floor_lines()
    shuffled = list(lines)
    random.Random(24).shuffle(shuffled)
    assert shuffled != lines
    in_order = _write(lines, tmp_path / "a", private)
    out_of_order = _write(shuffled, tmp_path / "b", private)
    heads = [_heads(url) for url in (*in_order, *out_of_order)]
    assert len(heads[0][2]) == 69  # every sealed leaf compared, not only the heads
    assert all(h == heads[0] for h in heads[1:])
    assert [h[:3] for h in heads[0][:2]] == [("T1", 50, 49), ("T2", 19, 18)]
    # the warehouse loaded from the shuffled file verifies against that file's seal
    warehouse = tmp_path / "b" / "w.duckdb"
    materialize(out_of_order[1], warehouse)
    status, out = verify(capsys, "--warehouse", str(warehouse), "--public-key", str(public))
    assert status == 0 and "69 sealed events in 2 tables: intact" in out, out


def _t1_without(seq: int) -> tuple[list[bytes], bytes]:
    t1, _ = streams.floor()
    lines = streams.lines(t1)
    held = next(line for line in lines if json.loads(line)["seq"] == seq)
    return [line for line in lines if line != held], held


def test_a_late_event_waits_then_is_sealed_in_its_place(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    private, public = generate(tmp_path / "k")
    early, late = _t1_without(30)
    log_path = tmp_path / "t1.jsonl"
    log_path.write_bytes(b"".join(line + b"\n" for line in early))
    assert main(["seal", "--source", str(log_path), "--key", str(private)]) == 0
    args = ["--source", str(log_path), "--public-key", str(public)]
    status, out = verify(capsys, *args)
    assert status == 0, out
    assert waiting(out) == [
        "T1 seq 31..49: 19 events not yet sealed (after a gap: seq 30 not received)"], out
    assert "30 sealed events in 1 tables: intact" in out
    with open(log_path, "ab") as f:
        f.write(late + b"\n")  # seq 30 arrives after seq 49, and after the seal
    status, out = verify(capsys, *args)
    assert status == 0 and waiting(out) == ["T1 seq 30..49: 20 events not yet sealed"], out
    assert main(["seal", "--source", str(log_path), "--key", str(private)]) == 0
    with open_log(str(log_path)) as log:
        second = read_seals(log)[-1]
    assert [r.seq for r in second.leaves] == list(range(30, 50))  # in seq order
    status, out = verify(capsys, *args)
    assert status == 0 and not waiting(out) and "50 sealed events" in out, out
    # the same tree as a seal of the table's events delivered in order
    ordered = tmp_path / "ordered.jsonl"
    ordered.write_bytes(b"".join(line + b"\n" for line in streams.lines(streams.floor()[0])))
    assert main(["seal", "--source", str(ordered), "--key", str(private)]) == 0
    assert _heads(str(ordered))[0] == _heads(str(log_path))[0]


def _conflicting(seq: int) -> bytes:
    """Another event at T1's ``seq`` (another event_id), as a table resending under a new
    id, or a forger, would write it."""
    t1, _ = streams.floor()
    event = next(e for e in t1 if e["seq"] == seq)
    return json.dumps({**event, "event_id": "00000000-0000-0000-0000-0000000000c1"},
                      separators=(",", ":")).encode()


def test_an_event_at_a_sealed_seq_is_a_sequence_conflict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    private, public = generate(tmp_path / "k")
    url, jsonl = _write(streams.floor_lines(), tmp_path / "floor", private)
    with open(jsonl, "ab") as f:
        f.write(_conflicting(21) + b"\n")
    status, out = verify(capsys, "--source", jsonl, "--public-key", str(public))
    assert status == 1, out
    assert ("T1 seq 21: inserted: event the seal does not hold, at a sealed seq (a sequence "
            "conflict with the sealed event there)") in out, out
    assert main(["seal", "--source", jsonl, "--key", str(private)]) == 1  # not blessed
    # through the ingest, the sequence check dead-letters it: the sealed log is unchanged
    late = tmp_path / "late.jsonl"
    late.write_bytes(_conflicting(21) + b"\n")
    main(["ingest", "--source", str(late), "--sink", url])
    assert "conflict" in capsys.readouterr().out
    status, out = verify(capsys, "--source", url, "--public-key", str(public))
    assert status == 0 and "69 sealed events in 2 tables: intact" in out, out
