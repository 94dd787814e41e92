"""A simulated casino floor: N tables dealing Ultimate Texas Hold'em, as the contract's
event stream.

Each table plays batches of hands over NumPy arrays (``events.sim_table``); the floor
merges the tables' events into one stream in time order (ties by table, then ``seq``) and
writes it to any event log (``events.logs.open_log``), as fast as the sink takes it or in
real time. Same configuration and seed, same bytes: event ids come from seeded generators
and times from a simulated clock starting at ``start``.

>>> cfg = SimConfig(tables=2, hands=3, seed=7, ruleset="charlevoix-2011")
>>> lines = [line for chunk in Floor(cfg).chunks() for line in chunk.lines()]
>>> import msgspec
>>> first = msgspec.json.decode(lines[0])
>>> first["type"], first["seq"], first["payload"]["ruleset"]
('TableOpened', 0, 'charlevoix-2011')
>>> msgspec.json.decode(lines[-1])["type"]
'TableClosed'
"""

from __future__ import annotations

import json
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
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"start {text!r} is not an ISO 8601 time like {DEFAULT_START}"
                         ) from None
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
    """Units of several tables in stream order: each unit is JSON Lines text (a hand with
    the events before it, a table's opening or closing, or -- for a paced floor -- a single
    event) and, per unit, its events, table, first and last time, hand and whether it ends
    that hand."""

    texts: list[bytes]
    counts: IntArray
    tables: IntArray
    times: IntArray  # time of the unit's first event
    last_times: IntArray
    hand_no: IntArray  # the hand the unit's last event belongs to, -1 for none
    ends: IntArray  # 1 when the unit's last event ends its hand
    table_ids: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.texts)

    def data(self, lo: int = 0, hi: int | None = None) -> bytes:
        """Units ``lo:hi`` as JSON Lines text."""
        return b"".join(self.texts[lo:hi])

    def lines(self, lo: int = 0, hi: int | None = None) -> list[bytes]:
        """The events of units ``lo:hi``, one JSON document each."""
        return self.data(lo, hi).split(b"\n")[:-1]

    def keys(self, lo: int = 0, hi: int | None = None) -> list[str]:
        """The table_id of each event of units ``lo:hi`` (the log key)."""
        ids = self.table_ids
        return [ids[t] for t, c in zip(self.tables[lo:hi].tolist(),
                                       self.counts[lo:hi].tolist(), strict=True)
                for _ in range(c)]

    def events(self, lo: int = 0, hi: int | None = None) -> int:
        return int(self.counts[lo:hi].sum())


_FIELDS = ("texts", "counts", "times", "last_times", "hand_no", "ends")
Units = tuple[list[bytes], IntArray, IntArray, IntArray, IntArray, IntArray]


def _concat(parts: list[Units]) -> Units:
    if len(parts) == 1:
        return parts[0]
    texts = [x for p in parts for x in p[0]]
    arrays = [np.concatenate([p[i] for p in parts]) for i in range(1, 6)]
    return texts, arrays[0], arrays[1], arrays[2], arrays[3], arrays[4]


class _Buffer:
    """A table's units not handed out yet (``take`` reads from the front)."""

    def __init__(self) -> None:
        self.segments: list[Units] = []
        self.first = 0  # units of segments[0] already taken
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def add(self, units: Units, front: bool = False) -> None:
        if not units[0]:
            return
        if front:
            if self.first:
                f = self.first
                head = self.segments[0]
                self.segments[0] = (head[0][f:], *(a[f:] for a in head[1:]))  # type: ignore[assignment]
                self.first = 0
            self.segments.insert(0, units)
        else:
            self.segments.append(units)
        self.size += len(units[0])

    def count_until(self, horizon: int) -> int:
        """How many units at the front start at or before ``horizon``."""
        n = 0
        for i, seg in enumerate(self.segments):
            t = seg[2][self.first:] if i == 0 else seg[2]
            k = int(np.searchsorted(t, horizon, "right"))
            n += k
            if k < len(t):
                break
        return n

    def front(self) -> Units | None:
        if not self.segments:
            return None
        f, seg = self.first, self.segments[0]
        return (seg[0][f:], *(a[f:] for a in seg[1:]))  # type: ignore[return-value]

    def take(self, k: int) -> Units:
        pieces: list[Units] = []
        while k:
            seg, f = self.segments[0], self.first
            m = min(k, len(seg[0]) - f)
            pieces.append((seg[0][f:f + m], *(a[f:f + m] for a in seg[1:])))  # type: ignore[arg-type]
            k -= m
            self.size -= m
            if f + m == len(seg[0]):
                self.segments.pop(0)
                self.first = 0
            else:
                self.first = f + m
        if not pieces:
            empty = np.zeros(0, np.int64)
            return [], empty, empty, empty, empty, empty
        return _concat(pieces)


