"""Batch hand evaluation against the fastest Python-callable evaluators, same run, one core."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from events.game.cards import card_str
from events.game.evaluation import evaluate7


def _rate(fn: Callable[[], object], hands: int, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return hands / best


def _references(hands: list[list[int]]) -> dict[str, Callable[[], object]]:
    """Each library in its fastest documented calling form, cards converted beforehand."""
    refs: dict[str, Callable[[], object]] = {}
    strs = [[card_str(c) for c in h] for h in hands]
    try:
        import pkrbot

        pk = [[pkrbot.Card(s) for s in h] for h in strs]
        refs["pkrbot"] = lambda: [pkrbot.evaluate(h) for h in pk]
    except ImportError:
        pass
    try:
        import eval7

        e7 = [[eval7.Card(s) for s in h] for h in strs]
        refs["eval7"] = lambda: [eval7.evaluate(h) for h in e7]
    except ImportError:
        pass
    try:
        from phevaluator import evaluate_cards

        refs["phevaluator"] = lambda: [evaluate_cards(*h) for h in hands]
    except ImportError:
        pass
    try:
        from treys import Card, Evaluator

        ev = Evaluator()
        tr = [[Card.new(s) for s in h] for h in strs]
        refs["treys"] = lambda: [ev.evaluate(h[:2], h[2:]) for h in tr]
    except ImportError:
        pass
    return refs


def run(quick: bool = False) -> list[dict[str, Any]]:
    rng = np.random.default_rng(7)
    n_batch = 1_000_000 if quick else 4_000_000
    n_ref = 50_000 if quick else 200_000
    cards = rng.random((n_batch, 52)).argpartition(7, axis=1)[:, :7].astype(np.uint8)
    evaluate7(cards[:1000])  # tables loaded before timing
    ours = _rate(lambda: evaluate7(cards), n_batch)
    ref_hands = cards[:n_ref].tolist()
    ref_rates = {name: _rate(fn, n_ref, repeat=2) for name, fn in _references(ref_hands).items()}
    fastest_name, fastest = max(ref_rates.items(), key=lambda kv: kv[1])
    rows: list[dict[str, Any]] = [
        {
            "name": "evaluate7 (random 7-card hands)",
            "value": ours,
            "unit": "hands/s",
            "reference": f"{fastest_name} (fastest reference)",
            "reference_value": fastest,
            "ratio": ours / fastest,
            "target": ">= 5x the fastest reference",
            "ok": ours >= 5 * fastest,
        }
    ]
    for name, rate in sorted(ref_rates.items(), key=lambda kv: -kv[1]):
        rows.append(
            {"name": f"reference: {name}", "value": rate, "unit": "hands/s",
             "reference": "evaluate7", "reference_value": ours, "ratio": rate / ours,
             "target": "", "ok": None}
        )
    if not quick:
        from events.game._eval_cache import _enumerate_seven_card_categories

        start = time.perf_counter()
        _enumerate_seven_card_categories()
        seconds = time.perf_counter() - start
        rows.append(
            {"name": "enumerate all 133,784,560 seven-card hands", "value": seconds,
             "unit": "s", "reference": "133,784,560 hands", "reference_value": 133_784_560,
             "ratio": 133_784_560 / seconds / 1e6,
             "target": "seconds, not minutes (ratio: M hands/s)",
             "ok": seconds < 60}
        )
    return rows
