"""Text from events never reaches a terminal raw.

A dealer id, a dispute's claim or a ruleset name is text a table system sent; written as
it is, ``\\x1b]0;...\\x07`` retitles the window, ``\\x1b[2J`` clears the screen, a carriage
return or a right-to-left override hides what was printed before it. Every ``uth`` command
writes through :class:`VisibleText`, which shows each such character as its ``\\uXXXX``
escape instead: visible to a person, and inside a JSON string the same character again
(so ``--json`` output stays exact).

>>> visible("dealer \\x1b[2J D-17\\r\\u202eok")
'dealer \\\\u001b[2J D-17\\\\u000d\\\\u202eok'
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sized
from typing import Any, TextIO, TypeVar

Batch = TypeVar("Batch", bound=Sized)

# C0 controls, DEL, C1 controls, and the marks and overrides that reorder text
_HIDDEN = [*range(0x00, 0x20), *range(0x7F, 0xA0), 0x200E, 0x200F, *range(0x202A, 0x202F),
           *range(0x2066, 0x206A)]


def _table(keep: str) -> dict[int, str]:
    return {c: f"\\u{c:04x}" for c in _HIDDEN if chr(c) not in keep}


_TEXT = _table("\n\t")


def visible(text: str) -> str:
    """``text`` with every control or reordering character shown as its escape."""
    return text.translate(_TEXT)


class VisibleText:
    """A text stream that writes through :func:`visible` (``keep``: characters the
    program itself writes, e.g. the carriage return of a progress bar on standard error)."""

    def __init__(self, stream: TextIO, keep: str = "\n\t") -> None:
        self.stream = stream
        self._table = _table(keep)

    def write(self, text: str) -> int:
        self.stream.write(text.translate(self._table))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding...
        return getattr(self.stream, name)


def counted(n: int, noun: str) -> str:
    """A count and its noun, singular for one: ``1 hand``, ``4,003 hands``, ``0 findings``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


class StatusLine:
    """How far a long command is, one line on standard error rewritten in place
    (``uth protect: pass 2 of 2: 120,000 events read``), at most every ``every`` seconds.
    Only on a terminal: a standard error that is a pipe or a file gets nothing, and
    standard output (``--json`` included) is never touched. :meth:`clear` before the
    results are printed."""

    def __init__(self, command: str, stream: TextIO | None = None, every: float = 0.25,
                 clock: Callable[[], float] = time.monotonic, on: bool | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        try:
            self.on = bool(self.stream.isatty()) if on is None else on
        except (AttributeError, ValueError):  # a closed or bare stream: no terminal
            self.on = False
        self.command, self.every, self.clock = command, every, clock
        self.last = float("-inf")
        self.width = 0

    def __call__(self, text: str, *, now: bool = False) -> None:
        if not self.on:
            return
        moment = self.clock()
        if not now and moment - self.last < self.every:
            return
        self.last = moment
        line = f"{self.command}: {text}"
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def counting(self, batches: Iterable[Batch], what: str, noun: str) -> Iterator[Batch]:
        """``batches`` as they are, their items counted on the line: ``what: N nouns read``."""
        n = 0
        for batch in batches:
            n += len(batch)
            self(f"{what}: {counted(n, noun)} read")
            yield batch
        self(f"{what}: {counted(n, noun)} read", now=True)

    def clear(self) -> None:
        if self.on and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0
