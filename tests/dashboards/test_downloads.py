"""Who a made download goes out to (``dashboards/downloads.py``): its user alone, signed in
with a role that may still make it, soon after the click; in one person's use, that person.
The browser end of it: ``test_access_browser.py::test_a_download_url_answers_its_user_alone``."""

from __future__ import annotations

import time
from dataclasses import replace

from dashboards import access, downloads

SETTINGS = access.Settings(auth={}, role_claim="roles", roles={
    "surveillance": frozenset({"floor", access.EVIDENCE}), "pit": frozenset({"floor"})},
    log=None)


def made(content: bytes = b"{}", name: str = "evidence-H1.json") -> downloads.Entry:
    entry = downloads.Entry("surv-1", access.EVIDENCE, None)
    data = downloads.maker(lambda: content.decode(), name, entry)
    assert data() == content
    found = downloads._MADE[downloads._key(content, name)]
    assert found.sub == "surv-1" and found.until > time.monotonic()
    return found


def test_its_user_gets_it() -> None:
    entry = made()
    assert downloads.decide(entry, SETTINGS, {"sub": "surv-1", "roles": ["surveillance"]}) \
        is None


def test_anyone_else_is_refused() -> None:
    entry = made()
    says = {
        "signed out": {},
        "another user": {"sub": "surv-2", "roles": ["surveillance"]},
        "its user, now without the role": {"sub": "surv-1", "roles": ["pit"]},
    }
    assert {k: downloads.decide(entry, SETTINGS, v) for k, v in says.items()} == {
        "signed out": "not signed in", "another user": "made for another user",
        "its user, now without the role": "your role may not make this download"}


def test_no_click_no_file_and_a_late_fetch_is_refused() -> None:
    user = {"sub": "surv-1", "roles": ["surveillance"]}
    assert downloads.decide(None, SETTINGS, user) is not None
    late = replace(made(b"[]"), until=time.monotonic() - 1)
    assert downloads.decide(late, SETTINGS, user) is not None
    assert downloads.decide(late, None, {}) is not None


def test_one_persons_use_serves_the_click() -> None:
    assert downloads.decide(made(b"[1]"), None, {}) is None
