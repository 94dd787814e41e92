"""Both of ``uth load``'s audits (the early audit at ingest and the audit step) certify the
plain hands from columns (``pipeline.hands.certified``) and give the auditor only the
others: the warehouse they build is, row for row, the one built when every hand goes to
the auditor (as before the columns), on a simulated floor with mispays, voids and
disputes and on streams damaged as a table system damages them (re-sent, late,
conflicting and re-timed events, a hand with an event at another table), in one load or
two, in batches that cut hands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from pipeline.hands import at_ingest, certified
from tests.pipeline import streams
from tests.pipeline.conftest import dump
from tests.pipeline.test_at_ingest import _build, _damaged, _simulated

CERTIFY = certified.certify_batch


def _refer_every_hand(index: pa.Table, events: pa.Table, contexts: Any,
                      low: int) -> tuple[pa.Table, pa.Table, list[str]]:
    """``certify_batch`` certifying nothing: every hand to the auditor."""
    hands, wagers, _ = CERTIFY(index.slice(0, 0), events.slice(0, 0), contexts, low)
    return hands, wagers, index["hand_id"].to_pylist()


def _counting(counted: dict[str, int], where: str) -> Any:
    """``certify_batch`` counting the hands it certifies in ``counted[where]``."""
    def certify_batch(index: pa.Table, events: pa.Table, contexts: Any,
                      low: int) -> tuple[pa.Table, pa.Table, list[str]]:
        out = CERTIFY(index, events, contexts, low)
        counted[where] += index.num_rows - len(out[2])
        return out
    return certify_batch


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_certified_warehouse_is_the_auditors(tmp_path: Path, seed: int,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _simulated(tmp_path)
    if seed:
        lines = _damaged(lines, seed)
    cut = len(lines) // 3
    counted = _same_warehouse(tmp_path, monkeypatch, [lines], 100_000)
    assert counted["early"] > 0, counted
    counted = _same_warehouse(tmp_path, monkeypatch, [lines[:cut], lines[cut:]], 311)
    # both audits certified hands (the hands a batch cut go to the audit step)
    assert counted["early"] > 0 and counted["step"] > 0, counted


def test_a_late_table_opened_and_a_conflict(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A later load brings a TableOpened with a lower seq than the stored hands (which
    are audited again under it) and a copy of a stored seq with another id; one load
    brings both tables without their TableOpened events, which come in its last batch."""
    t1, t2 = streams.floor()
    late_opened = dict(t2[0], event_id="late-opened", seq=-1 + min(e["seq"] for e in t2))
    clash = dict(t1[5], event_id="clash")
    first = streams.lines(t1[1:]) + streams.lines(t2[1:])
    later = streams.lines([t1[0], t2[0], late_opened, clash])
    assert sum(_same_warehouse(tmp_path, monkeypatch, [first, later], 100_000).values())
    _same_warehouse(tmp_path, monkeypatch, [first + later], 20)


def _same_warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    loads: list[list[bytes]], batch_size: int) -> dict[str, int]:
    """Build the warehouse of ``loads`` as the code does and with every hand referred to
    the auditor; assert every table the same; the hands each audit certified."""
    tag = f"{len(loads)}x{batch_size}"
    log = tmp_path / f"log{tag}.jsonl"  # one source name for both
    counted = {"early": 0, "step": 0}
    with monkeypatch.context() as m:
        m.setattr(at_ingest, "certify_batch", _counting(counted, "early"))
        m.setattr(certified, "certify_batch", _counting(counted, "step"))
        _build(loads, log, tmp_path / f"certified{tag}.duckdb", batch_size, early=True)
    with monkeypatch.context() as m:
        m.setattr(at_ingest, "certify_batch", _refer_every_hand)
        m.setattr(certified, "certify_batch", _refer_every_hand)
        _build(loads, log, tmp_path / f"reference{tag}.duckdb", batch_size, early=True)
    got = dump(tmp_path / f"certified{tag}.duckdb")
    want = dump(tmp_path / f"reference{tag}.duckdb")
    for name in want:
        assert got[name] == want[name], name
    return counted
