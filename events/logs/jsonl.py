"""JSON Lines files as a log: read (and follow) an export, or write one.

``events.jsonl``, ``file:///abs/events.jsonl`` or ``jsonl:relative/name`` (any suffix);
``-`` reads standard input. One event per line; a record's offset is its line number
(from 1), its key is empty (the table is inside the event). Appends end every line with a
newline and ``fsync`` before returning. Rejected inputs go to ``<name>.rejected.jsonl``
beside the file, one JSON object per line (position, code, reason, raw); named consumers'
cursors to ``<name>.jsonl.consumers.json`` (written atomically).

A line ends at LF, CRLF or a lone CR; a UTF-8 byte-order mark at the start is skipped; a
line longer than an event may be is cut as it is read (and then refused as too large). A
last line without its line break is read like any other (and refused if it is not an
event), except by a reader that reads the file again later from where it stopped
(``growing``, as a warehouse load does): there a last line that is not yet a whole JSON
document is taken as being written and left for the next read. ``--follow`` always waits
for a line's end.

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

from events.contract.codec import MAX_EVENT_BYTES
from events.logs.base import (
    AppendResult,
    Cursor,
    EventLog,
    LogUnavailable,
    LogWriteError,
    Record,
    StopFlag,
    never,
    new_dead_letters,
    sleep_unless,
    stored_keys,
)
from events.logs.file_identity import followed_moved
from events.logs.jsonl_consumers import JsonlConsumers

if TYPE_CHECKING:
    from events.contract.codec import Rejection


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


class JsonlLog(JsonlConsumers, EventLog):
    position_word = "line"

    def __init__(self, url: str, *, poll_interval: float = 0.2, growing: bool = False) -> None:
        self.url = url
        self.path = path_from_url(url)
        self.poll_interval = poll_interval
        # read again later from where it stopped (a warehouse load): a last line without
        # its newline that is not yet whole JSON waits for that next read
        self.growing = growing
        self._lines: int | None = None  # lines in the file, counted once when needed
        # (line, byte offset) a line of this same file starts at, known from an earlier
        # read (the caller checked the file's fingerprint): read and counted from there
        self.hint: tuple[int, int] | None = None
        self.line_starts: list[tuple[int, int]] = []  # (line, offset) of line starts read
        self._out: IO[bytes] | None = None
        self._dead_keys: set[str] | None = None  # keys of the dead letters stored

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
            count, last = 0, b"\n"
            if self.path is not None and self.path.exists():
                with open(self.path, "rb") as f:
                    if self.hint is not None:  # the lines before it are counted already
                        count, _ = self.hint[0] - 1, f.seek(self.hint[1])
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
        for number, lines in self.line_batches(start, follow=follow, stop=stop,
                                               max_batch=max_batch):
            yield _records(number, lines)

    def read_until(
        self, start: Cursor | None, until: Cursor, *, max_batch: int = 2000,
    ) -> Iterator[list[Record]]:
        if self.path is None:  # standard input has no end to take beforehand
            yield from self.read(start, max_batch=max_batch)
            return
        yield from super().read_until(start, until, max_batch=max_batch)

    def line_batches(
        self, start: Cursor | None = None, *, follow: bool = False, stop: StopFlag = never,
        max_batch: int = 2000,
    ) -> Iterator[tuple[int, list[bytes]]]:
        """What :meth:`read` reads, as (number of the first line, the lines): no record
        per line, for a reader that needs a line's number only when the line is bad."""
        first = max((start or {}).get(0, 1), 1)
        if self.path is None:
            yield from line_batches(sys.stdin.buffer, first, stop, max_batch)
            return
        if not self.path.exists():
            if not follow:
                raise LogUnavailable(f"{self.path} does not exist")
            while not self.path.exists():
                yield first, []
                if sleep_unless(stop, self.poll_interval):
                    return
        last_line = _whole_json if self.growing else bytes.strip
        with open(self.path, "rb") as f:
            moved = partial(followed_moved, self.path, f) if follow else None
            yield from line_batches(f, first, stop, max_batch, last_line=last_line,
                                    follow=follow, poll_interval=self.poll_interval,
                                    moved=moved, hint=self.hint, starts=self.line_starts)

    # -- rejects ---------------------------------------------------------------------------
    def dead_letter(self, rejections: Sequence[Rejection], source: str = "") -> int:
        if self.path is None:
            raise LogWriteError("standard input has no place for rejected lines")
        target = rejected_path(self.path)
        known = self._dead_letter_keys(target)
        lines = [json.dumps(doc, ensure_ascii=False).encode() + b"\n"
                 for _, doc in new_dead_letters(rejections, source, known)]
        try:
            with open(target, "ab") as f:
                f.write(b"".join(lines))
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            self._dead_keys = None  # what reached the file is read again next time
            raise LogWriteError(f"{target}: dead-letter write failed: {exc}") from exc
        return len(lines)

    def _dead_letter_keys(self, target: Path) -> set[str]:
        """The keys of the dead letters in ``target``, read once (then kept up to date)."""
        if self._dead_keys is None:
            self._dead_keys = set()
            with contextlib.suppress(FileNotFoundError), open(target, "rb") as f:
                self._dead_keys = stored_keys(f)
        return self._dead_keys

    def where(self, record: Record) -> int:
        return record.offset

    def positions(self, records: Sequence[Record]) -> list[str]:
        return list(map(str, map(_OFFSET, records)))

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None


_OFFSET = attrgetter("offset")
BLOCK = 1 << 22  # bytes read at a time
MAX_LINE = MAX_EVENT_BYTES + 1  # a longer line is cut here as it is read (then refused)
_BOM = b"\xef\xbb\xbf"


