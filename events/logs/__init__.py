"""Event logs chosen by URL: SQLite (embedded default), Kafka, JSON Lines.

>>> import tempfile, pathlib
>>> url = "sqlite:///" + str(pathlib.Path(tempfile.mkdtemp()) / "log.db")
>>> with open_log(url) as log:
...     log.append([("T1", b'{"seq":0}')]).written
...     [r.value for r in log.records()]
1
[b'{"seq":0}']
"""

from events.logs.base import (
    AppendResult,
    Checkpoint,
    Cursor,
    EventLog,
    LogError,
    LogUnavailable,
    LogWriteError,
    Record,
    advance,
    advance_all,
)
from events.logs.url import open_log, source_key

__all__ = [
    "AppendResult", "Checkpoint", "Cursor", "EventLog", "LogError", "LogUnavailable",
    "LogWriteError", "Record", "advance", "advance_all", "open_log", "source_key",
]
