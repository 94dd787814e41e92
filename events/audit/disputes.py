"""Disputes as a supervisor's work queue, from the evidence document of their hand.

Each dispute of a hand (:func:`events.audit.evidence.evidence`, whose ``disputes`` carry the
reference replay's ``expected_net`` and ``recorded_net`` for the seat) becomes one row:

- ``owed``: what the house owes the player on that hand, in cents: the correct net minus
  the recorded net for the seat (before any adjustment); negative when the player was
  overpaid, 0 when the hand was paid right, ``None`` when the hand cannot be settled.
  A seat that placed no wager on a hand that ended (settled or voided) and was paid
  nothing is owed 0, as the auditor's ``adjustment_mismatch`` rule holds: nothing was
  wagered, so nothing is due (an adjustment paid to it is wrong).
- ``note``: ``no wager on this hand`` for such a seat (its 0 is not "paid right"), else
  ``None``.
- ``adjustment_correct``: for a resolved dispute, whether the adjustments of the seat's
  resolved disputes so far (this one included: usually just this one) equal ``owed``, the
  rule the auditor's ``adjustment_mismatch`` finding applies; ``None`` while the dispute is
  open or ``owed`` is unknown.

>>> doc = {"hand_id": "T1-7", "table_id": "T1", "dealer_id": "D4", "disputes": [
...     {"seat": 2, "claim": "short", "status": "resolved", "expected_net": 1500,
...      "recorded_net": 1000, "resolution": "paid", "adjustment": 500,
...      "occurred_at": "2026-11-29T21:03:11.000Z"}]}
>>> row = dispute_rows(doc)[0]
>>> row["owed"], row["adjustment_correct"], row["dealer_id"]
(500, True, 'D4')
>>> doc["status"], doc["seats"] = "settled", [{"seat": 2, "wagers": {"ante": 1000}}]
>>> doc["disputes"].append({"seat": 5, "claim": "not dealt in", "status": "open",
...                         "expected_net": None, "recorded_net": 0})
>>> row = dispute_rows(doc)[1]
>>> row["owed"], row["note"]
(0, 'no wager on this hand')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

FIELDS = ("hand_id", "table_id", "seat", "dealer_id", "claim", "opened_at", "status",
          "resolution", "adjustment", "owed", "adjustment_correct", "note")
NO_WAGER = "no wager on this hand"
ENDED = ("settled", "voided")  # a hand whose every wager is known: it ended


def owed(expected_net: int | None, recorded_net: int | None) -> int | None:
    """Cents the house owes the player: correct net minus recorded net."""
    if expected_net is None or recorded_net is None:
        return None
    return expected_net - recorded_net


def wagered_seats(doc: dict[str, Any]) -> set[int]:
    """The seats of a hand's evidence document that placed a wager."""
    return {int(s["seat"]) for s in doc.get("seats") or []
            if any(int(v or 0) > 0 for v in (s.get("wagers") or {}).values())}


def dispute_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The disputes of one hand's evidence document, each with its verdict."""
    out: list[dict[str, Any]] = []
    adjusted: dict[int, int] = {}
    wagered = wagered_seats(doc)
    ended = doc.get("status") in ENDED
    for d in doc.get("disputes") or []:
        seat = int(d["seat"])
        due = owed(d.get("expected_net"), d.get("recorded_net"))
        no_wager = ended and seat not in wagered
        if no_wager and due is None and not d.get("recorded_net"):
            due = 0  # nothing wagered, nothing paid: nothing is due
        resolved = d.get("status") == "resolved"
        correct: bool | None = None
        if resolved:
            adjusted[seat] = adjusted.get(seat, 0) + int(d.get("adjustment") or 0)
            correct = None if due is None else adjusted[seat] == due
        out.append({
            "hand_id": doc.get("hand_id"), "table_id": doc.get("table_id"), "seat": seat,
            "dealer_id": doc.get("dealer_id"), "claim": d.get("claim"),
            "opened_at": d.get("occurred_at"), "status": "resolved" if resolved else "open",
            "resolution": d.get("resolution"), "adjustment": d.get("adjustment"),
            "owed": due, "adjustment_correct": correct,
            "note": NO_WAGER if no_wager else None,
        })
    return out


def queue(rows: Iterable[dict[str, Any]], open_only: bool = False) -> list[dict[str, Any]]:
    """Open disputes first (oldest first), then resolved ones (latest first)."""
    items = list(rows)
    opened = sorted((r for r in items if r["status"] == "open"),
                    key=lambda r: (r["opened_at"] or "", r["hand_id"] or "", r["seat"]))
    if open_only:
        return opened
    done = sorted((r for r in items if r["status"] != "open"),
                  key=lambda r: (r["opened_at"] or "", r["hand_id"] or "", r["seat"]),
                  reverse=True)
    return opened + done
