"""The auditor's fast path: many finished hands judged at once, certified or not.

Most hands are clean. For them the auditor needs no per-wager objects, only the proof that
every payout is right: the seven-card hands of all players and dealers go through one
``evaluate7`` call, the wagers of each ruleset through one ``settle_batch`` call, and each
recorded payout is compared with the computed one. :func:`judge` answers only "every
payout of this hand is right" (and its rows) or "not certified"; a hand it does not
certify takes the reference (the fold and :func:`events.audit.settle.settle_hand`), which
finds and words what is wrong. The tests hold the two equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from events.audit.plan import Plan
from events.game.evaluation import category, evaluate7
from events.game.rulesets import Ruleset
from events.game.settlement import SPOTS, settle_batch


class Judged(NamedTuple):
    """What :func:`judge` found, per plan: ``ok`` (every payout right, one per wager) and,
    for the ok ones, each seat's row ``(seat, ante, play, trips, folded`` then the recorded
    ``(outcome code, amount)`` of ante, blind, play and trips, code 2 where no wager``)``,
    the seats' nets and hand categories (empty lists for the others)."""

    ok: list[bool]
    seats: list[list[tuple[int, ...]]]
    nets: list[dict[int, int]]
    categories: list[list[int]]


def judge(plans: Sequence[Plan], seat_rows: bool = False) -> Judged:
    """For each plain hand, whether every recorded payout is the engine's settlement: all
    the seven-card hands in one ``evaluate7`` call, the wagers of each ruleset in one
    ``settle_batch`` call, and the payouts matched to the wagers and compared in NumPy
    (exactly one per wager, none elsewhere). A plan not ok goes to the full path, which
    words the findings. ``seat_rows``: the seat rows and categories too (the warehouse's).
    The plans' packed numbers (:class:`~events.audit.plan.Plan`) are read into NumPy a
    whole batch at a time."""
    n_plans = len(plans)
    ok = [True] * n_plans
    empty = Judged(ok, [[] for _ in plans], [{} for _ in plans], [[] for _ in plans])
    live = [i for i, plan in enumerate(plans) if not plan.voided and plan.ruleset is not None]
    if not live:
        return empty
    judged = [plans[i] for i in live]
    n_seats = np.fromiter((p.n_seats for p in judged), np.int64, len(judged))
    n_pays = np.fromiter((p.n_pays for p in judged), np.int64, len(judged))
    table = np.frombuffer(b"".join([p.seats for p in judged]), np.int64).reshape(-1, 5)
    pays = np.frombuffer(b"".join([p.pays for p in judged]), np.int64).reshape(-1, 4)
    cards = np.frombuffer(b"".join([p.cards for p in judged]), np.int16).reshape(-1, 7)
    rulesets = [p.ruleset for p in judged]
    bad, code, amount, cats = judge_packed(n_seats, n_pays, table, pays, cards, rulesets)
    for i in np.flatnonzero(bad).tolist():
        ok[live[i]] = False
    return _details(plans, ok, empty, table, code, amount, cats, seat_rows)


