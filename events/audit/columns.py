"""The warehouse rows of plain hands as columns (the auditor's ``columns`` mode).

A plain hand (:func:`events.audit.plan.fast_plan`) whose every payout the judge found
right needs no settlement objects: its ``hands`` row comes from its ``HandStarted`` and
``HandEnded``, and each ``wagers`` row from the plan's recorded payout, which is then also
the correct one. The rows are those :func:`events.audit.records.hand_record` and
:func:`~events.audit.records.wager_records` give for the same hand (the tests compare
them), minus the gaming day, which the warehouse computes; times stay contract text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from events.audit.plan import Plan
from events.game.settlement import OUTCOME_NAMES, SPOTS
from events.replay.state import TableContext

HAND_COLUMNS = ("hand_id", "table_id", "ruleset", "currency", "dealer_id", "seats",
                "seat_count", "started_at", "ended_at", "status", "dealing_order", "shoe_id")
WAGER_COLUMNS = ("hand_id", "table_id", "dealer_id", "ruleset", "seat", "spot", "amount",
                 "recorded_outcome", "recorded_result", "correct_outcome", "correct_result",
                 "player_category")


class RowColumns:
    """The ``hands`` and ``wagers`` rows of plain hands, a hand at a time; a hand can be
    taken back (:meth:`drop`) when a late event sends it through the full path. A hand's
    row and seat rows are kept as they come; the columns are built once, by :meth:`kept`
    (a wager row for each staked spot of each seat, in array operations)."""

    def __init__(self) -> None:
        self.hand_rows: list[tuple[Any, ...]] = []  # by HAND_COLUMNS
        self.wager_keys: list[tuple[str, str, str, str | None]] = []  # hand, table, dealer, ruleset
        self.seat_rows: list[Sequence[int]] = []  # Judged's seat rows, by hand then seat
        self.seat_hand: list[int] = []  # each seat row's index in ``wager_keys``
        self.seat_categories: list[int] = []
        self.dropped: set[str] = set()

    def __len__(self) -> int:
        return len(self.hand_rows)

    def add(self, hand_id: str, table: TableContext, plan: Plan,
            seats: Sequence[Sequence[int]], categories: Sequence[int]) -> None:
        """The rows of a plain hand the judge found right: ``seats`` and ``categories``
        as :class:`events.audit.judge.Judged` gives them."""
        first = plan.first
        assert first is not None
        p = first.payload
        ruleset, dealer_id, table_id = table.ruleset_name, p.dealer_id, first.table_id
        self.hand_rows.append((
            hand_id, table_id, ruleset, table.currency, dealer_id,
            ",".join(map(str, p.seats)), len(p.seats), first.occurred_at, plan.ended_at,
            "settled", plan.dealing_order, p.shoe_id))
        index = len(self.wager_keys)
        self.wager_keys.append((hand_id, table_id, dealer_id, ruleset))
        ordered = sorted(zip(seats, categories, strict=True))
        self.seat_rows += [row for row, _ in ordered]
        self.seat_categories += [cat for _, cat in ordered]
        self.seat_hand += [index] * len(ordered)

    def drop(self, hand_id: str) -> None:
        self.dropped.add(hand_id)

    def kept(self) -> tuple[dict[str, list[Any]], dict[str, np.ndarray]]:
        """The hand columns (lists) and wager columns (arrays) without the dropped hands."""
        hands = dict(zip(HAND_COLUMNS, map(list, zip(*self.hand_rows, strict=True)),
                         strict=True)) if self.hand_rows else {c: [] for c in HAND_COLUMNS}
        wagers = self._wagers()
        if not self.dropped:
            return hands, wagers
        keep = [i for i, h in enumerate(hands["hand_id"]) if h not in self.dropped]
        kept_wagers = ~np.isin(wagers["hand_id"], np.asarray(list(self.dropped), object))
        return ({name: [values[i] for i in keep] for name, values in hands.items()},
                {name: values[kept_wagers] for name, values in wagers.items()})

    def _wagers(self) -> dict[str, np.ndarray]:
        """A row for each staked spot of each seat row (:func:`staked_wagers`)."""
        if not self.seat_rows:
            return {c: np.zeros(0, object if c in _TEXT else np.int64) for c in WAGER_COLUMNS}
        rows = np.asarray(self.seat_rows, np.int64)
        row, spots, amounts, outcomes, results = staked_wagers(rows)
        keys = np.asarray(self.seat_hand, np.int64)[row]
        hand_ids, table_ids, dealer_ids, rulesets = (
            np.asarray(column, object)[keys] for column in zip(*self.wager_keys, strict=True))
        return {
            "hand_id": hand_ids, "table_id": table_ids, "dealer_id": dealer_ids,
            "ruleset": rulesets, "seat": rows[row, 0], "spot": spots, "amount": amounts,
            "recorded_outcome": outcomes, "recorded_result": results,
            "correct_outcome": outcomes, "correct_result": results,
            "player_category": np.asarray(self.seat_categories, np.int64)[row],
        }


def staked_wagers(rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """The wagers of judged seat rows (:class:`events.audit.judge.Judged`'s: seat, ante,
    play, trips, folded, then (outcome code, result) of ante, blind, play, trips): one for
    each staked spot, in seat row order then spot order, as (its seat row, spot, amount,
    outcome, result). The recorded outcome and result, which the judge found right, are
    also the correct ones."""
    count = len(rows)
    stakes = rows[:, [1, 1, 2, 3]].ravel()
    staked = stakes != 0
    results = rows[:, [6, 8, 10, 12]].ravel()[staked]
    outcomes = _OUTCOMES[rows[:, [5, 7, 9, 11]].ravel()[staked] - _LOWEST_CODE]
    row = np.repeat(np.arange(count), 4)[staked]
    spots = np.tile(np.asarray(SPOTS, object), count)[staked]
    return row, spots, stakes[staked], outcomes, results


_TEXT = {"hand_id", "table_id", "dealer_id", "ruleset", "spot", "recorded_outcome",
         "correct_outcome"}
_LOWEST_CODE = min(OUTCOME_NAMES)
# each outcome code's name, at the code less the lowest (a code without one: None)
_OUTCOMES = np.asarray([OUTCOME_NAMES.get(code) for code in range(
    _LOWEST_CODE, max(OUTCOME_NAMES) + 1)], object)
