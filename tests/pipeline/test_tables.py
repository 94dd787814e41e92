"""Every warehouse table of the hand-made floor (tests/pipeline/streams.py), figure by
figure, against numbers worked out by hand from the hands described there."""

from __future__ import annotations

import math
import statistics
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from events.audit.auditor import audit
from events.contract.codec import decode_many
from events.game.evaluation import CATEGORY_NAMES
from events.game.rulesets import load_ruleset
from events.game.theory import PUBLISHED_PRACTICAL_EDGE, trips_theory
from pipeline.ingest.steps import read_archive
from pipeline.warehouse import query
from tests.pipeline import streams

Z = 1.959963984540054
DAY1, DAY2 = date(2026, 11, 29), date(2026, 11, 30)
CHARLEVOIX = trips_theory(load_ruleset("charlevoix-2011"))
EU = trips_theory(load_ruleset("eu-participation"))


def rows(warehouse: Path, sql: str) -> list[dict[str, Any]]:
    from pipeline.warehouse import reading

    with reading(warehouse) as con:
        cur = con.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]


@pytest.fixture(scope="module")
def wh(floor_warehouse: tuple[Path, Any]) -> Path:
    return floor_warehouse[0]


def test_events_deduplicated_and_rejects_kept(wh: Path) -> None:
    # T1: TableOpened, 2 buy-ins, H1 25 events, H2 17, H3 5 = 50;
    # T2: TableOpened, 2 buy-ins, H4 17, H5 14 = 34. The redelivered copy counts once.
    assert query(wh, "SELECT count(*), count(DISTINCT event_id) FROM events") == [(84, 84)]
    assert query(wh, "SELECT table_id, count(*) FROM events GROUP BY 1 ORDER BY 1") == [
        ("T1", 50), ("T2", 34)]
    assert query(wh, "SELECT gaming_day, count(*) FROM events GROUP BY 1 ORDER BY 1") == [
        (DAY1, 50 + 19), (DAY2, 15)]
    ev = rows(wh, "SELECT * FROM events WHERE type = 'ChipsPurchased' AND table_id = 'T2' "
                  "ORDER BY seq")
    assert [(e["seq"], e["occurred_at"], e["gaming_day"]) for e in ev] == [
        (1, datetime(2026, 11, 30, 5, 52), DAY1), (20, datetime(2026, 11, 30, 6, 5), DAY2)]
    assert query(wh, "SELECT CAST(payload->>'amount' AS BIGINT) FROM events "
                     "WHERE type = 'ChipsPurchased' ORDER BY occurred_at") == [
        (100000,), (50000,), (20000,), (30000,)]
    dead = rows(wh, "SELECT * FROM dead_letters")
    assert len(dead) == 1 and dead[0]["position"] == "4"
    assert dead[0]["reason"].startswith("bad-json") and dead[0]["raw"].startswith('{"event_id"')


def test_load_position(wh: Path) -> None:
    pos = rows(wh, "SELECT * FROM load_positions")
    assert len(pos) == 1
    # 86 lines (84 events, 1 copy, 1 broken): the next line to read is 87.
    assert pos[0]["position"] == '{"0": 87}' and pos[0]["events_loaded"] == 84


def test_hands(wh: Path) -> None:
    got = rows(wh, "SELECT * FROM hands ORDER BY hand_id")
    assert [(h["hand_id"], h["table_id"], h["ruleset"], h["currency"], h["dealer_id"],
             h["seats"], h["seat_count"], h["status"], h["gaming_day"]) for h in got] == [
        ("H1", "T1", "charlevoix-2011", "CAD", "D1", "1,2", 2, "settled", DAY1),
        ("H2", "T1", "charlevoix-2011", "CAD", "D1", "1", 1, "settled", DAY1),
        ("H3", "T1", "charlevoix-2011", "CAD", "D2", "1", 1, "voided", DAY1),
        ("H4", "T2", "eu-participation", "EUR", "D2", "3", 1, "settled", DAY1),
        ("H5", "T2", "eu-participation", "EUR", "D2", "3", 1, "settled", DAY2),
    ]
    assert (got[3]["started_at"], got[3]["ended_at"]) == (
        datetime(2026, 11, 30, 5, 55), datetime(2026, 11, 30, 5, 58))


