"""Writing a floor: to a JSON Lines file or an event log, as fast as it takes it or in real
time, with the injected mispays as a ground-truth sidecar."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
import numpy as np

from events.logs.base import LogError
from events.sim.config import SimConfig
from events.sim.floor import Floor
from events.sim.stream import Chunk

if TYPE_CHECKING:
    from events.logs.base import EventLog


@dataclass(frozen=True)
class Summary:
    """What a run wrote."""

    tables: int
    hands: int
    events: int
    mispays: int
    seconds: float
    stopped: bool


class _FileSink:
    """A JSON Lines file, rewritten: the chunks' text goes straight to it. It is flushed
    and closed (an error there fails the run) but not fsynced: a simulated floor is not a
    record to protect from power loss; the SQLite log is durable when that matters."""

    def __init__(self, url: str, realtime: bool) -> None:
        from events.logs.jsonl import path_from_url

        path = path_from_url(url)
        if path is None:
            raise ValueError("the simulator cannot write to standard input")
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(path, "wb", buffering=1 << 20)  # noqa: SIM115 - closed in close()
        self.realtime = realtime

    def write(self, chunk: Chunk, lo: int, hi: int) -> None:
        self.fh.writelines(chunk.texts[lo:hi])
        if self.realtime:
            self.fh.flush()

    def close(self) -> None:
        self.fh.close()


class _EventId(msgspec.Struct, frozen=True):
    event_id: str


_id_of = msgspec.json.Decoder(_EventId).decode


class _LogSink:
    """Any event log (SQLite, Kafka): records of (table_id, JSON bytes).

    A log that already holds events of the simulation's tables is written to only when
    the run repeats what is there (the same arguments and seed: the same events, stored
    once by ``event_id`` in SQLite); anything else would reuse those tables' seqs and hand
    ids, and is refused (ValueError) before the chunk that would."""

    def __init__(self, url: str, table_ids: tuple[str, ...] = ()) -> None:
        from events.logs import open_log
        from events.logs.sqlite import SqliteLog

        self.log = open_log(url)
        try:
            self.held = tables_held(self.log, table_ids)
            if self.held and not isinstance(self.log, SqliteLog):
                raise ValueError(_reuse(self.log, self.held))
        except (ValueError, LogError):
            self.log.close()
            raise

    def write(self, chunk: Chunk, lo: int, hi: int) -> None:
        lines = chunk.lines(lo, hi)
        keys = chunk.keys(lo, hi)
        # with their ids, so that a log that stores each event once (SQLite) does so
        ids: list[str | None] = [_id_of(line).event_id for line in lines]
        if self.held:
            self._same_as_stored(keys, lines, ids)
        self.log.append(list(zip(keys, lines, strict=True)), ids)

    def _same_as_stored(self, keys: list[str], lines: list[bytes],
                        ids: list[str | None]) -> None:
        from events.logs.sqlite import SqliteLog

        assert isinstance(self.log, SqliteLog)
        ours = [(i, line) for k, line, i in zip(keys, lines, ids, strict=True)
                if k in self.held and i is not None]
        stored = self.log.stored_values([i for i, _ in ours])
        if any(stored.get(i) != line for i, line in ours):
            raise ValueError(_reuse(self.log, self.held))

    def close(self) -> None:
        self.log.close()


def tables_held(log: EventLog, table_ids: tuple[str, ...]) -> dict[str, int]:
    """How many events ``log`` holds of each of ``table_ids`` it holds any of."""
    from events.logs.sqlite import SqliteLog

    wanted = set(table_ids)
    held: dict[str, int] = {}
    if isinstance(log, SqliteLog):
        marks = ",".join("?" * len(wanted))
        held = dict(log.connection.execute(
            f"SELECT key, count(*) FROM events WHERE key IN ({marks}) GROUP BY key",
            sorted(wanted)).fetchall()) if wanted else {}
    elif wanted and any(log.end().values()):
        for batch in log.read():
            for record in batch:
                if record.key in wanted:
                    held[record.key] = held.get(record.key, 0) + 1
    return held


def _reuse(log: EventLog, held: dict[str, int]) -> str:
    names = ", ".join(f"{t} ({n:,} events)" for t, n in sorted(held.items())[:10])
    more = f" and {len(held) - 10} more" if len(held) > 10 else ""
    return (f"{log.describe()} already holds events of table {names}{more} that this "
            "simulation would not write the same (another seed or other arguments); it "
            "numbers their seq and hands from the start, so it would reuse them: simulate "
            "into a new log (or into a file, then uth ingest it)")


def is_file_sink(url: str) -> bool:
    return not url.startswith(("sqlite:", "kafka:"))


def simulate(
    config: SimConfig,
    sink: str,
    truth_path: str | Path | None = None,
    *,
    realtime: bool = False,
    stop: Callable[[], bool] = lambda: False,
    progress: Callable[[int], None] | None = None,
) -> Summary:
    """Write the floor's events to ``sink``: a JSON Lines file (rewritten) or an event log
    URL (``sqlite:///...``, ``kafka://...``, appended to), and the injected mispays to
    ``truth_path`` (JSON Lines).

    With ``realtime`` each event is written when its time comes (the first one now);
    ``stop()`` turning true finishes the hands in progress, closes the tables and returns.
    ``progress(hands)`` is called with the count of hands written so far.
    """
    floor = Floor(config, by_event=realtime)
    out: _FileSink | _LogSink = _FileSink(sink, realtime) if is_file_sink(sink) else \
        _LogSink(sink, floor.table_ids)
    started = time.monotonic()
    anchor = (time.time(), min(s.opens_at for s in floor.specs))
    events = hands = 0
    stopped = False

    def write(chunk: Chunk, lo: int, hi: int) -> None:
        nonlocal events, hands
        if hi > lo:
            out.write(chunk, lo, hi)
            floor.sent(chunk, lo, hi)
            events += chunk.events(lo, hi)
            hands += int(chunk.ends[lo:hi].sum())
            if progress is not None:
                progress(hands)

    try:
        for chunk in floor.chunks(min_events=256 if realtime else 20_000):
            if realtime:
                written, stopped = _pace(chunk, write, stop, anchor)
            else:
                write(chunk, 0, len(chunk))
                written, stopped = len(chunk), stop()
            if stopped:
                rest = floor.finish(chunk, written)
                write(rest, 0, len(rest))
                break
    finally:
        out.close()
    truth = floor.truth()
    if truth_path is not None:
        with open(truth_path, "w") as fh:
            for row in [*truth, *floor.player_truth()]:
                fh.write(json.dumps(row, sort_keys=True) + "\n")
    return Summary(config.tables, hands, events, len(truth), time.monotonic() - started,
                   stopped)


def _pace(chunk: Chunk, write: Callable[[Chunk, int, int], None], stop: Callable[[], bool],
          anchor: tuple[float, int]) -> tuple[int, bool]:
    """Write the chunk's events as their times come; (events written, stopped)."""
    wall0, sim0 = anchor
    i, n = 0, len(chunk)
    while i < n:
        if stop():
            return i, True
        wait = wall0 + (int(chunk.times[i]) - sim0) / 1000.0 - time.time()
        if wait > 0:
            time.sleep(min(wait, 0.1))
            continue
        now_sim = sim0 + (time.time() - wall0) * 1000.0
        j = max(i + 1, int(np.searchsorted(chunk.times, now_sim, "right")))
        write(chunk, i, j)
        i = j
    return n, stop()