def _whole_json(line: bytes) -> bool:
    try:
        msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return False
    return True


class LineSplitter:
    """Bytes in, whole lines out, as a file's reader sees them: a line ends at LF, CRLF or
    a lone CR (a file written with CR-only line ends is lines too, not one line that never
    ends); a UTF-8 byte-order mark at the very start is not part of the first line; a line
    longer than :data:`MAX_LINE` is kept only up to there (the decoder refuses it as too
    large) and the rest of it skipped as it arrives, so memory stays bounded."""

    def __init__(self) -> None:
        self.rest = b""  # the start of a line not ended yet
        self.cut: bytes | None = None  # the kept start of an over-long line not ended yet
        self.head = True  # nothing read yet beyond a possible byte-order mark

    def feed(self, block: bytes) -> list[bytes]:
        data = self.rest + block
        if self.head:
            if len(data) < len(_BOM) and _BOM.startswith(data):
                self.rest = data
                return []
            self.head = False
            data = data.removeprefix(_BOM)
        if b"\r" in data:
            held = data.endswith(b"\r")  # maybe half a CRLF: decided with the next block
            data = (data[:-1] if held else data).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            data += b"\r" if held else b""
        lines = data.split(b"\n")
        self.rest = lines.pop()
        if self.cut is not None:
            if not lines:  # still inside the over-long line
                self.rest = b"\r" if self.rest.endswith(b"\r") else b""
                return []
            lines[0], self.cut = self.cut, None
        if len(self.rest) > MAX_LINE:
            self.cut = self.rest[:MAX_LINE]
            self.rest = b"\r" if self.rest.endswith(b"\r") else b""
        if lines and max(map(len, lines)) > MAX_LINE:
            lines = [line[:MAX_LINE] for line in lines]
        return lines

    def end(self) -> tuple[list[bytes], bytes]:
        """At the end of the data: the lines it ended (a held CR ends one) and the last
        line, not ended by a line break (empty when there is none)."""
        if self.rest.endswith(b"\r"):
            line = self.cut if self.cut is not None else self.rest[:-1]
            self.rest, self.cut = b"", None
            return [line[:MAX_LINE]], b""
        return [], self.cut if self.cut is not None else self.rest


def read_lines(f: IO[bytes], first: int, stop: StopFlag, max_batch: int, *,
               last_line: Callable[[bytes], object] = bytes.strip, follow: bool = False,
               poll_interval: float = 0.2) -> Iterator[list[Record]]:
    """:func:`line_batches` as records (offset = line number)."""
    for number, lines in line_batches(f, first, stop, max_batch, last_line=last_line,
                                      follow=follow, poll_interval=poll_interval):
        yield _records(number, lines)


def line_batches(f: IO[bytes], first: int, stop: StopFlag, max_batch: int, *,
                 last_line: Callable[[bytes], object] = bytes.strip, follow: bool = False,
                 poll_interval: float = 0.2, moved: Callable[[], None] | None = None,
                 hint: tuple[int, int] | None = None, starts: list[tuple[int, int]] | None = None,
                 ) -> Iterator[tuple[int, list[bytes]]]:
    """The lines of ``f`` from line ``first`` (numbered from 1), in batches of ``max_batch``
    but the last, as (number of the first, the lines): large blocks, no Python step a line.

    At the end of the file: without ``follow``, a last line without its line break is
    read when ``last_line`` says so (by default when it is not blank; a loader that reads
    a growing file again later passes a test of whole JSON, so a line still being written
    waits); with ``follow``, the lines read so far are yielded, then an empty batch while
    waiting for more, and an unended last line always waits for its line break; ``moved``
    is called while waiting (it raises when the file was rotated or cut). ``hint``: (line,
    byte offset) a line starts at, at or before ``first``: read from there; ``starts`` gets
    (line, offset) of line starts as blocks are read."""
    split = LineSplitter()
    read = getattr(f, "read1", f.read)  # what is there, without waiting for a whole block
    number = consumed = 0  # lines split off so far, bytes read
    if hint is not None and 1 < hint[0] <= first:
        number, consumed, split.head = hint[0] - 1, f.seek(hint[1]), False
    pending: list[bytes] = []  # lines from ``first`` not yet yielded
    start = first  # the number of pending[0]
    while not stop():
        block = read(BLOCK)
        if block:
            lines = split.feed(block)
            number += len(lines)
            consumed += len(block)  # (the rest: the start of a line, as in the file)
            if starts is not None and split.cut is None and not split.rest.endswith(b"\r"):
                starts.append((number + 1, consumed - len(split.rest)))
            if number >= first:
                skip = first - (number - len(lines) + 1)
                pending += lines[skip:] if skip > 0 else lines
            while len(pending) >= max_batch:
                yield start, pending[:max_batch]
                del pending[:max_batch]
                start += max_batch
            continue
        if not follow:
            ended, tail = split.end()
            if tail.strip() and last_line(tail):
                ended.append(tail)
            pending += ended[max(0, first - number - 1):]
            if pending:
                yield start, pending
            return
        if pending:
            yield start, pending
            start += len(pending)
            pending = []
        yield start, []
        if moved is not None:
            moved()  # (raises when the file followed was rotated or cut)
        if sleep_unless(stop, poll_interval):
            return
    if follow and pending:
        yield start, pending


_new_record = partial(tuple.__new__, Record)


def _records(start: int, lines: list[bytes]) -> list[Record]:
    """``Record(0, start + k, "", line)`` for each line (built in C, no ``__new__`` each)."""
    return list(map(_new_record, zip(repeat(0), range(start, start + len(lines)), repeat(""),
                                     lines)))
