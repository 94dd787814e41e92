"""Graceful shutdown: SIGTERM to a long-running command finishes the batch in hand, commits,
and exits 0; a restart goes on from there with nothing lost or repeated."""

from __future__ import annotations

import json
import socket
import urllib.request
from pathlib import Path
from typing import Any

from events.logs import open_log
from events.logs.publisher import TablePublisher
from tests.reliability import corpus
from tests.reliability.helpers import floor, terminate, uth, uth_process, wait_until


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _committed(url: str, consumer: str) -> int:
    with open_log(url) as log:
        cp = log.committed(consumer)
        return cp.cursor.get(0, 1) - 1 if cp else 0


def _count(url: str) -> int:
    with open_log(url) as log:
        return sum(len(b) for b in log.read())


def _in_progress(url: str) -> int:
    """Tables with a hand started and not yet ended, in the log now."""
    open_hands: dict[str, str | None] = {}
    with open_log(url) as log:
        for batch in log.read():
            for r in batch:
                ev = json.loads(r.value)
                if ev["type"] == "HandStarted":
                    open_hands[ev["table_id"]] = ev["hand_id"]
                elif ev["type"] in ("HandEnded", "HandVoided"):
                    open_hands[ev["table_id"]] = None
    return sum(h is not None for h in open_hands.values())


def test_sigterm_ingest_follow_finishes_the_batch_and_commits(
    tmp_path: Path, ledger: Any
) -> None:
    events = floor(20, "term")  # 1,300 events
    outbox = f"sqlite:///{tmp_path / 'outbox.db'}"
    sink = f"sqlite:///{tmp_path / 'floor.db'}"
    with TablePublisher(outbox) as pub:
        pub.publish_many(events[:100])
        with uth_process("ingest", "--source", outbox, "--sink", sink, "--follow",
                         "--consumer", "fwd", "--batch", "50", "--json",
                         stdout=tmp_path / "out", stderr=tmp_path / "err") as proc:
            wait_until(lambda: _committed(outbox, "fwd") == 100, 60, "first 100 forwarded",
                       proc=proc)
            pub.publish_many(events[100:])  # 1,200 more: 24 batches to go
            wait_until(lambda: _committed(outbox, "fwd") > 100, 60, "the next batch",
                       step=0.01, proc=proc)
            assert terminate(proc) == 0, (tmp_path / "err").read_text()[-2000:]
    committed, stored = _committed(outbox, "fwd"), _count(sink)
    assert committed == stored, "what was written and what was committed differ"
    report = json.loads((tmp_path / "out").read_text().strip().splitlines()[-1])
    assert report["written"] == stored and report["accounted"]
    # the restart picks up exactly where it stopped
    rest = uth("ingest", "--source", outbox, "--sink", sink, "--consumer", "fwd", "--json")
    assert rest.returncode == 0, rest.stderr
    again = json.loads(rest.stdout.strip().splitlines()[-1])
    assert again["read"] == len(events) - committed
    assert again["duplicates"] == 0
    with open_log(sink) as log:
        ids = [json.loads(r.value)["event_id"] for b in log.read() for r in b]
    assert len(ids) == len(set(ids)) == len(events)
    ledger.record("fault", "SIGTERM ingest --follow", sent=len(events), processed=len(ids),
                  note=f"stopped after {committed}")


def test_sigterm_dashboards_stops_the_server_and_exits_0(tmp_path: Path) -> None:
    port = _free_port()
    with uth_process("dashboards", "--warehouse", str(tmp_path / "none.duckdb"), "--port",
                     str(port), stdout=tmp_path / "out", stderr=tmp_path / "err") as proc:

        def healthy() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health",
                                            timeout=2) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_until(healthy, 90, "the dashboards to answer", step=0.5, proc=proc)
        assert terminate(proc) == 0, (tmp_path / "err").read_text()[-2000:]
    # the Streamlit child went with it: nothing listens on the port any more
    assert not healthy()
    err = (tmp_path / "err").read_text()
    assert "Traceback" not in err, err[-2000:]


def test_corpus_helper_streams_are_valid() -> None:
    """The fault tests' event streams are themselves clean (or the faults prove nothing)."""
    from events.audit.auditor import audit
    from events.contract.codec import decode_many

    lines = [corpus.encode(e) for e in floor(3, "check")]
    report = audit(decode_many(lines))
    assert report.findings == [] and report.summary["events"] == 195
    assert report.summary["hands"] == 9


def test_sigterm_simulate_pace_finishes_the_hands_in_progress(
    tmp_path: Path, ledger: Any
) -> None:
    """A paced floor (3 tables, a hand every 2 s each) stopped by SIGTERM mid-hand: exit 0,
    and the log holds whole hands only, each of which audits clean."""
    from events.audit.auditor import audit
    from events.contract.codec import decode_many

    sink = f"sqlite:///{tmp_path / 'floor.db'}"
    with uth_process("simulate", "--tables", "3", "--hands", "500", "--pace", "1800",
                     "--seed", "7", "--sink", sink, stdout=tmp_path / "out",
                     stderr=tmp_path / "err") as proc:
        # stop while hands are under way at two tables or more (started, not yet ended)
        wait_until(lambda: (tmp_path / "floor.db").exists() and _in_progress(sink) >= 2, 120,
                   "hands in progress at two tables", step=0.1, proc=proc)
        assert terminate(proc, timeout=120) == 0, (tmp_path / "err").read_text()[-2000:]
    err = (tmp_path / "err").read_text()
    assert "Traceback" not in err and "stopped early" in err, err[-2000:]
    with open_log(sink) as log:
        lines = [r.value for b in log.read() for r in b]
    report = audit(decode_many(lines))
    assert report.summary["rejected_events"] == 0
    assert [f.kind for f in report.findings] == [], report.findings[:3]
    statuses = {h.status for h in report.hands}
    assert statuses <= {"settled", "voided"} and len(report.hands) >= 2, statuses
    ledger.record("fault", "SIGTERM simulate --pace", sent=len(lines),
                  processed=report.summary["events"],
                  note=f"{len(report.hands)} whole hands")
