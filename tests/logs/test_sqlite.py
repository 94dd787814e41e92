"""The SQLite log with one writer process and reader processes following it."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from events.logs import open_log
from events.logs.sqlite import SqliteLog, path_from_url

BATCHES, PER_BATCH = 40, 50


def _write(url: str) -> None:
    with open_log(url) as log:
        for b in range(BATCHES):
            log.append([(f"T{i % 3}", b"%d" % (b * PER_BATCH + i)) for i in range(PER_BATCH)])


def _follow(url: str, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    seen: list[tuple[int, int]] = []
    total = BATCHES * PER_BATCH
    with SqliteLog(url, poll_interval=0.02) as log:
        for batch in log.read(follow=True, stop=lambda: len(seen) >= total):
            seen.extend((r.offset, int(r.value)) for r in batch)
    out.put(seen)


def test_readers_in_other_processes_see_every_record_once_in_order(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    SqliteLog(url).close()  # created before the readers start
    ctx = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue = ctx.Queue()  # type: ignore[type-arg]
    readers = [ctx.Process(target=_follow, args=(url, results)) for _ in range(2)]
    writer = ctx.Process(target=_write, args=(url,))
    for p in [*readers, writer]:
        p.start()
    seen = [results.get(timeout=120) for _ in readers]
    for p in [*readers, writer]:
        p.join(30)
    assert [p.exitcode for p in [*readers, writer]] == [0, 0, 0]
    expected = [(i + 1, i) for i in range(BATCHES * PER_BATCH)]
    assert seen == [expected, expected]


def test_urls_follow_sqlalchemy(tmp_path: Path) -> None:
    assert str(path_from_url("sqlite:///rel/x.db")) == "rel/x.db"
    assert str(path_from_url("sqlite:////abs/x.db")) == "/abs/x.db"
    with SqliteLog(f"sqlite:///{tmp_path}/a/b/log.db") as log:  # parents are created
        assert log.end() == {} and log.committed("x") is None
        assert log.append([("T", b"1")]).end == {0: 2}
        assert log.end() == {0: 2}
