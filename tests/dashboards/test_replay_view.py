"""The replay fold, the card glyphs and the evidence document."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pandas as pd

from dashboards import evidence, queries, replay_view
from dashboards.replay_view import card_html, describe, fold, table_html
from tests.dashboards.warehouse_data import H1_EVENTS

EVENTS = [{"type": k, "seq": i, "occurred_at": "", "payload": p} for i, (k, p) in
          enumerate(H1_EVENTS)]


def test_fold_follows_the_hand() -> None:
    assert fold(EVENTS, 0).status == "not started"
    after_deal = fold(EVENTS, 7)
    assert after_deal.community == ["Ah", "Kh", "7h", "2c", "9s"] and after_deal.revealed == 0
    assert after_deal.dealer == ["9d", "9c"] and not after_deal.dealer_revealed
    assert after_deal.seats[2].bets == {"ante": 1000, "blind": 1000, "trips": 500}
    after_raise = fold(EVENTS, 10)
    assert after_raise.revealed == 3 and after_raise.seats[2].bets["play"] == 2000
    assert after_raise.seats[2].decisions == ["preflop: check", "flop: raise 2x"]
    end = fold(EVENTS, len(EVENTS))
    assert end.status == "ended" and end.revealed == 5 and end.dealer_revealed
    assert end.seats[2].payouts == {"ante": ("win", 1000), "blind": ("win", 1000),
                                    "play": ("win", 2000), "trips": ("win", 3000)}


def test_descriptions() -> None:
    assert describe(EVENTS[9], "USD") == "Seat 2 raises 2x, $20.00, on the flop."
    assert describe(EVENTS[10], "USD") == "The turn and river: 2♣ 9♠."
    assert describe(EVENTS[13], "USD") == "Recorded: seat 2's blind win $10.00."
    assert describe({"type": "BetPlaced", "payload": {"seat": "x"}}, "USD") == "BetPlaced."


def test_cards_are_drawn_as_cards() -> None:
    ten = card_html("Td")
    assert 'class="uth-card red ten"' in ten and "10♦" in ten
    assert 'class="uth-card"' in card_html("As") and "♠" in card_html("As")
    assert "down" in card_html("2c", "down") and "back" in card_html("", "back")
    html = table_html(fold(EVENTS, 5), "USD")
    assert html.count("uth-card back") == 2 + 2  # dealer and seat 2 not dealt yet
    assert html.count("(dealt face down)") == 5


def test_warehouse_text_is_escaped() -> None:
    evil = [{"type": "HandStarted", "payload": {"dealer_id": "<script>x</script>", "seats": [1]}},
            {"type": "CardsDealt", "payload": {"target": "seat", "seat": 1,
                                               "cards": ['"><img src=x onerror=alert(1)>', "As"]}}]
    html = table_html(fold(evil, 2), "USD")
    assert "<script>" not in html and "<img" not in html


def test_evidence_document(handmade_warehouse: Path) -> None:
    with queries.open_warehouse(handmade_warehouse) as con:
        hand = queries.hand(con, "H1")
        events = evidence.event_dicts(queries.hand_events(con, hand or {}))
        doc = evidence.document(hand or {}, events, queries.hand_wagers(con, "H1"),
                                queries.hand_findings(con, "H1"))
    back = json.loads(evidence.to_json(doc))
    assert back["hand_id"] == "H1"
    assert len(back["warehouse"]["events"]) == 17
    assert back["warehouse"]["events"][0]["occurred_at"] == "2026-11-28T21:08:00.000Z"
    blind = next(w for w in back["warehouse"]["wagers"] if w["spot"] == "blind")
    assert (blind["recorded_result"], blind["correct_result"]) == (1000, 1500)
    assert back["warehouse"]["findings"][0]["expected"] == 1500
    assert ("auditor" in back) != ("auditor_error" in back)
    assert evidence.records(pd.DataFrame({"a": [pd.NA]})) == [{"a": None}]


def test_doctests() -> None:
    assert doctest.testmod(replay_view).failed == 0


def test_the_view_is_the_reference_folds_state() -> None:
    """The page draws the auditor's fold, not a walk of its own: a second ante on a spot
    and a raise after a raise are not applied by the fold, so the table shows the stakes
    the auditor settles on."""
    from events.contract.schemas import decode_event
    from events.replay.fold import replay

    again = [*EVENTS[:2], {"type": "BetPlaced", "seq": 99, "occurred_at": "",
                           "payload": {"seat": 2, "spot": "ante", "amount": 5000}}, *EVENTS[2:10],
             {"type": "PlayerDecision", "seq": 98, "occurred_at": "",
              "payload": {"seat": 2, "street": "river", "action": "raise", "multiple": 1,
                          "amount": 7000}}]
    view = fold(again, len(again))
    assert view.seats[2].bets == {"ante": 1000, "blind": 1000, "trips": 500, "play": 2000}
    assert view.seats[2].decisions[-1] == "river: raise 1x"  # (listed as recorded)
    events = [decode_event(json.dumps(
        {"event_id": f"e{n}", "schema_version": 1, "table_id": "T1",
         "hand_id": None if e["type"] == "TableOpened" else "H1", "seq": n,
         "occurred_at": "2026-11-28T21:08:00.000Z", "type": e["type"], "payload": e["payload"]}))
        for n, e in enumerate(again)]
    final = replay(events).final
    assert view.seats[2].bets["ante"] == final.seats[2].ante
    assert view.seats[2].bets["play"] == final.seats[2].play
