"""A hand as evidence: the replay step by step, the correct against the recorded
settlement per wager, and the verdict, as a JSON-able document and as text.

``uth replay HAND --json`` writes :func:`evidence`; ``uth replay HAND`` prints
:func:`render` of it; the dashboard's hand-audit page shows the same document. The events
themselves travel inside the document with their SHA-256, so an archived copy can be
checked against the log.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from events.audit.records import disputes_of, verdict
from events.audit.settle import HandSettlement, WagerCheck, reason, settle_hand
from events.contract.schemas import Event, TableOpened, encode_event
from events.describe import describe, glyphs
from events.findings import MISPAY, Finding
from events.localtime import stamp
from events.money import money, outcome_words
from events.replay.fold import TableContext, replay, visible

DOCUMENT = "uth-hand-evidence"
VERSION = 1




def _check(c: WagerCheck, s: HandSettlement, folded: bool, cat: int | None,
           cmp: int) -> dict[str, Any]:
    if c.correct_outcome is None:
        status = "unknown"
    elif c.paid is None:
        status = "correct" if s.status == "voided" else "missing"
    elif c.ok:
        status = "correct"
    elif c.paid.outcome == c.correct_outcome and c.paid.amount == c.correct_amount:
        status = "paid twice"
    else:
        status = "mispay"
    why = ("the hand was voided: every wager is returned" if s.status == "voided" else
           reason(s.state.ruleset, c.spot, c.correct_outcome, folded, cat, s.dealer_category,
                  cmp))
    return {
        "spot": c.spot, "stake": c.stake, "correct_outcome": c.correct_outcome,
        "correct_amount": c.correct_amount, "reason": why,
        "recorded_outcome": c.paid.outcome if c.paid else None,
        "recorded_amount": c.paid.amount + c.paid.extra if c.paid else None,
        "verdict": status,
    }


def _seats(s: HandSettlement) -> list[dict[str, Any]]:
    state = s.state
    out = []
    for r in s.seats:
        cmp = 0
        if r.strength is not None and s.dealer_strength is not None:
            cmp = (r.strength > s.dealer_strength) - (r.strength < s.dealer_strength)
        hole = list(state.hole.get(r.seat, ()))
        correct, recorded, sentence = verdict(s, r.seat)
        out.append({
            "seat": r.seat, "hole": hole, "hole_glyphs": glyphs(hole), "hand": r.name,
            "best_five": list(r.best_five), "category": r.category, "folded": r.folded,
            "raised": r.wagers.play_multiple and f"{r.wagers.play_multiple}x "
                      f"{r.wagers.raised_on}",
            "wagers": {"ante": r.wagers.ante, "blind": r.wagers.blind,
                       "trips": r.wagers.trips, "play": r.wagers.play},
            "settlement": [_check(c, s, r.folded, r.category, cmp) for c in r.checks],
            "correct_net": correct, "recorded_net": recorded, "verdict": sentence,
        })
    return out


def _verdict(s: HandSettlement | None, findings: Sequence[Finding], n: int) -> str:
    if s is None:
        return f"The hand is still in play after event {n}; nothing is settled yet."
    if s.status == "incomplete":
        return "The hand is incomplete: it never ended, so its payouts cannot be judged."
    if not findings:
        n = sum(len(r.checks) for r in s.seats)
        if s.status == "voided":
            return f"The hand was voided and all {n} wagers were returned correctly."
        return f"Every wager was settled correctly ({n} wagers)."
    mispays = [f for f in findings if f.kind == MISPAY and f.expected is not None
               and f.recorded is not None]
    net = sum((f.recorded or 0) - (f.expected or 0) for f in mispays)
    kinds: dict[str, int] = {}
    for f in findings:
        kinds[f.kind] = kinds.get(f.kind, 0) + 1
    listed = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in kinds.items())
    money_part = ""
    if net:
        money_part = (f"; the house {'overpaid' if net > 0 else 'underpaid'} "
                      f"{money(abs(net))} in total")
    return f"{len(findings)} finding{'s' if len(findings) != 1 else ''}: {listed}{money_part}."


def evidence(hand_events: Iterable[Event], table: TableContext | None = None,
             at: int | None = None) -> dict[str, Any]:
    """The evidence document of one hand: its events in order, optionally after the
    table's ``TableOpened`` (its rules and limits; not a step of the hand). ``at`` stops
    the replay after that many events of the hand."""
    events = list(hand_events)
    opened = [e for e in events if isinstance(e, TableOpened)]
    if opened and table is None:
        table = TableContext.opened(opened[-1])
    events = [e for e in events if not isinstance(e, TableOpened)]
    rep = replay(events, table)
    n = len(events) if at is None else max(0, min(at, len(events)))
    state = rep.at(n)
    settlement = settle_hand(state) if state.ended is not None or at is None else None
    findings = list(settlement.findings) if settlement else list(state.findings)
    if settlement is not None:
        from events.audit.records import adjustment_findings

        findings += adjustment_findings(settlement)
    steps = []
    for i, ev in enumerate(events[:n], 1):
        steps.append({
            "n": i, "seq": ev.seq, "event_id": ev.event_id, "type": type(ev).__name__,
            "occurred_at": ev.occurred_at, "text": describe(ev),
            "findings": [f.to_json() for f in rep.new_findings(i)],
        })
    t = state.table
    raw = [msgspec.json.decode(encode_event(e)) for e in events]
    digest = hashlib.sha256(b"\n".join(encode_event(e) for e in events)).hexdigest()
    table_opened = msgspec.json.decode(encode_event(opened[-1])) if opened else None
    dealer_cards = list(state.dealer or state.dealer_revealed)
    doc: dict[str, Any] = {
        "document": DOCUMENT, "version": VERSION,
        "hand_id": state.hand_id, "table_id": state.table_id, "dealer_id": state.dealer_id,
        "shoe_id": state.shoe_id, "dealing_order": state.dealing_order,
        "started_at": state.started_at, "ended_at": state.ended_at,
        "status": settlement.status if settlement else "in play",
        "void_reason": state.void_reason,
        "rules": None if t is None else {
            "ruleset": t.ruleset_name, "title": t.ruleset.title if t.ruleset else None,
            "currency": t.currency, "min_bet": t.limits.min_bet if t.limits else None,
            "max_bet": t.limits.max_bet if t.limits else None,
            "max_trips": t.limits.max_trips if t.limits else None,
            "error": t.ruleset_error},
        "at": n, "event_count": len(events),
        "board": list(state.community), "board_glyphs": glyphs(state.community),
        "revealed": list(state.revealed),
        "dealer": {
            "cards": dealer_cards, "glyphs": glyphs(dealer_cards),
            "hand": settlement.dealer_name if settlement else None,
            "best_five": list(settlement.dealer_best_five) if settlement else [],
            "category": settlement.dealer_category if settlement else None,
            "qualifies": settlement.dealer_qualifies if settlement else None,
        },
        "seats": _seats(settlement) if settlement else [],
        "disputes": [d.to_json() for d in disputes_of(settlement)] if settlement else [],
        "findings": [f.to_json() for f in findings],
        "verdict": _verdict(settlement, findings, n),
        "visible": {party: visible(state, party) for party in
                    ("public", *(f"seat:{s}" for s in sorted(state.hole)), "surveillance")},
        "steps": steps,
        "events_sha256": digest,
        "table_opened": table_opened,
        "events": raw,
    }
    return doc


def render(doc: dict[str, Any]) -> str:
    """The evidence document as text for a supervisor."""
    lines = [f"Hand {doc['hand_id']} at table {doc['table_id']}, dealer {doc['dealer_id']}"]
    rules = doc.get("rules")
    if rules:
        lines.append(f"Rules: {rules['ruleset']} ({rules.get('title') or 'unknown ruleset'}), "
                     f"{rules['currency']}")
    if doc["dealing_order"]:
        lines.append(f"Dealing order: {doc['dealing_order'].replace('_', ' ')}")
    lines.append("")
    for step in doc["steps"]:
        lines.append(f"{step['n']:>3}. [{stamp(step['occurred_at'])}] {step['text']}")
        for f in step["findings"]:
            lines.append(f"       ! {f['kind']}: {f['detail']}")
    if doc["status"] == "in play":
        lines += ["", doc["verdict"]]
        return "\n".join(lines) + "\n"
    lines.append("")
    d = doc["dealer"]
    if d["hand"]:
        q = "qualifies" if d["qualifies"] else "does not qualify (needs a pair)"
        lines.append(f"Dealer: {d['glyphs']}  {d['hand']}  [{glyphs(d['best_five'])}]  {q}")
    lines.append(f"Board:  {doc['board_glyphs']}")
    voided = doc["status"] == "voided"
    for seat in doc["seats"]:
        raised = f"raised {seat['raised']}" if seat["raised"] else ""
        if voided:  # no showdown: no hand to name, and nobody folded
            name, state = "no showdown (the hand was voided)", raised
        else:
            name = seat["hand"] or "hand not known (cards missing)"
            state = "folded" if seat["folded"] else raised
        five = f"  [{glyphs(seat['best_five'])}]" if seat["best_five"] else ""
        lines.append(f"Seat {seat['seat']}: {seat['hole_glyphs']}  {name}{five}"
                     + (f"  {state}" if state else ""))
        for c in seat["settlement"]:
            correct = outcome_words(c["correct_outcome"], c["correct_amount"])
            recorded = outcome_words(c["recorded_outcome"], c["recorded_amount"])
            lines.append(f"    {c['spot']:<6} {money(c['stake']):>10}  correct {correct:<16} "
                         f"recorded {recorded:<16} {c['verdict'].upper():<8} ({c['reason']})")
        lines.append(f"    {seat['verdict']}")
    for dispute in doc["disputes"]:
        lines.append(f"Dispute, seat {dispute['seat']} ({dispute['status']}): "
                     f"{dispute['claim']}")
        lines.append(f"    Verdict: {dispute['verdict']}")
    lines += ["", f"Verdict: {doc['verdict']}"]
    for f in doc["findings"]:
        lines.append(f"  - {f['kind']}: {f['detail']}")
    return "\n".join(lines) + "\n"


def visible_text(doc: dict[str, Any]) -> str:
    """What each party could see at the document's point in time."""
    lines = [f"\nWhat each party could see after event {doc['at']}:"]
    for party, view in doc["visible"].items():
        hole = "; ".join(f"seat {s}: {glyphs(c)}" for s, c in sorted(view["hole"].items()))
        lines.append(f"  {party:<13} board {glyphs(view['community']) or '-'} | dealer "
                     f"{glyphs(view['dealer']) or '-'} | {hole or 'no hole cards'}")
    return "\n".join(lines) + "\n"
