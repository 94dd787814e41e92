"""The pages work from about 768 pixels up (a tablet on the floor, half a screen): no
metric is cut, the hand audit's verdict columns and step buttons are in view. A screenshot
of every page at 1400 and 800 pixels is saved under the test's temporary directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dashboards.conftest import Server
from tests.dashboards.test_browser import ERRORS, PAGES, browser  # noqa: F401 - the fixture

pytestmark = pytest.mark.browser

DRAWN = """() => !document.querySelector('[data-testid="stSkeleton"], [data-stale="true"]')"""
TALL = """() => Math.max(...[...document.querySelectorAll('[data-testid="stMain"], section')]
                     .map(e => e.scrollHeight), document.body.scrollHeight) + 40"""
CUT = """els => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)"""


def _open(page, server: Server, path: str, title: str, marker: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{server.url}/{path}", wait_until="domcontentloaded")
    page.get_by_role("heading", name=title, exact=True).wait_for(timeout=120_000)
    page.locator(f"{marker}, {ERRORS}").first.wait_for(timeout=120_000)
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden", timeout=120_000)
    # the elements whose code is still loading are drawn as grey skeletons; a rerun's
    # elements are stale until it ends
    page.wait_for_function(DRAWN, timeout=120_000)
    page.wait_for_timeout(300)


def _shoot(page, path: Path, width: int) -> None:  # type: ignore[no-untyped-def]
    """The whole page: the app scrolls inside its main pane, not the document, so the
    window is made as tall as the pane's content for the shot."""
    height = page.evaluate(TALL)
    page.set_viewport_size({"width": width, "height": min(max(height, 1000), 8000)})
    page.wait_for_function(DRAWN, timeout=120_000)
    page.wait_for_timeout(300)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size({"width": width, "height": 1000})


@pytest.mark.parametrize("width", [1400, 800])
def test_every_page_at_width(browser, server: Server, tmp_path: Path, width: int) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    page = browser.new_page(viewport={"width": width, "height": 1000})
    page.set_default_timeout(120_000)
    problems: list[str] = []
    for path, title, marker in PAGES:
        _open(page, server, path, title, marker)
        assert page.locator(ERRORS).count() == 0, path
        name = path.split("?")[0] or "floor"
        _shoot(page, tmp_path / f"{name}-{width}.png", width)
        cut = page.eval_on_selector_all(
            '[data-testid="stMetricValue"] *, [data-testid="stMetricValue"], '
            '[data-testid="stBaseButton-secondary"] *', CUT)  # the label's ellipsis box
        problems += [f"{name}: {text!r} cut" for text in cut if text.strip()]
        if name == "hand_audit":  # the grid draws the columns in view, and only those
            page.locator('[data-testid="stDataFrame"] th', has_text="Spot").first.wait_for(
                state="attached")
            shown = page.eval_on_selector_all(
                '[data-testid="stDataFrame"]',
                "els => els.map(e => [...e.querySelectorAll('th')].map(t => t.innerText))")
            settlement = next((cols for cols in shown if "Seat" in cols and "Spot" in cols),
                              [])
            missing = {"Seat", "Verdict", "Recorded", "Computed"} - set(settlement)
            if missing:
                problems.append(f"hand audit: {sorted(missing)} off-screen ({settlement})")
    page.close()
    print(f"screenshots in {tmp_path}")
    assert not problems, problems
