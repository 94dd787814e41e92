"""What the auditor reports: findings, the warehouse rows of hands and wagers, disputes.

A :class:`Finding` names one thing wrong on the floor: the hand, table and dealer, the seat
and wager spot, the expected and recorded amounts (cents) and a sentence for a supervisor.
Its ``finding_id`` is a stable hash of what it says (kind, table, hand, seat, spot, detail),
so the same finding found twice (a restart re-reading events) has the same id and a store
keyed by it holds it once.

>>> f = Finding("mispay", "H1", "T1", "D7", 3, "blind", 1500, 1000,
...             "Seat 3's blind was paid 10.00; a flush pays 3:2, 15.00.")
>>> f.finding_id == Finding(**{**f.as_dict(), "position": 12}).finding_id
True
>>> len(f.finding_id)
20
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, fields
from datetime import date, datetime
from typing import Any

from events.localtime import gaming_day_of

# Kinds of findings, the most serious first (the human report sorts by this order).
MISPAY = "mispay"
MISSING_PAYOUT = "missing_payout"
UNEXPECTED_PAYOUT = "unexpected_payout"
ILLEGAL_ACTION = "illegal_action"
DUPLICATE_CARD = "duplicate_card"
BET_OUT_OF_LIMITS = "bet_out_of_limits"
REVEAL_MISMATCH = "reveal_mismatch"
ADJUSTMENT_MISMATCH = "adjustment_mismatch"
SEQUENCE_GAP = "sequence_gap"
SEQUENCE_CONFLICT = "sequence_conflict"
INCOMPLETE_HAND = "incomplete_hand"
OVERLONG_HAND = "overlong_hand"
UNKNOWN_RULESET = "unknown_ruleset"

FINDING_KINDS: tuple[str, ...] = (
    MISPAY, MISSING_PAYOUT, UNEXPECTED_PAYOUT, ILLEGAL_ACTION, DUPLICATE_CARD,
    BET_OUT_OF_LIMITS, REVEAL_MISMATCH, ADJUSTMENT_MISMATCH, SEQUENCE_GAP, SEQUENCE_CONFLICT,
    INCOMPLETE_HAND, OVERLONG_HAND, UNKNOWN_RULESET,
)
KIND_ORDER = {k: i for i, k in enumerate(FINDING_KINDS)}

GAMING_DAY_START_HOUR = 6  # a gaming day runs from 06:00 to 06:00 (table time, UTC)

# The fields of a finding as `uth audit --json` writes them, in this order.
JSON_FIELDS = ("kind", "hand_id", "table_id", "dealer_id", "seat", "spot", "expected",
               "recorded", "detail")


def finding_id(kind: str, table_id: str | None, hand_id: str | None, seat: int | None,
               spot: str | None, detail: str) -> str:
    """The stable id of a finding: 20 hex digits of SHA-256 over what it says."""
    text = "\x1f".join((kind, table_id or "", hand_id or "", "" if seat is None else str(seat),
                        spot or "", detail))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class Finding:
    """One thing wrong, as the ``audit_findings`` warehouse table holds it.

    ``expected``/``recorded`` are cents (``None`` when there is nothing to compare, e.g.
    ``recorded`` of a missing payout). ``event_id``, ``occurred_at`` and ``position`` point
    at the event that showed it, when known.
    """

    kind: str
    hand_id: str | None
    table_id: str | None
    dealer_id: str | None
    seat: int | None
    spot: str | None
    expected: int | None
    recorded: int | None
    detail: str
    event_id: str | None = None
    occurred_at: str | None = None
    position: str | int | None = None

    @property
    def finding_id(self) -> str:
        return finding_id(self.kind, self.table_id, self.hand_id, self.seat, self.spot,
                          self.detail)

    @property
    def gaming_day(self) -> date | None:
        return gaming_day(self.occurred_at) if self.occurred_at else None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> dict[str, Any]:
        """The JSON Lines object of ``uth audit --json`` (plus id, event and position)."""
        out = {name: getattr(self, name) for name in JSON_FIELDS}
        out["finding_id"] = self.finding_id
        out["event_id"] = self.event_id
        out["occurred_at"] = self.occurred_at
        out["position"] = self.position
        return out

    def sort_key(self) -> tuple[Any, ...]:
        return (self.table_id or "", self.occurred_at or "", self.hand_id or "",
                self.seat or 0, KIND_ORDER.get(self.kind, 99), self.spot or "")


def sequence_gap(table_id: str, expect: int, first: int, event_id: str | None,
                 occurred_at: str | None, position: Any = None) -> Finding:
    """The finding of a table whose ``seq`` went from before ``expect`` to ``first``: the
    one wording of a gap (the auditor's sequencer and the warehouse's tables use it)."""
    missing = first - expect
    span = f"seq {expect}" if missing == 1 else f"seq {expect} to {first - 1}"
    return Finding(SEQUENCE_GAP, None, table_id, None, None, None, None, None,
                   f"Table {table_id}: {span} never arrived ({missing} event"
                   f"{'' if missing == 1 else 's'} lost before seq {first}).", event_id,
                   occurred_at, position)


def sequence_conflict(table_id: str, seq: int, event_id: str, prior_id: str,
                      hand_id: str | None, occurred_at: str | None, position: Any = None,
                      *, same_id: bool = False) -> Finding:
    """The finding of an event whose table already had ``seq`` from event ``prior_id``
    (``same_id``: the same event again with other contents): the one wording of a
    conflict."""
    detail = (f"Event {event_id} (table {table_id} seq {seq}) arrived twice with different "
              "contents; the first copy is kept." if same_id else
              f"Table {table_id} seq {seq}: event {event_id} conflicts with event "
              f"{prior_id} received earlier with the same seq; the first is kept.")
    return Finding(SEQUENCE_CONFLICT, hand_id, table_id, None, None, None, None, None, detail,
                   event_id, occurred_at, position)


def parse_time(text: str) -> datetime:
    """An RFC 3339 UTC time of the contract as a naive UTC datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)


