"""One simulated table: plays batches of hands at once over NumPy arrays and returns their
events as JSON lines with times.

A batch: seat occupancy (``sim_players.SeatPlan``), wagers, one shuffled deck per hand, one
``evaluate7`` call for every player and dealer hand, vectorized decisions, ``settle_batch``,
chip purchases when a stack runs short, voids, then times, dealer shifts, injected mispays
(``sim_errors``), disputes, and the lines (``sim_events``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from events.game.evaluation import category, evaluate7
from events.game.rulesets import Ruleset
from events.game.settlement import NO_WAGER, PUSH, SPOTS, settle_batch
from events.sim.errors import (
    VOID_REASONS_LIVE,
    VOID_REASONS_ONLINE,
    inject_mispays,
    new_disputes,
    truth_rows,
    wrong_trips_table,
)
from events.sim.format import IdMaker, json_bytes, one_line, timestamps
from events.sim.hand_events import (
    K_CHIPS,
    K_DEC,
    K_DISPUTE,
    K_DREV,
    K_END,
    K_FLOP,
    K_START,
    K_TURN,
    K_VOID,
    Cells,
    Rows,
    durations,
    make_layout,
    place_disputes,
    render,
)
from events.sim.players import DEFAULT_PROFILE_WEIGHTS, SeatPlan, buy_chips, decide

IntArray = npt.NDArray[np.int64]
MINUTE = 60_000
IDLE_ROW_MS = (60_000, 150_000)


@dataclass(frozen=True)
class TableSpec:
    """What a table is: its id, rules, limits, procedures and dealers."""

    index: int
    table_id: str
    ruleset: Ruleset
    min_bet: int
    max_bet: int
    max_trips: int | None
    seats: int
    online: bool
    dealing_order: str  # community_first | players_first
    decks: str  # single | two_alternating
    busyness: float
    dealers: tuple[str, ...]
    dealer_care: tuple[float, ...]  # mispay-rate multiplier per dealer (mean 1)
    opens_at: int  # epoch ms
    roster: tuple[str, ...] | None = None  # profiles seated for the run (seat 1 first)


@dataclass(frozen=True)
class Rates:
    """Floor-wide settings a table plays by."""

    mispay: float = 0.0
    void: float = 0.0
    dispute: float = 0.0
    pace: float | None = None  # hands per hour of table time; None: the natural pace
    profile_weights: tuple[float, ...] = DEFAULT_PROFILE_WEIGHTS


@dataclass(frozen=True)
class Batch:
    """Events of one table in ``seq`` order, as *units* of JSON Lines text: a hand with the
    events just before it (chip purchases, disputes of earlier hands), or the table's
    opening or closing. Per event: its time and the hand it is part of (-1 otherwise)."""

    units: list[bytes | memoryview]
    unit_events: IntArray  # events in each unit
    times: IntArray
    hand_no: IntArray
    hands: int
    truth: list[dict[str, Any]] = field(default_factory=list)


def _single_unit(lines: list[bytes], times: list[int]) -> Batch:
    return Batch([b"".join(x + b"\n" for x in lines)], np.array([len(lines)]),
                 np.array(times, dtype=np.int64), np.full(len(lines), -1), 0)


def _hand_json(table_id: str, n: int) -> bytes:
    return json_bytes(f"{table_id}-{n:06d}")


class TableSim:
    """A table's state between batches: seats, clock, seq, dealer, pending disputes."""

    def __init__(self, spec: TableSpec, rates: Rates, rng: np.random.Generator) -> None:
        self.spec, self.rates, self.rng = spec, rates, rng
        self.ids = IdMaker(rng)
        self.layout = make_layout(spec.seats, spec.dealing_order)
        self.plan = SeatPlan(rng, spec.seats, spec.busyness,
                             (spec.min_bet, spec.max_bet, spec.max_trips), spec.online,
                             rates.profile_weights, spec.roster)
        self.wrong = wrong_trips_table(spec.ruleset)
        self.seq = 0
        self.clock = spec.opens_at
        self.hands = 0
        self.idle = 0  # empty-table hands waiting to be added to the next gap
        self.dealer = 0
        self.shift_end = spec.opens_at + int(rng.integers(40, 61)) * MINUTE
        self.deck_flip = 0
        self.stacks: dict[int, int] = {}
        self.last_occ = np.full(spec.seats, -1, dtype=np.int32)
        self.pending: list[tuple[int, int, str, bytes, bytes]] = []  # disputes due later
        self._order = 0
        self._seat_lists: dict[int, bytes] = {}
        self.by_hands = any("@" in p for p in spec.roster or ())
        self.shift_left = 0  # hands left in the dealer's shift (shifts counted in hands)

    # -- table-level events ---------------------------------------------------------------
    def _single(self, type_name: str, ms: int, payload: bytes, hand_json: bytes = b"null"
                ) -> bytes:
        line = one_line(type_name, self.spec.table_id, self.ids.make(self.seq), self.seq,
                        timestamps(np.array([ms])).tolist()[0], payload, hand_json)
        self.seq += 1
        return line

    def open(self) -> Batch:
        s = self.spec
        payload = (b'{"ruleset":%s,"min_bet":%d,"max_bet":%d,"seats":%d,"currency":"%s"'
                   % (json_bytes(s.ruleset.name), s.min_bet, s.max_bet, s.seats,
                      s.ruleset.currency.encode()))
        if s.max_trips is not None:
            payload += b',"max_trips":%d' % s.max_trips
        return _single_unit([self._single("TableOpened", self.clock, payload + b"}")],
                            [self.clock])

    def close(self) -> Batch:
        """Disputes still pending, then ``TableClosed``."""
        times, lines = [], []
        t = self.clock
        for due, _, type_name, hand_json, payload in sorted(self.pending):
            t = max(t + 1000, due)
            times.append(t)
            lines.append(self._single(type_name, t, payload, hand_json))
        self.pending = []
        t += int(self.rng.integers(30_000, 120_000))
        times.append(t)
        lines.append(self._single("TableClosed", t, b"{}"))
        self.clock = t
        return _single_unit(lines, times)

    def close_now(self, at_ms: int) -> bytes:
        """``TableClosed`` right away (shutdown): pending disputes are dropped."""
        self.pending = []
        self.clock = at_ms + 1000
        return self._single("TableClosed", self.clock, b"{}")

    # -- a batch of hands ----------------------------------------------------------------
    def play(self, wanted: int) -> Batch:
        spec, rng, rates = self.spec, self.rng, self.rates
        occ_all = self.plan.next(wanted)
        busy = (occ_all >= 0).any(axis=1)
        kept = np.flatnonzero(busy)
        idle_cum = np.cumsum(~busy)
        idle_before = np.diff(np.concatenate([[0], idle_cum[kept]])) if len(kept) else kept
        if len(kept) == 0:
            self.idle += wanted
            return Batch([], np.zeros(0, np.int64), np.zeros(0, np.int64),
                         np.zeros(0, np.int64), 0)
        idle_before[0] += self.idle
        self.idle = int(idle_cum[-1] - idle_cum[kept[-1]])
        occ = occ_all[kept]
        n_rows, n_seats = int(occ.shape[0]), int(occ.shape[1])
        occm = occ >= 0
        cell_r, cell_j = np.nonzero(occm)
        n = len(cell_r)
        index = np.full((n_rows, n_seats), -1, dtype=np.int64)
        index[cell_r, cell_j] = np.arange(n)
        sess = occ[cell_r, cell_j]
        attrs = self.plan.ints[sess]  # unit, trips, buy-in, profile, sees, method
        probs = self.plan.floats[sess]  # trips_prob, timeout
        prev = np.vstack([self.last_occ[None, :], occ[:-1]])
        starts = occm & (occ != prev)

        # wagers
        u = rng.random((n, 2))
        ante = np.where(u[:, 0] < 0.1, np.minimum(2 * attrs[:, 0], spec.max_bet), attrs[:, 0])
        trips = np.where(u[:, 1] < probs[:, 0], attrs[:, 1], 0)

        # one shuffled deck per hand; evaluate every player and dealer hand at once
        deck = rng.permuted(np.tile(np.arange(52, dtype=np.int64), (n_rows, 1)), axis=1)
        comm = deck[:, :5]
        hole = np.stack([deck[cell_r, 5 + 2 * cell_j], deck[cell_r, 6 + 2 * cell_j]], axis=1)
        dealer = deck[:, 5 + 2 * n_seats: 7 + 2 * n_seats]
        strength = evaluate7(np.concatenate([
            np.concatenate([hole, comm[cell_r]], axis=1),
            np.concatenate([dealer, comm], axis=1)]))
        cats = category(strength).astype(np.int64)
        ps, pc = strength[:n].astype(np.int64), cats[:n]
        ds, dc = strength[n:].astype(np.int64), cats[n:]
        # a roster with a hole-carder who needs one dealer: shifts counted in hands, known
        # before the decisions (other tables: shifts by the clock, after the times)
        shifts = self._dealers_by_hands(n_rows) if self.by_hands else None
        informed = None
        if shifts is not None:
            informed = (attrs[:, 6] < 0) | (shifts[cell_r] == attrs[:, 6])
        # the hand before at the same seat, same player: did the dealer's cards beat theirs
        # (shown at the table; a tilting player plays looser after it)
        lost = np.zeros(n, dtype=np.bool_)
        before = index[np.maximum(cell_r - 1, 0), cell_j]
        same = (cell_r > 0) & (before >= 0) & (occ[np.maximum(cell_r - 1, 0), cell_j] == sess)
        lost[same] = ps[before[same]] < ds[cell_r[same] - 1]
        dec = decide(rng, attrs[:, 3], attrs[:, 4], probs[:, 1], hole, comm[cell_r],
                     dealer[cell_r], ps, ds[cell_r], informed, lost)

        # voids: a malfunction after the deal, or after the preflop/flop/river decisions
        voided = rng.random(n_rows) < rates.void
        stage = np.where(voided, rng.integers(0, 4, n_rows), -1)
        cstage = stage[cell_r]
        street = np.arange(3)[None, :]
        act = np.where((cstage[:, None] < 0) | (street < cstage[:, None]), dec.act, -1)
        act = act.astype(np.int8)
        play = np.maximum(np.maximum(act[:, 0], act[:, 1]), act[:, 2]).clip(min=0).astype(
            np.int64) * ante
        folded = act[:, 2] == 0
        settled_cell = cstage < 0

        out = settle_batch(spec.ruleset, ante, play, trips, folded & settled_cell, ps, pc,
                           ds[cell_r], dc[cell_r])
        codes = np.stack([out[s][0] for s in SPOTS], axis=1)
        amounts = np.stack([out[s][1] for s in SPOTS], axis=1)
        vc = ~settled_cell
        codes[vc] = np.where(codes[vc] == NO_WAGER, NO_WAGER, PUSH)
        amounts[vc] = 0

        chips, self.stacks = buy_chips(occ, occm, starts, attrs[:, 2], 6 * ante + trips,
                                       amounts.sum(axis=1), self.stacks)

        # the slot mask
        lay = self.layout
        mask = np.zeros((n_rows, lay.width), dtype=np.bool_)
        full = np.zeros((n_rows, n_seats), dtype=np.bool_)

        def cellmat(values: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
            m = full.copy()
            m[cell_r, cell_j] = values
            return m

        mask[:, lay.chips] = cellmat(chips > 0)
        mask[:, lay.single[K_START]] = True
        mask[:, lay.bet[:, 0]] = occm
        mask[:, lay.bet[:, 1]] = occm
        mask[:, lay.bet[:, 2]] = cellmat(trips > 0)
        for k in lay.single:
            if k not in (K_END, K_VOID, K_START):
                mask[:, lay.single[k]] = True
        mask[:, lay.deal] = occm
        for k in range(3):
            mask[:, lay.dec[k]] = cellmat(act[:, k] >= 0)
        # reveals that a void cut short: flop needs stage >= 2, turn >= 3, dealer none
        for kind, need in ((K_FLOP, 2), (K_TURN, 3), (K_DREV, 4)):
            mask[voided & (stage < need), lay.single[kind]] = False
        for k in range(4):
            mask[:, lay.pay[:, k]] = cellmat(codes[:, k] != NO_WAGER)
        mask[:, lay.single[K_END]] = ~voided
        mask[:, lay.single[K_VOID]] = voided

        # times
        auto = np.zeros_like(mask)
        for k in range(3):
            auto[:, lay.dec[k]] = cellmat(dec.auto[:, k])
        inc_f = np.where(mask, durations(rng, lay, n_rows, spec.online, auto & mask), 0.0)
        gap_lo, gap_hi = (4000, 8000) if spec.online or spec.decks != "single" else (12000, 25000)
        gap = gap_lo + (gap_hi - gap_lo) * rng.random(n_rows)
        gap += idle_before * rng.uniform(IDLE_ROW_MS[0], IDLE_ROW_MS[1], n_rows)
        if rates.pace:
            scale = 3_600_000 / rates.pace / float((inc_f.sum(axis=1) + gap).mean())
            inc_f, gap = inc_f * scale, gap * scale
        inc: IntArray = np.where(mask, np.maximum(inc_f.round(), 1), 0).astype(np.int64)
        gap_ms: IntArray = gap.round().astype(np.int64)
        origins = self._origins(inc, gap_ms)

        dealer_row = shifts if shifts is not None else self._dealers(origins)
        care = np.asarray(spec.dealer_care)[dealer_row]
        mp = inject_mispays(rng, np.minimum(1.0, rates.mispay * care[cell_r]), spec.ruleset,
                            self.wrong, ante, play, trips, settled_cell, folded, ps, pc,
                            ds[cell_r], dc[cell_r], codes, amounts)
        first_hand = self.hands + 1  # hands are numbered from 1
        hand_json = [_hand_json(spec.table_id, first_hand + i) for i in range(n_rows)]
        ends = origins + inc.sum(axis=1)
        fresh = new_disputes(rng, rates.dispute, ~voided, ends, hand_json, index, cell_j,
                             mp.kind, amounts, mp.amounts, self._order)
        self._order += len(fresh)
        disputes, self.pending = place_disputes(self.pending + fresh, lay, origins, mask, inc,
                                                rng)
        origins = self._origins(inc, gap_ms)

        rows_ev, cols_ev = np.nonzero(mask)
        times = origins[rows_ev] + np.cumsum(inc, axis=1)[rows_ev, cols_ev]
        seq = self.seq + np.arange(len(rows_ev), dtype=np.int64)
        shoe = [json_bytes(x) for x in ((f"{spec.table_id}-A", f"{spec.table_id}-B")
                                        if spec.decks != "single" else (f"{spec.table_id}-1",))]
        dealer_json = [json_bytes(d) for d in spec.dealers]
        seat_bits = occm.astype(np.int64) @ (1 << np.arange(n_seats, dtype=np.int64))
        reasons = VOID_REASONS_ONLINE if spec.online else VOID_REASONS_LIVE
        void_pick = rng.integers(0, len(reasons), n_rows).tolist()
        rows = Rows(
            hand=hand_json,
            start=[b'{"dealer_id":%s,"seats":[%s],"shoe_id":%s}' % (
                dealer_json[d], self._seat_list(bits), shoe[(self.deck_flip + i) % len(shoe)])
                for i, (d, bits) in enumerate(zip(dealer_row.tolist(), seat_bits.tolist(),
                                                  strict=True))],
            void=[b'{"reason":%s}' % json_bytes(reasons[p]) if v else b""
                  for p, v in zip(void_pick, voided.tolist(), strict=True)],
            board=comm,
            dealer=dealer,
        )
        cells = Cells(index, cell_j.astype(np.int64) + 1, ante, trips, act, dec.auto,
                      mp.codes, mp.amounts, hole, chips, attrs[:, 5])
        text = render(spec.table_id, self.ids, lay, rows_ev, cols_ev, seq, timestamps(times),
                      rows, cells, disputes)
        # one unit of text per hand (its row of slots): cut after the row's last newline
        newlines = np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == 10)
        last = np.flatnonzero(np.append(rows_ev[1:] != rows_ev[:-1], True))
        cut = (newlines[last] + 1).tolist()
        view = memoryview(text)  # units share the batch's text
        units: list[bytes | memoryview] = [view[a:b] for a, b in zip([0, *cut[:-1]], cut,
                                                                      strict=True)]
        hand_no = np.where(lay.kind[cols_ev] > K_CHIPS, first_hand + rows_ev, -1)
        truth = truth_rows(spec.table_id, spec.dealers, spec.ruleset, self.wrong, mp.kind,
                           mp.amounts, amounts, cell_r, cell_j, pc, dealer_row, first_hand)

        self.deck_flip = (self.deck_flip + n_rows) % 2
        self.seq += len(rows_ev)
        self.clock = int(origins[-1] + inc[-1].sum())
        self.last_occ = occ_all[-1].copy()
        self.hands += n_rows
        return Batch(units, np.diff(np.concatenate([[-1], last])), times,
                     hand_no.astype(np.int64), n_rows, truth)

    # -- pieces ----------------------------------------------------------------------------
    def _seat_list(self, bits: int) -> bytes:
        text = self._seat_lists.get(bits)
        if text is None:
            text = self._seat_lists[bits] = b",".join(
                b"%d" % (j + 1) for j in range(self.spec.seats) if bits >> j & 1)
        return text

    def _origins(self, inc: IntArray, gap: IntArray) -> IntArray:
        dur = inc.sum(axis=1)
        out: IntArray = self.clock + np.cumsum(gap) + np.cumsum(dur) - dur
        return out

    def _dealers_by_hands(self, n: int) -> IntArray:
        """Dealers of the next n hands when shifts are counted in hands (40 to 60)."""
        out = np.empty(n, dtype=np.int64)
        pos = 0
        while pos < n:
            if self.shift_left <= 0:
                if self.hands or pos:
                    self.dealer = (self.dealer + 1) % len(self.spec.dealers)
                self.shift_left = int(self.rng.integers(40, 61))
            k = min(self.shift_left, n - pos)
            out[pos:pos + k] = self.dealer
            self.shift_left -= k
            pos += k
        return out

    def _dealers(self, origins: IntArray) -> IntArray:
        out = np.empty(len(origins), dtype=np.int64)
        pos = 0
        while True:
            k = int(np.searchsorted(origins, self.shift_end, "left"))
            if k >= len(origins):
                out[pos:] = self.dealer
                return out
            out[pos:k] = self.dealer
            self.dealer = (self.dealer + 1) % len(self.spec.dealers)
            self.shift_end = int(origins[k]) + int(self.rng.integers(40, 61)) * MINUTE
            pos = k


__all__ = ["K_DEC", "K_DISPUTE", "Batch", "Rates", "TableSim", "TableSpec"]
