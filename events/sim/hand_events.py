"""The events of a batch of hands at one table: which happen (a mask over a fixed layout of
event *slots* per hand), when (per-slot durations), and their JSON lines.

Each hand is one row of slots in contract order: disputes of earlier hands and chip
purchases between hands, ``HandStarted``, bets seat by seat, the deal (community first or
players first), preflop decisions, the flop, flop decisions, turn and river, river
decisions, the dealer's cards, payouts seat by seat (ante, blind, play, trips), and
``HandEnded`` or, for a voided hand, ``HandVoided``. The active slots, read row by row,
are the table's events in ``seq`` order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from events.game.settlement import SPOTS as WAGERS
from events.sim.format import (
    U8,
    Field,
    IdMaker,
    cards,
    digits,
    fixed,
    hstack,
    json_bytes,
    lookup,
    place,
    squeeze,
    width_of,
)
from events.sim.players import METHODS

(K_DISPUTE, K_CHIPS, K_START, K_BET, K_COMM, K_SEAT, K_DEALER, K_DEC, K_FLOP, K_TURN,
 K_DREV, K_PAY, K_END, K_VOID) = range(14)
DISPUTE_SLOTS = 2
STREETS = (b"preflop", b"flop", b"river")
SPOTS = tuple(spot.encode() for spot in WAGERS)
OUTCOMES = {1: b"win", 0: b"push", -1: b"lose"}

# slot durations in ms (low, high) for a live table and for an online table
_LIVE = {K_DISPUTE: (500, 2500), K_CHIPS: (3000, 9000), K_START: (1500, 3500),
         K_COMM: (2500, 4000), K_SEAT: (1000, 1800), K_DEALER: (1000, 1800),
         K_FLOP: (1500, 2500), K_TURN: (1500, 2500), K_DREV: (2000, 3500),
         K_PAY: (700, 1800), K_END: (800, 2000), K_VOID: (20000, 60000)}
_ONLINE = {**_LIVE, K_CHIPS: (500, 2000), K_COMM: (800, 1500), K_SEAT: (200, 500),
           K_DEALER: (300, 600), K_PAY: (30, 200), K_END: (500, 1000)}
_BET_LIVE = ((1500, 4000), (300, 900), (400, 1500))  # ante, blind, trips
_BET_ONLINE = ((300, 1500), (20, 80), (200, 900))
DECISION_MEDIAN_MS = {False: 2500.0, True: 900.0}
TIMEOUT_MS = (15000, 16000)

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Layout:
    """Slot columns of one table: kind, seat column and aux (spot, street or index)."""

    kind: npt.NDArray[np.int8]
    seat: IntArray
    aux: IntArray
    chips: IntArray  # (S,) column of each seat's chip purchase
    bet: IntArray  # (S, 3): ante, blind, trips
    deal: IntArray  # (S,) seat deals
    dec: IntArray  # (3, S) by street
    pay: IntArray  # (S, 4)
    dispute: IntArray  # (DISPUTE_SLOTS,)
    single: dict[int, int]  # column of one-per-hand kinds

    @property
    def width(self) -> int:
        return len(self.kind)


def make_layout(seats: int, dealing_order: str) -> Layout:
    cols: list[tuple[int, int, int]] = []

    def add(kind: int, seat: int = -1, aux: int = 0) -> int:
        cols.append((kind, seat, aux))
        return len(cols) - 1

    dispute = [add(K_DISPUTE, -1, k) for k in range(DISPUTE_SLOTS)]
    chips = [add(K_CHIPS, j) for j in range(seats)]
    single = {K_START: add(K_START)}
    bet = [[add(K_BET, j, spot) for spot in (0, 1, 3)] for j in range(seats)]
    if dealing_order == "community_first":
        single[K_COMM] = add(K_COMM)
    deal = [add(K_SEAT, j) for j in range(seats)]
    single[K_DEALER] = add(K_DEALER)
    if dealing_order != "community_first":
        single[K_COMM] = add(K_COMM)
    dec = []
    for street, kind in ((0, None), (1, K_FLOP), (2, K_TURN)):
        if kind is not None:
            single[kind] = add(kind)
        dec.append([add(K_DEC, j, street) for j in range(seats)])
    single[K_DREV] = add(K_DREV)
    pay = [[add(K_PAY, j, spot) for spot in range(4)] for j in range(seats)]
    single[K_END] = add(K_END)
    single[K_VOID] = add(K_VOID)
    arr = np.array(cols, dtype=np.int64)
    return Layout(arr[:, 0].astype(np.int8), arr[:, 1], arr[:, 2], np.array(chips),
                  np.array(bet), np.array(deal), np.array(dec), np.array(pay),
                  np.array(dispute), single)


def durations(rng: np.random.Generator, layout: Layout, rows: int, online: bool,
              auto: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """Random duration (ms) before each slot's event; ``auto`` (R, C) marks timeouts."""
    table = _ONLINE if online else _LIVE
    bets = _BET_ONLINE if online else _BET_LIVE
    lo = np.zeros(layout.width)
    hi = np.zeros(layout.width)
    for c, (k, aux) in enumerate(zip(layout.kind.tolist(), layout.aux.tolist(), strict=True)):
        if k == K_BET:
            lo[c], hi[c] = bets[min(aux, 2)]
        elif k != K_DEC:
            lo[c], hi[c] = table[k]
    u = rng.random((rows, layout.width))
    inc = lo + (hi - lo) * u
    dec = layout.kind == K_DEC
    median = DECISION_MEDIAN_MS[online]
    inc[:, dec] = np.clip(median * np.exp(0.6 * rng.standard_normal((rows, int(dec.sum())))),
                          300, 14000)
    inc[auto] = TIMEOUT_MS[0] + (TIMEOUT_MS[1] - TIMEOUT_MS[0]) * u[auto]
    return inc