def test_wagers(wh: Path) -> None:
    got = query(wh, """SELECT hand_id, seat, spot, amount, recorded_outcome, recorded_result,
        correct_outcome, correct_result, player_category, gaming_day FROM wagers
        ORDER BY hand_id, seat, spot""")
    assert got == [
        ("H1", 1, "ante", 1000, "win", 1000, "win", 1000, 5, DAY1),
        ("H1", 1, "blind", 1000, "win", 1500, "win", 1500, 5, DAY1),
        ("H1", 1, "play", 4000, "win", 4000, "win", 4000, 5, DAY1),
        ("H1", 1, "trips", 500, "win", 3000, "win", 3000, 5, DAY1),
        ("H1", 2, "ante", 2000, "win", 2000, "win", 2000, 3, DAY1),
        ("H1", 2, "blind", 2000, "win", 2000, "push", 0, 3, DAY1),  # the mispay
        ("H1", 2, "play", 2000, "win", 2000, "win", 2000, 3, DAY1),
        ("H2", 1, "ante", 1000, "lose", -1000, "lose", -1000, 1, DAY1),
        ("H2", 1, "blind", 1000, "lose", -1000, "lose", -1000, 1, DAY1),
        ("H2", 1, "trips", 1000, "lose", -1000, "lose", -1000, 1, DAY1),
        ("H3", 1, "ante", 1000, None, None, "push", 0, None, DAY1),
        ("H3", 1, "blind", 1000, None, None, "push", 0, None, DAY1),
        ("H4", 3, "ante", 500, "push", 0, "push", 0, 4, DAY1),
        ("H4", 3, "blind", 500, "win", 500, "win", 500, 4, DAY1),
        ("H4", 3, "play", 1000, "win", 1000, "win", 1000, 4, DAY1),
        ("H4", 3, "trips", 500, "win", 2000, "win", 2000, 4, DAY1),
        ("H5", 3, "ante", 500, "lose", -500, "lose", -500, 0, DAY2),
        ("H5", 3, "blind", 500, "lose", -500, "lose", -500, 0, DAY2),
        ("H5", 3, "play", 1500, "lose", -1500, "lose", -1500, 0, DAY2),
    ]


def test_findings_match_uth_audit(wh: Path) -> None:
    got = rows(wh, "SELECT * FROM audit_findings ORDER BY kind")
    assert [(f["kind"], f["hand_id"], f["table_id"], f["dealer_id"], f["seat"], f["spot"],
             f["expected"], f["recorded"], f["gaming_day"]) for f in got] == [
        ("mispay", "H1", "T1", "D1", 2, "blind", 0, 2000, DAY1),
        ("sequence_gap", None, "T2", None, None, None, None, None, DAY2),
    ]
    assert got[1]["detail"] == "Table T2: seq 19 never arrived (1 event lost before seq 20)."
    assert got[1]["occurred_at"] == datetime(2026, 11, 30, 6, 5)
    # the same findings, with the same ids, as the auditor run over the whole log
    report = audit(decode_many(streams.floor_lines()))
    assert sorted(f["finding_id"] for f in got) == sorted(f.finding_id for f in report.findings)
    assert sorted(f["detail"] for f in got) == sorted(f.detail for f in report.findings)


def _theo(antes: int, trips: int, edge: float) -> int:
    return round(antes * PUBLISHED_PRACTICAL_EDGE + trips * edge)


def test_table_hold_daily(wh: Path) -> None:
    got = {(r["table_id"], r["gaming_day"]): r for r in rows(wh, "SELECT * FROM table_hold_daily")}
    assert sorted(got) == [("T1", DAY1), ("T2", DAY1), ("T2", DAY2)]
    t1 = got[("T1", DAY1)]
    # drop 100000 + 50000; handle: H1 6500 + 6000, H2 3000 (H3 voided: not handle);
    # house win: -(9500 + 6000) + 3000; antes of settled hands 4000, trips 1500.
    assert (t1["ruleset"], t1["currency"], t1["hands"], t1["drop"], t1["handle"],
            t1["house_win"]) == ("charlevoix-2011", "CAD", 3, 150000, 15500, -12500)
    assert t1["hold_pct"] == pytest.approx(-12500 / 150000)
    assert t1["win_to_handle_pct"] == pytest.approx(-12500 / 15500)
    assert t1["theoretical_win"] == _theo(4000, 1500, CHARLEVOIX.house_edge) == 190
    # one session 20:02:00 -> 20:07:30 (5.5 minutes) for 3 hands
    assert t1["hands_per_hour"] == pytest.approx(3 / (5.5 / 60))
    s = statistics.stdev([-9500, -6000, 3000])  # house result per seat-hand
    assert t1["hold_ci_low"] == pytest.approx((190 - Z * s * math.sqrt(3)) / 150000)
    assert t1["hold_ci_high"] == pytest.approx((190 + Z * s * math.sqrt(3)) / 150000)

    t2a = got[("T2", DAY1)]  # H4 and the 05:52 buy-in, before the 06:00 turn
    assert (t2a["ruleset"], t2a["currency"], t2a["hands"], t2a["drop"], t2a["handle"],
            t2a["house_win"]) == ("eu-participation", "EUR", 1, 20000, 2500, -3500)
    assert t2a["hold_pct"] == pytest.approx(-3500 / 20000)
    assert t2a["win_to_handle_pct"] == pytest.approx(-3500 / 2500)
    assert t2a["theoretical_win"] == _theo(500, 500, EU.house_edge)
    assert t2a["hands_per_hour"] == pytest.approx(1 / (3 / 60))
    assert t2a["hold_ci_low"] is None  # one seat-hand: no spread to estimate

    t2b = got[("T2", DAY2)]
    assert (t2b["hands"], t2b["drop"], t2b["handle"], t2b["house_win"]) == (1, 30000, 2500, 2500)
    assert t2b["hold_pct"] == pytest.approx(2500 / 30000)
    assert t2b["win_to_handle_pct"] == pytest.approx(1.0)
    assert t2b["theoretical_win"] == _theo(500, 0, EU.house_edge) == 12
    assert t2b["hands_per_hour"] == pytest.approx(30.0)


