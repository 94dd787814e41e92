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
    for n, (loads, batch_size) in enumerate((([lines], 100_000),
                                             ([lines[:cut], lines[cut:]], 311))):
        counted = {"early": 0, "step": 0}
        with monkeypatch.context() as m:
            m.setattr(at_ingest, "certify_batch", _counting(counted, "early"))
            m.setattr(certified, "certify_batch", _counting(counted, "step"))
            _build(loads, tmp_path / f"c{n}.jsonl", tmp_path / f"c{n}.duckdb", batch_size,
                   early=True)
        with monkeypatch.context() as m:
            m.setattr(at_ingest, "certify_batch", _refer_every_hand)
            m.setattr(certified, "certify_batch", _refer_every_hand)
            _build(loads, tmp_path / f"c{n}.jsonl", tmp_path / f"r{n}.duckdb", batch_size,
                   early=True)
        got, want = dump(tmp_path / f"c{n}.duckdb"), dump(tmp_path / f"r{n}.duckdb")
        for name in want:
            assert got[name] == want[name], name
        # both audits certified hands (the hands a batch cut go to the audit step)
        assert counted["early"] > 0 and (counted["step"] > 0 or n == 0), counted
