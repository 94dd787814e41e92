"""Every table of every page downloads as CSV: each dataframe is followed by its download
button, which names as many rows as the table shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dashboards.conftest import PAGES, no_failure


@pytest.mark.parametrize("page", PAGES)
def test_every_table_has_its_csv(app, handmade_warehouse: Path, page: str) -> None:
    at = app(handmade_warehouse, page, **({"hand_id": "H1"} if page == "hand_audit" else {}))
    no_failure(at)
    tables = list(at.dataframe)
    assert tables, page
    buttons = [b.label for b in at.get("download_button") if "CSV" in b.label]
    rows = [len(t.value) for t in tables]
    assert buttons == [f"Download as CSV ({n:,} row{'s' if n != 1 else ''})" for n in rows]
