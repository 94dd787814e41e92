"""What an identifier may hold: printable text in one Unicode spelling.

``table_id``, ``hand_id`` and ``event_id`` name directories of the Parquet archive, rows the
warehouse groups by and lines a supervisor reads on a terminal; ``dealer_id`` and
``shoe_id`` are grouped by and printed too. Two rules keep each of them one name:

- no control character (C0, DEL, C1): a NUL cuts a path segment, so ``T\\x00A`` and
  ``T\\x00B`` would share the archive directory of ``T``; an escape sequence would retitle
  or clear a terminal;
- Unicode NFC: ``Café`` typed as ``e`` + combining accent (NFD) would be another table than
  the precomposed ``é``. An identifier in another form is refused rather than rewritten,
  so a stored event keeps the bytes the table sent.

>>> identifier_problem("T-07") is None
True
>>> identifier_problem("T\\x00A")
"'T\\\\x00A' holds a control character (U+0000); an identifier is printable text"
>>> identifier_problem("Cafe\\u0301").endswith("is not in Unicode NFC form (send identifiers "
...                                          "NFC-normalized)")
True
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from operator import attrgetter

import numpy as np

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_ENVELOPE_IDS = (attrgetter("event_id"), attrgetter("table_id"))
_HAND_ID = attrgetter("hand_id")


def identifier_problem(text: str) -> str | None:
    """Why ``text`` cannot be an identifier, or None when it can."""
    bad = _CONTROL.search(text)
    if bad is not None:
        return (f"{text[:80]!r} holds a control character (U+{ord(bad.group()):04X}); "
                "an identifier is printable text")
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        return f"{text[:80]!r} is not in Unicode NFC form (send identifiers NFC-normalized)"
    return None


def envelope_problem(event: object) -> tuple[str, str] | None:
    """(field, why) for the first envelope identifier of ``event`` that breaks the rules."""
    for name in ("event_id", "table_id", "hand_id"):
        value = getattr(event, name)
        if isinstance(value, str):
            problem = identifier_problem(value)
            if problem is not None:
                return name, problem
    return None


def identifiers_valid(events: Sequence[object]) -> bool:
    """True when every envelope identifier of ``events`` keeps the rules: one test of
    their concatenation (a control character in any of them is one in it) and, only when
    some are not ASCII, the NFC test of each."""
    hands = "".join(filter(None, map(_HAND_ID, events)))
    joined = "".join(["".join(map(get, events)) for get in _ENVELOPE_IDS]) + hands
    if joined.isascii():  # the common case: ASCII, NFC by nature; controls found by NumPy
        codes = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        return not bool(((codes < 0x20) | (codes == 0x7F)).any())
    if _CONTROL.search(joined) is not None:
        return False
    return all(envelope_problem(e) is None for e in events)
