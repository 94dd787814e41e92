"""A simulated floor with injected mispays, voids and disputes: the warehouse's hands,
wagers and findings are exactly the auditor's over the whole log, and the checks hold."""

from __future__ import annotations

from pathlib import Path

from events.audit.auditor import audit
from events.contract.codec import decode_many
from events.sim.simulation import SimConfig, simulate
from pipeline.analytics.checks import hold_outliers
from pipeline.audit.checks import findings_reported, payouts_balance
from pipeline.ingest.checks import duplicate_events
from pipeline.warehouse import query
from tests.pipeline.conftest import materialize


def test_simulated_floor_matches_the_auditor(tmp_path: Path) -> None:
    log = tmp_path / "floor.jsonl"
    simulate(SimConfig(tables=3, hands=120, seed=21, ruleset="mixed", mispay_rate=0.03,
                       void_rate=0.02, dispute_rate=0.02), str(log))
    wh = tmp_path / "w.duckdb"
    materialize(log, wh, batch_size=2_000, hands_per_chunk=50)
    report = audit(decode_many(log.read_bytes().splitlines()))

    got = sorted(query(wh, "SELECT finding_id, kind, hand_id, seat, spot, expected, recorded "
                           "FROM audit_findings"))
    want = sorted((f.finding_id, f.kind, f.hand_id, f.seat, f.spot, f.expected, f.recorded)
                  for f in report.findings)
    assert got == want and any(k == "mispay" for _, k, *_ in got)
    assert sorted(query(wh, "SELECT hand_id, table_id, ruleset, dealer_id, seats, status "
                            "FROM hands")) == sorted(
        (h.hand_id, h.table_id, h.ruleset, h.dealer_id, h.seats, h.status) for h in report.hands)
    assert sorted(query(wh, """SELECT hand_id, seat, spot, amount, recorded_outcome,
            recorded_result, correct_outcome, correct_result, player_category FROM wagers""")) \
        == sorted((w.hand_id, w.seat, w.spot, w.amount, w.recorded_outcome, w.recorded_result,
                   w.correct_outcome, w.correct_result, w.player_category) for w in report.wagers)
    assert query(wh, "SELECT count(*) FROM hands WHERE status = 'voided'")[0][0] > 0
    # house win is what the table kept: minus every recorded result, adjustments included
    assert query(wh, "SELECT sum(house_win) FROM table_hold_daily")[0][0] == -sum(
        w.recorded_result or 0 for w in report.wagers)
    assert query(wh, "SELECT sum(mispays) FROM dealer_performance")[0][0] == sum(
        f.kind == "mispay" for f in report.findings)
    for check in (duplicate_events, payouts_balance, findings_reported):
        passed, meta = check(wh)
        assert passed, (check.__name__, meta)
    assert hold_outliers(wh)[1]["table_days_checked"] >= 1
