"""The hand-audit page's step-by-step view: the table as it stood after each event.

The hand's events as the warehouse stores them (dicts with ``type``, ``seq``,
``occurred_at`` and a ``payload`` dict) go through the reference fold
(:mod:`events.replay.fold`), whose state after each step is drawn here: the page walks no
hand of its own. The audit verdict comes from the auditor (the warehouse's ``wagers`` and
``audit_findings``, and ``events.audit.evidence``).

>>> evs = [{"type": "HandStarted", "payload": {"dealer_id": "D1", "seats": [2]}},
...        {"type": "BetPlaced", "payload": {"seat": 2, "spot": "ante", "amount": 1000}},
...        {"type": "CardsDealt", "payload": {"target": "seat", "seat": 2, "cards": ["Qh", "3h"]}}]
>>> view = fold(evs, 3)
>>> view.seats[2].cards, view.seats[2].bets
(['Qh', '3h'], {'ante': 1000})
>>> describe(evs[1], "USD")
'Seat 2 bets $10.00 on the ante.'
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from dashboards.format import money
from events.contract.schemas import EVENT_TYPES, TABLE_EVENT_TYPES, Event, PlayerDecision
from events.describe import describe_payload
from events.game.rules import BET_SPOTS
from events.replay.fold import HandState
from events.replay.fold import fold as reference_fold

SUIT_GLYPHS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
SPOTS = (*BET_SPOTS, "play")  # as the table shows them: the bets, then the raise's play

CARD_CSS = """<style>
.uth-row{display:flex;flex-wrap:wrap;align-items:center;gap:4px;margin:2px 0 8px 0}
.uth-card{display:inline-flex;flex-direction:column;justify-content:space-between;
  width:46px;height:66px;box-sizing:border-box;border:1px solid #777;border-radius:6px;
  background:#fff;padding:3px 5px;font:700 16px/1 system-ui,sans-serif;color:#111;
  box-shadow:1px 2px 3px rgba(0,0,0,.25)}
