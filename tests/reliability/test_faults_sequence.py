"""Delivery faults: a duplicate, two events out of order, a lost event (gap), two events with
the same table ``seq``. Each is reported as such, the rest of the stream is unaffected: by
``uth ingest`` (into the SQLite log) and by the auditor (from the file and from the log)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from events.audit.auditor import audit
from events.contract.codec import decode_many
from events.logs import open_log
from tests.reliability import corpus
from tests.reliability.helpers import uth

PER_TABLE = 65


def faulty_stream() -> tuple[list[bytes], dict[str, Any]]:
    """Four tables interleaved; one fault per table. Returns the lines and what to expect."""
    tables = [corpus.table(f"seq{t}").events for t in range(4)]
    dup, late, gap, conflict = (t[0]["table_id"] for t in tables)
    # table 1: seq 31 is delivered before seq 30 (a decision before the flop it follows)
    t1 = tables[1]
    t1[30], t1[31] = t1[31], t1[30]
    # table 2: the event with seq 40 was lost: everything from it on is numbered one higher
    for ev in tables[2][40:]:
        ev["seq"] += 1
    lines = [[corpus.encode(e) for e in t] for t in tables]
    # table 0: seq 12 delivered again, ten events later (same bytes, same event_id)
    lines[0].insert(22, lines[0][12])
    # table 3: another event claims seq 50 (a different event_id), after the real one
    forged = {**tables[3][50], "event_id": "forged-seq-50", "type": "ChipsPurchased",
              "hand_id": None, "payload": {"seat": 2, "amount": 5000, "method": "cash"}}
    lines[3].insert(52, corpus.encode(forged))
    mixed: list[bytes] = []
    for i in range(max(map(len, lines))):
        mixed += [t[i] for t in lines if i < len(t)]
    expect = {"dup": dup, "late": late, "gap": gap, "conflict": conflict, "gap_seq": 40,
              "distinct": 4 * PER_TABLE, "ids": {e["event_id"] for t in tables for e in t}}
    return mixed, expect


def test_fault_sequence_anomalies_through_the_auditor(ledger: Any) -> None:
    lines, expect = faulty_stream()
    report = audit(decode_many(lines))
    kinds = sorted((f.kind, f.table_id) for f in report.findings)
    assert kinds == [("sequence_conflict", expect["conflict"]),
                     ("sequence_gap", expect["gap"])], report.findings
    gap = next(f for f in report.findings if f.kind == "sequence_gap")
    assert "seq 40 never arrived" in gap.detail
    conflict = next(f for f in report.findings if f.kind == "sequence_conflict")
    assert "forged-seq-50" in conflict.detail and "the first is kept" in conflict.detail
    assert report.summary["duplicates_ignored"] == 1
    assert report.summary["events"] == expect["distinct"]
    assert report.summary["rejected_events"] == 0
    assert report.summary["hands"] == 12
    assert sorted(h.status for h in report.hands) == ["settled"] * 12
    # every wager of every hand audited (the four tables hold the same hands)
    assert len(report.wagers) == 4 * len(audit(decode_many(
        [corpus.encode(e) for e in corpus.table("clean").events])).wagers)
    for name, table, rejected, ignored in (
        ("duplicate delivery", expect["dup"], 0, 1),
        ("out-of-order delivery", expect["late"], 0, 0),
        ("sequence gap (lost event)", expect["gap"], 0, 0),
        ("same seq, another event", expect["conflict"], 1, 0),
    ):
        sent = sum(1 for line in lines if json.loads(line)["table_id"] == table)
        ledger.record("fault", f"{name} [audit]", sent=sent, processed=PER_TABLE,
                      rejected=rejected, ignored=ignored,
                      flagged=sum(f.table_id == table for f in report.findings))


def test_fault_sequence_anomalies_through_ingest(tmp_path: Path, ledger: Any) -> None:
    lines, expect = faulty_stream()
    source = tmp_path / "floor.jsonl"
    source.write_bytes(b"".join(line + b"\n" for line in lines))
    sink = f"sqlite:///{tmp_path / 'floor.db'}"
    done = uth("ingest", "--source", str(source), "--sink", sink, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["read"] == len(lines) == expect["distinct"] + 2
    assert report["written"] == expect["distinct"]
    assert report["duplicates"] == 1
    assert report["rejected_by_reason"] == {"conflict": 1}
    assert report["late"] == 1  # the out-of-order event, stored, reported as late
    assert sorted(map(tuple, report["gaps"])) == sorted(
        [(expect["late"], 30, 30), (expect["gap"], 40, 40)])
    assert report["missing"] == {expect["gap"]: [[40, 40]]}  # the late one filled its gap
    assert report["accounted"] is True
    with open_log(sink) as log:
        stored = [json.loads(r.value) for b in log.read() for r in b]
        dead = log.dead_letters() if hasattr(log, "dead_letters") else None
    ids = [e["event_id"] for e in stored]
    assert len(ids) == len(set(ids)) == expect["distinct"]
    assert set(ids) == expect["ids"]
    if dead is not None:
        assert len(dead) == 1
    # ingesting the same file again stores nothing twice
    again = json.loads(uth("ingest", "--source", str(source), "--sink", sink,
                           "--json").stdout.strip().splitlines()[-1])
    assert again["written"] == 0 and again["duplicates"] == expect["distinct"] + 1
    # the log, audited: only the lost event is left to report (the conflict was not stored)
    with open_log(sink) as log:
        report2 = audit(decode_many([r.value for b in log.read() for r in b]))
    assert [f.kind for f in report2.findings] == ["sequence_gap"]
    ledger.record("fault", "duplicate/out-of-order/gap/conflict [ingest]", sent=len(lines),
                  processed=report["written"], rejected=report["rejected"],
                  ignored=report["duplicates"], flagged=len(report["gaps"]) + report["late"])


@pytest.mark.parametrize("fault", ["duplicate", "late", "gap", "conflict"])
def test_each_fault_leaves_the_other_tables_identical(fault: str) -> None:
    """Audit rows of the tables without the fault equal those of a clean stream."""
    lines, expect = faulty_stream()
    faulty_table = {"duplicate": expect["dup"], "late": expect["late"], "gap": expect["gap"],
                    "conflict": expect["conflict"]}[fault]
    report = audit(decode_many(lines))
    clean = audit(decode_many([corpus.encode(e) for e in corpus.table("clean").events]))

    def rows(rep: Any, table: str | None) -> list[tuple[Any, ...]]:
        return sorted((w.hand_id.split("-h")[-1], w.seat, w.spot, w.amount, w.recorded_result,
                       w.correct_result) for w in rep.wagers
                      if table is None or w.table_id == table)

    assert rows(report, faulty_table) == rows(clean, None)
