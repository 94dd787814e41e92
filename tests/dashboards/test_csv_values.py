"""The CSV downloads hold numbers a spreadsheet sums (money in currency units beside a
currency column, percentages as percents), never formatted text, and never a cell a
spreadsheet would read as a formula."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest
import streamlit

from dashboards import ui
from dashboards.format import count, money, pct_value
from tests.dashboards.conftest import PAGES, no_failure

FORMATTED = re.compile(r"^-?(CA\$|\$|€|£|¥|[A-Z]{3} )\d|\d%|^\d{1,3}(,\d{3})+(\.\d+)?$")


def downloads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    real = streamlit.download_button

    def spy(label: str, data: Any, *args: Any, **kwargs: Any) -> Any:
        if "CSV" in label:
            made = data() if callable(data) else data  # made at the click, for its user
            seen.append((kwargs.get("file_name", ""),
                         made.decode() if isinstance(made, bytes) else made))
        return real(label, data, *args, **kwargs)

    monkeypatch.setattr(streamlit, "download_button", spy)
    return seen


@pytest.mark.parametrize("page", PAGES)
def test_every_download_holds_numbers(app, handmade_warehouse: Path, page: str,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    seen = downloads(monkeypatch)
    at = app(handmade_warehouse, page, **({"hand_id": "H1"} if page == "hand_audit" else {}))
    no_failure(at)
    assert seen, page
    for name, text in seen:
        rows = list(csv.reader(io.StringIO(text)))
        body = rows[1:]
        formatted = [c for r in body for c in r if FORMATTED.search(c)]
        assert not formatted, (name, formatted[:5])
    if page in ("floor", "disputes", "hold", "dealers"):
        assert any("Currency" in text.splitlines()[0] or "currency" in text.splitlines()[0]
                   for _, text in seen), page


def test_money_is_in_units_with_its_currency_and_formulas_are_inert() -> None:
    frame = ui.frame({
        "Dealer": ["=HYPERLINK(\"http://x\")", "@SUM(A1)", "+1", "D4"],
        "Drop": [money(410000000, "CAD"), money(-500, "EUR"), money(150, "JPY"), "—"],
        "Hold %": [pct_value(0.2757), pct_value(0.1), pct_value(-0.05), pct_value(None)],
        "Hands": [count(17650), count(3), count(0), count(None)],
    })
    rows = list(csv.reader(io.StringIO(ui.csv_text(frame))))
    assert rows == [
        ["Dealer", "Drop", "Hold %", "Hands", "Currency"],
        ["'=HYPERLINK(\"http://x\")", "4100000.00", "27.57", "17650", "CAD"],
        ["'@SUM(A1)", "-5.00", "10", "3", "EUR"],
        ["'+1", "150", "-5", "0", "JPY"],
        ["D4", "", "", "", ""],
    ]


def test_hand_links_are_url_encoded() -> None:
    from urllib.parse import parse_qs, urlsplit

    for hand in ("T1+2", "A&hand_id=B", "T#7", "x/../y", "é 1"):
        link = ui.hand_link(hand)
        assert parse_qs(urlsplit(link).query)["hand_id"] == [hand], link


def test_the_findings_page_links_a_hand_whose_id_has_link_syntax(
        app, handmade_warehouse: Path, tmp_path: Path) -> None:
    """The page's Hand column, not only the helper: an id with ``+``, ``&``, ``#`` and ``/``
    opens that hand, never another or a cut one (issue 30, item 13)."""
    import shutil
    from urllib.parse import parse_qs, urlsplit

    import duckdb

    odd = "T1+2&hand_id=H1#7/x"
    copy = tmp_path / "warehouse.duckdb"
    shutil.copy(handmade_warehouse, copy)
    with duckdb.connect(str(copy)) as con:
        con.execute("UPDATE audit_findings SET hand_id = ? WHERE hand_id = 'H4'", [odd])
    at = app(copy, "findings")
    no_failure(at)
    links = [h for h in at.dataframe[1].value["Hand"] if h]  # a finding without hand: ""
    opened = [parse_qs(urlsplit(link).query)["hand_id"] for link in links]
    assert [odd] in opened, links
    assert all(len(ids) == 1 for ids in opened), links