def place_disputes(
    pending: list[tuple[int, int, str, bytes, bytes]], layout: Layout, origins: IntArray,
    mask: BoolArray, inc: IntArray, rng: np.random.Generator,
) -> tuple[dict[tuple[int, int], tuple[str, bytes, bytes]],
           list[tuple[int, int, str, bytes, bytes]]]:
    """Put due disputes in the slots before the first hand that starts after them
    (``mask`` and ``inc`` are updated); returns them by (row, slot) and those still due
    later."""
    placed: dict[tuple[int, int], tuple[str, bytes, bytes]] = {}
    used = [0] * len(origins)
    keep = []
    for item in sorted(pending):
        r = int(np.searchsorted(origins, item[0], "left"))
        while r < len(origins) and used[r] >= DISPUTE_SLOTS:
            r += 1
        if r >= len(origins):
            keep.append(item)
            continue
        col = int(layout.dispute[used[r]])
        placed[(r, used[r])] = item[2:]
        used[r] += 1
        mask[r, col] = True
        inc[r, col] = int(rng.integers(500, 2500))
    return placed, keep


@dataclass(frozen=True)
class Rows:
    """Per hand (row) pieces of the JSON, as byte matrices (see ``sim_format``)."""

    hand: list[bytes]  # the hand_id as JSON
    start: list[bytes]  # HandStarted payload
    void: list[bytes]  # HandVoided payload, b"" when the hand is not voided
    board: IntArray  # (R, 5) community cards in deal order
    dealer: IntArray  # (R, 2)


@dataclass(frozen=True)
class Cells:
    """Per occupied seat in a hand (cell) values the events print."""

    index: IntArray  # (R, S) cell number, -1 where the seat is empty
    seat_no: IntArray  # (N,) 1-based seat number
    ante: IntArray
    trips: IntArray
    act: npt.NDArray[np.int8]  # (N, 3)
    auto: BoolArray  # (N, 3)
    codes: npt.NDArray[np.int8]  # (N, 4) recorded outcome codes
    amounts: IntArray  # (N, 4) recorded amounts
    hole: IntArray  # (N, 2)
    chips: IntArray  # (N,) amount bought before the hand, 0 when none
    method: IntArray  # (N,) index in sim_players.METHODS


