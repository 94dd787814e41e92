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
import sys
import unicodedata
from collections.abc import Mapping
from typing import Any

import msgspec
import numpy as np

KEY_ENV = "UTH_PSEUDONYM_KEY"
PREFIX = "pr1_"
MIN_KEY_BYTES = 16
_PSEUDONYM = re.compile(r"^pr1_[0-9a-f]{32}$")


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


def is_player_key(key: str) -> bool:
    """Whether the JSON key ``key`` names a player: ``player_ref`` and ``player_refs``, the
    contract's two, and any other key that begins with ``player`` in any case
    (``playerId``, ``PLAYER_REF``, ``player_name``...) but for ``PlayerDecision`` (an event
    type). Wherever such a key stands in an event (the envelope, an unknown payload field,
    an object inside one), its value is kept only as a pseudonym.

    >>> [is_player_key(k) for k in ("player_ref", "playerId", "PLAYER", "PlayerDecision", "seat")]
    [True, True, True, False, False]
    """
    low = key.lower()
    return low.startswith("player") and low != "playerdecision"


def pseudonymize_event(
    value: Any, env: Mapping[str, str] | None = None, *, drop: bool = False
) -> Any:
    """A copy of a decoded event (any JSON value: a line may hold a list, a payload may be
    one) with the value of every player key (:func:`is_player_key`) at any depth replaced
    by its pseudonym, or removed with ``drop``. The same object comes back when nothing
    changes (no player key, or only pseudonyms).

    A string becomes its pseudonym; an object under a player key (``player_refs``: seat ->
    identifier) keeps the keys that are seat numbers and pseudonymizes every other key (a
    map turned round, identifier -> seat) and each value; any other value (a card number
    sent as a JSON number, a list) is not valid where the contract names a player, and is
    replaced by ``{"withheld": <pseudonym of its JSON text>}``, so that neither the stored
    line nor a rejection's reason holds it in clear."""
    if isinstance(value, dict):
        out: dict[str, Any] | None = None
        for k, v in value.items():
            if isinstance(k, str) and is_player_key(k):
                new = _MISSING if drop else _hidden(v, env)
            else:
                new = pseudonymize_event(v, env, drop=drop)
            if new is not v:
                if out is None:
                    out = dict(value)
                if new is _MISSING:
                    del out[k]
                else:
                    out[k] = new
        return value if out is None else out
    if isinstance(value, list):
        items = [pseudonymize_event(v, env, drop=drop) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def pseudonymize_payload(
    payload: dict[str, Any], env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A copy of an event payload with ``player_ref`` / ``player_refs`` (and any other
    player key, :func:`pseudonymize_event`) pseudonymized."""
    return dict(pseudonymize_event(payload, env))


_MISSING: Any = object()


def _hidden(value: object, env: Mapping[str, str] | None) -> object:
    if value is None:
        return None
    if isinstance(value, dict) and not _is_withheld(value):
        out = {(k if _is_seat(k) else pseudonymize(k, env)): _pseudonym_of(v, env)
               for k, v in value.items()}
        same = list(out.items()) == list(value.items()) and all(
            a is b for a, b in zip(out.values(), value.values(), strict=True))
        return value if same else out
    return _pseudonym_of(value, env)


def _is_seat(key: str) -> bool:
    return key.isascii() and key.isdigit() and len(key) <= 4


def _is_withheld(value: object) -> bool:
    return (isinstance(value, dict) and set(value) == {"withheld"}
            and is_pseudonym(value["withheld"]))


def _pseudonym_of(value: object, env: Mapping[str, str] | None) -> object:
    if value is None:
        return None
    if isinstance(value, str):
        return pseudonymize(value, env)
    if _is_withheld(value):
        return value  # withheld already
    return {"withheld": pseudonymize(msgspec.json.encode(value).decode(), env)}


def needs_scrub(data: bytes) -> bool:
    """Whether ``data`` (one event's JSON, or many joined) may carry a player identifier:
    it holds the word ``player`` in any case, other than in ``PlayerDecision"``, or a
    ``\\u`` escape, which could spell it (``"player\\u005fref"`` is ``"player_ref"`` to
    every JSON reader). A cheap test (a batch: a few vectorized passes); the decoded keys
    decide (:func:`scrub`)."""
    if b"\\" in data and b"\\u" in data:  # one memchr in the common case
        return True
    if len(data) < 4096:
        return _PLAYER_WORD.search(data.lower()) is not None
    return bool(_suspect_at(data).size)


def _suspect_at(data: bytes) -> np.ndarray[Any, np.dtype[np.intp]]:
    """Where in ``data`` :func:`needs_scrub` would say yes: the offset of each ``\\u``
    and of each ``player`` (any case) not followed by ``decision"``, in a few vectorized
    passes over the bytes (no Python step per match)."""
    raw = np.frombuffer(data, np.uint8)
    escapes = (np.flatnonzero((raw[:-1] == 0x5C) & (raw[1:] == 0x75))
               if b"\\u" in data else np.empty(0, np.intp))
    low = raw | 0x20  # exactly the lower case of the letters of "player" and "decision"
    at = np.flatnonzero(low[3: max(low.size - 2, 3)] == 0x79) + 3  # each "y" (the rarest)
    for step, letter in zip((-3, -2, -1, 1, 2), b"plaer", strict=True):
        at = at[low[at + step] == letter]
    if at.size:
        decision = at[at + 11 < low.size]  # "PlayerDecision": y, then "er", then decision"
        for step, letter in enumerate(b"decision", 3):
            decision = decision[low[decision + step] == letter]
        decision = decision[raw[decision + 11] == 0x22]
        at = np.setdiff1d(at, decision, assume_unique=True)
    return np.concatenate([escapes, at - 3])


_PLAYER_WORD = re.compile(rb'player(?!decision")')


def scrub(
    data: bytes, env: Mapping[str, str] | None = None, *, without_key: str = "raise"
) -> bytes:
    """One event's JSON with every player identifier replaced by its pseudonym.

    The bytes come back unchanged (the same object) when the event carries no identifier,
    or only pseudonyms; that is the common case and costs one substring search. Any JSON
    value is read (a list, a payload that is one); in invalid JSON (which the decoder
    rejects into the dead-letter store) the value after each player key, quoted or not,
    is replaced in place (:func:`events.contract.privacy_text.scrub_text`), so a broken
    line keeps no identifier either.

    With no key set, ``without_key="raise"`` raises :class:`PseudonymKeyMissing`;
    ``"drop"`` removes the identifiers instead (the event itself is kept: a pipeline must
    not lose a bet because a key is missing, nor store the player in clear), and says so
    once per process, on standard error.
    """
    if not needs_scrub(data):
        return data
    if without_key not in ("raise", "drop"):
        raise ValueError(f"without_key is raise or drop, not {without_key!r}")
    try:
        _key(env)
    except PseudonymKeyMissing as exc:
        if without_key == "raise":
            raise
        out = _rewritten(data, None, drop=True)
        if out is not data:
            _say_dropped(str(exc).split(":", 1)[0])
        return out
    return _rewritten(data, env, drop=False)


def scrub_all(values: list[bytes]) -> list[bytes]:
    """Each value as :func:`scrub` leaves it, as ``uth ingest`` stores it (no key: the
    identifiers dropped); ``values`` itself when none changes. One search of the whole
    batch (a search term holds no line break, so none spans two values) finds the values
    that may carry an identifier; only those are looked at one by one (a batch in which
    a dispute's claim says "Player" costs a step for that event, not for every one)."""
    if not values:
        return values
    raw = b"\n".join(values)
    hits = _suspect_at(raw)
    if not hits.size:
        return values
    ends = np.cumsum(np.fromiter(map(len, values), np.intp, len(values)) + 1)
    out = values
    for i in np.unique(np.searchsorted(ends, hits, side="right")).tolist():
        new = scrub(values[i], without_key="drop")
        if new is not values[i]:
            if out is values:
                out = list(values)
            out[i] = new
    return out


def _rewritten(data: bytes, env: Mapping[str, str] | None, *, drop: bool) -> bytes:
    from events.contract.privacy_text import scrub_text

    try:
        event = msgspec.json.decode(data)
        new = pseudonymize_event(event, env, drop=drop)
    except (msgspec.DecodeError, RecursionError):
        return scrub_text(data, env, drop=drop)
    return data if new is event else msgspec.json.encode(new)


_said: set[str] = set()  # the notices given by this process


def _say_dropped(why: str) -> None:
    """Identifiers dropped for want of a key: said once per process (one run of a command),
    on standard error (what is stored is not changed by it)."""
    if "dropped" in _said:
        return
    _said.add("dropped")
    print(f"uth: {why}: the player identifiers in the events are dropped, not stored; set "
          "the casino's pseudonym key (a long random secret) to keep them as pseudonyms",
          file=sys.stderr, flush=True)
