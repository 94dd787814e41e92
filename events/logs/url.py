"""``open_log(url)``: the event log a URL names.

- ``sqlite:///log.db`` (relative) / ``sqlite:////abs/log.db``: :class:`SqliteLog`
- ``kafka://host:port[/topic][?partitions=N]``: :class:`KafkaLog` (imports kafka-python)
- ``path.jsonl``, ``file:///abs/x.jsonl``, ``jsonl:name``, ``-`` (stdin): :class:`JsonlLog`
"""

from __future__ import annotations

from events.logs.base import EventLog, LogUnavailable


def open_log(url: str, *, create: bool = True, growing: bool = False) -> EventLog:
    """The log for ``url``; ``create=False`` refuses to create a missing SQLite file.

    A plain path is a JSON Lines file, unless the file there is an SQLite log (then it is
    opened as one) or something else (then :class:`LogUnavailable` says what it is).
    ``growing``: the caller reads the log again later from where it stopped (a warehouse
    load), so a JSON Lines file's unfinished last line waits for that next read."""
    if url.startswith("sqlite:"):
        from events.logs.sqlite import SqliteLog

        return SqliteLog(url, create=create)
    if url.startswith("kafka:"):
        from events.logs.kafka import KafkaLog

        return KafkaLog(url)
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme in ("", "file") or url.startswith("jsonl:"):
        from events.logs.jsonl import JsonlLog, path_from_url, sniff

        path = path_from_url(url)
        kind = sniff(path) if path is not None else "jsonl"
        if kind == "sqlite":
            from events.logs.sqlite import SqliteLog

            return SqliteLog(f"sqlite:///{path}", create=False)
        if kind != "jsonl":
            raise LogUnavailable(kind)
        return JsonlLog(url, growing=growing)
    raise LogUnavailable(
        f"{url!r}: unknown log URL (use sqlite:///file.db, kafka://host:port[/topic], "
        "or a .jsonl path)")