.uth-card .pip{font-size:24px;align-self:center}
.uth-card .br{align-self:flex-end;transform:rotate(180deg)}
.uth-card.red{color:#c0392b}
.uth-card.ten>span:not(.pip){letter-spacing:-2px;font-size:14px}
.uth-card.down{opacity:.6;border:2px dashed #555}
.uth-card.back{background:repeating-linear-gradient(45deg,#1d4e89 0 5px,#2f6db5 5px 10px);
  border:2px solid #fff;outline:1px solid #1d4e89}
.uth-label{font:600 13px system-ui,sans-serif;min-width:92px;color:#555}
.uth-note{font:13px system-ui,sans-serif;color:#333;margin-left:8px}
</style>"""


@dataclass
class SeatView:
    seat: int
    cards: list[str] = field(default_factory=list)
    bets: dict[str, int] = field(default_factory=dict)
    decisions: list[str] = field(default_factory=list)
    payouts: dict[str, tuple[str, int]] = field(default_factory=dict)
    folded: bool = False


@dataclass
class TableView:
    community: list[str] = field(default_factory=list)
    revealed: int = 0
    dealer: list[str] = field(default_factory=list)
    dealer_revealed: bool = False
    seats: dict[int, SeatView] = field(default_factory=dict)
    dealer_id: str = ""
    status: str = "not started"
    disputes: list[str] = field(default_factory=list)


def _seat(view: TableView, payload: dict[str, Any]) -> SeatView:
    seat = int(payload.get("seat") or 0)
    return view.seats.setdefault(seat, SeatView(seat))


def fold(events: Sequence[dict[str, Any]], upto: int) -> TableView:
    """The table after the first ``upto`` events: the reference fold's state
    (:func:`events.replay.fold.fold`) after them, drawn. Rows that are not events of the
    contract (the warehouse validated its own at ingest) change nothing, as in the fold."""
    shown = [ev for ev in (_event(r, n) for n, r in enumerate(events[:upto])) if ev is not None]
    first = next((ev for ev in shown if ev.hand_id is not None), None)
    if first is None:
        return TableView()
    assert first.hand_id is not None
    state = reference_fold(shown, HandState.begin(first.hand_id, first.table_id))
    return _view(state, [ev for ev in shown if isinstance(ev, PlayerDecision)])


def _event(row: dict[str, Any], n: int) -> Event | None:
    """A stored event row (``type``, ``payload`` and what it has of the envelope) as the
    contract's Struct; ``None`` for a row that is not one."""
    cls = EVENT_TYPES.get(str(row.get("type")))
    if cls is None:
        return None
    envelope = {"event_id": row.get("event_id") or f"row-{n}", "schema_version": 1,
                "table_id": row.get("table_id") or "-", "seq": row.get("seq") or n,
                "occurred_at": row.get("occurred_at") or "",
                "hand_id": None if cls.__name__ in TABLE_EVENT_TYPES
                else row.get("hand_id") or "-"}
    try:
        ev: Event = msgspec.convert({**envelope, "type": cls.__name__,
                                     "payload": row.get("payload") or {}}, cls)
    except msgspec.ValidationError:
        return None
    return ev


def _view(state: HandState, decisions: Sequence[PlayerDecision]) -> TableView:
    """The fold's state as the page draws it; ``decisions`` are the hand's
    ``PlayerDecision`` events so far, listed as recorded (with ``auto`` where the table
    decided for the seat)."""
    status = ("not started" if not state.started and state.ended is None
              else "in play" if state.ended is None else "ended" if state.ended == "ended"
              else f"voided: {state.void_reason or ''}")
    view = TableView(community=list(state.community or state.revealed),
                     revealed=len(state.revealed),
                     dealer=list(state.dealer or state.dealer_revealed),
                     dealer_revealed=bool(state.dealer_revealed),
                     dealer_id=state.dealer_id or "", status=status)
    for s in (*state.seats_in_play, *state.seats, *state.hole, *(k[0] for k in state.payouts)):
        view.seats.setdefault(s, SeatView(s))
    for s, seat in state.seats.items():
        view.seats[s].bets = {spot: getattr(seat, spot) for spot in SPOTS if getattr(seat, spot)}
        view.seats[s].folded = seat.folded
    for s, cards in state.hole.items():
        view.seats[s].cards = list(cards)
    for (s, spot), paid in state.payouts.items():
        view.seats[s].payouts[spot] = (paid.outcome, paid.amount)
    for ev in decisions:
        p = ev.payload
        text = f"{p.street}: {p.action}" + (f" {p.multiple}x" if p.action == "raise" else "")
        view.seats.setdefault(p.seat, SeatView(p.seat)).decisions.append(
            text + (" (auto)" if p.auto else ""))
    view.disputes = [f"seat {d.seat} {'disputes' if d.adjustment is None else 'resolved'}: "
                     f"{d.text}" for d in state.disputes]
    return view


def describe(ev: dict[str, Any], currency: str) -> str:
    """One stored event (``type`` and ``payload``) as the evidence document says it, its
    amounts in the table's currency (:func:`events.describe.describe_payload`)."""
    kind = str(ev.get("type"))
    payload_type = _PAYLOADS.get(kind)
    if payload_type is None:
        return f"{kind}."
    try:
        payload = msgspec.convert(ev.get("payload") or {}, payload_type)
    except msgspec.ValidationError:
        return f"{kind}."  # (stored events were validated; a row of another shape is named)
    return describe_payload(kind, payload, currency)


# each event type's payload Struct, for reading the warehouse's payloads back
_PAYLOADS: dict[str, Any] = {
    name: next(f.type for f in msgspec.structs.fields(cls) if f.name == "payload")
    for name, cls in EVENT_TYPES.items()}


def card_html(card: str, state: str = "up") -> str:
    """One card as an HTML glyph; ``state`` is ``up``, ``down`` (dealt, not yet shown: drawn
    face up but dashed, so an auditor sees it) or ``back``."""
    if state == "back" or len(card) != 2:
        return '<span class="uth-card back" title="face down"></span>'
    rank, suit = card[0], card[1]
    rank_text = html.escape("10" if rank == "T" else rank)
    glyph = SUIT_GLYPHS.get(suit, "?")
    classes = ("uth-card" + (" red" if suit in "dh" else "") + (" ten" if rank == "T" else "")
               + (" down" if state == "down" else ""))
    title = html.escape(card) + (" (dealt face down)" if state == "down" else "")
    return (f'<span class="{classes}" title="{title}"><span>{rank_text}{glyph}</span>'
            f'<span class="pip">{glyph}</span><span class="br">{rank_text}{glyph}</span></span>')


def _row(label: str, cards: str, note: str = "") -> str:
    note_html = f'<span class="uth-note">{html.escape(note)}</span>' if note else ""
    return (f'<div class="uth-row"><span class="uth-label">{html.escape(label)}</span>'
            f"{cards}{note_html}</div>")


def table_html(view: TableView, currency: str) -> str:
    """The table after a step: board, dealer and every seat, cards drawn as cards."""
    board = "".join(card_html(c, "up" if i < view.revealed else "down")
                    for i, c in enumerate(view.community))
    board += "".join(card_html("", "back") for _ in range(5 - len(view.community)))
    dealer = "".join(card_html(c, "up" if view.dealer_revealed else "down") for c in view.dealer)
    parts = [CARD_CSS, _row("Board", board), _row(f"Dealer {view.dealer_id}".strip(), dealer or
                                                   card_html("", "back") * 2)]
    for seat in sorted(view.seats.values(), key=lambda s: s.seat):
        cards = "".join(card_html(c) for c in seat.cards) or card_html("", "back") * 2
        bets = ", ".join(f"{spot} {money(seat.bets[spot], currency)}"
                         for spot in SPOTS if spot in seat.bets)
        paid = ", ".join(f"{spot} {out} {money(amount, currency)}"
                         for spot, (out, amount) in seat.payouts.items())
        notes = [n for n in (bets, "; ".join(seat.decisions), "folded" if seat.folded else "",
                             f"settled: {paid}" if paid else "") if n]
        parts.append(_row(f"Seat {seat.seat}", cards, " · ".join(notes)))
    return "\n".join(parts)
