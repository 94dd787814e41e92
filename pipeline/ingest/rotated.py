"""Whether the JSON Lines file a load reads is still the one the warehouse's stored position
was read in (issue 30, 4): the recognition ``uth ingest`` applies to its consumers'
positions (:mod:`events.logs.file_identity`: the file's identity, its size, the bytes
before the position), applied to ``load_positions``. A replaced file is said and loaded
from its first line (events already stored are counted once, by ``event_id``)."""

from __future__ import annotations

from pathlib import Path

from events.logs import EventLog
from events.logs.file_identity import fingerprint, moved_note
from pipeline.warehouse import parse_cursor, parse_file_mark


def source_file(log: EventLog) -> Path | None:
    """The file of a JSON Lines log (None for any other log, or standard input)."""
    from events.logs.jsonl import JsonlLog

    return log.path if isinstance(log, JsonlLog) else None


def file_mark(log: EventLog) -> dict[str, object] | None:
    """What is stored with a position read in ``log``: its file's fingerprint, if a file."""
    path = source_file(log)
    return fingerprint(path) if path is not None else None


def replaced_note(log: EventLog, position: str | None) -> str | None:
    """The sentence saying that ``log``'s file was rotated or replaced since ``position``
    (``load_positions.position``) was stored, or None when it was not (or is no file)."""
    path = source_file(log)
    if path is None or not position:
        return None
    return moved_note(path, parse_file_mark(position), parse_cursor(position).get(0, 1),
                      "the warehouse")
