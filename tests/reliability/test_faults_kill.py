"""SIGKILL in the middle of a batch, then a restart: every event processed, no warehouse row
or finding lost or repeated. The loader (``uth load``) against a clean run of the same log;
the follower (``uth audit --follow``) against a one-shot audit."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest

from events.logs import open_log
from tests.reliability.helpers import (
    descendants,
    load_in_process,
    running,
    source_log,
    uth_process,
    wait_until,
)

# Columns that say *when* a row was written, which a resumed load legitimately changes.
VOLATILE = {"updated_at", "loaded_at"}
TABLES = ("events", "hands", "wagers", "audit_findings", "table_hold_daily",
          "trips_performance", "trips_hits", "dealer_performance", "load_positions",
          "dead_letters")
KEYS = {"events": "event_id", "hands": "hand_id", "audit_findings": "finding_id",
        "wagers": "hand_id, seat, spot"}


def snapshot(warehouse: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows (volatile columns left out), sorted; plus key uniqueness."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    with duckdb.connect(str(warehouse), read_only=True) as con:
        for table in TABLES:
            cols = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()
                    if r[0] not in VOLATILE]
            rows = con.execute(
                f"SELECT {', '.join(map(_quote, cols))} FROM {table}").fetchall()
            out[table] = sorted(rows, key=repr)
            key = KEYS.get(table)
            if key:
                n, distinct = con.execute(
                    f"SELECT count(*), count(DISTINCT ({key})) FROM {table}").fetchone()
                assert n == distinct, f"{table}: {n - distinct} rows repeated"
    return out


def _quote(col: str) -> str:
    return f'"{col}"'


def _load(url: str, warehouse: Path, *extra: str) -> list[str]:
    return ["load", "--source", url, "--warehouse", str(warehouse), "--batch-size", "1000",
            "--hands-per-chunk", "60", *extra]


def _archive_counts(warehouse: Path) -> tuple[int, int]:
    archive = warehouse.with_name(warehouse.stem + "_archive")
    with duckdb.connect() as con:
        return con.execute(
            "SELECT count(*), count(DISTINCT event_id) FROM "
            f"read_parquet('{archive}/**/*.parquet', hive_partitioning=true)").fetchone()


def reference(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """What a complete load must hold, from the auditor run in-process over the same log
    (a clean ``uth load`` costs half a minute of Dagster start-up; the auditor, a second)."""
    from events.audit.auditor import audit
    from events.contract.codec import decode_records

    with open_log(url) as log:
        records = [(f"row {r.offset}", r.value) for b in log.read() for r in b]
    report = audit(decode_records(records))
    return {
        "hands": sorted(((h.hand_id, h.table_id, h.status, h.dealer_id, h.seat_count)
                         for h in report.hands), key=repr),
        "wagers": sorted(((w.hand_id, w.seat, w.spot, w.amount, w.recorded_result,
                           w.correct_result) for w in report.wagers), key=repr),
        "audit_findings": sorted(((f.kind, f.hand_id, f.table_id, f.seat, f.spot, f.expected,
                                   f.recorded, f.detail) for f in report.findings), key=repr),
        "dead_letters": sorted(((str(r.position),) for r in report.rejected), key=repr),
    }


def observed(warehouse: Path) -> dict[str, list[tuple[Any, ...]]]:
    with duckdb.connect(str(warehouse), read_only=True) as con:
        def rows(sql: str) -> list[tuple[Any, ...]]:
            return sorted(con.execute(sql).fetchall(), key=repr)

        return {
            "hands": rows("SELECT hand_id, table_id, status, dealer_id, seat_count FROM hands"),
            "wagers": rows("SELECT hand_id, seat, spot, amount, recorded_result, "
                           "correct_result FROM wagers"),
            "audit_findings": rows("SELECT kind, hand_id, table_id, seat, spot, expected, "
                                   "recorded, detail FROM audit_findings"),
            "dead_letters": rows("SELECT position FROM dead_letters"),
        }


# Kill points, one per killed run: (progress line that must have appeared, seconds after
# it). Small batches make every stage several transactions, so the kill lands mid-stage.
# Each load costs 10-30 s of Dagster start-up, so ``make test`` kills one load, in the
# stage that writes hands, wagers and findings; UTH_RELIABILITY_LONG=1 adds a kill in the
# middle of the events stage.
KILL_POINTS = [("hands: committed", 0.05)]
if os.environ.get("UTH_RELIABILITY_LONG"):
    KILL_POINTS.insert(0, ("events: committed", 0.05))


def test_fault_sigkill_loader_mid_batch_then_rerun(
    tmp_path: Path, ledger: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    url, valid, rejected = source_log(tmp_path / "log.db")
    expected = reference(url)
    assert len(expected["audit_findings"]) >= 8, "the source should give findings to lose"
    public = _seal(url, tmp_path / "keys" / "seal")
    assert len(expected["dead_letters"]) == rejected
    warehouse = tmp_path / "killed.duckdb"
    killed_at = []
    helpers: set[int] = set()  # the killed loads' audit worker processes
    for marker, delay in KILL_POINTS:
        out = tmp_path / f"load-{len(killed_at)}.out"
        with uth_process(*_load(url, warehouse, "--audit-workers", "2"), stdout=out) as proc:
            wait_until(lambda m=marker, o=out: m in o.read_text(), 300,
                       f"load progress {marker!r}", step=0.02, proc=proc)
            time.sleep(delay)
            if proc.poll() is None:
                helpers |= descendants(proc.pid)
                proc.kill()  # SIGKILL: no cleanup, no commit
                proc.wait()
                killed_at.append(f"after {marker!r}+{delay}s")
    assert killed_at, "no load was killed: the test proves nothing"
    if "hands: committed" in [m for m, _ in KILL_POINTS]:
        assert helpers, "the load killed in its audit step had no worker processes"
    # they end with the load (the bound only keeps a failure from hanging the suite)
    wait_until(lambda: not running(helpers), 30, f"the killed load's helpers {helpers} end")
    code, _, err = load_in_process(capsys, *_load(url, warehouse))  # the restart
    assert code in (0, 1), err[-2000:]  # 1: an asset check fails on the corpus
    snapshot(warehouse)  # every table readable; no key repeated in any table
    with duckdb.connect(str(warehouse), read_only=True) as con:
        ids = [r[0] for r in con.execute("SELECT event_id FROM events").fetchall()]
        hold = con.execute("SELECT sum(hands), sum(house_win) FROM table_hold_daily").fetchone()
        loaded = con.execute("SELECT position, events_loaded FROM load_positions").fetchall()
    assert len(ids) == len(set(ids)) == valid, "events lost or repeated"
    seen = observed(warehouse)
    for table, rows in seen.items():
        assert rows == expected[table], f"{table}: lost or repeated rows"
    assert hold == (len(expected["hands"]), -sum(w[4] for w in expected["wagers"]))
    assert loaded == [(json.dumps({"0": valid + rejected + 1}), valid)]
    n, distinct = _archive_counts(warehouse)
    assert n == distinct == valid, "the Parquet archive lost or repeated events"
    ledger.record("fault", "SIGKILL uth load mid-batch, rerun", sent=valid + rejected,
                  processed=len(ids), rejected=len(seen["dead_letters"]),
                  flagged=len(seen["audit_findings"]), note="killed " + ", ".join(killed_at))
    # the killed and resumed load's events are the sealed ones: no false alarm
    from pipeline.ledger.store import verify_warehouse

    (report,) = verify_warehouse(warehouse, public)
    # every event sealed but those beyond a gap of the corpus (a seal covers each table's
    # gapless run from seq 0; the log was sealed whole before the loads)
    waiting = sum(u.count for u in report.unsealed)
    assert report.intact and report.sealed_events + waiting == valid, report.lines()
    assert all(u.missing_from is not None for u in report.unsealed), report.lines()


def _seal(url: str, prefix: Path) -> Any:
    """Seal the source log before the loads (they copy the seal into the warehouse)."""
    from events.ledger.keys import generate, load_private, load_public
    from events.ledger.logs import seal_log

    private, public = generate(prefix)
    with open_log(url) as log:
        seal_log(log, load_private(private))
    return load_public(public)
