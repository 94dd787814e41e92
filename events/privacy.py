"""Players are never stored by name or card number: a player identifier becomes a pseudonym.

Events identify seats and dealers, not players. A table that knows who sits at a seat (a
loyalty card swiped) may send it as ``player_ref`` in ``BetPlaced`` or as ``player_refs``
(seat -> identifier) in ``HandStarted``; before such an event is stored it passes through
:func:`scrub`, which replaces each identifier by its pseudonym:

    pseudonym = "pr1_" + hex(HMAC-SHA256(key, identifier))[:32]

The key is a secret of the casino, read from the environment variable ``UTH_PSEUDONYM_KEY``
*when a pseudonym is made* (never at import, so a key rotated in the environment is used by
the next call, and no key sits in a module global). The same player gets the same pseudonym
under one key, so analytics can follow a player without knowing who it is; without the key
nobody can test a guessed card number against the pseudonyms. With no key set, an identifier
cannot be stored at all: :class:`PseudonymKeyMissing` (nothing is ever stored in clear).

A value that is already a pseudonym (the table's publisher pseudonymized it) is kept as is.

>>> import os
>>> os.environ["UTH_PSEUDONYM_KEY"] = "doctest-key-not-a-real-secret"
>>> p = pseudonymize("loyalty-4242-1234")
>>> p.startswith("pr1_"), len(p), is_pseudonym(p), p == pseudonymize(" loyalty-4242-1234 ")
(True, 36, True, True)
>>> del os.environ["UTH_PSEUDONYM_KEY"]
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

KEY_ENV = "UTH_PSEUDONYM_KEY"
PREFIX = "pr1_"
MIN_KEY_BYTES = 16
_PSEUDONYM = re.compile(r"^pr1_[0-9a-f]{32}$")
_MARKERS = (b'"player_ref"', b'"player_refs"')


class PseudonymKeyMissing(RuntimeError):
    """A player identifier arrived but no key is configured to pseudonymize it."""


def _key(env: Mapping[str, str] | None) -> bytes:
    env = os.environ if env is None else env
    key = env.get(KEY_ENV, "")
    if len(key.encode()) < MIN_KEY_BYTES:
        state = "is not set" if not key else f"is shorter than {MIN_KEY_BYTES} bytes"
        raise PseudonymKeyMissing(
            f"{KEY_ENV} {state}: a player identifier cannot be stored without pseudonymizing "
            "it; set the casino's pseudonym key (a long random secret) in the environment")
    return key.encode()


def is_pseudonym(value: object) -> bool:
    """True when ``value`` has the form of a pseudonym made by :func:`pseudonymize`."""
    return isinstance(value, str) and _PSEUDONYM.match(value) is not None


def pseudonymize(player_id: str, env: Mapping[str, str] | None = None) -> str:
    """The pseudonym of ``player_id`` under the key in ``UTH_PSEUDONYM_KEY`` (read now).

    The identifier is Unicode-normalized (NFKC) and stripped first, so the same card read
    twice gives the same pseudonym. A value that already is a pseudonym is returned as is.
    """
    if is_pseudonym(player_id):
        return player_id
    key = _key(env)
    text = unicodedata.normalize("NFKC", player_id).strip()
    digest = hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()
    return PREFIX + digest[:32]


def pseudonymize_payload(
    payload: dict[str, Any], env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A copy of an event payload with ``player_ref`` / ``player_refs`` pseudonymized."""
    out = dict(payload)
    ref = out.get("player_ref")
    if isinstance(ref, str):
        out["player_ref"] = pseudonymize(ref, env)
    refs = out.get("player_refs")
    if isinstance(refs, dict):
        out["player_refs"] = {
            seat: pseudonymize(v, env) if isinstance(v, str) else v for seat, v in refs.items()
        }
    return out


def needs_scrub(data: bytes) -> bool:
    """Whether ``data`` (one event's JSON) may carry a player identifier (a cheap test)."""
    return any(marker in data for marker in _MARKERS)


def scrub(
    data: bytes, env: Mapping[str, str] | None = None, *, without_key: str = "raise"
) -> bytes:
    """One event's JSON with every player identifier replaced by its pseudonym.

    The bytes come back unchanged (the same object) when the event carries no identifier,
    or only pseudonyms; that is the common case and costs one substring search. In invalid
    JSON (which the decoder rejects into the dead-letter store) the string values that
    follow ``"player_ref":`` or sit in a ``"player_refs": {...}`` object are replaced in
    place, so a broken line keeps no identifier either.

    With no key set, ``without_key="raise"`` raises :class:`PseudonymKeyMissing`;
    ``"drop"`` removes the identifiers instead (the event itself is kept: a pipeline must
    not lose a bet because a key is missing, nor store the player in clear).
    """
    if not needs_scrub(data):
        return data
    if without_key not in ("raise", "drop"):
        raise ValueError(f"without_key is raise or drop, not {without_key!r}")
    try:
        _key(env)
    except PseudonymKeyMissing:
        if without_key == "raise":
            raise
        return _drop_refs(data)
    try:
        event = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return _scrub_text(data, env)
    if not isinstance(event, dict) or not isinstance(event.get("payload"), dict):
        return data
    payload = event["payload"]
    new = pseudonymize_payload(payload, env)
    if new == payload:
        return data
    event["payload"] = new
    return msgspec.json.encode(event)


def _drop_refs(data: bytes) -> bytes:
    try:
        event = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return _scrub_text(data, None, replace=lambda _: "***")
    if not isinstance(event, dict) or not isinstance(event.get("payload"), dict):
        return data
    payload = {k: v for k, v in event["payload"].items()
               if k not in ("player_ref", "player_refs")}
    if payload == event["payload"]:
        return data
    event["payload"] = payload
    return msgspec.json.encode(event)


_REF_TEXT = re.compile(rb'("player_ref"\s*:\s*)"((?:[^"\\]|\\.)*)(?:"|$)')
_REFS_TEXT = re.compile(rb'("player_refs"\s*:\s*)\{([^{}]*)\}?')
_REFS_VALUE = re.compile(rb'(:\s*)"((?:[^"\\]|\\.)*)(?:"|$)')


def _scrub_text(
    data: bytes, env: Mapping[str, str] | None,
    replace: Callable[[str], str] | None = None,
) -> bytes:
    swap = replace or (lambda raw: pseudonymize(raw, env))

    def one(m: re.Match[bytes]) -> bytes:
        raw = m.group(2).decode("utf-8", "replace")
        return m.group(1) + b'"' + swap(raw).encode() + b'"'

    def many(m: re.Match[bytes]) -> bytes:
        return m.group(1) + b"{" + _REFS_VALUE.sub(one, m.group(2)) + b"}"

    return _REFS_TEXT.sub(many, _REF_TEXT.sub(one, data))
