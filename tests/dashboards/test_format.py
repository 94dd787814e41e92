"""Money from integer cents in the table's currency; percentages with their denominator."""

from __future__ import annotations

import doctest
import re

import pandas as pd
import pytest

from dashboards import format as fmt


@pytest.mark.parametrize(("cents", "currency", "text"), [
    (0, "USD", "$0.00"),
    (5, "USD", "$0.05"),
    (-5, "USD", "-$0.05"),
    (100_000_000_001, "USD", "$1,000,000,000.01"),
    (10**12, "CAD", "CA$10,000,000,000.00"),
    (123456, "EUR", "€1,234.56"),
    (-99999, "GBP", "-£999.99"),
    (1234567, "JPY", "¥1,234,567"),
    (250, "CHF", "CHF 2.50"),
    (250, None, "2.50"),
    (pd.NA, "USD", "—"),
    (float("nan"), "USD", "—"),
    (1500.0, "USD", "$15.00"),  # a NULL-able BIGINT read back as a float
])
def test_money(cents: object, currency: str | None, text: str) -> None:
    assert fmt.money(cents, currency) == text


def test_money_refuses_fractional_cents() -> None:
    with pytest.raises(ValueError, match="integer cents"):
        fmt.money(10.5, "USD")


def test_money_is_exact_beyond_float_precision() -> None:
    # 2**53 + 1 cents is not a float; integer arithmetic keeps the last cent
    assert fmt.money(2**53 + 1, "USD") == "$90,071,992,547,409.93"


def test_percentages_name_their_denominator() -> None:
    assert fmt.pct(745_000 / 4_450_000, "drop") == "16.74% of drop"
    assert fmt.pct(-0.05, "handle") == "-5.00% of handle"
    assert fmt.pct(None, "drop") == "— (no drop)"
    assert fmt.share(1, 540, "hands", 3) == "0.185% (1 of 540 hands)"
    assert fmt.share(0, 0, "wagers") == "— (0 wagers)"
    assert fmt.probability(4324 / 133784560) == "0.0032%"
    assert fmt.day(pd.Timestamp("2026-11-28")) == "2026-11-28"


def test_doctests() -> None:
    assert doctest.testmod(fmt).failed == 0


def test_warehouse_text_is_inert_in_markdown() -> None:
    from dashboards.ui import md

    text = "[claim](http://evil.example) pays $5 and $6 **now** <b>x</b> :red[y] #1"
    escaped = md(text)
    assert re.sub(r"\\(.)", r"\1", escaped).replace("\u2060", "") == text  # nothing lost
    # every character markdown, HTML, LaTeX or a directive could act on is escaped
    assert re.search(r"(?<!\\)[\[\]()$*<>:#]", escaped) is None


def test_urls_in_warehouse_text_are_no_links() -> None:
    """The renderer autolinks http://x, www.x and a@b even when escaped (seen in Chromium):
    an invisible word joiner breaks each pattern."""
    from dashboards.ui import md

    escaped = md("D1 http://evil.example www.evil.example a@b.example")
    plain = re.sub(r"\\(.)", r"\1", escaped)
    for pattern in ("http:", "www.", "a@b", "evil.example"):
        assert pattern not in plain, plain


def test_a_dealer_without_mispays_shows_none_not_a_bare_amount() -> None:
    assert fmt.mispay_net(0, "", 0) == "none"  # a mixed floor gives no currency
    assert fmt.mispay_net(-500, "USD", 2) == "-$5.00"
    assert fmt.mispay_net(1234, "mixed", 3) == "1,234 cents (several currencies)"