def judge_packed(n_seats: np.ndarray, n_pays: np.ndarray, table: np.ndarray,
                 pays: np.ndarray, cards: np.ndarray,
                 rulesets: Sequence[Ruleset | None]) -> tuple[np.ndarray, ...]:
    """:func:`judge` over plans already packed as arrays (what a plan's bytes hold, a
    batch of plans one after the other: ``n_seats`` and ``n_pays`` per plan, ``table`` its
    seat rows, ``pays`` its payouts, ``cards`` its dealer's row then its seats'; each
    plan's ruleset). Returns (bad: per plan, not certified; each seat row's recorded
    outcome codes and amounts per spot, and its hand category)."""
    n_plans = len(n_seats)
    plan_index = np.arange(n_plans, dtype=np.int64)
    bad_plan = np.zeros(n_plans, dtype=bool)
    if not len(table):
        bad_plan[np.repeat(plan_index, n_pays)] = True  # payouts, and no wager anywhere
        return (bad_plan, np.zeros((0, 4), np.int64), np.zeros((0, 4), np.int64),
                np.zeros(0, np.int64))
    strength = evaluate7(cards)
    cat = category(strength)
    # each plan's rows: its dealer's, then its seats' (so a seat's row follows its dealer's)
    first_row = np.cumsum(n_seats + 1) - (n_seats + 1)
    d_idx = np.repeat(first_row, n_seats)
    p_idx = d_idx + 1 + np.arange(len(table)) - np.repeat(np.cumsum(n_seats) - n_seats,
                                                             n_seats)
    owners = np.repeat(plan_index, n_seats)
    code, amount = _recorded(table, owners, pays, np.repeat(plan_index, n_pays), bad_plan)
    by_id = {id(r): r for r in rulesets}
    keys = np.repeat(np.fromiter((id(r) for r in rulesets), np.int64, n_plans), n_seats)
    for key, ruleset in by_id.items():
        assert ruleset is not None
        sel = np.flatnonzero(keys == key)
        t = table[sel]
        res = settle_batch(ruleset, t[:, 1], t[:, 2], t[:, 3], t[:, 4].astype(bool),
                           strength[p_idx[sel]], cat[p_idx[sel]], strength[d_idx[sel]],
                           cat[d_idx[sel]])
        wrong = np.zeros(len(sel), dtype=bool)
        for k, spot in enumerate(SPOTS):
            codes, amounts = res[spot]
            wrong |= (code[sel, k] != codes) | (amount[sel, k] != amounts)
        bad_plan[owners[sel[wrong]]] = True
    return bad_plan, code, amount, cat[p_idx]


def _recorded(table: np.ndarray, owners: np.ndarray, pays: np.ndarray,
              pay_owner: np.ndarray, bad_plan: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's recorded (outcome code, amount) per spot, 2 and 0 where none; a plan
    with a payout of a seat without wagers or two payouts of one wager is marked in
    ``bad_plan``."""
    n = len(table)
    code = np.full((n, 4), 2, dtype=np.int64)
    amount = np.zeros((n, 4), dtype=np.int64)
    if len(pays):
        # a seat row's key: its plan and seat number; payouts find their seat row by it
        p_seat = pays[:, 0]
        width = int(max(table[:, 0].max(), p_seat.max())) + 1
        seat_keys = owners * width + table[:, 0]
        order = np.argsort(seat_keys, kind="stable")
        sorted_keys = seat_keys[order]
        pay_keys = pay_owner * width + p_seat
        at = np.minimum(np.searchsorted(sorted_keys, pay_keys), n - 1)
        found = sorted_keys[at] == pay_keys
        bad_plan[pay_owner[~found]] = True
        row = order[at[found]]
        slot = row * 4 + pays[found, 1]
        taken, counts = np.unique(slot, return_counts=True)
        bad_plan[owners[taken[counts > 1] // 4]] = True  # a wager paid twice
        code.reshape(-1)[slot] = pays[found, 2]
        amount.reshape(-1)[slot] = pays[found, 3]
    # (a wager never paid keeps code 2, a payout on a spot without a wager has another:
    # both differ from the settlement, which gives 2 exactly where there is no wager)
    return code, amount


def _details(plans: Sequence[Plan], ok: list[bool], out: Judged, table: np.ndarray,
             code: np.ndarray, amount: np.ndarray, cats: np.ndarray,
             seat_rows: bool) -> Judged:
    """Fill ``out`` with the nets of the ok plans and, with ``seat_rows``, their seat rows
    and categories."""
    nets = amount.sum(axis=1).tolist()
    seat_numbers = table[:, 0].tolist()
    full: list[list[int]] = []
    cat_list: list[int] = []
    if seat_rows:
        full = np.concatenate([table, np.stack([code, amount], axis=2).reshape(-1, 8)],
                              axis=1).tolist()
        cat_list = cats.tolist()
    k = 0
    for i, plan in enumerate(plans):
        if plan.voided or plan.ruleset is None:
            continue
        n = plan.n_seats
        if ok[i]:
            out.nets[i] = dict(zip(seat_numbers[k:k + n], nets[k:k + n], strict=True))
            if seat_rows:
                out.seats[i] = list(map(tuple, full[k:k + n]))
                out.categories[i] = cat_list[k:k + n]
        k += n
    return out
