"""A log cursor as ``load_positions.position`` stores it (a light module: the quick path of
``uth load`` and the sensor read it without the ingest's transforms)."""

from __future__ import annotations

import json

from events.logs.base import Cursor


def cursor_text(cursor: Cursor) -> str:
    """A log cursor as stored in ``load_positions.position``: ``{"0": 42}``."""
    return json.dumps({str(p): o for p, o in sorted(cursor.items())})


def parse_cursor(text: str | None) -> Cursor:
    if not text:
        return {}
    return {int(p): int(o) for p, o in json.loads(text).items()}
