"""From settled hands to the warehouse rows (``hands``, ``wagers``) and dispute verdicts.

Accounting of a resolved dispute: its ``adjustment`` (paid to + or taken from - the player)
is money the table moved, so it enters the seat's ``recorded_result``. It is laid on the
seat's mispaid wagers first (each up to what it was short or over), any rest on the seat's
first wager, so that a correcting adjustment makes the wager rows read right and house
win = minus the sum of recorded results stays true.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from events.audit.settle import HandSettlement, WagerCheck
from events.findings import (
    ADJUSTMENT_MISMATCH,
    DisputeRecord,
    Finding,
    HandRecord,
    WagerRecord,
    gaming_day,
    parse_time,
)
from events.game.settlement import SPOTS
from events.money import money, outcome_words
from events.replay.fold import DisputeNote


def seat_nets(settlement: HandSettlement) -> dict[int, tuple[int | None, int]]:
    """Per seat: (correct net, or None when unknown; recorded net before adjustments).

    Payouts on spots without a wager count as recorded, with a correct value of 0."""
    out: dict[int, tuple[int | None, int]] = {}
    for seat in settlement.seats:
        correct: int | None = 0
        for c in seat.checks:
            if c.correct_amount is None or correct is None:
                correct = None
            else:
                correct += c.correct_amount
        out[seat.seat] = (correct, 0)
    for (seat_no, _spot), paid in settlement.state.payouts.items():
        correct, recorded = out.get(seat_no, (0, 0))
        out[seat_no] = (correct, recorded + paid.amount + paid.extra)
    return out


def _mismatches(checks: Iterable[WagerCheck]) -> list[str]:
    return [f"{c.spot}: should {outcome_words(c.correct_outcome, c.correct_amount)}, recorded "
            f"{outcome_words(c.paid.outcome, c.paid.amount) if c.paid else 'nothing'}"
            for c in checks if not c.ok]


def verdict(settlement: HandSettlement, seat: int) -> tuple[int | None, int, str]:
    """The computed verdict on a seat of a hand: (correct net, recorded net, sentence)."""
    nets = seat_nets(settlement)
    if seat not in nets:
        return None, 0, no_wager_sentence(settlement.state.hand_id, seat)
    correct, recorded = nets[seat]
    if settlement.status == "incomplete" or correct is None:
        return correct, recorded, (f"Seat {seat}'s wagers cannot be settled from the events "
                                   "received (the hand is incomplete or its cards or rules are "
                                   "unknown).")
    checks = next((s.checks for s in settlement.seats if s.seat == seat), ())
    return correct, recorded, net_sentence(seat, correct, recorded, _mismatches(checks))


def no_wager_sentence(hand_id: str, seat: int) -> str:
    return (f"Seat {seat} had no wager and no payout in hand {hand_id}; there is nothing to "
            "settle.")


def net_sentence(seat: int, correct: int, recorded: int, mismatches: list[str]) -> str:
    """The verdict on a seat whose correct net is known."""
    diff = correct - recorded
    if diff == 0:
        return f"Seat {seat} was settled correctly: net {_signed(correct)} on the hand."
    detail = "; ".join(mismatches)
    who = "underpaid" if diff > 0 else "overpaid"
    return (f"Seat {seat} was {who} by {money(abs(diff))}: the correct net is "
            f"{_signed(correct)}, the table recorded {_signed(recorded)}"
            + (f" ({detail})." if detail else "."))


def adjustment_mismatch(hand_id: str, table_id: str, dealer_id: str | None,
                        note: DisputeNote, total: int, correct: int,
                        recorded: int) -> Finding | None:
    """The finding when a seat's adjustments so far (``total``) do not bring its recorded
    net to the correct one; ``None`` when they do."""
    need = correct - recorded
    if total == need:
        return None
    return Finding(
        ADJUSTMENT_MISMATCH, hand_id, table_id, dealer_id, note.seat, None, need, total,
        f"Seat {note.seat}'s dispute was resolved with adjustments of {_signed(total)}; the "
        f"correction due is {_signed(need)} (correct net {_signed(correct)}, recorded "
        f"{_signed(recorded)}).", note.event_id, note.occurred_at)


def _signed(cents: int) -> str:
    return money(cents, sign=True)


def dispute_record(settlement: HandSettlement, note: DisputeNote,
                   resolution: DisputeNote | None = None) -> DisputeRecord:
    """The verdict on a dispute (``note`` is its DisputeOpened)."""
    correct, recorded, sentence = verdict(settlement, note.seat)
    state = settlement.state
    return DisputeRecord(
        state.hand_id, state.table_id, note.seat, note.text,
        "resolved" if resolution is not None else "open", correct, recorded, sentence,
        resolution.text if resolution is not None else None,
        resolution.adjustment if resolution is not None else None,
        note.event_id, note.occurred_at)


def disputes_of(settlement: HandSettlement) -> list[DisputeRecord]:
    """Every dispute of the hand with its verdict; a DisputeResolved closes the oldest
    open dispute of its seat."""
    out: list[DisputeRecord] = []
    open_notes: list[DisputeNote] = []
    for note in settlement.state.disputes:
        if note.adjustment is None:
            open_notes.append(note)
            continue
        opened = next((n for n in open_notes if n.seat == note.seat), None)
        if opened is not None:
            open_notes.remove(opened)
            out.append(dispute_record(settlement, opened, note))
        else:  # resolved without an opening event: record it under its resolution
            out.append(dispute_record(settlement, note, note))
    out.extend(dispute_record(settlement, n) for n in open_notes)
    return out


def adjustment_findings(settlement: HandSettlement,
                        notes: Iterable[DisputeNote] | None = None) -> list[Finding]:
    """An ``adjustment_mismatch`` for each DisputeResolved (among ``notes``, default all)
    whose seat's adjustments so far do not bring its net to the correct one."""
    nets = seat_nets(settlement)
    state = settlement.state
    wanted = set(map(id, notes)) if notes is not None else None
    total: dict[int, int] = {}
    out: list[Finding] = []
    for note in state.disputes:
        if note.adjustment is None:
            continue
        total[note.seat] = total.get(note.seat, 0) + note.adjustment
        if wanted is not None and id(note) not in wanted:
            continue
        correct, recorded = nets.get(note.seat, (0, 0))
        if correct is None or settlement.status == "incomplete":
            continue
        found = adjustment_mismatch(state.hand_id, state.table_id, state.dealer_id, note,
                                    total[note.seat], correct, recorded)
        if found is not None:
            out.append(found)
    return out


