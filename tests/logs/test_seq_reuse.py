"""Issue 30 (5): nothing appended onto an existing log reuses its tables' seqs or hands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events.logs.publisher import PublishError, TablePublisher
from events.logs.sqlite import SqliteLog
from pipeline.cli import main


def _simulate(sink: str, seed: int) -> int:
    return main(["simulate", "--tables", "2", "--hands", "3", "--seed", str(seed),
                 "--sink", sink, "--quiet"])


def test_simulate_onto_a_log_holding_its_tables_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'log.db'}"
    assert _simulate(url, 1) == 0
    with SqliteLog(url) as log:
        before = [r.value for r in log.records()]
    capsys.readouterr()
    longer = ["simulate", "--tables", "2", "--hands", "4", "--seed", "1", "--sink", url,
              "--quiet"]
    for args in (["simulate", "--tables", "2", "--hands", "3", "--seed", "2", "--sink", url,
                  "--quiet"], longer):  # another floor, or more hands: seqs reused
        assert main(args) == 2
        err = capsys.readouterr().err
        assert "already holds events of table T01" in err and "T02" in err
        assert "would reuse" in err
    with SqliteLog(url) as log:
        assert [r.value for r in log.records()] == before
    assert _simulate(url, 1) == 0  # the same run again: the same events, stored once
    with SqliteLog(url) as log:
        assert [r.value for r in log.records()] == before


def test_the_publisher_continues_after_a_log_written_by_another_tool(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'log.db'}"
    assert _simulate(url, 3) == 0
    with SqliteLog(url) as log:
        seqs = [json.loads(r.value)["seq"] for r in log.records() if r.key == "T01"]
        count = log.count()
    with TablePublisher(url) as pub:
        assert pub.next_seq("T01") == max(seqs) + 1
        with pytest.raises(PublishError, match=f"T01 seq {seqs[-1]} is already used"):
            pub.publish({"type": "ChipsPurchased", "table_id": "T01", "hand_id": None,
                         "seq": seqs[-1],
                         "payload": {"seat": 1, "amount": 500, "method": "cash"}})
        got = pub.publish({"type": "ChipsPurchased", "table_id": "T01", "hand_id": None,
                           "payload": {"seat": 1, "amount": 500, "method": "cash"}})
        assert got.seq == max(seqs) + 1
        assert pub.next_seq("T99") == 0
        assert pub.log.count() == count + 1
