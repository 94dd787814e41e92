"""events.logs.publisher: a table's outbox validates, stamps seq, stores once, durably."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from events.contract.schemas import BetPlaced, HandStarted, TableOpened
from events.logs import open_log
from events.logs.publisher import PublishError, TablePublisher

OPENED = {"type": "TableOpened", "table_id": "T7", "hand_id": None,
          "payload": {"ruleset": "charlevoix-2011", "min_bet": 500, "max_bet": 50000,
                      "seats": 7, "currency": "CAD"}}
STARTED = {"type": "HandStarted", "table_id": "T7", "hand_id": "T7-0001",
           "payload": {"dealer_id": "D12", "seats": [1, 3]}}


def bet(seat: int, table: str = "T7") -> dict[str, Any]:
    return {"type": "BetPlaced", "table_id": table, "hand_id": f"{table}-0001",
            "payload": {"seat": seat, "spot": "ante", "amount": 500}}


def test_docstring_example_publishes_with_seq_from_zero(tmp_path: Path) -> None:
    with TablePublisher(tmp_path / "outbox.db") as pub:
        opened = pub.publish(OPENED)
        started = pub.publish(STARTED)
        assert isinstance(opened, TableOpened) and isinstance(started, HandStarted)
        assert (opened.seq, started.seq) == (0, 1)
        assert pub.next_seq("T7") == 2 and pub.next_seq("T9") == 0
        assert opened.occurred_at.endswith("Z") and len(opened.event_id) == 36
    with open_log(f"sqlite:///{tmp_path / 'outbox.db'}") as log:
        rows = list(log.records())
    assert [(r.key, r.offset) for r in rows] == [("T7", 1), ("T7", 2)]
    assert b'"seq":1' in rows[1].value


def test_seq_is_per_table_and_survives_reopening(tmp_path: Path) -> None:
    with TablePublisher(tmp_path / "o.db") as pub:
        got = pub.publish_many([bet(1), bet(1, "T8"), bet(3), bet(2, "T8")])
    assert [(e.table_id, e.seq) for e in got] == [("T7", 0), ("T8", 0), ("T7", 1), ("T8", 1)]
    with TablePublisher(f"sqlite:///{tmp_path / 'o.db'}") as pub:
        assert pub.publish(bet(5)).seq == 2


def test_retry_with_the_same_event_id_is_stored_once(tmp_path: Path) -> None:
    with TablePublisher(tmp_path / "o.db") as pub:
        first = pub.publish({**bet(1), "event_id": "ev-1"})
        again = pub.publish({**bet(1), "event_id": "ev-1"})
        assert again == first
        assert pub.next_seq("T7") == 1
        assert pub.log.count() == 1


def test_invalid_event_is_refused_with_the_reason_and_batch_is_atomic(tmp_path: Path) -> None:
    with TablePublisher(tmp_path / "o.db") as pub:
        bad = {**bet(1), "payload": {"seat": 1, "spot": "ante", "amount": 0}}
        with pytest.raises(PublishError, match=r"BetPlaced\.amount: 0 is out of range"):
            pub.publish_many([bet(2), bad])
        assert pub.log.count() == 0 and pub.next_seq("T7") == 0


def test_a_used_seq_is_a_conflict(tmp_path: Path) -> None:
    with TablePublisher(tmp_path / "o.db") as pub:
        pub.publish({**bet(1), "seq": 0})
        with pytest.raises(PublishError, match="T7 seq 0 is already used"):
            pub.publish({**bet(2), "seq": 0})
        assert pub.publish({**bet(2), "seq": 1}).seq == 1


def test_publishes_structs_too(tmp_path: Path) -> None:
    with TablePublisher(tmp_path / "o.db") as pub:
        ev = pub.publish(bet(4))
        assert isinstance(ev, BetPlaced)
        with TablePublisher(tmp_path / "other.db") as other:
            assert other.publish(ev) == ev


def _publish_many(path: str, table: str, n: int) -> None:
    with TablePublisher(path) as pub:
        for i in range(n):
            pub.publish(bet(1 + i % 7, table))


def test_processes_sharing_an_outbox_get_distinct_seqs(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    TablePublisher(path).close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_publish_many, args=(path, "T1", 40)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    with open_log(f"sqlite:///{path}") as log:
        seqs = sorted(int(r.value.split(b'"seq":')[1].split(b",")[0]) for r in log.records())
    assert seqs == list(range(80))
