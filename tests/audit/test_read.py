"""``uth audit``'s reading of a JSON Lines file (``decoded_batches``: lines to the decoder
without a record per line) gives what decoding the records of ``read_batches`` gives: the
same events, the same rejections at the same line numbers, whatever the line ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from events.contract.codec import MAX_EVENT_BYTES, decode_records
from pipeline.commands.audit import decoded_batches, read_batches
from tests.logs.factory import lines


@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"])
@pytest.mark.parametrize("batch", [1, 7, 2000])
def test_decoded_batches_equal_the_records_decoded(tmp_path: Path, end: bytes,
                                                   batch: int) -> None:
    good = lines(2, 3)
    bad = [b'{"type":"Foo"}', b"not json", b"", b"[" * (MAX_EVENT_BYTES + 5),
           good[4].replace(b'"seat":1', b'"seat":1,"seat":9', 1)]
    mixed = good[:10] + bad[:3] + good[10:20] + bad[3:] + good[20:]
    path = tmp_path / "floor.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + end.join(mixed) + end + b'{"type":"HandEnded"')
    fast = [item for items in decoded_batches(str(path), batch) for item in items]
    slow = [item for chunk in read_batches(str(path), batch) for item in decode_records(chunk)]
    assert fast == slow
    rejected = [getattr(item, "position", None) for item in fast if hasattr(item, "reason")]
    assert rejected == [11, 12, 13, 24, 25, len(mixed) + 1]
