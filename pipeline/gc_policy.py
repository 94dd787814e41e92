"""The garbage collector's pace during bulk work.

The auditor and the loader keep each open hand's events until the hand ends, so many
young containers survive a generation-0 collection (the decoded payloads' card and seat
lists); at CPython's default pace (a collection every 700 net allocations) the collector
then walks them again and again, which measured a fifth of the whole audit's time.
Collecting a hundred and forty times less often keeps what reference counting cannot free
(cycles, which this work hardly makes) from piling up between collections while removing
most of that cost (from every 20,000 allocations to every 100,000, the auditor's own work
took a tenth less time again).

>>> import gc
>>> before = gc.get_threshold()
>>> with bulk_work():
...     gc.get_threshold()[0]
100000
>>> gc.get_threshold() == before
True
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

BULK_THRESHOLD = (100_000, 20, 20)


@contextlib.contextmanager
def bulk_work() -> Iterator[None]:
    """Collect garbage less often inside the block; the previous pace is restored after."""
    before = gc.get_threshold()
    gc.set_threshold(*BULK_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)
