"""The audit step without Dagster: sequence findings for the tables with new events, then
every pending hand re-audited from its events, a chunk of hands per transaction."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

from pipeline.audit.transforms import sequence_findings, write_sequence_findings
from pipeline.hands.transforms import audit_feed, read_feed, write_hands
from pipeline.warehouse import reading, writing

log = logging.getLogger("uth.load")


@dataclass
class HandStats:
    tables: int = 0
    sequence_findings: int = 0
    hands: int = 0
    events: int = 0
    findings: int = 0


def update_sequences(warehouse: str | Path, day_start_minutes: int) -> HandStats:
    """Recompute the gap/conflict findings of every table in ``pending.sequence``."""
    stats = HandStats()
    with writing(warehouse) as con:
        tables = [r[0] for r in con.execute(
            "SELECT DISTINCT table_id FROM pending.sequence WHERE table_id IS NOT NULL "
            "ORDER BY 1").fetchall()]
        found = sequence_findings(con, tables) if tables else []
        write_sequence_findings(con, tables, found, day_start_minutes)
    stats.tables, stats.sequence_findings = len(tables), len(found)
    if tables:
        log.info("sequence: %d tables checked, %d gap/conflict findings", len(tables),
                 len(found))
    return stats


def update_hands(warehouse: str | Path, day_start_minutes: int,
                 chunk: int = 20_000) -> HandStats:
    """Sequence findings first (they name the conflict losers the hands leave out), then
    the pending hands, ``chunk`` at a time."""
    stats = update_sequences(warehouse, day_start_minutes)
    started = time.perf_counter()
    after = ""
    while True:
        with reading(warehouse) as con:
            ids = [r[0] for r in con.execute(
                "SELECT DISTINCT hand_id FROM pending.hands WHERE hand_id > ? "
                "ORDER BY hand_id LIMIT ?", [after, chunk]).fetchall()]
            if not ids:
                break
            feed = read_feed(con, ids)
        rows = audit_feed(feed, ids)
        with writing(warehouse) as con:
            write_hands(con, ids, rows, day_start_minutes)
        after = ids[-1]
        stats.hands += rows.hands.num_rows
        stats.events += rows.events
        stats.findings += rows.findings.num_rows
        log.info("hands: committed %d hands (%d events, %d findings), %d so far, "
                 "%.0f events/s", rows.hands.num_rows, rows.events, rows.findings.num_rows,
                 stats.hands, stats.events / max(time.perf_counter() - started, 1e-9))
    return stats
