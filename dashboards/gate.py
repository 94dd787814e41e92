"""The gate every run of the app passes before a page: sign-in by ``st.login``, the user's
roles from the ID token's claim, the navigation holding only what those roles may open
(every other page's URL answers "not allowed"), and the access log.

With no sign-in configured the dashboards are one person's, on loopback: every page is
open and each says so (``uth dashboards`` refuses any other address then).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from dashboards import access, access_log, downloads, freshness_header

KEY = "_uth_access"  # the run's grant, in the session's state
LAST = "_uth_access_last"  # the last view logged per kind, so that a rerun is not logged again
ONE_PERSON = ("One person's use: no sign-in is configured, so these dashboards answer on "
              "this machine's loopback address only.")
LOCAL = {"sub": "local (no sign-in)"}  # who the access log names in one person's use


@dataclass(frozen=True)
class Grant:
    signed_in: bool
    allowed: frozenset[str]
    who: dict[str, Any] = field(default_factory=dict)
    roles: tuple[str, ...] = ()
    log: Path | None = None


def _log_path(settings: access.Settings | None) -> Path | None:
    if settings is not None and settings.log:
        return Path(settings.log).expanduser()
    if settings is None and os.environ.get(access.ENV_LOG):
        return Path(os.environ[access.ENV_LOG]).expanduser()
    warehouse = os.environ.get("UTH_WAREHOUSE")
    return access_log.default_path(warehouse) if warehouse else None


def current() -> Grant:
    """This run's grant (set by ``enter``); outside the app, everything only when sign-in
    is not configured."""
    grant = st.session_state.get(KEY)
    if isinstance(grant, Grant):
        return grant
    try:
        settings = access.load(os.environ)
    except access.AccessConfigError:
        return Grant(True, frozenset())
    return _one_person() if settings is None else Grant(True, frozenset())


def _one_person() -> Grant:
    """No sign-in configured: every page, and every access logged as the local user's."""
    return Grant(False, access.ALL, dict(LOCAL), log=_log_path(None))


def may(item: str) -> bool:
    """Whether this run's user may open ``item`` (a page's URL path or a download)."""
    return item in current().allowed


def note(what: str, *, once: bool = True, **details: Any) -> None:
    """Append one line to the access log, for a signed-in user or the local one (with
    ``once``, not again while the same view is rerun)."""
    grant = current()
    if grant.log is None or not grant.who:
        return
    line = access_log.record(grant.who, grant.roles, what, **details)
    if once:
        key = json.dumps(line, sort_keys=True, default=str)
        last = st.session_state.setdefault(LAST, {})
        if last.get(what) == key:
            return
        last[what] = key
    access_log.append(grant.log, line)


def download(label: str, item: str, file_name: str, make: Callable[[], str | bytes], *,
             mime: str, key: str, **details: Any) -> None:
    """A download button for ``item`` (``access.CSV``, ``access.EVIDENCE``) when this user
    may make it: the file is made at the click and let out once to this user only, and the
    fetch is logged (``dashboards/downloads.py``)."""
    grant = current()
    if item not in grant.allowed:
        return
    entry = downloads.Entry(str(grant.who.get("sub", "")), item, grant.log, dict(grant.who),
                            grant.roles, {"page": st.session_state.get("_uth_page", ""),
                                          **details})
    st.download_button(label, downloads.maker(make, file_name, entry), file_name=file_name,
                       mime=mime, key=key, icon=":material/download:", on_click="ignore")


def _page(spec: access.PageSpec, default: bool) -> Any:
    if default:
        return st.Page(spec.script, title=spec.title, icon=spec.icon, default=True)
    return st.Page(spec.script, title=spec.title, icon=spec.icon, url_path=spec.url_path)


def _stand_in(body: Callable[[], None], title: str, url_path: str, default: bool) -> Any:
    def run() -> None:
        body()

    run.__name__ = f"stand_in_{url_path or 'default'}"
    if default:
        return st.Page(run, title=title, default=True)
    return st.Page(run, title=title, url_path=url_path)


def _sign_in() -> None:
    st.title("Sign in")
    st.write("The floor dashboards show rating slips, game-protection evidence and the "
             "dispute queue: sign in with your casino account to see the pages your role "
             "may open.")
    if st.button("Sign in", type="primary", key="sign_in"):
        st.login()


def _refused(spec: access.PageSpec) -> Callable[[], None]:
    def body() -> None:
        note("refused", page=spec.url_path)
        st.title("Not allowed")
        st.warning("Your role may not open this page. Ask the casino's IT to change your "
                   "role if you need it.", icon=":material/block:")
    return body


def _no_role() -> None:
    note("refused", page="(any)")
    st.title("No access")
    st.warning("You are signed in, but none of your roles may open any page. Ask the "
               "casino's IT for a role.", icon=":material/block:")


def _with_header(nav: Any) -> None:
    """The page, under the warehouse's freshness (the Live page says it in its own
    refreshing part)."""
    if nav.url_path != "live":
        freshness_header.header()
    nav.run()


def enter() -> None:
    """Decide what this run shows, then run the page asked for (or its stand-in)."""
    try:
        settings = access.load(os.environ)
    except access.AccessConfigError as exc:
        st.session_state[KEY] = Grant(True, frozenset())
        st.error(f"The access settings are wrong: {exc}. Fix them and restart "
                 "`uth dashboards`.")
        st.stop()
    if settings is None:
        address = st.get_option("server.address")
        if address and not access.is_loopback(str(address)):
            st.session_state[KEY] = Grant(True, frozenset())
            st.error(f"No sign-in is configured and the server listens on {address}: "
                     "nothing is shown. Configure sign-in or bind to 127.0.0.1.")
            st.stop()
        st.session_state[KEY] = _one_person()
        st.sidebar.caption(ONE_PERSON)
        nav = st.navigation([_page(p, i == 0) for i, p in enumerate(access.PAGES)])
        st.session_state["_uth_page"] = nav.url_path or access.PAGES[0].url_path
        note("page", page=st.session_state["_uth_page"])
        _with_header(nav)
        return
    if not st.user.is_logged_in:
        st.session_state[KEY] = Grant(True, frozenset())
        st.navigation([_stand_in(_sign_in, "Sign in", p.url_path, i == 0)
                       for i, p in enumerate(access.PAGES)], position="hidden").run()
        return
    who = st.user.to_dict()
    claim = who.get(settings.role_claim)
    roles = tuple(sorted([claim] if isinstance(claim, str) else map(str, claim or ())))
    grant = Grant(True, settings.grants(claim), who, roles, _log_path(settings))
    st.session_state[KEY] = grant
    allowed = [p for p in access.PAGES if p.url_path in grant.allowed]
    st.sidebar.caption(f"Signed in as {who.get('email') or who.get('sub')} "
                       f"({', '.join(roles) or 'no role'})")
    st.sidebar.button("Sign out", key="sign_out", on_click=st.logout)
    if not allowed:
        st.navigation([_stand_in(_no_role, "No access", p.url_path, i == 0)
                       for i, p in enumerate(access.PAGES)], position="hidden").run()
        return
    pages, links = [], []
    for p in access.PAGES:
        if p.url_path in grant.allowed:
            links.append(_page(p, not links))
            pages.append(links[-1])
        else:
            pages.append(_stand_in(_refused(p), "Not allowed", p.url_path, False))
    nav = st.navigation(pages, position="hidden")
    for link in links:
        st.sidebar.page_link(link)
    st.session_state["_uth_page"] = nav.url_path
    if nav in links:
        note("page", page=nav.url_path or allowed[0].url_path)
        _with_header(nav)
        return
    nav.run()