def hand_record(settlement: HandSettlement, day_start: int = 6) -> HandRecord:
    state = settlement.state
    table = state.table
    when = state.started_at or state.ended_at
    return HandRecord(
        state.hand_id, state.table_id, table.ruleset_name if table else None,
        table.currency if table else None, state.dealer_id,
        ",".join(str(s) for s in state.seats_in_play), len(state.seats_in_play),
        parse_time(state.started_at) if state.started_at else None,
        parse_time(state.ended_at) if state.ended_at else None,
        gaming_day(when, day_start) if when else None, settlement.status,
        state.dealing_order, state.shoe_id)


@dataclass
class _Row:
    stake: int
    recorded_outcome: str | None
    recorded: int | None
    correct_outcome: str | None
    correct: int | None


def wager_records(settlement: HandSettlement, day_start: int = 6) -> list[WagerRecord]:
    """The ``wagers`` rows of a hand: one per wager placed, one per payout on a spot
    without a wager; resolved adjustments laid on as the module says."""
    state = settlement.state
    table = state.table
    ruleset = table.ruleset_name if table else None
    when = state.started_at or state.ended_at
    day = gaming_day(when, day_start) if when else None
    rows: dict[tuple[int, str], _Row] = {}
    cats: dict[int, int | None] = {}
    for seat in settlement.seats:
        cats[seat.seat] = seat.category
        for c in seat.checks:
            rec = c.paid.amount + c.paid.extra if c.paid else None
            rows[(c.seat, c.spot)] = _Row(c.stake, c.paid.outcome if c.paid else None, rec,
                                          c.correct_outcome, c.correct_amount)
    for (seat_no, spot), paid in state.payouts.items():
        if (seat_no, spot) not in rows:
            rows[(seat_no, spot)] = _Row(0, paid.outcome, paid.amount + paid.extra, None, 0)
    adjust: dict[int, int] = {}
    for note in state.disputes:
        if note.adjustment:
            adjust[note.seat] = adjust.get(note.seat, 0) + note.adjustment
    for seat_no, left in adjust.items():
        keys = sorted((k for k in rows if k[0] == seat_no), key=lambda k: SPOTS.index(k[1]))
        for key in keys:
            row = rows[key]
            if row.correct is None:
                continue
            short = row.correct - (row.recorded or 0)
            if short and (short > 0) == (left > 0):
                take = min(abs(short), abs(left)) * (1 if left > 0 else -1)
                row.recorded = (row.recorded or 0) + take
                left -= take
            if not left:
                break
        if left:
            if keys:
                rows[keys[0]].recorded = (rows[keys[0]].recorded or 0) + left
            else:
                rows[(seat_no, "ante")] = _Row(0, None, left, None, 0)
    return [
        WagerRecord(state.hand_id, state.table_id, day, state.dealer_id, ruleset, seat_no,
                    spot, r.stake, r.recorded_outcome, r.recorded, r.correct_outcome,
                    r.correct, cats.get(seat_no))
        for (seat_no, spot), r in sorted(rows.items(),
                                         key=lambda kv: (kv[0][0], SPOTS.index(kv[0][1])))
    ]

