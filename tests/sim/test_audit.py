"""The auditor (``events.audit.auditor``) on simulated floors: no findings when every payout is
right, and exactly the injected mispays when some are wrong."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from events.contract.schemas import decode_event
from tests.sim.conftest import FLOOR
from tests.sim.handkit import Stream

audit = pytest.importorskip("events.audit.auditor").audit


def test_every_simulated_hand_replays_without_findings(floor_lines: list[bytes]) -> None:
    report = audit([decode_event(line) for line in floor_lines])
    assert report.findings == []
    assert report.summary["hands"] == FLOOR.tables * FLOOR.hands
    assert report.summary["events"] == len(floor_lines)
    assert report.summary["rejected_events"] == 0


def test_the_auditor_finds_exactly_the_injected_mispays(
    errors_run: tuple[Stream, list[dict[str, Any]], list[bytes]],
) -> None:
    _, truth, lines = errors_run
    report = audit([decode_event(line) for line in lines])
    assert Counter(f.kind for f in report.findings) == {"mispay": len(truth)}
    found = {(f.hand_id, f.table_id, f.dealer_id, f.seat, f.spot, f.expected, f.recorded)
             for f in report.findings}
    assert found == {(r["hand_id"], r["table_id"], r["dealer_id"], r["seat"], r["spot"],
                      r["expected"], r["recorded"]) for r in truth}
