"""``open_log(url)``: the event log a URL names.

- ``sqlite:///log.db`` (relative) / ``sqlite:////abs/log.db``: :class:`SqliteLog`
- ``kafka://host:port[/topic][?partitions=N]``: :class:`KafkaLog` (imports kafka-python)
- ``path.jsonl``, ``file:///abs/x.jsonl``, ``jsonl:name``, ``-`` (stdin): :class:`JsonlLog`
"""

from __future__ import annotations

from pathlib import Path

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
        from events.logs.jsonl import JsonlLog, path_from_url

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


KAFKA_PORT = 9092
KAFKA_TOPIC = "uth.table-events"  # events.logs.kafka.DEFAULT_TOPIC, without importing Kafka


def source_key(url: str) -> str:
    """One name per log, whatever way its URL was written: what keys the positions a
    warehouse stores. A file's path made absolute (``sqlite:///rel.db`` and
    ``sqlite:////abs/rel.db`` are one log), Kafka's hosts in lower case with the default
    port and in order, its topic named, its options dropped; other URLs as they are.

    >>> source_key("kafka://Broker,b2:9093")
    'kafka://b2:9093,broker:9092/uth.table-events'
    """
    from urllib.parse import urlsplit

    if url.startswith("sqlite:"):
        from events.logs.sqlite import path_from_url as sqlite_path

        return f"sqlite:///{Path(sqlite_path(url)).absolute()}"
    if url.startswith("kafka:"):
        parts = urlsplit(url)
        hosts = sorted(h if ":" in h else f"{h}:{KAFKA_PORT}"
                       for h in (x.strip().lower() for x in parts.netloc.split(",")) if h)
        return f"kafka://{','.join(hosts)}/{parts.path.strip('/') or KAFKA_TOPIC}"
    if "://" not in url or url.startswith(("file:", "jsonl:")):
        from events.logs.jsonl import path_from_url

        path = path_from_url(url)
        if path is not None:
            return str(path.absolute())
    return url


SNIFF_BYTES = 1 << 16


def sniff(path: Path) -> str:
    """What the file at ``path`` holds: ``"jsonl"`` (or nothing yet), ``"sqlite"`` (an
    SQLite log named by its plain path), or a sentence saying why it is no event log.

    JSON Lines here means: among the whole lines of its first 64 KiB, at least one that is
    not blank starts with ``{`` (a file of events with some bad lines is still one, to be
    read and its bad lines refused one by one; a CSV or binary file is refused whole)."""
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except FileNotFoundError:
        return "jsonl"
    except OSError as exc:
        return f"{path}: cannot be read: {exc.strerror or exc}"
    if head.startswith(b"SQLite format 3\x00"):
        return "sqlite"
    what = None
    if head.startswith(b"PAR1"):
        what = "a Parquet file (an archive is restored with uth load --from-archive DIR)"
    elif head[8:12] == b"DUCK":
        what = "a DuckDB database (a warehouse, not an event log)"
    else:
        from events.logs.jsonl import LineSplitter

        lines = LineSplitter().feed(head)
        if len(head) < SNIFF_BYTES:
            lines.append(head.rsplit(b"\n", 1)[-1])
        text = [line.strip() for line in lines if line.strip()]
        if not text or any(line.startswith(b"{") for line in text):
            return "jsonl"
        start = text[0][:40].decode("utf-8", "replace")
        what = ("a binary file" if b"\x00" in head else
                f"text that is not JSON Lines (it starts {start!r})")
    return (f"{path}: {what}; a source is a JSON Lines file of events (one JSON object a "
            "line), sqlite:///log.db or kafka://host:port/topic")
