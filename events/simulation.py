"""A simulated casino floor: N tables dealing Ultimate Texas Hold'em, as the contract's
event stream.

Each table plays batches of hands over NumPy arrays (``events.sim_table``); the floor
merges the tables' events into one stream in time order (ties by table, then ``seq``) and
writes it to any event log (``events.logs.open_log``), as fast as the sink takes it or in
real time. Same configuration and seed, same bytes: event ids come from seeded generators
and times from a simulated clock starting at ``start``.

>>> cfg = SimConfig(tables=2, hands=3, seed=7, ruleset="charlevoix-2011")
>>> lines = [line for chunk in Floor(cfg).chunks() for line in chunk.lines]
>>> import msgspec
>>> first = msgspec.json.decode(lines[0])
>>> first["type"], first["seq"], first["payload"]["ruleset"]
('TableOpened', 0, 'charlevoix-2011')
>>> msgspec.json.decode(lines[-1])["type"]
'TableClosed'
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from events.rulesets import Ruleset, known_rulesets, load_ruleset
from events.sim_players import DEFAULT_PROFILE_WEIGHTS
from events.sim_table import Batch, Rates, TableSim, TableSpec

DEFAULT_START = "2026-11-29T18:00:00Z"
ONLINE_SEATS = 22  # one deck deals 5 community + 2 dealer + 2 x 22 players
IntArray = npt.NDArray[np.int64]


def parse_start(text: str) -> int:
    """Epoch milliseconds of an ISO 8601 time (UTC when no offset is given)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return round(moment.timestamp() * 1000)


