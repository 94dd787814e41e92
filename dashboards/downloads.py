"""Downloads only their user may fetch.

Streamlit serves a download button's file at ``/media/<id>`` to whoever asks, signed in or
not: anyone holding the URL gets the file. Here every download is made when its button is
clicked (the button's data is a function), and the file it makes is registered for the user
who clicked, with what they may download. :class:`Guard`, in front of Streamlit's server
(``dashboards/server.py``), lets a downloadable ``/media`` file out only to that user, signed
in now with a role that may still make that download, within ``TTL_S`` of the click; any
other request for it (a signed-out browser, another user, a role without the download, a
file no click made, the URL later) gets 403, and every download and refusal is in the access
log. With no sign-in configured (one person's use, loopback only) the file is served within
``TTL_S`` of the click, logged as the local user's.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dashboards import access, access_log

TTL_S = 120.0  # a file is refused to its user too this long after the click
_MEDIA = re.compile(r"/media/([^/]+)$")
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Entry:
    """One made download: for whom, what it is, where its fetch is logged."""

    sub: str
    item: str  # access.CSV or access.EVIDENCE
    log: Path | None
    who: Mapping[str, Any] = field(default_factory=dict)
    roles: tuple[str, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)
    until: float = 0.0


_MADE: dict[tuple[str, str | None], Entry] = {}
_LOGGED: set[tuple[str, str | None, float]] = set()  # the clicks whose fetch is logged


def _key(content: bytes, file_name: str | None) -> tuple[str, str | None]:
    return hashlib.sha256(content).hexdigest(), file_name


def register(content: bytes, file_name: str | None, entry: Entry) -> None:
    """Let ``content`` out to ``entry``'s user for ``TTL_S`` (expired ones are dropped)."""
    now = time.monotonic()
    with _LOCK:
        for key in [k for k, e in _MADE.items() if e.until < now]:
            _LOGGED.discard((*key, _MADE.pop(key).until))
        _MADE[_key(content, file_name)] = Entry(
            entry.sub, entry.item, entry.log, entry.who, entry.roles, entry.details,
            now + TTL_S)


def maker(make: Callable[[], str | bytes], file_name: str, entry: Entry) -> Callable[[], bytes]:
    """A download button's data: the file made at the click, registered for its user."""
    def data() -> bytes:
        made = make()
        content = made.encode("utf-8") if isinstance(made, str) else made
        register(content, file_name, entry)
        return content
    return data


def user(cookies: Mapping[str, str]) -> dict[str, Any]:
    """The signed-in user's claims from Streamlit's signed sign-in cookie ({} when none or
    not valid): the same cookie and check Streamlit's own server uses."""
    from streamlit.web.server.starlette.starlette_websocket import (
        USER_COOKIE_NAME,
        _get_signed_cookie_with_chunks,
    )

    raw = _get_signed_cookie_with_chunks(dict(cookies), USER_COOKIE_NAME)
    if not raw:
        return {}
    try:
        payload = json.loads(raw)
    except ValueError:
        return {}
    return payload if isinstance(payload, dict) and payload.get("is_logged_in") else {}


def decide(entry: Entry | None, settings: access.Settings | None,
           claims: Mapping[str, Any]) -> str | None:
    """Why this fetch is refused, or None when the file may go out."""
    if entry is None or entry.until < time.monotonic():
        return "no such download, or made too long ago: click the button again"
    if settings is None:
        return None  # one person's use, on loopback only
    if not claims:
        return "not signed in"
    if str(claims.get("sub", "")) != entry.sub:
        return "made for another user"
    if entry.item not in settings.grants(claims.get(settings.role_claim)):
        return "your role may not make this download"
    return None


class Guard:
    """ASGI middleware: a downloadable ``/media`` file goes out only as :func:`decide`
    says; images and other media pass."""

    def __init__(self, app: Any, env: Mapping[str, str] | None = None) -> None:
        self.app = app
        self.env = env

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        found = _MEDIA.search(scope.get("path", "")) if scope["type"] == "http" else None
        if found is None:
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request
        from starlette.responses import PlainTextResponse
        from streamlit import runtime
        from streamlit.runtime.media_file_storage import MediaFileKind

        stored = (runtime.get_instance().media_file_mgr.read_file(found.group(1))
                  if runtime.exists() else None)
        if stored is None or stored.kind != MediaFileKind.DOWNLOADABLE:
            await self.app(scope, receive, send)
            return
        settings = access.load(self.env if self.env is not None else os.environ)
        claims = user(Request(scope).cookies) if settings is not None else {}
        key = _key(stored.content, stored.filename)
        with _LOCK:
            entry = _MADE.get(key)
            refused = decide(entry, settings, claims)
            # the browser fetches a download more than once: one line per click
            first = entry is not None and (*key, entry.until) not in _LOGGED
            if refused is None and first and entry is not None:
                _LOGGED.add((*key, entry.until))
        if refused is not None or first:
            self._log(entry, settings, claims, refused, stored.filename)
        if refused is not None:
            await PlainTextResponse(f"Refused: {refused}.", status_code=403)(scope, receive,
                                                                          send)
            return
        await self.app(scope, receive, send)

    @staticmethod
    def _log(entry: Entry | None, settings: access.Settings | None, claims: Mapping[str, Any],
             refused: str | None, file_name: str | None) -> None:
        if entry is None or entry.log is None:
            return  # nothing known of it: not a download this app made
        if refused is None:
            line = access_log.record(entry.who, entry.roles, "download", download=entry.item,
                                     file=file_name, **entry.details)
        else:
            claim = claims.get(settings.role_claim) if settings is not None else None
            roles = [claim] if isinstance(claim, str) else [str(r) for r in claim or ()]
            line = access_log.record(claims or {"sub": "(signed out)"}, roles, "refused",
                                     download=entry.item, file=file_name, reason=refused,
                                     **{k: v for k, v in entry.details.items() if k != "page"})
        access_log.append(entry.log, line)
