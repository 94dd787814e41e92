"""A follow keeps what its ingest knows of the stored events from load to load
(``pipeline.ingest.steps.Kept``, issue 31) instead of reading it again from every stored
event: used again only while ``events`` is as it left it, and redelivered events still
count once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from events.sim.simulation import SimConfig, simulate
from pipeline.warehouse import query


def _load(log: Path, wh: Path, kept: Any = None) -> Any:
    from pipeline.load_steps import LoadSettings, run_load

    result = run_load(LoadSettings(source=str(log), warehouse=str(wh), kept=kept))
    assert not result.failed, result.error
    return result


def _tables(wh: Path) -> dict[str, list[tuple[Any, ...]]]:
    return {t: query(wh, f"SELECT * EXCLUDE (finding_id) FROM {t} ORDER BY ALL")
            if t == "audit_findings" else query(wh, f"SELECT * FROM {t} ORDER BY ALL")
            for t in ("hands", "wagers", "audit_findings")}


def test_a_follow_reads_the_stored_events_once(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.hands.at_ingest import IngestAudit
    from pipeline.ingest.steps import Kept

    whole = tmp_path / "whole.jsonl"
    simulate(SimConfig(tables=3, hands=40, seed=11, mispay_rate=0.05), str(whole))
    lines = whole.read_bytes().splitlines(keepends=True)
    cuts = [0, len(lines) // 3, 2 * len(lines) // 3, len(lines)]
    loads: list[int] = []
    original = IngestAudit.load.__func__  # type: ignore[attr-defined]

    def counted(cls: type[IngestAudit], con: Any) -> IngestAudit:
        loads.append(1)
        return original(cls, con)  # type: ignore[no-any-return]

    monkeypatch.setattr(IngestAudit, "load", classmethod(counted))
    log, wh, kept = tmp_path / "log.jsonl", tmp_path / "w.duckdb", Kept()
    log.write_bytes(b"".join(lines[:cuts[1]]))
    _load(log, wh, kept)
    with log.open("ab") as f:
        f.write(b"".join(lines[cuts[1]:cuts[2]]))
    _load(log, wh, kept)
    assert (len(loads), kept.views_reused) == (1, 1)  # read once, then kept
    # another writer: the next load of the follow reads what is stored again
    other = tmp_path / "other.jsonl"
    simulate(SimConfig(tables=1, hands=3, seed=5), str(other))
    other.write_bytes(other.read_bytes().replace(b'"T01', b'"OTHER'))
    _load(other, wh)
    with log.open("ab") as f:
        f.write(b"".join(lines[cuts[2]:]))
    _load(log, wh, kept)
    assert (len(loads), kept.views_reused) == (3, 1)  # (the other's, and this one's)
    # redelivered: the second third again, with a new table's hands
    more = tmp_path / "more.jsonl"
    simulate(SimConfig(tables=1, hands=3, seed=6), str(more))
    with log.open("ab") as f:
        f.write(b"".join(lines[cuts[1]:cuts[2]]))
        f.write(more.read_bytes().replace(b'"T01', b'"MORE'))
    result = _load(log, wh, kept)
    assert result.meta["events"]["duplicates"] == cuts[2] - cuts[1]
    assert (len(loads), kept.views_reused) == (3, 2)
    (stored, distinct), = query(wh, "SELECT count(*), count(DISTINCT event_id) FROM events")
    assert stored == distinct == len(lines) + len(other.read_bytes().splitlines()) + len(
        more.read_bytes().splitlines())
    # the same warehouse as the same events loaded by loads that kept nothing
    fresh = tmp_path / "fresh.duckdb"
    _load(log, fresh)
    _load(other, fresh)
    assert _tables(wh) == _tables(fresh)
