"""The evidence the Hand audit page offers for download from a sealed warehouse carries the
hand's inclusion proof: the printed sheet and the JSON document verify with the public key
alone (issue 30, item 16)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from dashboards import evidence, queries
from tests.dashboards.conftest import no_failure
from tests.ledger.conftest import Floor, build_floor, verify


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Floor:
    return build_floor(tmp_path_factory.mktemp("sealed") / "floor")


def _downloads(warehouse: Path, hand_id: str) -> tuple[dict[str, Any], str]:
    """What the page builds for download: the document and the printable sheet."""
    with duckdb.connect(str(warehouse), read_only=True) as con:
        row = queries.hand(con, hand_id)
        assert row is not None
        events_df = queries.hand_events(con, row)
        opened = queries.table_opened_before(con, str(row["table_id"]),
                                             int(events_df["seq"].min()),
                                             events_df["occurred_at"].min().to_pydatetime())
        proof = queries.hand_proof(con, events_df, opened)
        events = evidence.event_dicts(opened) + evidence.event_dicts(events_df)
        doc = evidence.document(row, events, queries.hand_wagers(con, hand_id),
                                queries.hand_findings(con, hand_id), proof)
    sheet = evidence.sheet(doc, events_df)
    assert sheet is not None
    return doc, sheet


def test_the_downloaded_sheet_carries_the_proof(floor: Floor, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    doc, sheet = _downloads(floor.warehouse, "H1")
    assert "No inclusion proof" not in sheet and "Every event above is proved" in sheet
    printed, carried = tmp_path / "h1.html", tmp_path / "h1.json"
    printed.write_text(sheet)
    carried.write_text(evidence.to_json(doc))  # the JSON download, as the page offers it
    for path in (printed, carried):
        status, out = verify(capsys, "--evidence", str(path), "--public-key", str(floor.public))
        assert status == 0, out
        assert "hand H1: 26 events proved against seal 1" in out
    assert "the warehouse rows beside it are not proved" in out
    doc["auditor"]["dealer_id"] = "D9"
    carried.write_text(evidence.to_json(doc))
    status, out = verify(capsys, "--evidence", str(carried), "--public-key", str(floor.public))
    assert status == 1 and "dealer_id is not what its events give" in out


def test_the_page_says_the_downloads_carry_the_proof(app: Any, floor: Floor) -> None:
    at = app(floor.warehouse, "hand_audit", hand_id="H1")
    no_failure(at)
    assert any("carry the hand's inclusion proof against seal 1" in c.value for c in at.caption)
