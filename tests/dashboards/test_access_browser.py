"""Access control end to end: a real OpenID Connect provider on loopback (``oidc-provider-
mock``), ``uth dashboards`` configured to sign in with it, and headless Chromium signing in
as a user of each role. Each sees exactly its pages and downloads, a user without a role and
a signed-out browser see none, the other pages' URLs are refused, and every page, hand,
player's evidence, download and refusal is in the access log."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboards import access
from tests.dashboards.conftest import Server, free_port
from tests.dashboards.test_browser import browser  # noqa: F401 - the fixture

pytestmark = pytest.mark.browser

ROLES = {
    "pit": ["Floor", "Live", "Hand audit", "Disputes", "Hold report", "download:csv"],
    "surveillance": ["Floor", "Live", "Hand audit", "Disputes", "Hold report", "Findings",
                     "Dealers", "Players", "download:csv", "download:evidence"],
    "audit": ["*"],
    "it": ["Health"],
}
# the provider's users: subject -> the ID token's roles claim (None: no claim at all)
USERS = {"pit-1": ["pit"], "surv-1": ["surveillance"], "audit-1": ["audit"], "it-1": ["it"],
         "nobody-1": None}
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
WAIT = 120_000


def titles(grants: list[str]) -> list[str]:
    """The registry's titles a role's entries grant, in menu order."""
    allowed = frozenset().union(*(access.item(g) for g in grants))
    return [p.title for p in access.PAGES if p.url_path in allowed]


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    pytest.importorskip("oidc_provider_mock")
    from oidc_provider_mock import User, run_server_in_thread

    users = [User(sub=sub, claims={"email": f"{sub}@casino.test",
                                   **({"roles": roles} if roles else {})})
             for sub, roles in USERS.items()]
    with run_server_in_thread(port=0, user_claims=users) as server:
        yield f"http://localhost:{server.server_port}"


@pytest.fixture(scope="module")
def signed(provider: str, handmade_warehouse: Path,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    """``uth dashboards`` with sign-in by the provider; its access log's path."""
    work = tmp_path_factory.mktemp("access")
    port, log = free_port(), work / "access.jsonl"
    config = work / "access.toml"
    lines = ["[auth]", f'server_metadata_url = "{provider}/.well-known/openid-configuration"',
             'client_id = "uth-dashboards"', f'client_secret = "{secrets.token_hex(16)}"',
             f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"',
             f'cookie_secret = "{secrets.token_hex(32)}"', "", "[access]",
             'role_claim = "roles"', f'log = "{log}"', "[access.roles]"]
    lines += [f"{role} = {json.dumps(entries)}" for role, entries in ROLES.items()]
    config.write_text("\n".join(lines) + "\n")
    srv = Server(handmade_warehouse, work / "dashboards.log", "--access", str(config),
                 port=port)
    try:
        srv.wait_ready()
        yield srv, log
    finally:
        srv.stop()


def settle(page) -> None:  # type: ignore[no-untyped-def]
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden", timeout=WAIT)


def heading(page, name: str) -> None:  # type: ignore[no-untyped-def]
    page.get_by_role("heading", name=name, exact=True).wait_for(timeout=WAIT)
    settle(page)


def sign_in(browser, srv: Server, sub: str):  # type: ignore[no-untyped-def]  # noqa: F811
    page = browser.new_context(viewport={"width": 1400, "height": 1400}).new_page()
    page.goto(srv.url, wait_until="domcontentloaded")
    heading(page, "Sign in")
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.get_by_role("button", name=sub, exact=True).click(timeout=WAIT)  # the provider's form
    page.wait_for_url(f"{srv.url}/**", timeout=WAIT)
    return page


def menu(page, expected: int = 0) -> list[str]:  # type: ignore[no-untyped-def]
    """The sidebar's page links (once as many as ``expected`` are drawn)."""
    from playwright.sync_api import expect

    links = page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"]')
    expect(links).to_have_count(expected, timeout=WAIT)
    return [t.strip().splitlines()[-1] for t in links.all_inner_texts()]  # icon, title


