"""The floor: every table's batches merged into one stream, with bookkeeping of what was
written so a run can stop between hands."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from events.sim.config import SimConfig, table_specs
from events.sim.stream import Chunk, IntArray, Text, Units, _Buffer, _concat
from events.sim.table import Batch, Rates, TableSim


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
            texts: list[Text] = [x for u in batch.units
                                 for x in bytes(u).splitlines(keepends=True)]
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
        texts, counts, times, last_times, hand_no, ends = units
        return self._chunk(([texts[i] for i in order.tolist()], counts[order], times[order],
                            last_times[order], hand_no[order], ends[order]), tables[order])

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

    def player_truth(self) -> list[dict[str, Any]]:
        """The roster's players (none when players come and go): table, seat, profile and
        the dealer cards a hole-carder sees (``both``, ``first``, or null), and the only
        dealer whose hands they see (null: every dealer's)."""
        from events.sim.players import PROFILES
        from events.sim.styles import hole_card_styles

        rows = []
        for spec, sim in zip(self.specs, self.sims, strict=True):
            if spec.roster is None:
                continue
            for j, player in enumerate(sim.plan.players[: len(spec.roster)]):
                name = PROFILES[player.profile]
                sees = {"hole_card": "both", **hole_card_styles()}.get(name)
                rows.append({"record": "player", "table_id": spec.table_id, "seat": j + 1,
                             "profile": name, "sees": sees, "hole_carder": sees is not None,
                             "only_with_dealer": spec.dealers[player.flasher]
                             if player.flasher >= 0 else None})
        return rows

    def truth(self) -> list[dict[str, Any]]:
        """Injected mispays (after :meth:`finish`: of the hands written in full)."""
        index = {spec.table_id: t for t, spec in enumerate(self.specs)}
        rows = [r for r in self._truth
                if not self.cut or r["hand_no"] <= self.completed[index[r["table_id"]]]]
        rows.sort(key=lambda r: (r["table_id"], r["hand_no"], r["seat"], r["spot"]))
        return [{k: v for k, v in r.items() if k != "hand_no"} for r in rows]
