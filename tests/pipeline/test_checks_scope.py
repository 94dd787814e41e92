"""A load's checks look at what the load touched (its events, their hands and table-days),
not at every stored row: a fault in a hand the load did not touch is not read again (a
load with nothing new, or ``evaluate`` without a scope, still reads every row), and a
fault in a hand it touched is found."""

from __future__ import annotations

from pathlib import Path

from events.sim.simulation import SimConfig, simulate
from pipeline.checks import evaluate
from pipeline.cli import main
from pipeline.warehouse import query, writing


def _failed(outcomes: list) -> set[str]:  # type: ignore[type-arg]
    return {o.name for o in outcomes if not o.passed and not o.warn_only}


def test_the_checks_of_a_load_read_only_what_it_touched(tmp_path: Path) -> None:
    full = tmp_path / "full.jsonl"
    simulate(SimConfig(tables=2, hands=20, seed=3), str(full))
    lines = full.read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if i > len(lines) // 2
               and b'"TableOpened"' not in line and b'"HandStarted"' in line)
    log, wh = tmp_path / "floor.jsonl", tmp_path / "w.duckdb"
    log.write_bytes(b"".join(lines[:cut]))
    assert main(["load", "--source", str(log), "--warehouse", str(wh), "-q"]) == 0
    old = query(wh, "SELECT min(hand_id) FROM hands")[0][0]
    with writing(wh) as con:  # a fault planted in a hand the next load does not touch
        con.execute("INSERT INTO hands SELECT * FROM hands WHERE hand_id = ?", [old])
    since = query(wh, "SELECT count(*) FROM events")[0][0]
    with log.open("ab") as f:
        f.write(b"".join(lines[cut:]))
    assert main(["load", "--source", str(log), "--warehouse", str(wh), "-q"]) == 0
    assert "no_duplicate_events" in _failed(evaluate(wh))  # every row: it is there
    assert not _failed(evaluate(wh, since=since))  # the load's own rows: not read again

    new = query(wh, f"SELECT max(hand_id) FROM events WHERE rowid >= {since}")[0][0]
    with writing(wh) as con:  # and in a hand the load touched: found
        con.execute("INSERT INTO hands SELECT * FROM hands WHERE hand_id = ?", [new])
    assert "no_duplicate_events" in _failed(evaluate(wh, since=since))
    with writing(wh) as con:  # a payout off balance in a hand the load touched: found
        con.execute("DELETE FROM hands WHERE rowid = (SELECT max(rowid) FROM hands)")
        con.execute("UPDATE wagers SET recorded_result = recorded_result + 100 WHERE hand_id "
                    "= ? AND rowid = (SELECT min(rowid) FROM wagers WHERE hand_id = ?)",
                    [new, new])
    assert "recorded_payouts_balance" in _failed(evaluate(wh, since=since))
    with writing(wh) as con:  # an event of the load stored twice: found
        con.execute("UPDATE wagers SET recorded_result = recorded_result - 100 WHERE hand_id "
                    "= ? AND rowid = (SELECT min(rowid) FROM wagers WHERE hand_id = ?)",
                    [new, new])
        con.execute(f"INSERT INTO events SELECT * FROM events WHERE rowid = {since}")
    assert "no_duplicate_events" in _failed(evaluate(wh, since=since))