_TYPES = ("DisputeOpened", "DisputeResolved", "ChipsPurchased", "HandStarted", "BetPlaced",
          "CardsDealt", "PlayerDecision", "CommunityRevealed", "DealerRevealed",
          "PayoutRecorded", "HandEnded", "HandVoided")
_TYPE_OF_KIND = {K_CHIPS: 2, K_START: 3, K_BET: 4, K_COMM: 5, K_SEAT: 5, K_DEALER: 5,
                 K_DEC: 6, K_FLOP: 7, K_TURN: 7, K_DREV: 8, K_PAY: 9, K_END: 10, K_VOID: 11}
_TYPE_M = lookup([b'{"type":"%s"' % t.encode() for t in _TYPES])
_TYPE_CODE = np.array([_TYPE_OF_KIND.get(k, 0) for k in range(14)])
_SPOT_M = lookup(SPOTS)
_STREET_M = lookup(STREETS)
_OUTCOME_M = lookup([b"lose", b"push", b"win"])  # by code + 1
_ACTION_M = lookup([b"check", b"raise", b"fold"])
_METHOD_M = lookup([m.encode() for m in METHODS])


BLOCK = 4096  # events rendered at a time: the byte matrix stays in cache


@dataclass(frozen=True)
class _Shared:
    """Per-hand pieces rendered once for a whole batch."""

    hand: U8  # hand_id JSON per row, and ``null`` after the last row
    start: U8
    void: U8
    board: U8
    dealer: U8


def render(
    table_id: str, ids: IdMaker, layout: Layout, rows_ev: IntArray, cols_ev: IntArray,
    seq: IntArray, ts: npt.NDArray[np.bytes_], r: Rows, c: Cells,
    disputes: dict[tuple[int, int], tuple[str, bytes, bytes]],
) -> bytes:
    """The JSON Lines text of the events (given by their rows and columns), in order,
    :data:`BLOCK` events at a time."""
    shared = _Shared(fixed([*r.hand, b"null"]), fixed(r.start), fixed(r.void), cards(r.board),
                     cards(r.dealer))
    mid = b'","schema_version":1,"table_id":' + json_bytes(table_id) + b',"hand_id":'
    return b"".join(
        _render(mid, ids, layout, rows_ev[lo:lo + BLOCK], cols_ev[lo:lo + BLOCK],
                seq[lo:lo + BLOCK], ts[lo:lo + BLOCK], shared, c, disputes)
        for lo in range(0, len(rows_ev), BLOCK))