@dataclass(frozen=True)
class SimConfig:
    """What to simulate. ``hands`` is per table; rates are probabilities (0..1)."""

    tables: int = 1
    hands: int = 100
    seed: int = 0
    ruleset: str = "mixed"  # a ruleset name or path, or "mixed" (all known, in turn)
    mispay_rate: float = 0.0
    void_rate: float = 0.0
    dispute_rate: float = 0.0
    pace: float | None = None  # hands per hour per table; None: each table's own pace
    start: str = DEFAULT_START
    profile_weights: tuple[float, ...] = DEFAULT_PROFILE_WEIGHTS
    batch_hands: int | None = None  # hands per table per batch (default by table count)

    def __post_init__(self) -> None:
        if self.tables < 1 or self.hands < 0:
            raise ValueError("tables must be at least 1 and hands not negative")
        for name in ("mispay_rate", "void_rate", "dispute_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name.replace('_', '-')} must be between 0 and 1")
        if self.pace is not None and self.pace <= 0:
            raise ValueError("pace must be a positive number of hands per hour")
        parse_start(self.start)

    @property
    def batch(self) -> int:
        # about 4,096 hands in flight across the floor: big batches, bounded memory
        return self.batch_hands or int(np.clip(4096 // self.tables, 16, 1024))


def table_specs(config: SimConfig, rng: np.random.Generator) -> list[TableSpec]:
    """The floor's tables: rulesets in turn when mixed, limits, procedures, dealers."""
    if config.ruleset == "mixed":
        rulesets: list[Ruleset] = [load_ruleset(n) for n in known_rulesets()]
    else:
        rulesets = [load_ruleset(config.ruleset)]
    start = parse_start(config.start)
    width = max(2, len(str(config.tables)))
    # tables open over ten minutes, or within one hand's time at a given pace
    stagger = 600 if config.pace is None else max(1, min(600, int(3600 / config.pace)))
    specs = []
    for i in range(config.tables):
        rs = rulesets[i % len(rulesets)]
        online = rs.max_seats is None
        steps = [m for m in (1, 1, 1, 2, 5) if rs.min_bet * m * 10 <= rs.max_bet] or [1]
        specs.append(TableSpec(
            index=i,
            table_id=f"T{i + 1:0{width}d}",
            ruleset=rs,
            min_bet=rs.min_bet * int(steps[int(rng.integers(len(steps)))]),
            max_bet=rs.max_bet,
            max_trips=rs.max_trips,
            seats=rs.max_seats or ONLINE_SEATS,
            online=online,
            dealing_order=str(rng.choice(list(rs.dealing_orders))),
            decks=str(rng.choice(list(rs.decks))),
            busyness=float(rng.uniform(0.35, 0.6) if online else rng.uniform(0.4, 0.85)),
            dealers=tuple(f"D{3 * i + k + 1:04d}" for k in range(3)),
            dealer_care=tuple(float(x) for x in rng.gamma(2.0, 0.5, 3)),
            opens_at=start + 1000 * int(rng.integers(0, stagger)),
        ))
    return specs


@dataclass(frozen=True)
class Chunk:
    """Events of several tables in stream order."""

    lines: list[bytes]  # each event's JSON
    times: IntArray
    tables: IntArray  # table index of each event
    hand_no: IntArray  # hand number while dealt, -1 for table and between-hand events
    ends: IntArray  # 1 on the event that ends a hand (HandEnded, HandVoided)
    table_ids: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.lines)

    def data(self, lo: int = 0, hi: int | None = None) -> bytes:
        """Events ``lo:hi`` as JSON Lines text."""
        return b"\n".join(self.lines[lo:hi]) + b"\n" if self.lines[lo:hi] else b""

    def keys(self, lo: int = 0, hi: int | None = None) -> list[str]:
        """The table_id of events ``lo:hi`` (the log key)."""
        ids = [self.table_ids[t] for t in range(len(self.table_ids))]
        return [ids[t] for t in self.tables[lo:hi].tolist()]


def _empty_chunk(table_ids: tuple[str, ...]) -> Chunk:
    empty = np.zeros(0, np.int64)
    return Chunk([], empty, empty, empty, empty, table_ids)


class _Buffer:
    """A table's events not handed out yet (``take`` reads from the front)."""

    def __init__(self) -> None:
        self.segments: list[tuple[IntArray, list[bytes], IntArray, IntArray]] = []
        self.first = 0  # events of segments[0] already taken
        self.size = 0

    def __len__(self) -> int:
        return self.size

    @property
    def times(self) -> IntArray:
        if not self.segments:
            return np.zeros(0, np.int64)
        return np.concatenate([self.segments[0][0][self.first:]]
                              + [seg[0] for seg in self.segments[1:]])

    @property
    def hand_no(self) -> IntArray:
        if not self.segments:
            return np.zeros(0, np.int64)
        return np.concatenate([self.segments[0][2][self.first:]]
                              + [seg[2] for seg in self.segments[1:]])

    def add(self, times: IntArray, lines: list[bytes], hand_no: IntArray, ends: IntArray,
            front: bool = False) -> None:
        if not len(lines):
            return
        if front:
            self._compact()
            self.segments.insert(0, (times, lines, hand_no, ends))
        else:
            self.segments.append((times, lines, hand_no, ends))
        self.size += len(lines)

    def _compact(self) -> None:
        if self.first:
            t, ln, h, e = self.segments[0]
            f = self.first
            self.segments[0] = (t[f:], ln[f:], h[f:], e[f:])
            self.first = 0

    def count_until(self, horizon: int) -> int:
        """How many events at the front happen at or before ``horizon``."""
        n = 0
        for i, seg in enumerate(self.segments):
            t = seg[0][self.first:] if i == 0 else seg[0]
            k = int(np.searchsorted(t, horizon, "right"))
            n += k
            if k < len(t):
                break
        return n

    def take(self, k: int) -> tuple[IntArray, list[bytes], IntArray, IntArray]:
        pieces = []
        while k:
            t, ln, h, e = self.segments[0]
            f = self.first
            m = min(k, len(ln) - f)
            pieces.append((t[f:f + m], ln[f:f + m], h[f:f + m], e[f:f + m]))
            k -= m
            self.size -= m
            if f + m == len(ln):
                self.segments.pop(0)
                self.first = 0
            else:
                self.first = f + m
        if len(pieces) == 1:
            return pieces[0]
        empty = np.zeros(0, np.int64)
        return (np.concatenate([p[0] for p in pieces]) if pieces else empty,
                [x for p in pieces for x in p[1]],
                np.concatenate([p[2] for p in pieces]) if pieces else empty,
                np.concatenate([p[3] for p in pieces]) if pieces else empty)


class Floor:
    """The tables of a configuration and their merged event stream.

    Iterate :meth:`chunks` and report what was written with :meth:`sent`; to stop early,
    :meth:`finish` returns the rest of the hands in progress and the tables' closing.
    """

    def __init__(self, config: SimConfig) -> None:
        self.config = config
        children = np.random.SeedSequence(config.seed).spawn(config.tables + 1)
        self.specs = table_specs(config, np.random.Generator(np.random.PCG64(children[0])))
        self.table_ids = tuple(spec.table_id for spec in self.specs)
        rates = Rates(config.mispay_rate, config.void_rate, config.dispute_rate, config.pace,
                      config.profile_weights)
        self.sims = [TableSim(spec, rates, np.random.Generator(np.random.PCG64(ss)))
                     for spec, ss in zip(self.specs, children[1:], strict=True)]
        self.buffers = [_Buffer() for _ in self.sims]
        n = len(self.sims)
        self.emitted = [0] * n  # events of each table written so far
        self.current = [-1] * n  # hand being dealt at the last event written, or -1
        self.completed = [0] * n  # last hand whose end was written
        self.last_time = [spec.opens_at for spec in self.specs]
        self._truth: list[dict[str, Any]] = []
        self.cut = False  # finish() stopped the run early

    def _add(self, t: int, batch: Batch) -> None:
        ends = np.zeros(len(batch.lines), dtype=np.int64)
        if batch.hands:  # the last event of each hand (HandEnded or HandVoided) ends it
            hn = batch.hand_no
            ends[np.flatnonzero((hn >= 0) & (np.append(hn[1:], -2) != hn))] = 1
        self.buffers[t].add(batch.times, batch.lines, batch.hand_no, ends)
        self._truth += batch.truth

    def chunks(self, min_events: int = 20_000) -> Iterator[Chunk]:
        """The merged stream, chunk by chunk, in (time, table, seq) order."""
        n = len(self.sims)
        done = [False] * n
        until = np.full(n, -1, dtype=np.int64)
        for t, sim in enumerate(self.sims):
            self._add(t, sim.open())
            until[t] = sim.clock
        ready = 0
        while True:
            open_tables = [t for t in range(n) if not done[t]]
            if open_tables:
                t = min(open_tables, key=lambda k: (until[k], k))
                sim = self.sims[t]
                if sim.hands < self.config.hands:
                    batch = sim.play(min(self.config.batch, self.config.hands - sim.hands))
                else:
                    batch, done[t] = sim.close(), True
                self._add(t, batch)
                until[t] = sim.clock
                ready += len(batch.lines)
            horizon = min((int(until[k]) for k in range(n) if not done[k]), default=None)
            if horizon is None or ready >= min_events:
                chunk = self._merge(horizon)
                ready = sum(len(b) for b in self.buffers)
                if len(chunk):
                    yield chunk
            if horizon is None:
                return

    def _merge(self, horizon: int | None) -> Chunk:
        parts = []
        for t, buf in enumerate(self.buffers):
            k = len(buf) if horizon is None else buf.count_until(horizon)
            if k:
                parts.append((t, *buf.take(k)))
        if not parts:
            return _empty_chunk(self.table_ids)
        if len(parts) == 1:
            t, times, lines, hand_no, ends = parts[0]
            return Chunk(lines, times, np.full(len(times), t, dtype=np.int64), hand_no, ends,
                         self.table_ids)
        times = np.concatenate([p[1] for p in parts])
        tables = np.concatenate([np.full(len(p[1]), p[0], dtype=np.int64) for p in parts])
        pos = np.concatenate([np.arange(len(p[1])) for p in parts])
        order = np.lexsort((pos, tables, times))
        everything = np.empty(len(order), dtype=object)
        everything[:] = [line for p in parts for line in p[2]]
        return Chunk(everything[order].tolist(), times[order], tables[order],
                     np.concatenate([p[3] for p in parts])[order],
                     np.concatenate([p[4] for p in parts])[order], self.table_ids)

    def sent(self, chunk: Chunk, lo: int, hi: int) -> None:
        """Events ``lo:hi`` of ``chunk`` were written."""
        tables, hand_no, ends = chunk.tables[lo:hi], chunk.hand_no[lo:hi], chunk.ends[lo:hi]
        for t in np.unique(tables).tolist():
            mine = np.flatnonzero(tables == t)
            last = int(mine[-1])
            self.emitted[t] += len(mine)
            self.last_time[t] = int(chunk.times[lo + last])
            h = int(hand_no[last])
            self.current[t] = -1 if ends[last] or h < 0 else h
            done = hand_no[mine][ends[mine] == 1]
            if len(done):
                self.completed[t] = int(done[-1])

    def finish(self, chunk: Chunk | None = None, written: int = 0) -> Chunk:
        """Stop early: the rest of every hand in progress, then ``TableClosed`` for each
        table. Events of ``chunk`` from ``written`` on were not written: they go back."""
        self.cut = True
        if chunk is not None:
            for t in range(len(self.sims)):
                back = np.flatnonzero(chunk.tables[written:] == t) + written
                if len(back):
                    self.buffers[t].add(chunk.times[back], [chunk.lines[i] for i in back],
                                        chunk.hand_no[back], chunk.ends[back], front=True)
        lines: list[bytes] = []
        times: list[int] = []
        tables: list[int] = []
        hand_no: list[int] = []
        ends: list[int] = []
        for t, sim in enumerate(self.sims):
            if not self.emitted[t]:
                continue  # a table that had not opened yet stays closed
            buf, h = self.buffers[t], self.current[t]
            k = 0
            if h >= 0:  # the hand in progress continues at the front of the buffer
                k = int(np.argmin(np.append(buf.hand_no, -2) == h))
            tm, ln, hn, en = buf.take(k)
            sim.seq = self.emitted[t] + k
            closing = sim.close_now(int(tm[-1]) if k else self.last_time[t])
            lines += [*ln, closing]
            times += [*tm.tolist(), sim.clock]
            tables += [t] * (k + 1)
            hand_no += [*hn.tolist(), -1]
            ends += [*en.tolist(), 0]
        self.buffers = [_Buffer() for _ in self.sims]
        return Chunk(lines, np.array(times, dtype=np.int64), np.array(tables, dtype=np.int64),
                     np.array(hand_no, dtype=np.int64), np.array(ends, dtype=np.int64),
                     self.table_ids)

    def truth(self) -> list[dict[str, Any]]:
        """Injected mispays (after :meth:`finish`: of the hands written in full)."""
        index = {spec.table_id: t for t, spec in enumerate(self.specs)}
        rows = [r for r in self._truth
                if not self.cut or r["hand_no"] <= self.completed[index[r["table_id"]]]]
        rows.sort(key=lambda r: (r["table_id"], r["hand_no"], r["seat"], r["spot"]))
        return [{k: v for k, v in r.items() if k != "hand_no"} for r in rows]


# --------------------------------------------------------------------------- writing


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
    """A JSON Lines file, rewritten: the chunks' text goes straight to it."""

    def __init__(self, url: str, realtime: bool) -> None:
        from events.logs.jsonl import path_from_url

        path = path_from_url(url)
        if path is None:
            raise ValueError("the simulator cannot write to standard input")
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fh = open(path, "wb")  # noqa: SIM115 - closed in close()
        self.realtime = realtime

    def write(self, chunk: Chunk, lo: int, hi: int) -> None:
        self.fh.write(chunk.data(lo, hi))
        if self.realtime:
            self.fh.flush()

    def close(self) -> None:
        self.fh.flush()
        os.fsync(self.fh.fileno())
        self.fh.close()


class _LogSink:
    """Any event log (SQLite, Kafka): records of (table_id, JSON bytes)."""

    def __init__(self, url: str) -> None:
        from events.logs import open_log

        self.log = open_log(url)

    def write(self, chunk: Chunk, lo: int, hi: int) -> None:
        self.log.append(list(zip(chunk.keys(lo, hi), chunk.lines[lo:hi], strict=True)))

    def close(self) -> None:
        self.log.close()


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
    out: _FileSink | _LogSink = _FileSink(sink, realtime) if is_file_sink(sink) else \
        _LogSink(sink)
    floor = Floor(config)
    started = time.monotonic()
    anchor = (time.time(), min(s.opens_at for s in floor.specs))
    events = hands = 0
    stopped = False

    def write(chunk: Chunk, lo: int, hi: int) -> None:
        nonlocal events, hands
        if hi > lo:
            out.write(chunk, lo, hi)
            floor.sent(chunk, lo, hi)
            events += hi - lo
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
            for row in truth:
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
