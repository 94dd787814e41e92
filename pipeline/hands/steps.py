"""The audit step without Dagster: sequence findings for the tables with new events, then
every pending hand re-audited from its events, a chunk of hands per transaction (audited in
worker processes when there are many)."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from pipeline.hands import in_play
from pipeline.hands.certified import audit_feed
from pipeline.hands.findings import sequence_findings, write_sequence_findings
from pipeline.hands.transforms import HandRows, read_feed, write_hands
from pipeline.terminal import counted
from pipeline.warehouse import reading, writing

log = logging.getLogger("uth.load")


@dataclass
class HandStats:
    tables: int = 0
    sequence_findings: int = 0
    hands: int = 0
    events: int = 0
    findings: int = 0
    again: int = 0  # of ``hands``, those the warehouse held already (a later event came)


def update_sequences(warehouse: str | Path, day_start_minutes: int) -> HandStats:
    """Recompute the gap/conflict findings of every table in ``pending.sequence``, from
    the lowest seq that arrived since (the findings below it cannot have changed)."""
    stats = HandStats()
    with writing(warehouse) as con:
        # from the lowest new seq of each table; NULL (the whole table) wins
        tables = dict(con.execute(
            "SELECT table_id, CASE WHEN bool_or(from_seq IS NULL) THEN NULL "
            "ELSE min(from_seq) END FROM pending.sequence WHERE table_id IS NOT NULL "
            "GROUP BY table_id ORDER BY 1").fetchall())
        found = sequence_findings(con, tables) if tables else []
        if tables:
            write_sequence_findings(con, tables, found, day_start_minutes)
        in_play.requeue(con)  # hands in play that ended, or whose table moved on
    stats.tables, stats.sequence_findings = len(tables), len(found)
    if tables:
        log.info("sequence: %d tables checked, %d gap/conflict findings", len(tables),
                 len(found))
    return stats


def _next_chunk(warehouse: str | Path, after: str,
                chunk: int) -> tuple[list[str], list[tuple[str, str]]]:
    """The next ``chunk`` pending hands after ``after`` (by id) and their audit feed."""
    with reading(warehouse) as con:
        ids = [r[0] for r in con.execute(
            "SELECT DISTINCT hand_id FROM pending.hands WHERE hand_id > ? "
            "ORDER BY hand_id LIMIT ?", [after, chunk]).fetchall()]
        return ids, (read_feed(con, ids) if ids else [])


def end_with(parent: int) -> None:
    """Make an audit worker end when the load that started it does. A load killed with
    SIGKILL runs no cleanup, and its idle workers would wait for work forever, holding
    their memory: on Linux the kernel kills a worker whose parent (the fork server) dies,
    and a watcher thread ends it once the load itself is gone."""
    with contextlib.suppress(OSError, AttributeError):  # no prctl: the watcher alone
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    threading.Thread(target=_watch, args=(parent, os.getppid()), daemon=True,
                     name="uth-lifeline").start()


PR_SET_PDEATHSIG = 1


def _watch(load: int, parent: int) -> None:
    while _running(load) and os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)  # the load is gone: nobody will take this worker's results


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a killed process nobody has reaped yet still answers kill(0)
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return True


POOL_MIN_HANDS = 2_000  # below this, starting worker processes costs more than it saves


def workers_for(pending: int, chunk: int, workers: int = 0) -> tuple[int, int]:
    """(audit processes, hands per chunk): ``workers`` when given, else one per core (at
    most 4) for at least POOL_MIN_HANDS hands, else 1 (audit in this process). With
    workers, chunks shrink so that each worker gets at least two."""
    if workers <= 0:
        workers = 1 if pending < POOL_MIN_HANDS else max(1, min(4, os.cpu_count() or 1))
    if workers > 1:
        chunk = max(1, min(chunk, -(-pending // (2 * workers))))
    return workers, chunk


def update_hands(warehouse: str | Path, day_start_minutes: int, chunk: int = 5_000,
                 workers: int = 0) -> HandStats:
    """Sequence findings first (they name the conflict losers the hands leave out), then
    the pending hands, ``chunk`` at a time, each chunk's rows written in one transaction.

    With several workers, chunks are audited in other processes while this one reads the
    next feeds and writes the finished chunks (the write connection still held only for
    each chunk's transaction). A chunk's rows depend only on its hands' events, so the
    result is the same whatever the chunking or the number of workers."""
    stats = update_sequences(warehouse, day_start_minutes)
    with reading(warehouse) as con:
        pending = con.execute("SELECT count(DISTINCT hand_id) FROM pending.hands").fetchall()[0][0]
    if not pending:  # the ingest audited every hand (a connection less: about 30 ms)
        return stats
    workers, chunk = workers_for(pending, chunk, workers)
    started = time.perf_counter()

    def commit(ids: list[str], rows: HandRows) -> None:
        with writing(warehouse) as con:
            con.register("chunk_again", pa.table({"hand_id": pa.array(ids, pa.string())}))
            try:
                again = con.execute("SELECT count(*) FROM hands SEMI JOIN chunk_again "
                                    "USING (hand_id)").fetchall()[0][0]
            finally:
                con.unregister("chunk_again")
            write_hands(con, ids, rows, day_start_minutes)
        n = rows.hands.num_rows
        stats.hands += n
        stats.again += again
        stats.events += rows.events
        stats.findings += rows.findings.num_rows
        log.info("hands: committed %s (%s, %s), %s so far, %.0f events/s",
                 counted(n, "hand") + (" audited again" if again == n else
                                       f", {again:,} audited again" if again else ""),
                 counted(rows.events, "event"), counted(rows.findings.num_rows, "finding"),
                 f"{stats.hands:,}", stats.events / max(time.perf_counter() - started, 1e-9))

    after = ""
    flight: deque[tuple[list[str], list[tuple[str, str]], Future[HandRows]]] = deque()
    if workers > 1:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["pipeline.hands.certified"])
        try:
            with ProcessPoolExecutor(workers, mp_context=context, initializer=end_with,
                                     initargs=(os.getpid(),)) as pool:
                exhausted = False
                while True:
                    while not exhausted and len(flight) <= workers:
                        ids, feed = _next_chunk(warehouse, after, chunk)
                        if not ids:
                            exhausted = True
                            break
                        flight.append((ids, feed, pool.submit(audit_feed, feed, ids)))
                        after = ids[-1]
                    if not flight:
                        return stats
                    ids, feed, future = flight[0]
                    rows = future.result()
                    flight.popleft()
                    commit(ids, rows)
        except BrokenProcessPool as exc:  # e.g. a main script without a __main__ guard
            log.warning("hands: the audit worker processes failed (%s); auditing in this "
                        "process", exc)
            for ids, feed, _ in flight:
                commit(ids, audit_feed(feed, ids))
    while True:
        ids, feed = _next_chunk(warehouse, after, chunk)
        if not ids:
            return stats
        commit(ids, audit_feed(feed, ids))
        after = ids[-1]