def _render(
    mid: bytes, ids: IdMaker, layout: Layout, rows_ev: IntArray, cols_ev: IntArray,
    seq: IntArray, ts: npt.NDArray[np.bytes_], r: _Shared, c: Cells,
    disputes: dict[tuple[int, int], tuple[str, bytes, bytes]],
) -> bytes:
    n = len(rows_ev)
    kinds = layout.kind[cols_ev]
    seats = layout.seat[cols_ev]
    aux = layout.aux[cols_ev]
    cell = c.index[rows_ev, np.maximum(seats, 0)]

    type_code = _TYPE_CODE[kinds]
    hand = r.hand[np.where(kinds == K_CHIPS, len(r.hand) - 1, rows_ev)]
    blocks: list[tuple[IntArray, tuple[Field, ...]]] = []

    def add(kind_sel: IntArray, *fields: Field) -> None:
        if len(kind_sel):
            blocks.append((kind_sel, fields))

    order = np.argsort(kinds, kind="stable")
    bounds = np.searchsorted(kinds[order], np.arange(15))

    def where(kind: int) -> IntArray:
        return order[bounds[kind]:bounds[kind + 1]]

    sel = where(K_START)
    add(sel, r.start[rows_ev[sel]])
    sel = where(K_BET)
    cs = cell[sel]
    add(sel, b'{"seat":', digits(c.seat_no[cs]), b',"spot":"', _SPOT_M[aux[sel]],
        b'","amount":', digits(np.where(aux[sel] == 3, c.trips[cs], c.ante[cs])), b"}")
    sel = where(K_COMM)
    add(sel, b'{"target":"community","cards":[', r.board[rows_ev[sel]], b"]}")
    sel = where(K_SEAT)
    cs = cell[sel]
    add(sel, b'{"target":"seat","cards":[', cards(c.hole[cs]), b'],"seat":',
        digits(c.seat_no[cs]), b"}")
    sel = where(K_DEALER)
    add(sel, b'{"target":"dealer","cards":[', r.dealer[rows_ev[sel]], b"]}")
    sel = where(K_FLOP)
    add(sel, b'{"street":"flop","cards":[', r.board[rows_ev[sel], :14], b"]}")
    sel = where(K_TURN)
    add(sel, b'{"street":"turn_river","cards":[', r.board[rows_ev[sel], 15:], b"]}")
    sel = where(K_DEC)
    if len(sel):
        cs, st = cell[sel], aux[sel]
        act, auto = c.act[cs, st].astype(np.int64), c.auto[cs, st]
        raised = act > 0
        action = np.where(raised, 1, np.where(st == 2, 2, 0))
        extra = hstack(len(sel), b',"multiple":', digits(act), b',"amount":',
                       digits(act * c.ante[cs]))
        extra[~raised] = 0
        tail = np.where(auto[:, None], np.frombuffer(b',"auto":true', dtype=np.uint8), 0)
        add(sel, b'{"seat":', digits(c.seat_no[cs]), b',"street":"', _STREET_M[st],
            b'","action":"', _ACTION_M[action], b'"', extra, tail.astype(np.uint8), b"}")
    sel = where(K_DREV)
    add(sel, b'{"cards":[', r.dealer[rows_ev[sel]], b"]}")
    sel = where(K_PAY)
    cs, sp = cell[sel], aux[sel]
    add(sel, b'{"seat":', digits(c.seat_no[cs]), b',"spot":"', _SPOT_M[sp], b'","outcome":"',
        _OUTCOME_M[c.codes[cs, sp] + 1], b'","amount":', digits(c.amounts[cs, sp]), b"}")
    add(where(K_END), b"{}")
    sel = where(K_VOID)
    add(sel, r.void[rows_ev[sel]])
    sel = where(K_CHIPS)
    cs = cell[sel]
    add(sel, b'{"seat":', digits(c.seat_no[cs]), b',"amount":', digits(c.chips[cs]),
        b',"method":"', _METHOD_M[c.method[cs]], b'"}')
    sel = where(K_DISPUTE)
    if len(sel):
        found = [disputes[(int(rows_ev[i]), int(aux[i]))] for i in sel.tolist()]
        type_code[sel] = [0 if f[0] == "DisputeOpened" else 1 for f in found]
        hand_d = fixed([f[1] for f in found])
        if hand_d.shape[1] > hand.shape[1]:
            hand = np.pad(hand, ((0, 0), (0, hand_d.shape[1] - hand.shape[1])))
        hand[sel] = 0
        hand[sel, :hand_d.shape[1]] = hand_d
        add(sel, fixed([f[2] for f in found]))

    head: list[Field] = [
        _TYPE_M[type_code], b',"event_id":"' + ids.prefix,
        ids.tails(seq).view(np.uint8).reshape(n, 12), mid, hand,
        b',"seq":', digits(seq), b',"occurred_at":"', ts.view(np.uint8).reshape(n, 24),
        b'","payload":']
    start = width_of(head)
    width = start + max((width_of(f) for _, f in blocks), default=2) + 2
    out = np.zeros((n, width), dtype=np.uint8)
    out[:, -2:] = np.frombuffer(b"}\n", dtype=np.uint8)
    place(out, slice(None), 0, head)
    for sel, fields in blocks:
        place(out, sel, start, fields)
    return squeeze(out)