class Floor:
    """The tables of a configuration and their merged event stream.

    Iterate :meth:`chunks` and report what was written with :meth:`sent`; to stop early,
    :meth:`finish` returns the rest of the hands in progress and the tables' closing. A
    floor writes whole hands in the order they start (the fast path); ``by_event`` splits
    them so that every event takes its place in time (for writing in real time).
    """

    def __init__(self, config: SimConfig, by_event: bool = False) -> None:
        self.config = config
        self.by_event = by_event
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

    def _units(self, batch: Batch) -> Units:
        n = len(batch.times)
        last = np.cumsum(batch.unit_events) - 1
        hn = batch.hand_no
        ends = np.zeros(n, dtype=np.int64)
        if batch.hands:  # the last event of each hand (HandEnded or HandVoided) ends it
            ends[np.flatnonzero((hn >= 0) & (np.append(hn[1:], -2) != hn))] = 1
        if self.by_event:
            texts = [x for u in batch.units for x in u.splitlines(keepends=True)]
            return texts, np.ones(n, np.int64), batch.times, batch.times, hn, ends
        first = last - batch.unit_events + 1
        return (batch.units, batch.unit_events, batch.times[first], batch.times[last],
                hn[last], ends[last])

    def _add(self, t: int, batch: Batch) -> None:
        self.buffers[t].add(self._units(batch))
        self._truth += batch.truth

    def chunks(self, min_events: int = 20_000) -> Iterator[Chunk]:
        """The merged stream, chunk by chunk, units in (time, table, seq) order."""
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
                ready += len(batch.times)
            horizon = min((int(until[k]) for k in range(n) if not done[k]), default=None)
            if horizon is None or ready >= min_events:
                chunk = self._merge(horizon)
                ready = sum(len(b) for b in self.buffers)
                if len(chunk):
                    yield chunk
            if horizon is None:
                return

    def _chunk(self, units: Units, tables: IntArray) -> Chunk:
        texts, counts, times, last_times, hand_no, ends = units
        return Chunk(texts, counts, tables, times, last_times, hand_no, ends, self.table_ids)

    def _merge(self, horizon: int | None) -> Chunk:
        parts = []
        for t, buf in enumerate(self.buffers):
            k = len(buf) if horizon is None else buf.count_until(horizon)
            if k:
                parts.append((t, buf.take(k)))
        if not parts:
            empty = np.zeros(0, np.int64)
            return self._chunk(([], empty, empty, empty, empty, empty), empty)
        tables = np.concatenate([np.full(len(p[1][0]), p[0], dtype=np.int64) for p in parts])
        units = _concat([p[1] for p in parts])
        if len(parts) == 1:
            return self._chunk(units, tables)
        pos = np.concatenate([np.arange(len(p[1][0])) for p in parts])
        order = np.lexsort((pos, tables, units[2]))
        texts = np.empty(len(order), dtype=object)
        texts[:] = units[0]
        return self._chunk((texts[order].tolist(), *(a[order] for a in units[1:])),
                           tables[order])

    def sent(self, chunk: Chunk, lo: int, hi: int) -> None:
        """Units ``lo:hi`` of ``chunk`` were written."""
        tables, hand_no, ends = chunk.tables[lo:hi], chunk.hand_no[lo:hi], chunk.ends[lo:hi]
        counts = chunk.counts[lo:hi]
        for t in np.unique(tables).tolist():
            mine = np.flatnonzero(tables == t)
            last = int(mine[-1])
            self.emitted[t] += int(counts[mine].sum())
            self.last_time[t] = int(chunk.last_times[lo + last])
            h = int(hand_no[last])
            self.current[t] = -1 if ends[last] or h < 0 else h
            done = hand_no[mine][ends[mine] == 1]
            if len(done):
                self.completed[t] = int(done[-1])

    def finish(self, chunk: Chunk | None = None, written: int = 0) -> Chunk:
        """Stop early: the rest of every hand in progress, then ``TableClosed`` for each
        table. Units of ``chunk`` from ``written`` on were not written: they go back."""
        self.cut = True
        if chunk is not None:
            for t in range(len(self.sims)):
                back = np.flatnonzero(chunk.tables[written:] == t) + written
                if len(back):
                    self.buffers[t].add(([chunk.texts[i] for i in back], chunk.counts[back],
                                         chunk.times[back], chunk.last_times[back],
                                         chunk.hand_no[back], chunk.ends[back]), front=True)
        parts: list[Units] = []
        tables: list[int] = []
        for t, sim in enumerate(self.sims):
            if not self.emitted[t]:
                continue  # a table that had not opened yet stays closed
            buf, h = self.buffers[t], self.current[t]
            k = 0
            front = buf.front()
            if h >= 0 and front is not None:  # the hand in progress continues at the front
                k = int(np.argmin(np.append(front[4], -2) == h))
            rest = buf.take(k)
            sim.seq = self.emitted[t] + int(rest[1].sum())
            when = int(rest[3][-1]) if k else self.last_time[t]
            closing = sim.close_now(when)
            parts += [rest, ([closing + b"\n"], np.ones(1, np.int64), np.array([sim.clock]),
                             np.array([sim.clock]), np.array([-1]), np.zeros(1, np.int64))]
            tables += [t] * (k + 1)
        self.buffers = [_Buffer() for _ in self.sims]
        if not parts:
            empty = np.zeros(0, np.int64)
            return self._chunk(([], empty, empty, empty, empty, empty), empty)
        return self._chunk(_concat(parts), np.array(tables, dtype=np.int64))

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
    """A JSON Lines file, rewritten: the chunks' text goes straight to it. It is flushed
    and closed (an error there fails the run) but not fsynced: a simulated floor is not a
    record to protect from power loss; the SQLite log is durable when that matters."""

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
        self.fh.close()


class _LogSink:
    """Any event log (SQLite, Kafka): records of (table_id, JSON bytes)."""

    def __init__(self, url: str) -> None:
        from events.logs import open_log

        self.log = open_log(url)

    def write(self, chunk: Chunk, lo: int, hi: int) -> None:
        self.log.append(list(zip(chunk.keys(lo, hi), chunk.lines(lo, hi), strict=True)))

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
    floor = Floor(config, by_event=realtime)
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
