"""A Kafka topic as the event source (a real Kafka-protocol broker): positions per
partition, loaded in two rounds, give the tables a JSON Lines file gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events.logs import open_log
from pipeline.analytics.steps import update_rollups
from pipeline.hands.steps import update_hands
from pipeline.ingest.steps import load_events
from pipeline.warehouse import query
from tests.pipeline import streams
from tests.pipeline.conftest import dump, write_log

pytestmark = pytest.mark.kafka


def _steps(source: str, wh: Path) -> None:
    load_events(source, wh, batch_size=40)
    update_hands(wh, 360, chunk=3)
    update_rollups(wh)


def _key(line: bytes) -> str:
    try:
        return str(json.loads(line)["table_id"])
    except (ValueError, KeyError):
        return "T1"


def test_kafka_source_in_two_rounds(kafka_url: str, tmp_path: Path) -> None:
    lines = streams.floor_lines()
    url = f"{kafka_url}?partitions=3"
    with open_log(url) as log:
        log.append([(_key(line), line) for line in lines[:40]])
    kafka_wh = tmp_path / "kafka.duckdb"
    _steps(url, kafka_wh)
    first = json.loads(query(kafka_wh, "SELECT position FROM load_positions")[0][0])
    assert sum(first.values()) == 40  # offsets from 0: the next to read in each partition
    with open_log(url) as log:
        log.append([(_key(line), line) for line in lines[40:]])
    _steps(url, kafka_wh)

    file_wh = tmp_path / "file.duckdb"
    _steps(str(write_log(tmp_path / "floor.jsonl", lines)), file_wh)
    a, b = dump(kafka_wh), dump(file_wh)
    for table in ("hands", "wagers", "table_hold_daily", "trips_performance", "trips_hits",
                  "dealer_performance"):
        assert a[table] == b[table], table
    ids = "SELECT finding_id FROM audit_findings ORDER BY 1"
    assert query(kafka_wh, ids) == query(file_wh, ids)
    assert query(kafka_wh, "SELECT count(*) FROM events")[0][0] == 84
    assert query(kafka_wh, "SELECT events_loaded FROM load_positions")[0][0] == 84
    assert query(kafka_wh, "SELECT count(*) FROM dead_letters")[0][0] == 1