def gaming_day(occurred_at: str, start_hour: int = GAMING_DAY_START_HOUR) -> date:
    """The gaming day of a table time: a day starts at ``start_hour`` (06:00) UTC."""
    return gaming_day_of(parse_time(occurred_at), start_hour * 60)


@dataclass(frozen=True)
class HandRecord:
    """One row of the warehouse ``hands`` table."""

    hand_id: str
    table_id: str
    ruleset: str | None
    currency: str | None
    dealer_id: str | None
    seats: str
    seat_count: int
    started_at: datetime | None
    ended_at: datetime | None
    gaming_day: date | None
    status: str  # settled | voided | incomplete
    dealing_order: str | None
    shoe_id: str | None


@dataclass(frozen=True)
class WagerRecord:
    """One row of the warehouse ``wagers`` table (one per wager placed or paid).

    ``recorded_result`` is what the table settled (``PayoutRecorded.amount``, plus any
    second payout of the same wager and the wager's share of a resolved dispute's
    adjustment); ``correct_*`` is the engine's settlement (``None`` when the hand cannot be
    settled: incomplete, or its cards or rules unknown).
    """

    hand_id: str
    table_id: str
    gaming_day: date | None
    dealer_id: str | None
    ruleset: str | None
    seat: int
    spot: str
    amount: int
    recorded_outcome: str | None
    recorded_result: int | None
    correct_outcome: str | None
    correct_result: int | None
    player_category: int | None


@dataclass(frozen=True)
class DisputeRecord:
    """A dispute and the auditor's verdict on it (``status`` open or resolved)."""

    hand_id: str
    table_id: str
    seat: int
    claim: str
    status: str
    expected_net: int | None
    recorded_net: int | None
    verdict: str
    resolution: str | None = None
    adjustment: int | None = None
    event_id: str | None = None
    occurred_at: str | None = None

    @property
    def dispute_id(self) -> str:
        return finding_id("dispute", self.table_id, self.hand_id, self.seat, self.status,
                          self.claim)

    def to_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["kind"] = "dispute"
        out["dispute_id"] = self.dispute_id
        return out
