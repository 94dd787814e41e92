"""Hands audited by the ingest (``pipeline.hands.at_ingest``) give the warehouse the audit
step alone gives: on the hand-made floor, a simulated floor, and streams damaged in the
ways a table system damages them (re-sent, late, conflicting and re-timed events), loaded
in one load or two and in batches of every size."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from events.sim.simulation import SimConfig, simulate
from pipeline.analytics.steps import update_rollups
from pipeline.hands.at_ingest import IngestAudit, warehouse_time
from pipeline.hands.steps import update_hands
from pipeline.ingest.steps import archive_pending, load_events
from pipeline.warehouse import query, writing
from tests.pipeline import streams
from tests.pipeline.conftest import dump, write_log


def _build(loads: list[list[bytes]], log: Path, wh: Path, batch_size: int,
           early: bool) -> int:
    """Each load appends its lines to the log and runs the steps; the hands audited by the
    ingest."""
    lines: list[bytes] = []
    audited = 0
    for part in loads:
        lines += part
        write_log(log, lines)
        stats = load_events(str(log), wh, batch_size=batch_size, audit_hands=early)
        audited += stats.hands_audited
        update_hands(wh, 360, chunk=7)
        update_rollups(wh)
        archive_pending(wh, wh.with_name(wh.stem + "_archive"))
    return audited


def _same_warehouse(tmp_path: Path, loads: list[list[bytes]], batch_size: int) -> int:
    tag = f"{len(loads)}x{batch_size}"
    plain, early = tmp_path / f"plain{tag}.duckdb", tmp_path / f"early{tag}.duckdb"
    log = tmp_path / f"log{tag}.jsonl"  # one source name for both
    assert _build(loads, log, plain, batch_size, early=False) == 0
    audited = _build(loads, log, early, batch_size, early=True)
    got, want = dump(early), dump(plain)
    for name in want:
        assert got[name] == want[name], name
    return audited


def _simulated(tmp_path: Path) -> list[bytes]:
    log = tmp_path / "sim.jsonl"
    simulate(SimConfig(tables=3, hands=30, seed=11, ruleset="mixed", mispay_rate=0.05,
                       void_rate=0.03, dispute_rate=0.03), str(log))
    return log.read_bytes().splitlines()


def _damaged(lines: list[bytes], seed: int) -> list[bytes]:
    """Re-sent copies, events held back, a conflicting copy of a used seq, and times in
    the other forms the contract admits."""
    rng = random.Random(seed)
    events: list[dict[str, Any]] = [msgspec.json.decode(line) for line in lines]
    for ev in rng.sample(events, 8):
        at = ev["occurred_at"]
        ev["occurred_at"] = rng.choice([at[:-1] + "+00:00", at[:19] + "Z",
                                        at[:-1] + "123456Z"])
    out = [msgspec.json.encode(ev) for ev in events]
    for _ in range(6):  # re-sent
        out.insert(rng.randrange(len(out)), rng.choice(out))
    for _ in range(6):  # held back
        k = rng.randrange(len(out))
        line = out.pop(k)
        out.insert(min(len(out), k + rng.randrange(5, 400)), line)
    victim = dict(rng.choice([e for e in events if e["type"] == "BetPlaced"]))
    victim.update(event_id="conflicting-bet", payload=dict(victim["payload"], amount=7))
    out.insert(rng.randrange(len(out) // 2, len(out)), msgspec.json.encode(victim))
    # a copy of an early event re-sent under a new seq and a hand never seen (a
    # redelivery: no hand), and a hand with an event at another table, under a seq above
    # any there
    ghost = dict(next(e for e in events if e["type"] == "HandStarted"), hand_id="ghost",
                 seq=10**6 + 1)
    out.append(msgspec.json.encode(ghost))
    tables = sorted({e["table_id"] for e in events})
    stray = dict(rng.choice([e for e in events[len(events) // 2:] if e["hand_id"]]))
    stray.update(event_id="stray", table_id=tables[tables.index(stray["table_id"]) - 1],
                 seq=10**6)
    out.insert(next(k for k, line in enumerate(out) if stray["hand_id"].encode() in line),
               msgspec.json.encode(stray))
    return out


def test_hand_made_floor_in_batches_of_every_size(tmp_path: Path) -> None:
    t1, _ = streams.floor()
    lines = streams.floor_lines()
    dispute = streams.lines(streams.dispute(t1))
    # no hand ends within a batch of 5 (a hand has more events): none is audited at
    # ingest, only whole ones are; in batches of 13 a short one may be
    assert _same_warehouse(tmp_path, [lines + dispute], 5) == 0
    assert _same_warehouse(tmp_path, [lines + dispute], 13) >= 0
    assert _same_warehouse(tmp_path, [lines + dispute], 100_000) > 0
    assert _same_warehouse(tmp_path, [lines, dispute], 100_000) > 0


def test_simulated_floor_most_hands_audited_by_the_ingest(tmp_path: Path) -> None:
    lines = _simulated(tmp_path)
    hands = query_hands = _same_warehouse(tmp_path, [lines], 100_000)
    wh = tmp_path / "early1x100000.duckdb"
    total = query(wh, "SELECT count(*) FROM hands")[0][0]
    # every hand but those with a dispute after a later hand began (their events span)
    assert total == 90 and hands >= 80, (hands, query_hands)
    assert _same_warehouse(tmp_path, [lines[:1500], lines[1500:]], 400) > 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_damaged_streams(tmp_path: Path, seed: int) -> None:
    lines = _damaged(_simulated(tmp_path), seed)
    cut = len(lines) // 3
    assert _same_warehouse(tmp_path, [lines], 100_000) > 0
    assert _same_warehouse(tmp_path, [lines], 311) > 0
    assert _same_warehouse(tmp_path, [lines[:cut], lines[cut:]], 500) > 0


def test_conflicts_and_a_late_table_opened(tmp_path: Path) -> None:
    """A later load brings a TableOpened with a lower seq than the stored hands, and a
    copy of a stored seq with another id; one load brings both tables without their
    TableOpened events, which come in its last batch."""
    t1, t2 = streams.floor()
    late_opened = dict(t2[0], event_id="late-opened", seq=-1 + min(e["seq"] for e in t2))
    clash = dict(t1[5], event_id="clash")
    first = streams.lines(t1[1:]) + streams.lines(t2[1:])
    later = streams.lines([t1[0], t2[0], late_opened, clash])
    assert _same_warehouse(tmp_path, [first, later], 100_000) > 0  # the first load's
    assert _same_warehouse(tmp_path, [first + later], 20) >= 0


def test_a_write_by_another_process_stops_the_early_audit(tmp_path: Path) -> None:
    wh = tmp_path / "w.duckdb"
    with writing(wh) as con:
        view = IngestAudit.load(con)
        assert view.still_current(con)
        con.execute("INSERT INTO events (event_id) VALUES ('x')")
        assert not view.still_current(con)
        view.written(5)
        assert not view.still_current(con)


def test_times_rendered_as_the_warehouse_renders_them(tmp_path: Path) -> None:
    times = ["2026-11-29T21:03:11Z", "2026-11-29T21:03:11.1Z", "2026-11-29T21:03:11.123Z",
             "2026-11-29T21:03:11.123456Z", "2026-11-29T21:03:11.5+00:00"]
    with writing(tmp_path / "t.duckdb") as con:
        rendered = [con.execute("SELECT strftime(CAST(? AS TIMESTAMP), "
                                "'%Y-%m-%dT%H:%M:%S.%fZ')", [t]).fetchall()[0][0]
                    for t in times]
    assert [warehouse_time(t) for t in times] == rendered
    assert warehouse_time("2026-11-29T21:03:11.123456789Z") is None

