"""The broker unreachable for several seconds while a table's outbox is forwarded to Kafka:
every event arrives exactly once, in order per table."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from events.logs import open_log
from events.logs.publisher import TablePublisher
from tests.reliability.helpers import floor, terminate, uth_process, wait_until
from tests.reliability.proxy import TcpProxy, proxied_broker

OUTAGE_SECONDS = 6


def _echo_server() -> tuple[socket.socket, threading.Thread]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=lambda c=conn: _echo(c), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return server, thread


def _echo(conn: socket.socket) -> None:
    with conn, contextlib.suppress(OSError):
        while data := conn.recv(4096):
            conn.sendall(data)


def _dead(sock: socket.socket | None, port: int) -> bool:
    """True when the connection (or a new one to ``port``) fails to echo a byte."""
    try:
        if sock is None:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        time.sleep(0.1)
        sock.sendall(b"y")
        return sock.recv(1) == b""
    except OSError:
        return True
    finally:
        if sock is not None:
            sock.close()


def test_proxy_forwards_cuts_and_restores() -> None:
    server, _ = _echo_server()
    with TcpProxy(server.getsockname()) as proxy:
        a = socket.create_connection(("127.0.0.1", proxy.port), timeout=5)
        a.sendall(b"hello")
        assert a.recv(5) == b"hello"
        proxy.cut()
        assert _dead(a, proxy.port)  # the open connection is reset
        assert _dead(None, proxy.port)  # new ones are refused (accepted, then reset)
        proxy.restore()
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=5) as c:
            c.sendall(b"again")
            assert c.recv(5) == b"again"
        assert proxy.stats.reset >= 1 and proxy.stats.refused >= 1
    server.close()


def _committed(outbox: str) -> int:
    with open_log(outbox) as log:
        cp = log.committed("forwarder")
        return cp.cursor.get(0, 1) - 1 if cp else 0  # records forwarded (rows from 1)


@pytest.mark.kafka
@pytest.mark.parametrize("flush_timeout", [None, 2], ids=["client-retries", "batch-retried"])
def test_fault_broker_unreachable_while_producing(
    tmp_path: Path, ledger: Any, flush_timeout: int | None
) -> None:
    """``client-retries``: kafka-python holds the batch through the outage (the flush wait
    is longer than it). ``batch-retried``: the flush gives up after 2 s, the forwarder reads
    back what reached the topic and sends the rest again: still nothing twice."""
    events = floor(3, "outage")  # 195 events of 3 tables
    thirds = [events[:65], events[65:130], events[130:]]
    outbox = f"sqlite:///{tmp_path / 'outbox.db'}"
    with proxied_broker(tmp_path / "tansu.log") as proxy:
        sink = f"kafka://{proxy.address}/outage?partitions=3"
        if flush_timeout:
            sink += f"&flush_timeout={flush_timeout}&connect_timeout={flush_timeout}"
        with TablePublisher(outbox) as pub, uth_process(
            "ingest", "--source", outbox, "--sink", sink, "--follow", "--consumer",
            "forwarder", "--batch", "20", "--json",
            stdout=tmp_path / "ingest.out", stderr=tmp_path / "ingest.err",
        ) as ingest:
            pub.publish_many(thirds[0])
            wait_until(lambda: _committed(outbox) == 65, 90, "the first third forwarded",
                       proc=ingest)
            proxy.cut()
            cut_at = time.monotonic()
            for i in range(0, 65, 5):  # the table keeps dealing during the outage
                pub.publish_many(thirds[1][i:i + 5])
            time.sleep(OUTAGE_SECONDS - (time.monotonic() - cut_at))
            during = proxy.stats.refused
            forwarded_while_cut = _committed(outbox)
            proxy.restore()
            pub.publish_many(thirds[2])
            wait_until(lambda: _committed(outbox) == len(events), 120,
                       "every event forwarded after the outage", proc=ingest)
            assert terminate(ingest) == 0
        report = json.loads((tmp_path / "ingest.out").read_text().strip().splitlines()[-1])
        # the forwarder did try during the outage, and could not get through
        assert during >= 1, "the outage was never felt: the test proves nothing"
        assert forwarded_while_cut <= 65 + 20  # at most one batch was in flight at the cut
        assert report["read"] == len(events)
        assert report["written"] + report["duplicates"] == len(events)
        assert report["rejected"] == 0 and report["accounted"] and report["gaps"] == []
        if flush_timeout:
            assert report["retries"] >= 1, "the batch-retry path was not exercised"
        with open_log(sink) as log:
            got = [(r.partition, r.offset, r.value) for b in log.read() for r in b]
    stored = [json.loads(v) for _, _, v in sorted(got)]
    ids = [e["event_id"] for e in stored]
    assert len(ids) == len(set(ids)), "an event arrived twice"
    assert set(ids) == {e["event_id"] for e in events}, "an event was lost"
    per_table: dict[str, list[int]] = defaultdict(list)
    for _, _, v in sorted(got):  # per partition in offset order
        e = json.loads(v)
        per_table[e["table_id"]].append(e["seq"])
    for table, seqs in per_table.items():
        assert seqs == list(range(65)), f"{table} out of order: {seqs[:10]}..."
    ledger.record("fault", "broker unreachable during produce", sent=len(events),
                  processed=len(set(ids)), rejected=0,
                  note=f"{OUTAGE_SECONDS}s outage, {report['retries']} batch retries")
