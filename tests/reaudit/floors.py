"""A small simulated floor for the re-audit tests, with what a real log carries: mispays,
voids and disputes (the simulator's), a line that is no event, a redelivered event, a
conflicting copy of a seq, a lost event (a gap), events delivered late (after later
ones), and hands dealt across the 06:00 gaming-day boundary; and hole-carders (one who
sees both dealer cards, one only with a table's second dealer) whose seat sessions run
across that boundary, with honest players beside them, so that the player tables have
alerts. Loaded by ``uth load`` into a warehouse with its Parquet archive."""

from __future__ import annotations

import json
from pathlib import Path

from events.sim.simulation import SimConfig, simulate
from pipeline.cli import main

# player i at table i % 2, seat i // 2 + 1
ROSTER = ("hole_card_both", "basic", "hole_card_both@1", "basic")


def floor_log(directory: Path, *, tables: int = 2, hands: int = 90, seed: int = 11) -> Path:
    log = directory / "floor.jsonl"
    simulate(SimConfig(tables=tables, hands=hands, seed=seed, ruleset="mixed",
                       mispay_rate=0.05, void_rate=0.04, dispute_rate=0.04, pace=60.0,
                       start="2026-11-30T05:35:00Z", roster=ROSTER), str(log))
    lines = log.read_bytes().splitlines()
    late = lines[200:212]  # late: a block of events delivered after later ones
    del lines[200:212]
    lines[500:500] = late
    lines.insert(60, lines[55])  # redelivered: the same event again
    lost = lines.pop(300)  # lost: a gap in its table's seq
    conflict = json.loads(lines[400])  # a conflict: another event with a seq already used
    conflict["event_id"] = "0f0e0d0c-0b0a-4998-8776-655443322110"
    lines.append(json.dumps(conflict).encode())
    lines.insert(30, b'{"type": "BetPlaced", "broken": ')  # a dead letter
    assert lost
    log.write_bytes(b"\n".join(lines) + b"\n")
    return log


def load(log: Path, warehouse: Path) -> Path:
    """``uth load`` of ``log``; returns the warehouse's archive."""
    archive = warehouse.with_name(warehouse.stem + "_archive")
    code = main(["load", "--source", str(log), "--warehouse", str(warehouse), "--archive",
                 str(archive), "-q"])
    assert code in (0, 1)  # 1: a check's warning (the floor has findings), not a failure
    return archive
