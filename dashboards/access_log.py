"""The access log: one JSON line per page opened, hand shown, player's evidence shown,
download and refusal, appended to a file beside the warehouse (never inside it: the load
is the warehouse's one writer). Opened for appending only; nothing here rewrites a line.

A line holds who (the ID token's ``sub`` and, when given, ``email``), their roles, what
(``page``, ``hand``, ``players`` as pseudonyms, ``download``), the outcome and when (UTC).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SUFFIX = ".access.jsonl"
_LOCK = threading.Lock()  # the server's sessions run in threads of one process


def default_path(warehouse: str | os.PathLike[str]) -> Path:
    """``warehouse.duckdb`` -> ``warehouse.duckdb.access.jsonl`` beside it."""
    path = Path(warehouse)
    return path.with_name(path.name + SUFFIX)


def append(path: Path, record: Mapping[str, Any], now: datetime | None = None) -> None:
    """Write one line, whole, at the end of the file (created with mode 0600)."""
    line = json.dumps({"at": (now or datetime.now(UTC)).isoformat(timespec="milliseconds"),
                       **record}, ensure_ascii=True, sort_keys=True) + "\n"
    data = line.encode("ascii")
    with _LOCK:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            written = os.write(fd, data)
            if written != len(data):  # a full disk: say so rather than keep half a line
                raise OSError(f"access log {path}: wrote {written} of {len(data)} bytes")
            os.fsync(fd)
        finally:
            os.close(fd)


def read(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The log's records, oldest first (the last ``limit`` when given); a line that is not
    a JSON object (a torn last line) is returned as ``{"unreadable": line number}``."""
    if not path.is_file():
        return []
    out: list[dict[str, Any]] = []
    with path.open(encoding="ascii", errors="replace") as f:
        for n, line in enumerate(f, 1):
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            out.append(record if isinstance(record, dict) else {"unreadable": n})
    return out[-limit:] if limit else out


def record(who: Mapping[str, Any], roles: Sequence[str], what: str,
           **details: Any) -> dict[str, Any]:
    """A log line's fields: who (``sub``, ``email``), their roles, what, and details."""
    line: dict[str, Any] = {"sub": str(who.get("sub", "")), "roles": sorted(map(str, roles)),
                            "what": what}
    if who.get("email"):
        line["email"] = str(who["email"])
    line.update({k: v for k, v in details.items() if v is not None})
    return line
