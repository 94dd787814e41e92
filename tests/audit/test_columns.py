"""The auditor's ``columns`` mode (the warehouse's) gives the same rows as the records mode:
plain hands as columns, the others (mispays, voids, disputes, late events) as records."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from events.audit.auditor import audit
from events.audit.columns import HAND_COLUMNS, WAGER_COLUMNS
from events.contract.codec import decode_many
from events.findings import parse_time
from events.sim.simulation import SimConfig, simulate
from tests.audit.builder import Table, encode_lines, random_hand
from tests.audit.test_golden import GOLDEN, load


def _items(tmp_path: Path, seed: int) -> list[Any]:
    path = tmp_path / "floor.jsonl"
    simulate(SimConfig(tables=3, hands=150, seed=seed, ruleset="mixed", mispay_rate=0.03,
                       void_rate=0.03, dispute_rate=0.03), str(path))
    return decode_many(path.read_bytes().splitlines())


def _rows(report: Any) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every hand and wager row of a report, columns and records together, sorted."""
    hands = [tuple(getattr(h, c) for c in HAND_COLUMNS) for h in report.hands]
    wagers = [tuple(getattr(w, c) for c in WAGER_COLUMNS) for w in report.wagers]
    if report.columns is not None:
        hc, wc = report.columns.kept()
        for i in range(len(hc["hand_id"])):
            hands.append(tuple(parse_time(hc[c][i]) if c.endswith("_at") else hc[c][i]
                               for c in HAND_COLUMNS))
        wagers += zip(*(wc[c].tolist() for c in WAGER_COLUMNS), strict=True)
    return sorted(hands, key=repr), sorted(wagers, key=repr)


@pytest.mark.parametrize("seed", [5, 6])
def test_columns_mode_gives_the_records_modes_rows(tmp_path: Path, seed: int) -> None:
    items = _items(tmp_path, seed)
    records = audit(items)
    columns = audit(items, columns=True)
    assert columns.findings == records.findings
    assert columns.columns is not None
    assert len(columns.columns) > 0.8 * len(records.hands)  # most hands are plain
    assert len(columns.hands) > 0  # and the others went through the full path
    assert _rows(columns) == _rows(records)
    statuses = {h.status for h in columns.hands}
    assert {"voided", "settled"} <= statuses


def test_a_late_dispute_takes_a_plain_hands_rows_back(tmp_path: Path) -> None:
    """A dispute that arrives after its (plain) hand was settled: the hand's rows come from
    the full path with the dispute's accounting, and are no longer among the columns."""
    items = [e for e in _items(tmp_path, 7)
             if type(e).__name__ not in ("DisputeOpened", "DisputeResolved")]
    hand = next(e for e in items if type(e).__name__ == "HandEnded")
    last_seq = max(e.seq for e in items if e.table_id == hand.table_id)
    late = msgspec.json.encode({
        "type": "DisputeResolved", "event_id": "late-dispute-1", "schema_version": 1,
        "table_id": hand.table_id, "hand_id": hand.hand_id, "seq": last_seq + 1,
        "occurred_at": "2030-01-01T12:00:00.000Z",
        "payload": {"seat": 1, "resolution": "goodwill", "adjustment": 500}})
    items = items + decode_many([late])
    columns = audit(items, batch=8, columns=True)
    records = audit(items, batch=8)
    assert columns.columns is not None
    assert hand.hand_id in columns.columns.dropped
    assert hand.hand_id in {h.hand_id for h in columns.hands}
    assert _rows(columns) == _rows(records)


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN.glob("*.jsonl")))
def test_every_path_agrees_on_the_golden_hands(name: str) -> None:
    """The lean path (``uth audit``: plain hands judged in bulk, payouts matched to wagers
    in NumPy) and the columns mode find what the full path finds, on every golden scenario
    (missing, unexpected and doubled payouts included); the columns give the same rows."""
    items = load(name)
    full = audit(items)
    lean = audit(items, records=False)
    columns = audit(items, columns=True)
    assert lean.findings == full.findings
    assert columns.findings == full.findings
    assert _rows(columns) == _rows(full)


@pytest.mark.parametrize("damage", ["doubled", "stranger", "dropped", "extra_play"])
@pytest.mark.parametrize("seed", range(4))
def test_payouts_that_do_not_match_the_wagers_leave_the_lean_path(damage: str,
                                                                   seed: int) -> None:
    """A wager paid twice (even both times right), a payout to a seat without wagers, a
    wager never paid, a payout on a spot without a wager: the judge sends the hand to the
    full path, so the lean and columns modes word what the full path finds."""
    rng = random.Random(seed)
    table = Table("T1")
    table.open()
    specs = [random_hand(rng, f"H{k}") for k in range(6)]
    spec = specs[2]
    first = spec.payouts[0]
    if damage == "doubled":
        spec.payouts.append(first)
    elif damage == "stranger":
        spec.payouts.append((99, "ante", "lose", -1000))
    elif damage == "dropped":
        spec.payouts.pop(0)
    else:
        folded = [s for s in spec.seats if not any(d[1] == "raise" for d in s.decisions)]
        seat = folded[0].seat if folded else 98
        spec.payouts.append((seat, "play", "lose", -1000))
    for s in specs:
        table.hand(s)
    items = decode_many(encode_lines(table.events))
    full = audit(items)
    assert any(f.hand_id == "H2" for f in full.findings)
    assert audit(items, records=False).findings == full.findings
    columns = audit(items, columns=True)
    assert columns.findings == full.findings
    assert _rows(columns) == _rows(full)
