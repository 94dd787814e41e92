"""The warehouse's connections and settings, and the steps without Dagster: read-only
readers wait for a writer and give up clearly; the gaming day start is configurable and
fixed per warehouse; de-duplication within and across batches; a SQLite log as source."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import duckdb
import pytest

from events.logs import open_log
from pipeline.analytics.steps import update_rollups
from pipeline.hands.steps import update_hands
from pipeline.ingest.steps import archive_pending, load_events
from pipeline.ingest.transforms import decode_lines, write_batch
from pipeline.warehouse import (
    WarehouseBusy,
    cursor_text,
    gaming_day_sql,
    parse_cursor,
    parse_day_start,
    query,
    reading,
    writing,
)
from tests.pipeline import streams
from tests.pipeline.conftest import dump, write_log

HOLD = """import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
print("holding", flush=True)
time.sleep(float(sys.argv[2]))
con.close()
"""


def _steps(log: str, wh: Path, day_start: int = 360) -> None:
    load_events(log, wh, batch_size=50, day_start_minutes=day_start)
    update_hands(wh, day_start, chunk=2)
    update_rollups(wh)
    archive_pending(wh, wh.with_name(wh.stem + "_archive"))


def _holder(path: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
    return proc


def test_reader_waits_for_the_writer_then_reads(tmp_path: Path) -> None:
    wh = tmp_path / "w.duckdb"
    with writing(wh) as con:
        con.execute("INSERT INTO meta VALUES ('k', 'v')")
    holder = _holder(wh, 1.5)  # another process holds the file for 1.5 s
    start = time.monotonic()
    assert query(wh, "SELECT value FROM meta WHERE key = 'k'", timeout=30) == [("v",)]
    assert holder.wait(timeout=30) == 0
    assert time.monotonic() - start > 0.2  # it did have to wait


def test_reader_gives_up_with_a_clear_error(tmp_path: Path) -> None:
    wh = tmp_path / "w.duckdb"
    with writing(wh):
        pass
    holder = _holder(wh, 20)
    try:
        with pytest.raises(WarehouseBusy, match=r"did not release it within 0\.3 s"):
            query(wh, "SELECT 1", timeout=0.3)
    finally:
        holder.kill()
        holder.wait()


def test_missing_warehouse_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="run `uth load` first"), \
            reading(tmp_path / "none.duckdb"):
        pass


def test_day_start_parsing_and_sql() -> None:
    assert parse_day_start("06:00") == 360 and parse_day_start("23:30") == 1410
    for bad in ("24:00", "6", "06:60", "x:y"):
        with pytest.raises(ValueError):
            parse_day_start(bad)
    before = gaming_day_sql("TIMESTAMP '2026-11-30 05:59:59'", 360)
    after = gaming_day_sql("TIMESTAMP '2026-11-30 06:00:00'", 360)
    with _memory() as con:
        got = con.execute(f"SELECT {before}, {after}").fetchall()
    assert got == [(date(2026, 11, 29), date(2026, 11, 30))]


def _memory() -> contextlib.closing[duckdb.DuckDBPyConnection]:
    return contextlib.closing(duckdb.connect())


def test_gaming_day_start_is_configurable_and_fixed(tmp_path: Path) -> None:
    log = write_log(tmp_path / "floor.jsonl", streams.floor_lines())
    wh = tmp_path / "midnight.duckdb"
    _steps(str(log), wh, day_start=0)  # calendar days
    # T2's 05:52 buy-in and H4 (05:55) now fall on 2026-11-30 with the rest of T2
    assert query(wh, """SELECT table_id, gaming_day, hands, "drop", house_win
        FROM table_hold_daily ORDER BY 1, 2""") == [
        ("T1", date(2026, 11, 29), 3, 150000, -12500),
        ("T2", date(2026, 11, 30), 2, 50000, -1000)]
    with pytest.raises(ValueError, match="gaming_day_start = 00:00, not 06:00"):
        load_events(str(log), wh, day_start_minutes=360)


def test_duplicates_within_and_across_batches(tmp_path: Path) -> None:
    t1, _ = streams.floor()
    data = streams.lines(t1[:6])
    wh = tmp_path / "w.duckdb"
    with writing(wh) as con:
        first = write_batch(con, decode_lines([data[0], data[1], data[0], b"nope"]), "s",
                            {0: 5}, 360)
    assert (first.records, first.new_events, first.duplicates, first.rejected) == (4, 2, 1, 1)
    with writing(wh) as con:
        second = write_batch(con, decode_lines(data[1:6]), "s", {0: 10}, 360)
    assert (second.new_events, second.duplicates) == (4, 1)
    assert query(wh, "SELECT count(*), count(DISTINCT event_id) FROM events") == [(6, 6)]
    assert query(wh, "SELECT position, events_loaded FROM load_positions") == [('{"0": 10}', 6)]
    assert query(wh, "SELECT position FROM dead_letters") == [("line 4",)]
    # the work queued for the later steps: one hand (H1), one table, one (table, day)
    assert query(wh, "SELECT DISTINCT hand_id FROM pending.hands") == [("H1",)]
    assert query(wh, "SELECT DISTINCT table_id, gaming_day FROM pending.archive") == [
        ("T1", date(2026, 11, 29))]


def test_a_copy_with_other_contents_goes_to_the_dead_letters(tmp_path: Path) -> None:
    """The same ``event_id`` and ``seq`` with other contents is no redelivery: the first
    copy stands and the other is kept in ``dead_letters`` with the reason, whether the two
    come in one batch (the fast path, or one by one beside a bad line) or the first was
    loaded before. A copy under another ``seq`` is a re-numbered redelivery, counted once
    (as the auditor counts it)."""
    t1, _ = streams.floor()
    events = t1[:5]
    data = streams.lines(events)
    bet = next(e for e in events if e["type"] == "BetPlaced")
    other = streams.lines([{**bet, "payload": {**bet["payload"], "amount": 99900}}])[0]
    renumbered = streams.lines([{**bet, "seq": 77}])[0]
    wh = tmp_path / "w.duckdb"
    with writing(wh) as con:
        one = write_batch(con, decode_lines([*data, other, renumbered]), "a", {0: 7}, 360)
        two = write_batch(con, decode_lines([b"nope", other, data[0]]), "b", {0: 3}, 360)
    assert (one.new_events, one.duplicates, one.rejected) == (5, 1, 1)
    assert (two.new_events, two.duplicates, two.rejected) == (0, 1, 2)
    with writing(wh) as con:  # in one batch beside a bad line: decoded one by one
        three = write_batch(con, decode_lines([b"{", data[1], other]), "c", {0: 3}, 360)
    assert (three.new_events, three.duplicates, three.rejected) == (0, 1, 2)
    assert query(wh, "SELECT count(*) FROM events") == [(5,)]
    stored = query(wh, "SELECT payload->>'amount' FROM events WHERE event_id = ?",
                   [bet["event_id"]])
    assert stored == [(str(bet["payload"]["amount"]),)]
    letters = query(wh, "SELECT source, position, reason, raw FROM dead_letters "
                    "WHERE reason LIKE 'conflicting-copy:%' ORDER BY source")
    assert [(source, position) for source, position, _, _ in letters] == [
        ("a", "line 6"), ("b", "line 2"), ("c", "line 3")]
    seq = bet["seq"]
    assert letters[0][2] == (f"conflicting-copy: event {bet['event_id']} (table T1 seq "
                             f"{seq}) arrived again with other contents; the first copy "
                             f"(line {events.index(bet) + 1} of this batch) is kept")
    assert letters[1][2].endswith(f"the first copy (line {events.index(bet) + 1} of a, "
                                  "already loaded) is kept")
    assert all('"amount":99900' in raw.replace(" ", "") for _, _, _, raw in letters)


def test_cursor_text_round_trip() -> None:
    assert cursor_text({1: 7, 0: 42}) == '{"0": 42, "1": 7}'
    assert parse_cursor(cursor_text({1: 7, 0: 42})) == {0: 42, 1: 7}
    assert parse_cursor(None) == {} and parse_cursor("") == {}


def test_sqlite_log_source_gives_the_same_tables(tmp_path: Path) -> None:
    lines = streams.floor_lines()
    url = f"sqlite:///{tmp_path / 'log.db'}"
    with open_log(url) as log:
        log.append([("T", line) for line in lines])
    from_sqlite, from_file = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    _steps(url, from_sqlite)
    _steps(str(write_log(tmp_path / "floor.jsonl", lines)), from_file)
    a, b = dump(from_sqlite), dump(from_file)
    for table in ("hands", "wagers", "table_hold_daily", "trips_performance", "trips_hits",
                  "dealer_performance"):
        assert a[table] == b[table], table
    assert query(from_sqlite, "SELECT position FROM load_positions") == [('{"0": 87}',)]
    assert query(from_sqlite, "SELECT min(position) FROM events WHERE seq = 0 AND "
                              "table_id = 'T1'") == [("row 1",)]


def test_late_table_opened_reaudits_the_hands_after_it(tmp_path: Path) -> None:
    """T2's TableOpened arrives after its hands: they are audited again with its rules,
    as a single load of the whole log would audit them."""
    t1, t2 = streams.floor()
    late, rest = streams.lines(t2[:1]), streams.lines(t1 + t2[1:])
    log = write_log(tmp_path / "late.jsonl", rest)
    wh = tmp_path / "w.duckdb"
    _steps(str(log), wh)
    assert query(wh, "SELECT count(*) FROM audit_findings WHERE kind = 'unknown_ruleset'"
                     )[0][0] == 2  # H4 and H5: no TableOpened yet
    with log.open("ab") as f:
        f.write(late[0] + b"\n")
    _steps(str(log), wh)
    assert query(wh, "SELECT hand_id, ruleset FROM hands WHERE table_id = 'T2' ORDER BY 1") == [
        ("H4", "eu-participation"), ("H5", "eu-participation")]
    assert query(wh, "SELECT count(*) FROM audit_findings WHERE kind = 'unknown_ruleset'"
                     )[0][0] == 0
    clean = tmp_path / "clean.duckdb"
    _steps(str(log), clean)
    assert dump(wh)["table_hold_daily"] == dump(clean)["table_hold_daily"]
    assert dump(wh)["wagers"] == dump(clean)["wagers"]


def test_sequence_findings_incremental_equal_whole(tmp_path: Path) -> None:
    """Gaps and conflicts arriving over many small loads (a conflicting copy, a late event
    filling a gap, events lost for good) end as the findings of one load, and as the
    auditor's over the whole log."""
    from events.audit.auditor import audit
    from events.contract.codec import decode_many

    t1, t2 = streams.floor()
    t1_lines = streams.lines(t1)
    conflict = dict(t1[10], event_id="conflicting-copy")  # H1's seq 10 with another id
    lost = t1[20]  # arrives only at the very end: a gap in T1 until then
    data = (streams.lines([e for e in t1 if e is not lost])[:30] + streams.lines([conflict])
            + t1_lines[31:] + streams.lines(t2) + streams.lines([lost]))
    log = write_log(tmp_path / "seq.jsonl", data)
    whole, pieces = tmp_path / "whole.duckdb", tmp_path / "pieces.duckdb"
    load_events(str(log), whole)
    update_hands(whole, 360)
    lines = log.read_bytes().splitlines()
    for end in range(10, len(lines) + 10, 10):  # ten lines per load
        write_log(tmp_path / "growing.jsonl", lines[:end])
        load_events(str(tmp_path / "growing.jsonl"), pieces, batch_size=3)
        update_hands(pieces, 360, chunk=2)
    got = "SELECT kind, table_id, detail, event_id FROM audit_findings ORDER BY ALL"
    assert query(pieces, got) == query(whole, got)
    kinds = [k for k, *_ in query(whole, got)]
    assert kinds.count("sequence_conflict") == 1 and kinds.count("sequence_gap") == 1
    report = audit(decode_many(lines))
    assert sorted(f.finding_id for f in report.findings if f.kind.startswith("sequence")) == \
        sorted(r[0] for r in query(whole, "SELECT finding_id FROM audit_findings "
                                          "WHERE kind LIKE 'sequence%'"))


