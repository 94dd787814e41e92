"""``open_log(url)``: the event log a URL names.

- ``sqlite:///log.db`` (relative) / ``sqlite:////abs/log.db``: :class:`SqliteLog`
- ``kafka://host:port[/topic][?partitions=N]``: :class:`KafkaLog` (imports kafka-python)
- ``path.jsonl``, ``file:///abs/x.jsonl``, ``jsonl:name``, ``-`` (stdin): :class:`JsonlLog`
"""

from __future__ import annotations

from events.logs.base import EventLog, LogUnavailable


def open_log(url: str, *, create: bool = True) -> EventLog:
    """The log for ``url``; ``create=False`` refuses to create a missing SQLite file."""
    if url.startswith("sqlite:"):
        from events.logs.sqlite import SqliteLog

        return SqliteLog(url, create=create)
    if url.startswith("kafka:"):
        from events.logs.kafka import KafkaLog

        return KafkaLog(url)
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme in ("", "file") or url.startswith("jsonl:"):
        from events.logs.jsonl import JsonlLog

        return JsonlLog(url)
    raise LogUnavailable(
        f"{url!r}: unknown log URL (use sqlite:///file.db, kafka://host:port[/topic], "
        "or a .jsonl path)")
