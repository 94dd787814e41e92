"""Issue 30 (3): after ``uth ingest --follow --consumer`` into Kafka restarts, a sequence
conflict re-sent from long before the sink's recent records (past the tracker's window and
the 4 x window read back on restart) is still dead-lettered, once, with its reason; Kafka
records cannot be removed, so one forwarded would stay. Against the real broker (Tansu)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from events.logs import open_log
from events.logs.forward import Forwarder
from events.logs.kafka import KafkaLog
from events.logs.sink_index import index_path
from events.logs.sqlite import SqliteLog
from tests.logs.factory import encode, lines

pytestmark = pytest.mark.kafka
WINDOW = 3  # the tracker's window: it reads back 12 records per partition on restart


def _dead(url: str) -> list[dict[str, object]]:
    log = KafkaLog(url)
    try:
        return [json.loads(r.value) for batch in log._read_topic(
            log.target.dead_letter_topic, None, follow=False, stop=lambda: False,
            max_batch=2000) for r in batch]
    finally:
        log.close()


def _run(outbox: str, sink: str) -> dict[str, object]:
    with SqliteLog(outbox) as src, open_log(sink) as out:
        forwarder = Forwarder(src, out, consumer="fwd", batch_size=10, window=WINDOW)
        return forwarder.run().as_dict()


@pytest.mark.parametrize("index_kept", [True, False])
def test_an_old_conflict_resent_after_a_restart_is_dead_lettered_once(
        tmp_path: Path, kafka_broker: str, index_kept: bool, ledger: Any) -> None:
    topic = f"test.{uuid.uuid4().hex[:12]}"
    sink = f"kafka://{kafka_broker}/{topic}?partitions=3&dead_letter={topic}.dead"
    outbox = f"sqlite:///{tmp_path / 'outbox.db'}"
    first = lines(1, 4)  # 61 events of table T1
    with SqliteLog(outbox) as src:
        src.append([("T1", x) for x in first], [json.loads(x)["event_id"] for x in first])
    report = _run(outbox, sink)
    assert (report["written"], report["rejected"]) == (61, 0)
    if not index_kept:  # the index file lost: the topic is read whole once to rebuild it
        with SqliteLog(outbox) as src, open_log(sink) as out:
            path = index_path(src, "fwd", out)
        assert path is not None and path.exists()
        path.unlink()
    # long after: another event for seq 5, an altered copy of seq 7, an exact copy of seq 9
    other = {**json.loads(first[5]), "event_id": "00000000-0000-4000-8000-000000000005"}
    altered = json.loads(first[7])
    altered["occurred_at"] = altered["occurred_at"].replace(".000Z", ".500Z")
    with SqliteLog(outbox) as src:
        src.append([("T1", encode(other)), ("T1", encode(altered)), ("T1", first[9])])
    report = _run(outbox, sink)
    ledger.record("fault", "a conflict re-sent into Kafka long after a restart [ingest]",
                  sent=report["read"], processed=report["written"],
                  rejected=report["rejected"], ignored=report["duplicates"])
    assert (report["read"], report["written"], report["duplicates"]) == (3, 0, 1)
    assert report["rejected_by_reason"] == {"conflict": 2}
    with open_log(sink) as out:
        assert len(list(out.records())) == 61  # nothing forwarded
    dead = _dead(sink)
    assert sorted(str(d["event_id"]) for d in dead) == sorted(
        [other["event_id"], altered["event_id"]])
    reasons = " ".join(str(d["reason"]) for d in dead)
    assert "T1 seq 5 is already event" in reasons and "other contents" in reasons
    # the same conflict sent once more, in a third run: rejected again, and a new event
    # after it still goes through
    later = json.loads(first[-1])
    later = {**later, "seq": 61, "event_id": "00000000-0000-4000-8000-000000000061"}
    with SqliteLog(outbox) as src:
        src.append([("T1", encode(other)), ("T1", encode(later))])
    report = _run(outbox, sink)
    assert (report["read"], report["written"], report["rejected"]) == (2, 1, 1)
    assert len(_dead(sink)) == 3  # each source record dead-lettered once, with its reason
