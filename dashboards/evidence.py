"""The evidence document the hand-audit page offers for download.

The auditor's own document (``events.audit.evidence``, the one ``uth replay --json``
writes) built from the hand's events as loaded in the warehouse; alongside it what the
warehouse recorded (the hand, its wagers with recorded and correct settlement, its
findings), so the download is self-contained. If the auditor cannot build its document
(not installed, or the stored events do not decode) the warehouse part is still given and
``auditor_error`` says why.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import pandas as pd


def _jsonable(value: Any) -> Any:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if hasattr(value, "item"):  # numpy / pandas scalars
        return value.item()
    try:
        if value != value:  # NaN
            return None
    except (TypeError, ValueError):
        pass
    return value


def records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: _jsonable(v) for k, v in row.items()} for row in df.to_dict("records")]


def event_dicts(events: pd.DataFrame) -> list[dict[str, Any]]:
    """Warehouse event rows as contract-shaped dicts (payload parsed)."""
    out = []
    for row in records(events):
        out.append({
            "event_id": row.get("event_id"), "type": row.get("type"),
            "schema_version": row.get("schema_version") or 1, "table_id": row.get("table_id"),
            "hand_id": row.get("hand_id"), "seq": row.get("seq"),
            "occurred_at": _contract_time(row.get("occurred_at")),
            "payload": json.loads(row["payload"]) if row.get("payload") else {},
        })
    return out


def _contract_time(text: Any) -> Any:
    """``2026-11-28T21:10:00`` -> ``2026-11-28T21:10:00.000Z`` (the contract's form)."""
    if not isinstance(text, str):
        return text
    base = text.rstrip("Z").split("+")[0]
    if "." not in base:
        base += ".000"
    head, frac = base.split(".")
    return f"{head}.{(frac + '000')[:max(3, min(len(frac), 9))]}Z"


def auditor_evidence(events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``events.audit.evidence`` over the decoded events (raises if it cannot)."""
    from events.audit.auditor import evidence  # the auditor's document
    from events.contract.schemas import decode_event

    decoded = []
    for ev in events:
        decoded.append(decode_event(json.dumps(ev).encode()))
    return dict(evidence(decoded))


def document(hand: dict[str, Any], events: Sequence[dict[str, Any]], wagers: pd.DataFrame,
             findings: pd.DataFrame, proof: dict[str, Any] | str | None = None
             ) -> dict[str, Any]:
    """The download: the warehouse's rows and the auditor's document, which carries
    ``proof`` (the hand's inclusion proof, or why there is none) as ``uth replay --json``
    does, so that ``uth verify --evidence`` checks the sheet printed from it."""
    doc: dict[str, Any] = {
        "hand_id": hand.get("hand_id"),
        "warehouse": {
            "hand": {k: _jsonable(v) for k, v in hand.items()},
            "events": list(events),
            "wagers": records(wagers),
            "findings": records(findings),
        },
    }
    if isinstance(proof, dict):  # replayed from the bytes the seal proves, not the columns
        stored = {str(e.get("event_id")): str(e.get("stored")) for e in proof.get("events", [])}
        events = [json.loads(stored[str(ev.get("event_id"))])
                  if str(ev.get("event_id")) in stored else ev for ev in events]
    try:
        doc["auditor"] = auditor_evidence(events)
        if isinstance(proof, dict):
            doc["auditor"]["inclusion_proof"] = proof
        elif proof is not None:
            doc["auditor"]["inclusion_proof"] = None
            doc["auditor"]["inclusion_proof_missing"] = proof
    except Exception as exc:  # the auditor's view is optional; say why it is absent
        doc["auditor_error"] = f"{type(exc).__name__}: {exc}"
    return doc


def wager_checks(auditor: dict[str, Any]) -> dict[tuple[int, str], str]:
    """From the auditor's document: ``(seat, spot)`` -> why that settlement is correct,
    and ``(seat, "hand")`` -> the player's hand in words."""
    out: dict[tuple[int, str], str] = {}
    for seat in auditor.get("seats") or []:
        number = int(seat.get("seat") or 0)
        if seat.get("hand"):
            out[(number, "hand")] = str(seat["hand"])
        for check in seat.get("settlement") or []:
            if check.get("reason"):
                out[(number, str(check.get("spot")))] = str(check["reason"])
    return out


def positions(events: pd.DataFrame) -> dict[str, str]:
    """Event id -> where the warehouse read it (``source:position``), for the sheet."""
    if events.empty or "position" not in events:
        return {}
    return {str(e): f"{s}:{p}" if s else str(p) for e, s, p in zip(
        events["event_id"], events["source"], events["position"], strict=True)
        if p is not None and p == p}


def sheet(doc: dict[str, Any], events: pd.DataFrame, zone: str | None = None) -> str | None:
    """The printable HTML evidence sheet of the auditor's document (None without it)."""
    from events.audit.evidence_html import render_html

    auditor = doc.get("auditor")
    return render_html(auditor, positions(events), zone) if auditor else None


def to_json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, sort_keys=True, default=str) + "\n"