def test_trips_performance_and_hits(wh: Path) -> None:
    got = rows(wh, "SELECT * FROM trips_performance ORDER BY table_id, gaming_day")
    assert [(r["ruleset"], r["table_id"], r["gaming_day"], r["trips_wagers"], r["trips_handle"],
             r["trips_win"]) for r in got] == [
        ("charlevoix-2011", "T1", DAY1, 2, 1500, -2000),  # +3000 paid, -1000 lost
        ("eu-participation", "T2", DAY1, 1, 500, -2000),  # straight pays 4:1
    ]
    t1, t2 = got
    assert t1["hold_pct"] == pytest.approx(-2000 / 1500)
    assert t1["theoretical_hold_pct"] == pytest.approx(0.0618082, abs=1e-7)
    half = Z * CHARLEVOIX.sd * math.sqrt(500**2 + 1000**2) / 1500
    assert (t1["ci_low"], t1["ci_high"]) == (
        pytest.approx(CHARLEVOIX.house_edge - half), pytest.approx(CHARLEVOIX.house_edge + half))
    assert t2["hold_pct"] == pytest.approx(-4.0)
    assert t2["theoretical_hold_pct"] == pytest.approx(EU.house_edge)
    assert t2["ci_high"] == pytest.approx(EU.house_edge + Z * EU.sd)

    hits = query(wh, """SELECT table_id, category, category_name, hits, expected_hits,
        probability FROM trips_hits ORDER BY table_id, category""")
    assert [(t, c, h) for t, c, _, h, _, _ in hits] == [
        ("T1", 3, 0), ("T1", 4, 0), ("T1", 5, 1), ("T1", 6, 0), ("T1", 7, 0), ("T1", 8, 0),
        ("T1", 9, 0),
        ("T2", 3, 0), ("T2", 4, 1), ("T2", 5, 0), ("T2", 6, 0), ("T2", 7, 0), ("T2", 8, 0),
        ("T2", 9, 0)]
    total = 133_784_560
    counts = CHARLEVOIX.counts
    for table, cat, name, _hits, expected, prob in hits:
        assert name == CATEGORY_NAMES[cat]
        assert prob == pytest.approx(counts[cat] / total)
        assert expected == pytest.approx((2 if table == "T1" else 1) * counts[cat] / total)


def test_dealer_performance(wh: Path) -> None:
    got = query(wh, """SELECT dealer_id, gaming_day, hands, hours, hands_per_hour, mispays,
        mispay_net FROM dealer_performance ORDER BY dealer_id, gaming_day""")
    assert [(d, day, h, m, n) for d, day, h, _, _, m, n in got] == [
        ("D1", DAY1, 2, 1, 2000),  # H1, H2; the blind overpaid by 2000
        ("D2", DAY1, 2, 0, 0),     # H3 (T1) and H4 (T2, before 06:00)
        ("D2", DAY2, 1, 0, 0),     # H5
    ]
    hours = [h for _, _, _, h, _, _, _ in got]
    # D1: 20:02 -> 20:06; D2: H3 30 s + H4 3 min; D2 next day: H5 2 min
    assert hours == [pytest.approx(4 / 60), pytest.approx(210 / 3600), pytest.approx(2 / 60)]
    assert [r[4] for r in got] == [pytest.approx(30.0), pytest.approx(2 / (210 / 3600)),
                                   pytest.approx(30.0)]


def test_parquet_archive_partitions(wh: Path) -> None:
    root = wh.with_name("warehouse_archive")
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.parquet"))
    assert files == ["gaming_day=2026-11-29/table_id=T1/events-0.parquet",
                     "gaming_day=2026-11-29/table_id=T2/events-0.parquet",
                     "gaming_day=2026-11-30/table_id=T2/events-0.parquet"]
    archived = read_archive(root)
    assert archived.num_rows == 84
    got = sorted(zip(archived["event_id"].to_pylist(), archived["gaming_day"].to_pylist(),
                     archived["table_id"].to_pylist(), archived["payload"].to_pylist(),
                     strict=True))
    assert got == sorted(query(wh, "SELECT event_id, gaming_day, table_id, payload FROM events"))


def test_checks_all_pass(floor_warehouse: tuple[Path, Any]) -> None:
    result = floor_warehouse[1]
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert sorted(checks) == ["findings_are_reported", "hold_within_control_limits",
                              "no_duplicate_events", "no_sequence_conflicts",
                              "no_sequence_gaps", "recorded_payouts_balance"]
    assert not checks["no_sequence_gaps"].passed  # T2 lost one event: a warning
    assert checks["no_sequence_gaps"].metadata["gaps"].value == 1
    assert all(c.passed for name, c in checks.items() if name != "no_sequence_gaps")
    won = checks["recorded_payouts_balance"].metadata["sum_house_win"].value  # per currency
    assert set(won) <= {"CAD", "EUR"} and sum(won.values()) == -12500 - 1000
