"""The dashboards load on a floor with no internet: every page asks only the server it came
from for what it shows (its favicon, fonts, scripts and images included)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.dashboards.conftest import Server
from tests.dashboards.test_browser import PAGES, browser  # noqa: F401 - the fixture

pytestmark = pytest.mark.browser


def test_every_page_asks_only_its_own_server(browser, server: Server) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    own = urlsplit(server.url).netloc
    for path, title, marker in PAGES:
        page.goto(f"{server.url}/{path}", wait_until="domcontentloaded")
        page.get_by_role("heading", name=title, exact=True).wait_for(timeout=120_000)
        page.locator(marker).first.wait_for(timeout=120_000)
        page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden", timeout=120_000)
        page.wait_for_timeout(500)  # the favicon and late fonts are asked for after the page
    elsewhere = sorted({u for u in asked if urlsplit(u).scheme in ("http", "https", "ws", "wss")
                        and urlsplit(u).netloc != own})
    assert asked and not elsewhere, elsewhere
    page.close()
