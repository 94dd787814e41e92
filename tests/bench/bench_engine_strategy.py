"""Engine throughput: vectorized settlement and basic strategy against their one-hand forms
(the replayer's path), and the theory Monte Carlo, each measured in the same run."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from events.game.evaluation import category, evaluate7
from events.game.rulesets import load_ruleset
from events.game.settlement import Wagers, settle, settle_batch
from events.game.strategy import basic_strategy_multiples, flop_raise, preflop_raise, river_raise
from events.game.theory import base_game_monte_carlo


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _row(name: str, value: float, unit: str, reference: str, ref_value: float,
         target_ratio: float | None, target: str) -> dict[str, Any]:
    ratio = value / ref_value if ref_value else float("nan")
    return {"name": name, "value": value, "unit": unit, "reference": reference,
            "reference_value": ref_value, "ratio": ratio, "target": target,
            "ok": None if target_ratio is None else ratio >= target_ratio}


def _deals(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :9]


def run(quick: bool = False) -> list[dict[str, Any]]:
    rs = load_ruleset("charlevoix-2011")
    n = 200_000 if quick else 1_000_000
    small = 5_000 if quick else 20_000
    repeat = 2 if quick else 3
    cards = _deals(n, 1)
    hole, dealer, board = cards[:, :2], cards[:, 2:4], cards[:, 4:9]
    ps = evaluate7(np.concatenate([hole, board], axis=1))
    ds = evaluate7(np.concatenate([dealer, board], axis=1))
    pc, dc = category(ps), category(ds)
    mult = basic_strategy_multiples(hole[:small], board[:small]).astype(np.int64)
    mult = np.resize(mult, n)
    ante = np.full(n, 1000)

    batch_s = _best(lambda: settle_batch(rs, ante, ante * mult, 500, mult == 0, ps, pc, ds, dc),
                    repeat)
    args = [(Wagers(1000, 1000, 500, 1000 * int(m)), bool(m == 0), int(a), int(b), int(c),
             int(d)) for m, a, b, c, d in zip(mult[:small], ps[:small], pc[:small], ds[:small],
                                              dc[:small], strict=True)]

    def single() -> None:
        for w, f, a, b, c, d in args:
            settle(rs, w, f, a, b, c, d)

    single_s = _best(single, repeat)
    rows = [_row("settle_batch (4 spots per seat)", n / batch_s, "seats/s",
                 "settle(), one seat at a time", small / single_s, 20.0, ">= 20x")]

    strat_s = _best(lambda: basic_strategy_multiples(hole, board), repeat)
    few = 2_000 if quick else 5_000
    names = [([int(c) for c in h], [int(c) for c in b]) for h, b in zip(hole[:few], board[:few],
                                                                        strict=True)]

    def scalar() -> None:
        for h, b in names:
            if not preflop_raise(h) and not flop_raise(h, b[:3]):
                river_raise(h, b)

    scalar_s = _best(scalar, 1)
    rows.append(_row("basic strategy, whole hands (vectorized)", n / strat_s, "hands/s",
                     "preflop/flop/river_raise, one hand at a time", few / scalar_s, 20.0,
                     ">= 20x"))

    mc = 100_000 if quick else 500_000
    mc_s = _best(lambda: base_game_monte_carlo(rs, mc, seed=3), 1)
    eval_s = _best(lambda: evaluate7(np.concatenate([hole, board], axis=1)), repeat)
    rows.append(_row("uth theory Monte Carlo (4 dealer hands per deal)", mc / mc_s, "deals/s",
                     "evaluate7 alone", n / eval_s, None, "informational"))
    return rows
