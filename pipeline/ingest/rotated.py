"""Whether the JSON Lines file a load reads is still the one the warehouse's stored position
was read in (issue 30, 4): the recognition ``uth ingest`` applies to its consumers'
positions (:mod:`events.logs.file_identity`: the file's identity, its size, the bytes
before the position), applied to ``load_positions``. The file's fingerprint is kept in
the warehouse's ``meta`` (key ``source_file <source>``), written in the same transaction
as the position. A replaced file is said and loaded from its first line (events already
stored are counted once, by ``event_id``)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from events.logs import EventLog
from events.logs.file_identity import fingerprint, moved_note
from pipeline.warehouse import META, parse_cursor


def source_file(log: EventLog) -> Path | None:
    """The file of a JSON Lines log (None for any other log, or standard input)."""
    from events.logs.jsonl import JsonlLog

    return log.path if isinstance(log, JsonlLog) else None


def file_mark(log: EventLog, cursor: dict[int, int] | None = None) -> dict[str, object] | None:
    """What is stored with a position read in ``log``: its file's fingerprint, if a file;
    with the position (``cursor``), also where a line at or before it starts (``line``,
    ``offset``), so that the next load reads (and counts) the file from there, not from
    its first byte: a load's cost is then what it adds, not the file's size."""
    path = source_file(log)
    mark = fingerprint(path) if path is not None else None
    if mark is not None and cursor:
        from events.logs.jsonl import JsonlLog

        assert isinstance(log, JsonlLog)
        known = [s for s in [*log.line_starts, *([log.hint] if log.hint else [])]
                 if s[0] <= cursor.get(0, 1)]
        if known:
            mark["line"], mark["offset"] = max(known)
    return mark


def resume_from_mark(log: EventLog, mark: object) -> None:
    """Let a JSON Lines log read from the line start kept in ``mark`` (call only once
    :func:`replaced_note` said the file is the one the mark was taken of)."""
    from events.logs.jsonl import JsonlLog

    if (isinstance(log, JsonlLog) and isinstance(mark, dict)
            and isinstance(mark.get("line"), int) and isinstance(mark.get("offset"), int)):
        log.hint = (int(mark["line"]), int(mark["offset"]))


def _key(source: str) -> str:
    return f"source_file {source}"


def store_mark(con: duckdb.DuckDBPyConnection, source: str,
               mark: dict[str, object] | None) -> None:
    """Keep ``mark`` (see :func:`file_mark`) with ``source``'s position (caller's transaction)."""
    if mark is None:
        return
    con.execute(f"INSERT INTO {META} VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET "
                "value = excluded.value", [_key(source), json.dumps(mark, sort_keys=True)])


def stored_mark(con: duckdb.DuckDBPyConnection, source: str) -> object:
    """The fingerprint kept with ``source``'s position (None when there is none)."""
    rows = con.execute(f"SELECT value FROM {META} WHERE key = ?", [_key(source)]).fetchall()
    try:
        return json.loads(rows[0][0]) if rows and rows[0][0] else None
    except ValueError:
        return None


def replaced_note(log: EventLog, position: str | None, mark: object) -> str | None:
    """The sentence saying that ``log``'s file was rotated or replaced since ``position``
    (``load_positions.position``) was stored with ``mark``, or None when it was not (or
    is no file, or nothing was kept to tell)."""
    path = source_file(log)
    if path is None or not position:
        return None
    return moved_note(path, mark, parse_cursor(position).get(0, 1), "the warehouse")