def test_sequence_regions_in_order_only_when_each_seq_is_there_once() -> None:
    from pipeline.hands.findings import _in_order

    assert _in_order(5, 5, 0, 4, None)  # a whole table, seq 0 to 4
    assert _in_order(3, 3, 7, 9, 7)  # a region from s0 = 7
    assert not _in_order(4, 3, 0, 3, None)  # 0 1 1 3: a conflict hides the gap's count
    assert not _in_order(4, 4, 0, 4, None)  # 0 1 3 4: a gap
    assert not _in_order(3, 3, 2, 4, None)  # a whole table that starts at seq 2


@pytest.mark.parametrize("case", ["conflict and gap at once", "starts late", "clean"])
def test_sequence_findings_are_the_auditors_whatever_the_regions(tmp_path: Path,
                                                                  case: str) -> None:
    """The regions found in order skip the window query; the others get it. Either way
    the warehouse's sequence findings are the auditor's, including a conflicting copy and
    a lost event in one table (as many events as seq numbers), a table whose first events
    never arrived, and a table in order (no window query at all)."""
    from events.audit.auditor import audit
    from events.contract.codec import decode_many

    t1, t2 = streams.floor()
    if case == "conflict and gap at once":
        t1 = list(t1)
        t1[20] = dict(t1[10], event_id="conflicting-copy")  # seq 10 twice, seq 20 lost
    else:
        t2 = []  # (the fixture's second table has a gap of its own, at seq 19)
        t1 = t1[2:] if case == "starts late" else t1
    lines = streams.lines(t1) + streams.lines(t2)
    log = write_log(tmp_path / "seq.jsonl", lines)
    wh = tmp_path / "wh.duckdb"
    load_events(str(log), wh)
    update_hands(wh, 360)
    stored = query(wh, "SELECT kind, finding_id FROM audit_findings "
                       "WHERE kind LIKE 'sequence%' ORDER BY ALL")
    report = audit(decode_many(lines))
    assert stored == sorted((f.kind, f.finding_id) for f in report.findings
                            if f.kind.startswith("sequence"))
    expected = {"conflict and gap at once": ["sequence_conflict", *["sequence_gap"] * 2],
                "starts late": ["sequence_gap"], "clean": []}[case]
    assert [kind for kind, _ in stored] == expected


