"""The JSON Lines log reads a file in large blocks; its records must be the lines a plain
reading of the whole file gives (LF, CRLF and lone CR each end a line; a byte-order mark at
the start is no part of the first line; an over-long line is cut), on any file, from any
start line, in any block size and batch size, and as a file being followed."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest

import events.logs.jsonl as jsonl
from events.contract.codec import MAX_EVENT_BYTES
from events.logs.base import never


def _awkward_file(rng: random.Random) -> bytes:
    parts: list[bytes] = [jsonl._BOM] if rng.random() < 0.2 else []
    for _ in range(rng.randint(0, 40)):
        parts.append(rng.choice([b"", b"{}", b"abc", b"x" * rng.randint(1, 30), b"a\r", b"\r",
                                 b"b\r\r", b"y" * rng.choice([10, jsonl.MAX_LINE + 3])]))
        parts.append(rng.choice([b"\n", b"\r\n", b"\r"]))
    data = b"".join(parts)
    return data[:-1] if data and rng.random() < 0.5 else data


def _reference(data: bytes) -> list[bytes]:
    """The lines of ``data`` read at once, as the contract's readers take them."""
    data = data.removeprefix(jsonl._BOM)
    lines = re.split(rb"\r\n|\r|\n", data)
    if lines and not lines[-1].strip():
        lines.pop()  # no last line, or a blank one without its line break
    return [line[:jsonl.MAX_LINE] for line in lines]


@pytest.mark.parametrize("seed", range(8))
def test_block_reader_gives_the_lines_of_the_whole_file(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(jsonl, "MAX_LINE", 25)  # lines over it cut, in blocks of any size
    for _ in range(60):
        data = _awkward_file(rng)
        first, batch = rng.randint(1, 10), rng.randint(1, 5)
        monkeypatch.setattr(jsonl, "BLOCK", rng.choice([1, 2, 3, 7, 64, 1 << 22]))
        batches = list(jsonl.read_lines(io.BytesIO(data), first, never, batch))
        want = _reference(data)
        assert [(r.offset, r.value) for b in batches for r in b] == [
            (n, line) for n, line in enumerate(want, 1) if n >= first]
        assert all(0 < len(b) <= batch for b in batches)


def test_line_ends_bom_and_a_last_line_without_its_newline(tmp_path: Path) -> None:
    """CR-only files are lines, a byte-order mark does not spoil the first event, and a
    one-shot read returns an unended last line (for the decoder to take or refuse)."""
    path = tmp_path / "mac.jsonl"
    path.write_bytes(jsonl._BOM + b'{"a":1}\r{"b":2}\r\r{"c":3}\rnot json')
    log = jsonl.JsonlLog(str(path))
    assert [(r.offset, r.value) for b in log.read() for r in b] == [
        (1, b'{"a":1}'), (2, b'{"b":2}'), (3, b""), (4, b'{"c":3}'), (5, b"not json")]


def test_an_over_long_line_is_cut_while_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_bytes(b'{"a":1}\n' + b"[" * (5 * (1 << 22) + 17) + b'\n{"b":2}\n')
    values = [r.value for b in jsonl.JsonlLog(str(path)).read() for r in b]
    assert [len(v) for v in values] == [7, MAX_EVENT_BYTES + 1, 7]
    assert values[2] == b'{"b":2}'


def test_following_a_file_waits_for_each_lines_end(tmp_path: Path) -> None:
    path = tmp_path / "followed.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":')
    log = jsonl.JsonlLog(str(path), poll_interval=0.01)
    seen: list[bytes] = []
    polls = 0

    def stop() -> bool:
        return polls > 6

    for batch in log.read(follow=True, stop=stop):
        seen += [r.value for r in batch]
        if not batch:
            polls += 1
            if polls == 3:
                with open(path, "ab") as f:
                    f.write(b'2}\r{"c":3}\r\n')
    assert seen == [b'{"a":1}', b'{"b":2}', b'{"c":3}']


def test_a_torn_last_line_of_a_growing_file_is_left_for_the_next_read(tmp_path: Path) -> None:
    """A table system still appending, read by a loader that comes back (``growing``): the
    half-written last line is not read (so the loader's position stays before it); once
    its newline is there it is read whole. A last line that is a whole JSON document
    without its newline is read at once."""
    path = tmp_path / "growing.jsonl"
    whole = [b'{"n": %d, "payload": {"seat": 1}}' % k for k in range(3)]
    path.write_bytes(b"\n".join(whole[:2]) + b"\n" + whole[2][:25])
    log = jsonl.JsonlLog(str(path), growing=True)
    assert [r.value for b in log.read() for r in b] == whole[:2]
    with open(path, "ab") as f:
        f.write(whole[2][25:])
    assert [(r.offset, r.value) for b in log.read({0: 3}) for r in b] == [(3, whole[2])]
    with open(path, "ab") as f:
        f.write(b"\n" + b"not json and no newline")
    assert [r.value for b in log.read({0: 3}) for r in b] == [whole[2]]
    one_shot = jsonl.JsonlLog(str(path))  # a one-shot reader reads it, to refuse it
    assert [r.value for b in one_shot.read({0: 4}) for r in b] == [b"not json and no newline"]


@pytest.mark.parametrize("seed", range(4))
def test_line_batches_number_the_lines_of_the_whole_file(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader without a record per line (``uth audit``'s): each batch's first line
    number and lines, the same lines at the same numbers as the whole file read at once."""
    rng = random.Random(100 + seed)
    monkeypatch.setattr(jsonl, "MAX_LINE", 25)
    for _ in range(40):
        data = _awkward_file(rng)
        first, batch = rng.randint(1, 10), rng.randint(1, 5)
        monkeypatch.setattr(jsonl, "BLOCK", rng.choice([1, 2, 3, 7, 64, 1 << 22]))
        batches = list(jsonl.line_batches(io.BytesIO(data), first, never, batch))
        numbered = [(n, line) for n, lines in batches for n, line in enumerate(lines, n)]
        assert numbered == [(n, line) for n, line in enumerate(_reference(data), 1)
                            if n >= first]
        assert all(0 < len(lines) <= batch for _, lines in batches)
