"""Whether a file at a path is still the one a reader stored a position in.

A JSON Lines source is read by line number. When it is rotated or replaced at the same path,
the stored number means nothing in the new file: a shorter one would look as if nothing was
new, a longer one would have its first lines skipped. So with each stored position goes the
file's :func:`fingerprint` (identity, size, a digest of the bytes just before the position),
and :func:`replaced` says how the file now at the path differs from it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import IO

from events.logs.base import LogUnavailable

MARK = 4096  # bytes before a stored position kept as its digest


def _digest(path: Path, size: int) -> str:
    n = min(size, MARK)
    with open(path, "rb") as f:
        return hashlib.blake2b(os.pread(f.fileno(), n, size - n), digest_size=16).hexdigest()


def fingerprint(path: Path) -> dict[str, object] | None:
    """The file's identity, size, and a digest of its last bytes (those before the
    position a reader stores now); None when it cannot be read."""
    try:
        st = path.stat()
        return {"dev": st.st_dev, "ino": st.st_ino, "size": st.st_size,
                "digest": _digest(path, st.st_size)}
    except OSError:
        return None


def replaced(path: Path, stored: dict[str, object]) -> str | None:
    """How the file at ``path`` differs from the ``stored`` fingerprint (another file,
    shorter, other bytes before the stored position), or None when it is the same file,
    maybe grown (or gone: reading it says so).

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "floor.jsonl"
    >>> _ = p.write_bytes(b"one\\ntwo\\n")
    >>> mark = fingerprint(p)
    >>> _ = p.open("ab").write(b"three\\n")
    >>> replaced(p, mark) is None
    True
    >>> _ = p.write_bytes(b"new\\n")
    >>> replaced(p, mark)
    'is shorter (4 bytes) than then (8 bytes)'
    """
    size = stored.get("size")
    try:
        st = path.stat()
        if not isinstance(size, int):
            return None
        if (st.st_dev, st.st_ino) != (stored.get("dev"), stored.get("ino")):
            return "is another file"
        if st.st_size < size:
            return f"is shorter ({st.st_size:,} bytes) than then ({size:,} bytes)"
        if _digest(path, size) != stored.get("digest"):
            return "holds other bytes before the stored position"
    except OSError:
        return None
    return None


def moved_note(path: Path | None, stored: object, line: int, since: str) -> str | None:
    """What a reader says when the file at ``path`` is no longer the one whose
    :func:`fingerprint` ``stored`` was kept with position ``line`` by ``since`` (``consumer
    'x'``, ``the warehouse``), and reads it from its first line; None when it is the same
    file (maybe grown), or nothing was stored to tell."""
    if path is None or not isinstance(stored, dict) or line <= 1:
        return None
    why = replaced(path, stored)
    if why is None:
        return None
    return (f"{path} {why} since {since} stored its position (line {line:,}): it was "
            "rotated or replaced, so it is read from its first line")


def followed_moved(path: Path, f: IO[bytes]) -> None:
    """Raise LogUnavailable when the file followed is no longer the one at ``path``
    (rotated: another file there) or was cut shorter than what was read of it."""
    try:
        now, held = os.stat(path), os.fstat(f.fileno())
    except OSError:
        return  # gone for now: a rotation under way; the next poll looks again
    if (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino):
        why = "was replaced by another file"
    elif held.st_size < f.tell():
        why = f"was cut to {held.st_size:,} bytes, fewer than the {f.tell():,} read"
    else:
        return
    raise LogUnavailable(f"{path} {why} while it was followed: run again to read the new "
                         "file from its first line")
