"""The sequencer remembers the ids of events taken a run at a time (``take_run``) as well as
those taken one by one: a redelivered copy of either is a duplicate, another event with
the same ``seq`` a conflict, for ``window`` to twice ``window`` seq numbers."""

from __future__ import annotations

import json
from typing import Any

from events.audit.sequence import Sequencer
from events.contract.schemas import Event, decode_event


def closed(seq: int, event_id: str) -> Event:
    return decode_event(json.dumps({
        "event_id": event_id, "type": "TableClosed", "schema_version": 1, "table_id": "T1",
        "hand_id": None, "seq": seq, "occurred_at": "2026-11-29T21:03:11Z", "payload": {},
    }).encode())


def taken(out: list[int]) -> Any:
    return lambda ev, pos: out.append(ev.seq)


def test_a_run_taken_whole_is_remembered_like_single_events() -> None:
    seq, out = Sequencer(window=100), []
    assert seq.take_run("T1", [closed(k, f"e{k}") for k in range(10)])
    seq.push(closed(10, "e10"), None, taken(out))
    assert out == [10] and seq.distinct == 11
    seq.push(closed(4, "e4"), None, taken(out))  # a copy of an event of the run
    seq.push(closed(10, "e10"), None, taken(out))  # a copy of the single one
    assert seq.duplicates == 2 and not seq.findings and out == [10]
    seq.push(closed(7, "forged"), None, taken(out))
    assert [f.kind for f in seq.findings] == ["sequence_conflict"]
    assert "forged conflicts with event e7" in seq.findings[0].detail


def test_a_run_must_continue_the_sequence_exactly() -> None:
    seq = Sequencer()
    assert not seq.take_run("T1", [closed(1, "a"), closed(2, "b")])  # seq 0 is next
    assert seq.take_run("T1", [closed(0, "a"), closed(1, "b")])
    assert not seq.take_run("T1", [closed(2, "c"), closed(4, "d")])  # a hole inside
    assert seq.next_seq() == {"T1": 2} and seq.distinct == 2


def test_runs_age_out_of_the_window_into_the_old_generation_then_away() -> None:
    seq, out = Sequencer(window=8), []
    for start in range(0, 30, 5):
        assert seq.take_run("T1", [closed(k, f"e{k}") for k in range(start, start + 5)])
    # the newest ids (this generation and the one before it) are still compared
    seq.push(closed(27, "other"), None, taken(out))
    seq.push(closed(20, "other"), None, taken(out))
    assert [f.kind for f in seq.findings] == ["sequence_conflict"] * 2
    # older than what is remembered: taken as a redelivery, whatever its id
    seq.push(closed(2, "other"), None, taken(out))
    assert seq.duplicates == 1 and len(seq.findings) == 2 and out == []


def test_events_let_go_after_waiting_count_towards_the_window() -> None:
    """Seq 1-3 wait for 0, then all four go on: they fill the window as single events do,
    so the generation holding them ages out on time."""
    seq, out = Sequencer(window=4), []
    for k in (1, 2, 3, 0):
        seq.push(closed(k, f"e{k}"), None, taken(out))
    assert out == [0, 1, 2, 3]
    for run in ([4], [5, 6, 7, 8], [9]):
        assert seq.take_run("T1", [closed(k, f"e{k}") for k in run])
    seq.push(closed(2, "other"), None, taken(out))  # forgotten: a redelivery, not a conflict
    assert seq.duplicates == 1 and not seq.findings


