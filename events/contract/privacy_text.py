"""Player identifiers out of a line that is not JSON (torn, a key left unquoted, a colon
missing), before it goes to a dead-letter store.

A valid JSON line is pseudonymized on its decoded keys (:mod:`events.contract.privacy`);
a broken one cannot be decoded, so its text is searched instead: each key that begins with
``player`` (any case, letters possibly ``\\u``-escaped, quoted or not, with or without its
colon) has the value after it replaced in place. A string becomes the pseudonym of its
text; a number, an object or a list (up to its closing bracket, or the end of the line
when torn) becomes ``{"withheld": <pseudonym of its text>}``. With ``drop`` (no key is
set) the replacement is ``"***"``. The rest of the line is kept, so the dead letter still
says where it came from and why it was refused.

>>> scrub_text(b'{"seq":3,"payload":{player_ref: 4417,"seat":1', None, drop=True)
b'{"seq":3,"payload":{player_ref: {"withheld":"***"},"seat":1'
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from events.contract.privacy import is_player_key, pseudonymize


def _letter(c: str) -> bytes:
    """``c`` in either case, or as its ``\\u`` escape (hex digits in either case)."""
    spellings = [re.escape(x).encode() for x in sorted({c.lower(), c.upper()})]
    for x in sorted({c.lower(), c.upper()}):
        hex_digits = "".join(f"[{h}{h.upper()}]" if h.isalpha() else h for h in f"{ord(x):04x}")
        spellings.append(rb"\\u" + hex_digits.encode())
    return b"(?:" + b"|".join(spellings) + b")"


_KEY = re.compile(
    rb"""(["']?)(""" + b"".join(map(_letter, "player"))
    + rb"""(?:[A-Za-z0-9_$.-]|\\u[0-9a-fA-F]{4})*)["']?\s*:?\s*""")
_ESCAPE = re.compile(rb"\\u([0-9a-fA-F]{4})")
_SCALAR_END = re.compile(rb"""[\s,}\]"']|$""")


def scrub_text(data: bytes, env: Mapping[str, str] | None, *, drop: bool) -> bytes:
    """``data`` (not JSON) with the value after each player key hidden (module doc)."""
    out: list[bytes] = []
    at = 0
    while (m := _KEY.search(data, at)) is not None:
        name = _ESCAPE.sub(lambda e: chr(int(e.group(1), 16)).encode("utf-8", "replace"),
                           m.group(2)).decode("utf-8", "replace")
        start = m.end()
        end = _value_end(data, start) if is_player_key(name) else start
        out.append(data[at:start])
        if end > start:
            out.append(_replacement(data[start:end], env, drop))
        at = max(end, start, m.start() + 1)
    out.append(data[at:])
    return b"".join(out)


def _replacement(value: bytes, env: Mapping[str, str] | None, drop: bool) -> bytes:
    text = value.decode("utf-8", "replace")
    if value[:1] == b'"':
        inner = text[1:-1] if len(text) > 1 and text.endswith('"') else text[1:]
        return b'"' + (b"***" if drop else pseudonymize(inner, env).encode()) + b'"'
    hidden = "***" if drop else pseudonymize(text, env)
    return b'{"withheld":"' + hidden.encode() + b'"}'


def _value_end(data: bytes, start: int) -> int:
    """Where the JSON value starting at ``start`` ends (the end of ``data`` when torn)."""
    first = data[start:start + 1]
    if first == b'"':
        return _string_end(data, start)
    if first in (b"{", b"["):
        depth, i = 0, start
        while i < len(data):
            c = data[i:i + 1]
            if c == b'"':
                i = _string_end(data, i)
                continue
            if c in (b"{", b"["):
                depth += 1
            elif c in (b"}", b"]"):
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        return len(data)
    m = _SCALAR_END.search(data, start)
    return m.start() if m is not None else len(data)


def _string_end(data: bytes, start: int) -> int:
    """Just past the string opened at ``start`` (the end of ``data`` when it is not closed)."""
    i = start + 1
    while i < len(data):
        c = data[i]
        if c == 0x5C:  # a backslash: the next byte is escaped
            i += 2
            continue
        if c == 0x22:
            return i + 1
        i += 1
    return len(data)