def test_a_load_while_the_file_is_being_appended_to_loses_nothing(tmp_path: Path) -> None:
    """The table system is half-way through writing a line when the load reads the file:
    that line is neither dead-lettered nor skipped; the next load takes it whole, and the
    warehouse equals one load of the finished file."""
    lines = streams.floor_lines()
    half = len(lines[40]) // 2
    log = tmp_path / "growing.jsonl"
    log.write_bytes(b"".join(line + b"\n" for line in lines[:40]) + lines[40][:half])
    grown, once = tmp_path / "grown.duckdb", tmp_path / "once.duckdb"
    _steps(str(log), grown)
    # (the floor's own bad line, line 4, is the one dead letter)
    assert query(grown, "SELECT position FROM dead_letters") == [("4",)]
    assert query(grown, "SELECT max(CAST(position AS INTEGER)) FROM events") == [(40,)]
    with open(log, "ab") as f:
        f.write(lines[40][half:] + b"\n" + b"".join(line + b"\n" for line in lines[41:]))
    _steps(str(log), grown)
    _steps(str(log), once)
    assert dump(grown) == dump(once)


def test_a_relief_dealers_late_hand_updates_the_other_dealers_hours(tmp_path: Path) -> None:
    """Dealer D1 deals H1 and H3, a relief dealer H2 between them (a session ends when
    another dealer takes over). H2's end arrives in a later load: D1's hours, which H2
    splits in two sessions, are recomputed too, as one load of the whole log gives them."""
    t1, _ = streams.floor()
    t1 = [dict(e, payload=dict(e["payload"], dealer_id="RELIEF"))
          if e["type"] == "HandStarted" and e["hand_id"] == "H2" else
          dict(e, payload=dict(e["payload"], dealer_id="D1"))
          if e["type"] == "HandStarted" else e for e in t1]
    late = next(e for e in t1 if e["type"] == "HandEnded" and e["hand_id"] == "H2")
    lines = streams.lines([e for e in t1 if e is not late] + [late])
    grown, once = tmp_path / "grown.duckdb", tmp_path / "once.duckdb"
    _steps(str(write_log(tmp_path / "log.jsonl", lines[:-1])), grown)
    _steps(str(write_log(tmp_path / "log.jsonl", lines)), grown)
    _steps(str(tmp_path / "log.jsonl"), once)
    sql = "SELECT * FROM dealer_performance ORDER BY ALL"
    assert query(grown, sql) == query(once, sql)
    assert [r[0] for r in query(once, sql)] == ["D1", "RELIEF"]


@pytest.mark.parametrize("bad_time", ["2026-02-31T10:00:00.000Z", "2026-12-31T23:59:60.000Z"])
def test_a_time_the_warehouse_cannot_hold_is_dead_lettered_not_stuck(tmp_path: Path,
                                                                    bad_time: str) -> None:
    """An event whose time passes the form but not the calendar (or is a leap second) used
    to pass validation and then fail every commit of its batch; it is a dead letter."""
    import json

    t1, _ = streams.floor()
    data = streams.lines(t1[:8])
    bad = json.loads(data[3])
    bad["occurred_at"] = bad_time
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"\n".join([*data[:3], json.dumps(bad).encode(), *data[4:]]) + b"\n")
    wh = tmp_path / "w.duckdb"
    stats = load_events(str(log), wh, batch_size=3)
    assert (stats.new_events, stats.rejected) == (7, 1)
    [(position, reason)] = query(wh, "SELECT position, reason FROM dead_letters")
    assert position == "4" and bad_time in reason