def test_a_copy_under_another_seq_is_counted_once_and_its_seq_is_a_gap() -> None:
    """The contract counts an ``event_id`` once: a copy re-numbered by the table (in a run,
    one by one, while the original waits, or within one run) is a redelivery, and the seq
    it took is missing, as in the warehouse, which de-duplicates on the id."""
    seq, out = Sequencer(window=100), []
    assert seq.take_run("T1", [closed(k, f"e{k}") for k in range(5)])
    assert not seq.take_run("T1", [closed(5, "e2"), closed(6, "e6")])  # e2 again, as seq 5
    for ev in (closed(5, "e2"), closed(6, "e6")):
        seq.push(ev, None, taken(out))
    assert seq.duplicates == 1 and out == [] and seq.distinct == 6  # seq 6 waits for 5
    seq.push(closed(9, "e9"), None, taken(out))
    seq.push(closed(8, "e9"), None, taken(out))  # a copy of a waiting event
    assert seq.duplicates == 2
    seq.release_all(taken(out))
    assert out == [6, 9]
    assert [f.detail for f in seq.findings] == [
        "Table T1: seq 5 never arrived (1 event lost before seq 6).",
        "Table T1: seq 7 to 8 never arrived (2 events lost before seq 9)."]
    other, out = Sequencer(), []
    run = [closed(0, "a"), closed(1, "a")]
    assert not other.take_run("T1", run)  # within one run: nothing taken, one by one
    for ev in run:
        other.push(ev, None, taken(out))
    assert out == [0] and other.distinct == 1 and other.duplicates == 1


def test_the_auditor_and_the_warehouse_count_a_renumbered_copy_alike(tmp_path: Any) -> None:
    from events.audit.auditor import audit
    from events.contract.codec import decode_many
    from pipeline.hands.steps import update_hands
    from pipeline.ingest.steps import load_events
    from pipeline.warehouse import query
    from tests.pipeline import streams
    from tests.pipeline.conftest import write_log

    t1, _ = streams.floor()
    payout = next(e for e in t1 if e["type"] == "PayoutRecorded")
    copy = dict(payout, seq=t1[-1]["seq"] + 1)  # the same event again, as the next seq
    after = dict(t1[0], event_id="closing", type="TableClosed", seq=copy["seq"] + 1,
                 occurred_at=t1[-1]["occurred_at"], payload={})
    lines = streams.lines([*t1, copy, after])
    report = audit(decode_many(lines))
    without = audit(decode_many(streams.lines([*t1, dict(after, seq=copy["seq"])])))
    assert report.summary["duplicates_ignored"] == 1
    assert report.summary["events"] == len(t1) + 1
    log, wh = write_log(tmp_path / "log.jsonl", lines), tmp_path / "wh.duckdb"
    load_events(str(log), wh)
    update_hands(wh, 360)
    assert query(wh, "SELECT count(*) FROM events") == [(len(t1) + 1,)]
    assert sorted(f.finding_id for f in report.findings) == [
        r[0] for r in query(wh, "SELECT finding_id FROM audit_findings ORDER BY 1")]
    assert sorted(f.kind for f in report.findings) == sorted(
        [*(f.kind for f in without.findings), "sequence_gap"])


def test_a_refused_run_leaves_the_remembered_ids_as_they_were() -> None:
    """A run holding an id already remembered (a copy under another seq) or the same id
    twice is refused, and the ids remembered are those of before the run, however they
    came (runs, single events, events that waited, the generation before)."""
    seq, out = Sequencer(window=6), []
    assert seq.take_run("T1", [closed(k, f"e{k}") for k in range(4)])
    seq.push(closed(5, "e5"), None, taken(out))  # waits for seq 4
    seq.push(closed(4, "e4"), None, taken(out))
    assert seq.take_run("T1", [closed(6, "e6"), closed(7, "e7")])  # ages: e0-e7 are old
    seq.push(closed(8, "e8"), None, taken(out))
    seq.push(closed(10, "e10"), None, taken(out))  # waits for seq 9
    seq.push(closed(9, "e9"), None, taken(out))
    table = seq.tables["T1"]
    before = set(table.remembered_ids())
    assert set(table.seen.values()) == {"e8", "e9", "e10"}  # the rest is the old generation
    assert before == {f"e{k}" for k in range(11)}
    for run in ([closed(11, "n11"), closed(12, "e9")],  # a copy of a current id
                [closed(11, "n11"), closed(12, "e2")],  # of an old one
                [closed(11, "n11"), closed(12, "n11")]):  # one id twice
        assert not seq.take_run("T1", run)
        assert table.remembered_ids() == before
    assert seq.take_run("T1", [closed(11, "n11"), closed(12, "n12")])
    assert table.remembered_ids() == before | {"n11", "n12"}
