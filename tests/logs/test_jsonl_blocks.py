"""The JSON Lines log reads a file to its end in large blocks; the records must be those of
its line-by-line reader (the one ``--follow`` uses) on any file: empty lines, CRLF, stray
carriage returns, a last line without its newline, any start line, any block size."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

import events.logs.jsonl as jsonl
from events.logs.base import never


def _awkward_file(rng: random.Random) -> bytes:
    parts: list[bytes] = []
    for _ in range(rng.randint(0, 40)):
        parts.append(rng.choice([b"", b"{}", b"abc", b"x" * rng.randint(1, 30), b"a\r", b"\r",
                                 b"b\r\r"]))
        parts.append(rng.choice([b"\n", b"\r\n"]))
    data = b"".join(parts)
    return data[:-1] if data and rng.random() < 0.5 else data


@pytest.mark.parametrize("seed", range(8))
def test_block_reader_gives_the_line_readers_records(seed: int,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    log = jsonl.JsonlLog.__new__(jsonl.JsonlLog)
    for _ in range(60):
        data = _awkward_file(rng)
        first, batch = rng.randint(1, 10), rng.randint(1, 5)
        monkeypatch.setattr(jsonl, "BLOCK", rng.choice([1, 2, 3, 7, 64, 1 << 22]))
        by_line = [r for b in log._read_stream(io.BytesIO(data), first, follow=False,
                                               stop=never, max_batch=batch) for r in b]
        by_block = [r for b in jsonl._read_blocks(io.BytesIO(data), first, never, batch)
                    for r in b]
        assert by_block == by_line
        assert all(0 < len(b) <= batch
                   for b in jsonl._read_blocks(io.BytesIO(data), first, never, batch))


def test_a_torn_last_line_of_a_growing_file_is_left_for_the_next_read(tmp_path: Path) -> None:
    """A table system still appending: the half-written last line is not read (so a
    loader's position stays before it); once its newline is there it is read whole. A
    last line that is a whole JSON document without its newline is read at once."""
    path = tmp_path / "growing.jsonl"
    whole = [b'{"n": %d, "payload": {"seat": 1}}' % k for k in range(3)]
    path.write_bytes(b"\n".join(whole[:2]) + b"\n" + whole[2][:25])
    log = jsonl.JsonlLog(str(path))
    assert [r.value for b in log.read() for r in b] == whole[:2]
    with open(path, "ab") as f:
        f.write(whole[2][25:])
    assert [(r.offset, r.value) for b in log.read({0: 3}) for r in b] == [(3, whole[2])]
    with open(path, "ab") as f:
        f.write(b"\n" + b"not json and no newline")
    assert [r.value for b in log.read({0: 3}) for r in b] == [whole[2]]