def lines(log: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


@pytest.mark.parametrize("sub", ["pit-1", "surv-1", "audit-1", "it-1"])
def test_each_role_sees_exactly_its_pages(browser, signed, sub: str) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    srv, log = signed
    role = USERS[sub][0]  # type: ignore[index]
    expected = titles(ROLES[role])
    page = sign_in(browser, srv, sub)
    heading(page, expected[0])  # the first page it may open is its home
    assert menu(page, len(expected)) == expected
    for spec in access.PAGES:
        url = "" if spec.title == expected[0] else spec.url_path
        if spec.url_path == "hand_audit":
            url += "?hand_id=H1"
        page.goto(f"{srv.url}/{url}", wait_until="domcontentloaded")
        if spec.title in expected:
            heading(page, spec.title)
            assert page.locator(ERRORS).count() == 0, (sub, spec.title)
        else:  # its URL answers, with nothing of the page
            heading(page, "Not allowed")
            assert page.get_by_role("heading", name=spec.title, exact=True).count() == 0
            assert page.locator('[data-testid="stDataFrame"]').count() == 0
        assert menu(page, len(expected)) == expected, spec.title
    written = [x for x in lines(log) if x["sub"] == sub]
    assert {x["page"] for x in written if x["what"] == "page"} == {
        p.url_path for p in access.PAGES if p.title in expected}
    assert {x["page"] for x in written if x["what"] == "refused" and "download" not in x} == {
        p.url_path for p in access.PAGES if p.title not in expected}
    assert all(x["roles"] == [role] and x["email"] == f"{sub}@casino.test" for x in written)
    if "Hand audit" in expected:
        assert [x["hand"] for x in written if x["what"] == "hand"] == ["H1"]
    page.context.close()


def test_downloads_follow_the_role(browser, signed) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    srv, log = signed
    evidence = "Download evidence (JSON)"
    pit = sign_in(browser, srv, "pit-1")
    pit.goto(f"{srv.url}/hand_audit?hand_id=H1", wait_until="domcontentloaded")
    pit.get_by_text("Verdict: 1 of 4 wagers settled wrongly.").wait_for(timeout=WAIT)
    pit.get_by_role("button", name=re.compile("^Download as CSV")).first.wait_for(timeout=WAIT)
    settle(pit)
    assert pit.get_by_role("button", name=evidence).count() == 0  # not offered
    pit.context.close()
    it = sign_in(browser, srv, "it-1")
    heading(it, "Health")
    it.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=WAIT)
    assert it.get_by_role("button", name=re.compile("^Download")).count() == 0
    it.context.close()
    surv = sign_in(browser, srv, "surv-1")
    surv.goto(f"{srv.url}/hand_audit?hand_id=H1", wait_until="domcontentloaded")
    surv.get_by_text("Verdict: 1 of 4 wagers settled wrongly.").wait_for(timeout=WAIT)
    settle(surv)
    with surv.expect_download(timeout=WAIT) as got:
        surv.get_by_role("button", name=evidence).click()
    assert json.loads(Path(got.value.path()).read_text())  # the evidence document itself
    surv.goto(f"{srv.url}/players", wait_until="domcontentloaded")
    heading(surv, "Game protection")
    surv.get_by_role("button", name="Open in hand audit").click(timeout=WAIT)
    heading(surv, "Hand audit")
    surv.context.close()
    written = [x for x in lines(log) if x["sub"] == "surv-1"]
    downloads = [x for x in written if x["what"] == "download"]
    assert [(d["download"], d["file"], d["hand"]) for d in downloads] == [
        ("download:evidence", "evidence-H1.json", "H1")]
    shown = [x for x in written if x["what"] == "evidence"]
    assert shown and all(x["page"] == "players" and x["players"] for x in shown)
    opened = [x for x in shown if "hand" in x]
    assert len(opened) == 1 and len(opened[0]["players"]) == 1  # type: ignore[arg-type]


def test_a_user_without_a_role_sees_no_page(browser, signed) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    srv, log = signed
    page = sign_in(browser, srv, "nobody-1")
    heading(page, "No access")
    for spec in access.PAGES:
        page.goto(f"{srv.url}/{spec.url_path}", wait_until="domcontentloaded")
        heading(page, "No access")
        assert page.get_by_role("heading", name=spec.title, exact=True).count() == 0
        assert menu(page) == []
    assert {x["what"] for x in lines(log) if x["sub"] == "nobody-1"} == {"refused"}
    page.context.close()


def test_signed_out_sees_only_the_sign_in_page(browser, signed) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    srv, _ = signed
    page = browser.new_context().new_page()
    for spec in access.PAGES:
        page.goto(f"{srv.url}/{spec.url_path}", wait_until="domcontentloaded")
        heading(page, "Sign in")
        assert page.get_by_role("heading", name=spec.title, exact=True).count() == 0
        assert menu(page) == [] and page.get_by_text("Download").count() == 0
    page.context.close()


def test_the_audit_role_reads_the_log(browser, signed) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    srv, log = signed
    page = sign_in(browser, srv, "audit-1")
    page.goto(f"{srv.url}/access_log", wait_until="domcontentloaded")
    heading(page, "Access log")
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=WAIT)
    assert page.locator(ERRORS).count() == 0
    assert any(x["what"] == "page" and x["page"] == "access_log" and x["sub"] == "audit-1"
               for x in lines(log))
    page.context.close()


def test_a_download_url_answers_its_user_alone(browser, signed) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """The URL a signed-in user's click makes is refused to a signed-out browser and to a
    user whose role may not make that download; its user gets the file."""
    srv, log = signed
    pit = sign_in(browser, srv, "pit-1")  # a role without evidence downloads
    heading(pit, "Floor")
    outsider = browser.new_context()  # signed out
    surv = sign_in(browser, srv, "surv-1")
    urls: list[str] = []

    def hold(route) -> None:  # type: ignore[no-untyped-def]  # the URL, not yet fetched
        urls.append(route.request.url)
        route.abort()

    surv.route("**/media/**", hold)
    surv.goto(f"{srv.url}/hand_audit?hand_id=H1", wait_until="domcontentloaded")
    surv.get_by_text("Verdict: 1 of 4 wagers settled wrongly.").wait_for(timeout=WAIT)
    settle(surv)
    before = len(urls)  # images the page shows
    surv.get_by_role("button", name="Download evidence (JSON)").click()
    deadline = 0
    while len(urls) == before and deadline < 600:
        surv.wait_for_timeout(200)
        deadline += 1
    url = urls[-1]
    assert "/media/" in url, urls
    # at once: Streamlit drops a made file from its store soon after (404 then)
    refused = outsider.request.get(url)
    assert refused.status == 403 and b"evidence" not in refused.body()
    assert pit.context.request.get(url).status == 403
    got = surv.context.request.get(url)
    assert got.status == 200 and json.loads(got.body())["hand_id"] == "H1"
    outsider.close()
    pit.context.close()
    surv.context.close()
    written = [x for x in lines(log) if x.get("file") == "evidence-H1.json"
               and x["sub"] in ("pit-1", "(signed out)")]
    assert [(x["sub"], x["what"]) for x in written[-2:]] == [
        ("(signed out)", "refused"), ("pit-1", "refused")]
