"""The warehouse rows of plain hands as columns (the auditor's ``columns`` mode).

A plain hand (:func:`events.replay_fast.fast_plan`) whose every payout the judge found
right needs no settlement objects: its ``hands`` row comes from its ``HandStarted`` and
``HandEnded``, and each ``wagers`` row from the plan's recorded payout, which is then also
the correct one. The rows are those :func:`events.audit_records.hand_record` and
:func:`~events.audit_records.wager_records` give for the same hand (the tests compare
them), minus the gaming day, which the warehouse computes; times stay contract text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.replay_fast import Plan
from events.replay_state import TableContext
from events.settlement import OUTCOME_NAMES, SPOTS

HAND_COLUMNS = ("hand_id", "table_id", "ruleset", "currency", "dealer_id", "seats",
                "seat_count", "started_at", "ended_at", "status", "dealing_order", "shoe_id")
WAGER_COLUMNS = ("hand_id", "table_id", "dealer_id", "ruleset", "seat", "spot", "amount",
                 "recorded_outcome", "recorded_result", "correct_outcome", "correct_result",
                 "player_category")


class RowColumns:
    """Column lists of ``hands`` and ``wagers`` rows, a hand at a time; a hand can be
    taken back (:meth:`drop`) when a late event sends it through the full path."""

    def __init__(self) -> None:
        self.hands: dict[str, list[Any]] = {c: [] for c in HAND_COLUMNS}
        self.wagers: dict[str, list[Any]] = {c: [] for c in WAGER_COLUMNS}
        self.dropped: set[str] = set()

    def __len__(self) -> int:
        return len(self.hands["hand_id"])

    def add(self, hand_id: str, table: TableContext, plan: Plan,
            seats: Sequence[Sequence[int]], categories: Sequence[int]) -> None:
        """The rows of a plain hand the judge found right: ``seats`` and ``categories``
        as :class:`events.audit_batch.Judged` gives them."""
        first = plan.first
        assert first is not None
        p = first.payload
        ruleset, dealer_id, table_id = table.ruleset_name, p.dealer_id, first.table_id
        h = self.hands
        for name, value in (
                ("hand_id", hand_id), ("table_id", table_id), ("ruleset", ruleset),
                ("currency", table.currency), ("dealer_id", dealer_id),
                ("seats", ",".join(map(str, p.seats))), ("seat_count", len(p.seats)),
                ("started_at", first.occurred_at), ("ended_at", plan.ended_at),
                ("status", "settled"), ("dealing_order", plan.dealing_order),
                ("shoe_id", p.shoe_id)):
            h[name].append(value)
        (w_hand, w_table, w_dealer, w_ruleset, w_seat, w_spot, w_amount, w_rec_out, w_rec,
         w_cor_out, w_cor, w_cat) = (self.wagers[c] for c in WAGER_COLUMNS)
        names = OUTCOME_NAMES
        for seat_plan, cat in sorted(zip(seats, categories, strict=True)):
            seat, ante, play, trips = seat_plan[:4]
            for k, stake in enumerate((ante, ante, play, trips)):
                if not stake:
                    continue
                outcome = names[seat_plan[5 + 2 * k]]
                amount = seat_plan[6 + 2 * k]
                w_hand.append(hand_id)
                w_table.append(table_id)
                w_dealer.append(dealer_id)
                w_ruleset.append(ruleset)
                w_seat.append(seat)
                w_spot.append(SPOTS[k])
                w_amount.append(stake)
                w_rec_out.append(outcome)
                w_rec.append(amount)
                w_cor_out.append(outcome)  # the judge found the recorded payout right
                w_cor.append(amount)
                w_cat.append(cat)

    def drop(self, hand_id: str) -> None:
        self.dropped.add(hand_id)

    def kept(self) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
        """The hand and wager columns without the dropped hands."""
        if not self.dropped:
            return self.hands, self.wagers
        return _without(self.hands, self.dropped), _without(self.wagers, self.dropped)


def _without(columns: dict[str, list[Any]], hands: set[str]) -> dict[str, list[Any]]:
    keep = [i for i, h in enumerate(columns["hand_id"]) if h not in hands]
    return {name: [values[i] for i in keep] for name, values in columns.items()}
