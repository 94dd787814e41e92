"""Disk cache for the evaluator's tables and the seven-card enumeration.

Building the tables takes about two seconds of pure Python; every ``uth`` process would
pay it, so the arrays are saved once under ``$UTH_CACHE_DIR`` (default
``~/.cache/uth-floor``) and memory-loaded after. Files are written to a temporary name and
renamed, so concurrent first runs never read a half-written file. The cache key includes
a digest of the table-building source: changing the rules of evaluation rebuilds it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from functools import cache
from itertools import chain, combinations
from pathlib import Path

import numpy as np

from events.game import _eval_tables
from events.game._eval_tables import Tables

_CACHE_VERSION = hashlib.sha256(Path(_eval_tables.__file__).read_bytes()).hexdigest()[:12]


def cache_dir() -> Path:
    configured = os.environ.get("UTH_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "uth-floor"


def _atomic_write(path: Path, write: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)  # type: ignore[operator]
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@cache
def tables() -> Tables:
    path = cache_dir() / f"eval-tables-{_CACHE_VERSION}.npz"
    try:
        with np.load(path, allow_pickle=False) as npz:
            classes = tuple(tuple(int(x) for x in row if x >= 0) for row in npz["classes"])
            return Tables(
                npz["card_key"], npz["lo_row"], npz["hi_col"], npz["nonflush"],
                npz["flush_suit"], npz["flush"], npz["category"], classes,
            )
    except (OSError, KeyError, ValueError):
        pass
    built = _eval_tables.tables()
    padded = np.full((len(built.classes), 6), -1, dtype=np.int8)
    for i, cls in enumerate(built.classes):
        padded[i, : len(cls)] = cls
    # a read-only home still evaluates; it just rebuilds next time
    with contextlib.suppress(OSError):
        _atomic_write(
            path,
            lambda fh: np.savez(
                fh, card_key=built.card_key, lo_row=built.lo_row, hi_col=built.hi_col,
                nonflush=built.nonflush, flush_suit=built.flush_suit, flush=built.flush,
                category=built.category, classes=padded,
            ),
        )
    return built


def _enumerate_seven_card_categories() -> tuple[int, ...]:
    """Count categories over all C(52,7) hands: each hand is two leading cards plus a
    five-card combination of higher cards, and those combinations are a suffix of the
    lexicographic list, so the per-card sums of that list are computed once."""
    from events.game.evaluation import _strengths_from_keys

    t = tables()
    n5 = 2_598_960
    flat = np.fromiter(chain.from_iterable(combinations(range(52), 5)), np.uint8, n5 * 5)
    five = flat.reshape(n5, 5)
    suit_bit = np.array([1 << (16 * (c & 3) + (c >> 2)) for c in range(52)], dtype=np.int64)
    five_key = t.card_key[five].sum(axis=1, dtype=np.int64)
    five_mask = suit_bit[five].sum(axis=1, dtype=np.int64)
    del five, flat
    # first index of a combination whose lowest card is >= c
    first = np.searchsorted(
        np.fromiter(
            chain.from_iterable([c] * _ncr(51 - c, 4) for c in range(48)), np.int64, n5
        ),
        np.arange(53),
    )
    counts = np.zeros(10, dtype=np.int64)
    for a in range(52):
        for b in range(a + 1, 48):
            start = first[b + 1]
            keys = five_key[start:] + (t.card_key[a] + t.card_key[b])
            masks = five_mask[start:] + (suit_bit[a] + suit_bit[b])
            strengths = _strengths_from_keys(keys, None, masks)
            counts += np.bincount(t.category[strengths], minlength=10)
    return tuple(int(c) for c in counts)


def _ncr(n: int, r: int) -> int:
    from math import comb

    return comb(n, r) if 0 <= r <= n else 0


@cache
def seven_card_category_counts() -> tuple[int, ...]:
    path = cache_dir() / f"seven-card-categories-{_CACHE_VERSION}.json"
    try:
        cached = json.loads(path.read_text())
        if isinstance(cached, list) and len(cached) == 10:
            return tuple(int(c) for c in cached)
    except (OSError, ValueError):
        pass
    counts = _enumerate_seven_card_categories()
    with contextlib.suppress(OSError):
        _atomic_write(path, lambda fh: fh.write(json.dumps(list(counts)).encode()))
    return counts
