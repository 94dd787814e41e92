"""An empty value reads as empty: ``—`` (or nothing in a link column), never "None", which
the grid writes for a missing cell; an integer column with a gap reads ``1``, not ``1.0``;
the CSV download keeps an empty field. The hand-made warehouse's finding F3 (a sequence
gap) has no hand, dealer, seat or spot."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from dashboards import ui
from tests.dashboards.conftest import PAGES, no_failure
from tests.dashboards.test_csv_values import downloads


def _cells(table: Any) -> pd.DataFrame:
    value = table.value
    return value.data if hasattr(value, "data") else value


@pytest.mark.parametrize("page", PAGES)
def test_no_cell_of_any_page_is_missing(app, handmade_warehouse: Path, page: str) -> None:
    at = app(handmade_warehouse, page, **({"hand_id": "H1"} if page == "hand_audit" else {}))
    no_failure(at)
    for n, table in enumerate(at.dataframe):
        cells = _cells(table)
        missing = [(c, i) for c in cells.columns for i, v in enumerate(cells[c])
                   if not ui.known(v) or str(v) in ("None", "nan", "<NA>", "NaT")]
        assert not missing, (page, n, missing[:5])


@pytest.mark.parametrize(("page", "table", "csv_name"),
                         [("findings", 1, "findings.csv"), ("live", 1, "live-findings.csv")])
def test_a_finding_without_hand_dealer_or_seat(app, handmade_warehouse: Path, page: str,
                                               table: int, csv_name: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    seen = downloads(monkeypatch)
    at = app(handmade_warehouse, page)
    no_failure(at)
    cells = _cells(at.dataframe[table])
    gap = cells[cells["Detail"] == "seq 41 to 43"].iloc[0]
    assert (gap["Hand"], gap["Dealer"], gap["Seat"]) == ("", "—", "—")
    assert list(cells["Seat"]) == ["1", "—", "4", "2"]  # newest first; not 1.0
    rows = list(csv.DictReader(io.StringIO(dict(seen)[csv_name])))
    gap_row = next(r for r in rows if r["Detail"] == "seq 41 to 43")
    assert (gap_row["Hand"], gap_row["Dealer"], gap_row["Seat"]) == ("", "", "")
    assert [r["Seat"] for r in rows] == ["1", "", "4", "2"]
