"""JSON Lines files as a log: read (and follow) an export, or write one.

``events.jsonl``, ``file:///abs/events.jsonl`` or ``jsonl:relative/name`` (any suffix);
``-`` reads standard input. One event per line; a record's offset is its line number
(from 1), its key is empty (the table is inside the event). Appends end every line with a
newline and ``fsync`` before returning. Rejected inputs go to ``<name>.rejected.jsonl``
beside the file, one JSON object per line (position, code, reason, raw); named consumers'
cursors to ``<name>.jsonl.consumers.json`` (written atomically).

A file may still be growing while it is read: a last line without its newline that is not
yet a whole JSON document is taken as being written and left for the next read (one that
is whole, e.g. the end of a file written without a final newline, is read).

A file keeps no event ids: redelivered events are not recognised here (``uth ingest``
de-duplicates within a run and resumes from its stored position instead).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from itertools import repeat
from operator import attrgetter
from pathlib import Path
from typing import IO, TYPE_CHECKING

import msgspec

from events.logs.base import (
    AppendResult,
    Checkpoint,
    Cursor,
    EventLog,
    LogError,
    LogUnavailable,
    LogWriteError,
    Record,
    StopFlag,
    never,
    sleep_unless,
)

if TYPE_CHECKING:
    from events.codec import Rejection


def path_from_url(url: str) -> Path | None:
    """The file a JSON Lines URL names; None for standard input (``-``)."""
    if url == "-":
        return None
    if url.startswith("file://"):
        return Path(url[len("file://"):])
    if url.startswith("jsonl:"):
        return Path(url[len("jsonl:"):].removeprefix("//"))
    return Path(url)


def rejected_path(path: Path) -> Path:
    """``floor.jsonl`` -> ``floor.rejected.jsonl`` (beside it)."""
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return path.with_name(f"{stem}.rejected.jsonl")


class JsonlLog(EventLog):
    position_word = "line"

    def __init__(self, url: str, *, poll_interval: float = 0.2) -> None:
        self.url = url
        self.path = path_from_url(url)
        self.poll_interval = poll_interval
        self._lines: int | None = None  # lines in the file, counted once when needed
        self._out: IO[bytes] | None = None

    # -- writing -------------------------------------------------------------------------
    def append(
        self, records: Sequence[tuple[str, bytes]], event_ids: Sequence[str | None] | None = None
    ) -> AppendResult:
        if self.path is None:
            raise LogWriteError("standard input cannot be written to")
        for _, value in records:
            if b"\n" in value or b"\r" in value:
                raise LogWriteError("a record for a JSON Lines file cannot contain a newline")
        if not records:
            return AppendResult(0, 0, self.end())
        start = self._count_lines()
        data = b"\n".join(v for _, v in records) + b"\n"
        size = -1
        try:
            if self._out is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # unbuffered: a failed write leaves nothing queued to be flushed later
                self._out = open(self.path, "ab+", buffering=0)  # noqa: SIM115 - kept open
            fd = self._out.fileno()
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = b"\n" + data  # a torn last line (a crash mid-write) stays its own line
            view = memoryview(data)
            while view:
                view = view[self._out.write(view) or 0:]
            os.fsync(fd)
        except OSError as exc:
            if size >= 0 and self._out is not None:
                # roll back: no half-written line stays behind (a full disk, EFBIG)
                with contextlib.suppress(OSError):
                    os.ftruncate(self._out.fileno(), size)
            self._lines = None  # unknown now: count again next time
            raise LogWriteError(f"{self.path}: append failed: {exc}") from exc
        self._lines = start + len(records)
        return AppendResult(len(records), 0, {0: self._lines + 1})

    def _count_lines(self) -> int:
        if self._lines is None:
            if self.path is None or not self.path.exists():
                self._lines = 0
            else:
                count, last = 0, b"\n"
                with open(self.path, "rb") as f:
                    while chunk := f.read(1 << 20):
                        count += chunk.count(b"\n")
                        last = chunk[-1:]
                self._lines = count + (0 if last == b"\n" else 1)
        return self._lines

    def end(self) -> Cursor:
        return {0: self._count_lines() + 1}

    # -- reading -------------------------------------------------------------------------
    def read(
        self, start: Cursor | None = None, *, follow: bool = False, stop: StopFlag = never,
        max_batch: int = 2000,
    ) -> Iterator[list[Record]]:
        first = max((start or {}).get(0, 1), 1)
        if self.path is None:
            yield from self._read_stream(sys.stdin.buffer, first, follow=False, stop=stop,
                                         max_batch=max_batch)
            return
        if not self.path.exists():
            if not follow:
                raise LogUnavailable(f"{self.path} does not exist")
            while not self.path.exists():
                yield []
                if sleep_unless(stop, self.poll_interval):
                    return
        with open(self.path, "rb") as f:
            if follow:
                yield from self._read_stream(f, first, follow=True, stop=stop,
                                             max_batch=max_batch)
            else:
                # (a torn last line is left for the next read: see the module)
                yield from _read_blocks(f, first, stop, max_batch, _whole_json)

    def _read_stream(
        self, f: IO[bytes], first: int, *, follow: bool, stop: StopFlag, max_batch: int
    ) -> Iterator[list[Record]]:
        number = 0
        batch: list[Record] = []
        pending = b""
        while not stop():
            line = f.readline()
            if line.endswith(b"\n") or (line and not follow):
                line = pending + line
                pending = b""
                number += 1
                if number >= first:
                    batch.append(Record(0, number, "", line.rstrip(b"\r\n")))
                    if len(batch) >= max_batch:
                        yield batch
                        batch = []
                continue
            if line:  # a line still being written: wait for its newline
                pending += line
                continue
            if batch:
                yield batch
                batch = []
            if not follow:
                return
            yield []
            if sleep_unless(stop, self.poll_interval):
                return
        if batch:
            yield batch

    # -- consumers and rejects -----------------------------------------------------------
    def _consumers_path(self) -> Path:
        if self.path is None:
            raise LogError("standard input keeps no consumer positions")
        return self.path.with_name(self.path.name + ".consumers.json")

    def _load_consumers(self) -> dict[str, dict[str, object]]:
        path = self._consumers_path()
        if not path.exists():
            return {}
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise LogError(f"{path}: unreadable consumer positions: {exc}") from exc
        return data if isinstance(data, dict) else {}

    def committed(self, consumer: str) -> Checkpoint | None:
        entry = self._load_consumers().get(consumer)
        if not isinstance(entry, dict):
            return None
        line = entry.get("line")
        meta = entry.get("metadata", "")
        return Checkpoint({0: int(line)}, str(meta)) if isinstance(line, int) else None

    def commit(self, consumer: str, cursor: Cursor, metadata: str = "") -> None:
        path = self._consumers_path()
        data = self._load_consumers()
        data[consumer] = {"line": cursor.get(0, 1), "metadata": metadata}
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        try:
            with open(tmp, "w") as f:
                json.dump(data, f, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            raise LogWriteError(f"{path}: commit of {consumer!r} failed: {exc}") from exc

    def dead_letter(self, rejections: Sequence[Rejection]) -> int:
        if self.path is None:
            raise LogWriteError("standard input has no place for rejected lines")
        target = rejected_path(self.path)
        text = b"".join(
            json.dumps(r.to_dict(), ensure_ascii=False).encode() + b"\n" for r in rejections)
        try:
            with open(target, "ab") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            raise LogWriteError(f"{target}: dead-letter write failed: {exc}") from exc
        return len(rejections)

    def where(self, record: Record) -> int:
        return record.offset

    def positions(self, records: Sequence[Record]) -> list[str]:
        return list(map(str, map(_OFFSET, records)))

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None


_OFFSET = attrgetter("offset")
BLOCK = 1 << 22  # bytes read at a time from a file that is not followed


def _whole_json(line: bytes) -> bool:
    try:
        msgspec.json.decode(line)
    except msgspec.DecodeError:
        return False
    return True


def _always(line: bytes) -> bool:
    return True


def _read_blocks(f: IO[bytes], first: int, stop: StopFlag, max_batch: int,
                 last_line: Callable[[bytes], bool] = _always) -> Iterator[list[Record]]:
    """The lines of a file read to its end in large blocks: the same records as the
    line-by-line reader (numbered from 1, line ends and carriage returns stripped, a last
    line without its newline included when ``last_line`` says so), in batches of
    ``max_batch`` but the last, with no Python step per line."""
    number = 0  # lines split off so far
    rest = b""
    pending: list[bytes] = []  # lines from ``first`` not yet yielded
    start = first  # the number of pending[0]
    while not stop():
        block = f.read(BLOCK)
        if not block:
            break
        data = rest + block
        lines = data.split(b"\n")
        rest = lines.pop()
        if b"\r" in data:
            lines = [line.rstrip(b"\r") for line in lines]
        number += len(lines)
        if number < first:
            continue
        skip = first - (number - len(lines) + 1)
        pending += lines[skip:] if skip > 0 else lines
        while len(pending) >= max_batch:
            yield _records(start, pending[:max_batch])
            del pending[:max_batch]
            start += max_batch
    else:
        return  # stopped: the rest is read another time
    if rest and number + 1 >= first and last_line(rest.rstrip(b"\r\n")):
        pending.append(rest.rstrip(b"\r\n"))
    if pending:
        yield _records(start, pending)


_new_record = partial(tuple.__new__, Record)


def _records(start: int, lines: list[bytes]) -> list[Record]:
    """``Record(0, start + k, "", line)`` for each line (built in C, not by a Python
    ``__new__`` per line)."""
    return list(map(_new_record, zip(repeat(0), range(start, start + len(lines)), repeat(""),
                                     lines)))
