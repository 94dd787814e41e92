"""What the auditor keeps of a hand whose every payout was right: enough for a late event.

A dispute may arrive long after its hand was settled. For the rare hand with a finding the
auditor keeps its events (and folds them again); for a clean hand it keeps only a
:class:`CleanHand`: its table, dealer and each seat's net, which is both what was recorded
and what was correct. A late dispute gets the same verdict, and a late game event the same
finding, as the full path would give (a test runs both).
"""

from __future__ import annotations

from typing import NamedTuple

from events.audit.records import adjustment_mismatch, net_sentence, no_wager_sentence
from events.contract.schemas import (
    BetPlaced,
    CardsDealt,
    CommunityRevealed,
    DealerRevealed,
    DisputeOpened,
    DisputeResolved,
    Event,
    HandEnded,
    HandStarted,
    HandVoided,
    PayoutRecorded,
    PlayerDecision,
)
from events.findings import ILLEGAL_ACTION, DisputeRecord, Finding
from events.replay.state import DisputeNote

GAME_EVENTS = (HandStarted, BetPlaced, CardsDealt, CommunityRevealed, PlayerDecision,
               DealerRevealed, PayoutRecorded, HandEnded, HandVoided)


class CleanHand(NamedTuple):
    """A settled hand (it ended, not voided) whose payouts were all right. A tuple of
    strings and numbers: the garbage collector soon stops walking it."""

    table_id: str
    dealer_id: str | None
    nets: dict[int, int]  # seat -> its net on the hand (recorded, and correct)
    notes: tuple[DisputeNote, ...] = ()


def _verdict(hand_id: str, clean: CleanHand, seat: int) -> tuple[int | None, int, str]:
    if seat not in clean.nets:
        return None, 0, no_wager_sentence(hand_id, seat)
    net = clean.nets[seat]
    return net, net, net_sentence(seat, net, net, [])


def _record(hand_id: str, clean: CleanHand, note: DisputeNote,
            resolution: DisputeNote | None) -> DisputeRecord:
    correct, recorded, sentence = _verdict(hand_id, clean, note.seat)
    return DisputeRecord(
        hand_id, clean.table_id, note.seat, note.text,
        "resolved" if resolution is not None else "open", correct, recorded, sentence,
        resolution.text if resolution is not None else None,
        resolution.adjustment if resolution is not None else None,
        note.event_id, note.occurred_at)


def opening(notes: tuple[DisputeNote, ...], resolution: DisputeNote) -> DisputeNote | None:
    """The oldest dispute of the seat still open before ``resolution``."""
    open_notes: list[DisputeNote] = []
    for n in notes:
        if n.seat != resolution.seat:
            continue
        if n.adjustment is None:
            open_notes.append(n)
        elif open_notes:
            open_notes.pop(0)
    return open_notes[0] if open_notes else None


def late_event(hand_id: str, clean: CleanHand, ev: Event) -> tuple[
        CleanHand, list[Finding], list[tuple[DisputeRecord, str]]]:
    """The hand after a late event, the findings and the dispute records (with the id of
    the dispute they answer) it gives."""
    if isinstance(ev, DisputeOpened):
        note = DisputeNote(ev.payload.seat, ev.payload.claim, None, ev.event_id,
                           ev.occurred_at)
        return (clean._replace(notes=(*clean.notes, note)), [],
                [(_record(hand_id, clean, note, None), note.event_id)])
    if isinstance(ev, DisputeResolved):
        p = ev.payload
        note = DisputeNote(p.seat, p.resolution, p.adjustment, ev.event_id, ev.occurred_at)
        total = sum(n.adjustment or 0 for n in (*clean.notes, note) if n.seat == p.seat
                    and n.adjustment is not None)
        net = clean.nets.get(p.seat, 0)
        found = adjustment_mismatch(hand_id, clean.table_id, clean.dealer_id, note, total, net,
                                    net)
        opened = opening(clean.notes, note)
        record = _record(hand_id, clean, opened or note, note)
        return (clean._replace(notes=(*clean.notes, note)), [found] if found else [],
                [(record, opened.event_id if opened else note.event_id)])
    if isinstance(ev, GAME_EVENTS):
        return clean, [Finding(
            ILLEGAL_ACTION, hand_id, clean.table_id, clean.dealer_id, None, None, None, None,
            f"{type(ev).__name__} arrived after the hand ended; no game event may follow the "
            "end of a hand.", ev.event_id, ev.occurred_at)], []
    return clean, [], []
