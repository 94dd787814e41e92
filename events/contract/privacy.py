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
_MARKER = b'"player_ref'  # the start of both keys


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
    """A copy of an event payload with ``player_ref`` / ``player_refs`` pseudonymized.

    An identifier that is not a string (a card number sent as a JSON number, say) is not
    valid, and the decoder will refuse the event; it is replaced by
    ``{"withheld": <pseudonym of its JSON text>}`` first, so that neither the dead letter
    nor its reason holds it in clear, and the event stays refused."""
    out = dict(payload)
    if "player_ref" in out and out["player_ref"] is not None:
        out["player_ref"] = _pseudonym_of(out["player_ref"], env)
    refs = out.get("player_refs")
    if isinstance(refs, dict):
        out["player_refs"] = {seat: _pseudonym_of(v, env) if v is not None else v
                              for seat, v in refs.items()}
    elif refs is not None:
        out["player_refs"] = _pseudonym_of(refs, env)
    return out


def _pseudonym_of(value: object, env: Mapping[str, str] | None) -> object:
    if isinstance(value, str):
        return pseudonymize(value, env)
    if isinstance(value, dict) and set(value) == {"withheld"} and is_pseudonym(
            value["withheld"]):
        return value  # withheld already
    return {"withheld": pseudonymize(msgspec.json.encode(value).decode(), env)}


def needs_scrub(data: bytes) -> bool:
    """Whether ``data`` (one event's JSON, or many joined) may carry a player identifier:
    it names the key, or holds a ``\\u`` escape, which could spell the key
    (``"player\\u005fref"`` is ``"player_ref"`` to every JSON reader). A cheap test; the
    decoded keys decide (:func:`scrub`)."""
    return _MARKER in data or b"\\u" in data


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
    except (msgspec.DecodeError, RecursionError):
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
    except (msgspec.DecodeError, RecursionError):
        return _scrub_text(data, None, replace=lambda _: "***")
    if not isinstance(event, dict) or not isinstance(event.get("payload"), dict):
        return data
    payload = {k: v for k, v in event["payload"].items()
               if k not in ("player_ref", "player_refs")}
    if payload == event["payload"]:
        return data
    event["payload"] = payload
    return msgspec.json.encode(event)


def _name_pattern(key: str) -> bytes:
    """A regular expression for the JSON string ``key``: each character as itself or as
    its ``\\u`` escape (hex digits in either case)."""
    def char(c: str) -> bytes:
        hex_digits = "".join(f"[{h}{h.upper()}]" if h.isalpha() else h
                             for h in f"{ord(c):04x}")
        return b"(?:" + re.escape(c).encode() + rb"|\\u" + hex_digits.encode() + b")"

    return b'"' + b"".join(map(char, key)) + b'"'


_REF_NAME, _REFS_NAME = _name_pattern("player_ref"), _name_pattern("player_refs")
_REF_TEXT = re.compile(b"(" + _REF_NAME + rb'\s*:\s*)"((?:[^"\\]|\\.)*)(?:"|$)')
_REF_NUMBER = re.compile(b"(" + _REF_NAME + rb"\s*:\s*)(-?[0-9][0-9.eE+-]*)")
_REFS_TEXT = re.compile(b"(" + _REFS_NAME + rb"\s*:\s*)\{([^{}]*)\}?")
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

    def number(m: re.Match[bytes]) -> bytes:
        return m.group(1) + b'{"withheld":"' + swap(m.group(2).decode()).encode() + b'"}'

    return _REFS_TEXT.sub(many, _REF_NUMBER.sub(number, _REF_TEXT.sub(one, data)))
