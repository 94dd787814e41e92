"""The contract every event log keeps, run against SQLite, JSON Lines and Kafka (Tansu)."""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from pathlib import Path

from events.contract.codec import Rejection
from events.logs import Cursor, EventLog, Record, advance, advance_all, open_log
from events.logs.jsonl import JsonlLog, rejected_path
from events.logs.kafka import KafkaLog
from events.logs.sqlite import SqliteLog

TABLES = ("T1", "T2", "T3", "T4", "T5")


def sample(n: int) -> list[tuple[str, bytes]]:
    return [(TABLES[i % 5], json.dumps({"i": i, "t": TABLES[i % 5], "é": "♠"}).encode())
            for i in range(n)]


def read_all(log: EventLog, start: Cursor | None = None) -> list[Record]:
    return [r for batch in log.read(start) for r in batch]


def by_table(values: list[bytes]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for v in values:
        d = json.loads(v)
        out[d["t"]].append(d["i"])
    return dict(out)


def test_append_then_read_returns_every_record_once_in_table_order(log_url: str) -> None:
    records = sample(1000)
    with open_log(log_url) as log:
        result = log.append(records[:400])
        assert result.written == 400 and result.duplicates == 0
        assert log.append(records[400:]).written == 600
        got = read_all(log)
    assert len(got) == 1000
    assert by_table([r.value for r in got]) == by_table([v for _, v in records])
    # offsets strictly increase within each partition
    per_part: dict[int, list[int]] = defaultdict(list)
    for r in got:
        per_part[r.partition].append(r.offset)
    assert all(offs == sorted(set(offs)) for offs in per_part.values())


def test_reading_from_a_cursor_returns_exactly_the_rest(log_url: str) -> None:
    with open_log(log_url) as log:
        log.append(sample(300))
        first = read_all(log)
        cursor = advance_all({}, first[:120])
        rest = read_all(log, cursor)
    assert sorted(r.value for r in rest) == sorted(r.value for r in first[120:])
    assert read_all(open_log(log_url), advance_all({}, first)) == []


def test_append_result_end_is_past_the_last_record(log_url: str) -> None:
    with open_log(log_url) as log:
        end = log.append(sample(50)).end
        got = read_all(log)
    assert end == advance_all({}, got)


def test_empty_append_writes_nothing(log_url: str) -> None:
    with open_log(log_url) as log:
        assert log.append([]).written == 0
        log.append(sample(1))
        assert len(read_all(log)) == 1


def test_named_consumers_commit_and_resume_independently(log_url: str) -> None:
    with open_log(log_url) as log:
        log.append(sample(20))
        assert log.committed("auditor") is None
        got = read_all(log)
        log.commit("auditor", advance_all({}, got[:7]))
        log.commit("loader", advance_all({}, got))
    with open_log(log_url) as log:  # a new process would see the same
        auditor = log.committed("auditor")
        loader = log.committed("loader")
        assert auditor is not None and loader is not None
        assert auditor.cursor == advance_all({}, got[:7])
        assert len(read_all(log, auditor.cursor)) == 13
        assert read_all(log, loader.cursor) == []
        log.commit("auditor", advance_all(dict(auditor.cursor), got[7:]))
        again = log.committed("auditor")
        assert again is not None and read_all(log, again.cursor) == []


def test_follow_sees_records_appended_later(log_url: str) -> None:
    seen: list[Record] = []
    done = threading.Event()
    with open_log(log_url) as writer:
        writer.append(sample(5))

        def follow() -> None:
            with open_log(log_url) as reader:
                for batch in reader.read(follow=True, stop=done.is_set):
                    seen.extend(batch)
                    if len(seen) >= 25:
                        done.set()

        thread = threading.Thread(target=follow)
        thread.start()
        try:
            for i in range(4):
                writer.append(sample(25)[5 + 5 * i : 10 + 5 * i])
            thread.join(timeout=60)
        finally:
            done.set()
            thread.join()
    assert sorted(json.loads(r.value)["i"] for r in seen) == list(range(25))


def test_idle_follow_yields_empty_batches_and_stops_on_flag(log_url: str) -> None:
    calls = 0

    def stop() -> bool:
        return calls >= 2

    with open_log(log_url) as log:
        log.append(sample(1))
        batches = []
        for batch in log.read(follow=True, stop=stop):
            batches.append(batch)
            if not batch:
                calls += 1
    assert len(batches[0]) == 1 and batches[-1] == []


def test_dead_letters_keep_reason_and_raw(log_url: str) -> None:
    rejects = [
        Rejection(3, "bad-json", "truncated JSON", b'{"a":', None, None),
        Rejection("row 9", "invalid-field", "CardsDealt.cards[1]: 'Xx' is not a card",
                  b'{"x":"\xff"}', "e-9", "T2"),
    ]
    with open_log(log_url) as log:
        assert log.dead_letter(rejects) == 2
        stored = stored_dead_letters(log)
    assert [(d["code"], d["reason"]) for d in stored] == [(r.code, r.reason) for r in rejects]
    assert stored[1]["table_id"] == "T2" and stored[1]["event_id"] == "e-9"


def test_dead_letters_are_recorded_once_per_source_and_position(log_url: str) -> None:
    """An ingest run again over the same input (a rerun, a restart after a kill) rejects
    the same lines again: each is stored once, also by a second process (a new log object
    reading the store), while the same bytes at another place or from another source are
    dead letters of their own."""
    bad = Rejection(3, "bad-json", "truncated JSON", b'{"a":', None, None)
    with open_log(log_url) as log:
        assert log.dead_letter([bad], "floor.jsonl") == 1
        assert log.dead_letter([bad], "floor.jsonl") == 0
    with open_log(log_url) as log:
        moved = Rejection(4, "bad-json", "truncated JSON", b'{"a":', None, None)
        assert log.dead_letter([bad, moved], "floor.jsonl") == 1
        assert log.dead_letter([bad], "other.jsonl") == 1
        stored = stored_dead_letters(log)
    assert sorted((str(d["position"]), d["source"]) for d in stored) == [
        ("3", "floor.jsonl"), ("3", "other.jsonl"), ("4", "floor.jsonl")]


def stored_dead_letters(log: EventLog) -> list[dict[str, object]]:
    if isinstance(log, SqliteLog):
        return log.dead_letters()
    if isinstance(log, JsonlLog):
        assert log.path is not None
        return [json.loads(line) for line in rejected_path(log.path).read_text().splitlines()]
    assert isinstance(log, KafkaLog)
    base = log.url.split("?")[0]
    dead = KafkaLog(f"{base.rsplit('/', 1)[0]}/{log.target.dead_letter_topic}")
    with dead:
        return [json.loads(r.value) for r in read_all(dead)]


def test_where_names_the_place(log_url: str, backend: str) -> None:
    with open_log(log_url) as log:
        log.append(sample(2))
        first = read_all(log)[0]
        where = log.where(first)
    expected = {"sqlite": "row 1", "jsonl": 1}.get(backend)
    if expected is not None:
        assert where == expected
    else:
        assert str(where).endswith(f"[{first.partition}]@{first.offset}")


def test_advance_only_moves_forward() -> None:
    cursor: Cursor = {0: 10}
    advance(cursor, Record(0, 4, "", b""))
    advance(cursor, Record(1, 4, "", b""))
    assert cursor == {0: 10, 1: 5}


def test_sqlite_event_ids_store_each_event_once(tmp_path: Path) -> None:
    with open_log(f"sqlite:///{tmp_path / 'x.db'}") as log:
        first = log.append([("T1", b"a"), ("T1", b"b")], ["e1", "e2"])
        again = log.append([("T1", b"b"), ("T1", b"c")], ["e2", "e3"])
        assert (first.written, first.duplicates) == (2, 0)
        assert (again.written, again.duplicates) == (1, 1)
        assert [r.value for r in read_all(log)] == [b"a", b"b", b"c"]
