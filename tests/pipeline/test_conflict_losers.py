"""A conflict loser (a later event carrying a ``seq`` its table had already used) stays in
``events`` as received, but no hand, rollup or replay uses it, as ``uth audit`` leaves it
out: not a ``TableOpened`` with other rules, not a buy-in, not a bet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dashboards.hand_queries import hand_events, table_opened_before
from events.audit.auditor import audit
from events.contract.codec import decode_many
from pipeline.analytics.steps import update_rollups
from pipeline.hands.steps import update_hands
from pipeline.ingest.steps import load_events
from pipeline.warehouse import query, reading
from tests.pipeline import streams
from tests.pipeline.conftest import write_log


def _losers(t1: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Three later copies of used seqs, each with its own id and other contents."""
    second_hand = [k for k, e in enumerate(t1) if e["type"] == "HandStarted"][1]
    opened, buy_in = t1[0], t1[1]
    bet = next(e for e in t1 if e["type"] == "BetPlaced")
    return [
        dict(opened, event_id="loser-opened", seq=t1[second_hand]["seq"],
             payload=dict(opened["payload"], ruleset="no-such-ruleset", min_bet=100,
                          max_bet=500)),
        dict(buy_in, event_id="loser-buy-in", payload=dict(buy_in["payload"],
                                                           amount=10_000_000)),
        dict(bet, event_id="loser-bet", payload=dict(bet["payload"], amount=bet["payload"][
            "amount"] * 2)),
    ]


def _load(log: Path, wh: Path) -> None:
    load_events(str(log), wh)
    update_hands(wh, 360)
    update_rollups(wh)


@pytest.mark.parametrize("loads", ["one load", "the losers in a later load"])
def test_conflict_losers_are_left_out_of_hands_rollups_and_replays(tmp_path: Path,
                                                                   loads: str) -> None:
    t1, t2 = streams.floor()
    losers = _losers(t1)
    base = streams.lines(t1) + streams.lines(t2)
    lines = base + streams.lines(losers)
    log, wh = tmp_path / "log.jsonl", tmp_path / "wh.duckdb"
    if loads != "one load":
        _load(write_log(log, base), wh)
    _load(write_log(log, lines), wh)

    stored = query(wh, "SELECT finding_id FROM audit_findings ORDER BY 1")
    report = audit(decode_many(lines))
    assert [r[0] for r in stored] == sorted(f.finding_id for f in report.findings)
    conflicts = query(wh, "SELECT event_id FROM audit_findings "
                          "WHERE kind = 'sequence_conflict' ORDER BY 1")
    assert [r[0] for r in conflicts] == ["loser-bet", "loser-buy-in", "loser-opened"]

    assert query(wh, "SELECT DISTINCT ruleset FROM hands WHERE table_id = 'T1'") == [
        (t1[0]["payload"]["ruleset"],)]
    buy_ins = sum(e["payload"]["amount"] for e in t1 if e["type"] == "ChipsPurchased")
    assert query(wh, "SELECT sum(\"drop\") FROM table_hold_daily WHERE table_id = 'T1'") == [
        (buy_ins,)]

    bet = losers[2]
    with reading(wh) as con:
        shown = hand_events(con, {"hand_id": bet["hand_id"]})
        rules = table_opened_before(con, "T1", bet["seq"] + 100)
    assert "loser-bet" not in set(shown["event_id"])
    assert len(shown) == sum(1 for e in t1 if e.get("hand_id") == bet["hand_id"])
    assert list(rules["event_id"]) == [t1[0]["event_id"]]
