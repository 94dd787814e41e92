"""Theory of a ruleset: exact trips figures and the base game's house edge.

The base game's exact house edge under computer-perfect play is the published figure
(:data:`EXACT_BASE_EDGES`, 2.1850% of the ante), keyed by what fixes it in a ruleset: the
blind pay table and the play multiples (the dealer qualifies with a pair in every ruleset
of the contract). A ruleset with another blind table or other multiples has no known exact
figure (:func:`exact_base_edge` returns ``None``): nothing is guessed for it.

Trips is exact: its probabilities are the seven-card category counts that the project's
own evaluator derives by enumerating all 133,784,560 seven-card hands (cached by
``events.game.evaluation``). The base game under the practical basic strategy
(``events.game.strategy``) is estimated by vectorized Monte Carlo: each deal of player and board
is played against several dealer holdings, and the estimate is regression-adjusted with
control variates whose means are known exactly (the player's and dealer's hand category
probabilities, the 500/1,326 preflop raise rate, and player/dealer symmetry: the player
wins exactly as often as the dealer does). The 95% confidence interval is reported with it.

>>> from events.game.rulesets import load_ruleset
>>> t = trips_theory(load_ruleset("charlevoix-2011"))
>>> round(t.house_edge, 7), round(t.hit_rates[9] * 133_784_560)
(0.0618082, 4324)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from events.game.evaluation import CATEGORY_NAMES, category, evaluate7, seven_card_category_counts
from events.game.rulesets import Ruleset
from events.game.settlement import settle_batch
from events.game.strategy import basic_strategy_multiples, preflop_raise_batch

PUBLISHED_OPTIMAL_EDGE = 0.02185  # per ante, optimal strategy
# the blind table of every ruleset shipped (straight 1:1 ... royal flush 500:1)
STANDARD_BLIND = ((4, Fraction(1)), (5, Fraction(3, 2)), (6, Fraction(3)), (7, Fraction(10)),
                  (8, Fraction(50)), (9, Fraction(500)))
BaseGameKey = tuple[tuple[tuple[int, Fraction], ...], tuple[int, ...], tuple[int, ...],
                    tuple[int, ...]]
# exact house edge per ante of ante + blind + play under computer-perfect play (Wizard of
# Odds, "Ultimate Texas Hold 'Em": 2.1850%), by (blind table, preflop, flop and river
# multiples)
EXACT_BASE_EDGES: dict[BaseGameKey, Fraction] = {
    (STANDARD_BLIND, (4, 3), (2,), (1,)): Fraction(21850, 1_000_000),
}
PUBLISHED_PRACTICAL_EDGE = 0.0243  # per ante, about, for the practical strategy
Z95 = 1.959963984540054
DEALERS_PER_DEAL = 4
CHUNK = 50_000


@dataclass(frozen=True)
class TripsTheory:
    """Exact trips figures per unit staked."""

    ruleset: str
    counts: tuple[int, ...]  # seven-card hands per category 0..9
    hit_rates: dict[int, float] = field(hash=False)  # probability of each paying category
    expected_value: Fraction = Fraction(0)  # player's EV per unit
    variance: Fraction = Fraction(0)

    @property
    def house_edge(self) -> float:
        return float(-self.expected_value)

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)

    @property
    def total(self) -> int:
        return sum(self.counts)


def trips_theory(ruleset: Ruleset) -> TripsTheory:
    """Exact trips EV, house edge, standard deviation and hit rates of ``ruleset``."""
    counts = tuple(int(c) for c in seven_card_category_counts())
    total = sum(counts)
    ev = Fraction(0)
    second = Fraction(0)
    hits: dict[int, float] = {}
    for cat, n in enumerate(counts):
        pay = ruleset.trips_odds(cat) if cat >= 3 else 0
        p = Fraction(n, total)
        x = pay if pay > 0 else -1
        ev += p * x
        second += p * x * x
        if pay > 0:
            hits[cat] = float(p)
    return TripsTheory(ruleset.name, counts, hits, ev, second - ev * ev)


def base_game_key(ruleset: Ruleset) -> BaseGameKey:
    """What fixes the base game's edge in ``ruleset``: its blind table and play multiples."""
    return (tuple(sorted(ruleset.blind_table.items())), tuple(ruleset.preflop_multiples),
            tuple(ruleset.flop_multiples), tuple(ruleset.river_multiples))


def exact_base_edge(ruleset: Ruleset) -> Fraction | None:
    """The exact house edge per ante of ante + blind + play under computer-perfect play,
    when a published exact figure exists for the ruleset's blind table and multiples;
    ``None`` otherwise (never an estimate).

    >>> from events.game.rulesets import load_ruleset
    >>> exact_base_edge(load_ruleset("live-online"))
    Fraction(437, 20000)
    """
    return EXACT_BASE_EDGES.get(base_game_key(ruleset))


@dataclass(frozen=True)
class BaseGameEstimate:
    """Monte Carlo estimate of the base game (ante + blind + play) per deal."""

    deals: int
    dealers_per_deal: int
    seed: int | None
    house_edge_per_ante: float
    ci95_per_ante: float  # half-width
    house_edge_per_total_wager: float
    ci95_per_total_wager: float
    average_total_wager: float  # in antes: ante + blind + play
    raw_house_edge_per_ante: float  # the plain average, without control variates
    decision_rates: dict[str, float] = field(hash=False)


def _deal(rng: np.random.Generator, n: int, k: int) -> npt.NDArray[np.int64]:
    """``n`` rows of 7 + 2k distinct random cards in random order."""
    width = 7 + 2 * k
    r = rng.random((n, 52))
    idx = np.argpartition(r, width, axis=1)[:, :width]
    order = np.argsort(np.take_along_axis(r, idx, axis=1), axis=1)
    return np.take_along_axis(idx, order, axis=1).astype(np.int64)


def _one_hot_means(cat: npt.NDArray[np.int64], k: int) -> npt.NDArray[np.float64]:
    """(n, 9) share of each of categories 1..9 over the k columns of ``cat`` (n, k)."""
    return np.stack([(cat == c).mean(axis=1) for c in range(1, 10)], axis=1)


def base_game_monte_carlo(
    ruleset: Ruleset,
    deals: int = 1_000_000,
    seed: int | None = 1,
    dealers_per_deal: int = DEALERS_PER_DEAL,
    progress: Callable[[int, int], None] | None = None,
) -> BaseGameEstimate:
    """House edge of ante + blind + play under the practical strategy, with a 95% CI.
    ``progress(done, deals)`` is called after each chunk of deals."""
    if deals < 100:
        raise ValueError("at least 100 deals are needed for an estimate")
    rng = np.random.default_rng(seed)
    k = dealers_per_deal
    counts = np.array(seven_card_category_counts(), dtype=np.float64)
    p_cat = counts[1:] / counts.sum()
    blind_pay = np.zeros(10)
    for cat, odds in ruleset.blind_table.items():
        blind_pay[cat] = float(odds) if cat >= 4 else 0.0
    ante = 1
    for odds in ruleset.blind_table.values():
        ante = ante * odds.denominator // math.gcd(ante, odds.denominator)
    ncols = 1 + 1 + 9 + 9 + 3
    gram = np.zeros((ncols, ncols))
    zx = np.zeros(ncols)
    zy = np.zeros(ncols)
    sxx = sxy = syy = sum_x = 0.0
    mult_counts = np.zeros(5, dtype=np.int64)
    done = 0
    while done < deals:
        n = min(CHUNK, deals - done)
        cards = _deal(rng, n, k)
        hole, board = cards[:, :2], cards[:, 2:7]
        mult = basic_strategy_multiples(hole, board).astype(np.int64)
        mult_counts += np.bincount(mult, minlength=5)
        ps = evaluate7(np.concatenate([hole, board], axis=1)).astype(np.int64)
        pc = category(ps).astype(np.int64)
        dealer = cards[:, 7:].reshape(n, k, 2)
        seven = np.concatenate([dealer, np.repeat(board[:, None, :], k, axis=1)], axis=2)
        ds = evaluate7(seven.reshape(n * k, 7)).astype(np.int64)
        dc = category(ds).astype(np.int64)
        out = settle_batch(ruleset, ante, np.repeat(mult * ante, k), 0, np.repeat(mult == 0, k),
                           np.repeat(ps, k), np.repeat(pc, k), ds, dc)
        net = (out["ante"][1] + out["blind"][1] + out["play"][1]).reshape(n, k) / ante
        x = net.mean(axis=1)
        y = (2 + mult).astype(np.float64)
        # control variates, each centred on its exact mean
        pw, dw = np.repeat(ps, k).reshape(n, k), ds.reshape(n, k)
        pcat, dcat = np.repeat(pc, k).reshape(n, k), dc.reshape(n, k)
        win, lose = pw > dw, dw > pw
        sym = np.stack([
            (win.astype(np.float64) - lose).mean(axis=1),
            ((win & (dcat >= 1)).astype(np.float64) - (lose & (pcat >= 1))).mean(axis=1),
            (win * blind_pay[pcat] - lose * blind_pay[dcat]).mean(axis=1),
        ], axis=1)
        z = np.concatenate([
            np.ones((n, 1)),
            (preflop_raise_batch(hole) - 500 / 1326)[:, None],
            (pc[:, None] == np.arange(1, 10)) - p_cat,
            _one_hot_means(dcat, k) - p_cat,
            sym,
        ], axis=1)
        gram += z.T @ z
        zx += z.T @ x
        zy += z.T @ y
        sxx += float(x @ x)
        sxy += float(x @ y)
        syy += float(y @ y)
        sum_x += float(x.sum())
        done += n
        if progress is not None:
            progress(done, deals)
    inv = np.linalg.pinv(gram)
    tx, ty = inv @ zx, inv @ zy
    dof = max(deals - ncols, 1)
    g00 = float(inv[0, 0])
    var_x = max(sxx - float(tx @ zx), 0.0) / dof * g00
    var_y = max(syy - float(ty @ zy), 0.0) / dof * g00
    cov = (sxy - float(tx @ zy)) / dof * g00
    mean_x, mean_y = float(tx[0]), float(ty[0])
    ratio = mean_x / mean_y
    var_ratio = max(var_x - 2 * ratio * cov + ratio * ratio * var_y, 0.0) / (mean_y * mean_y)
    rates = mult_counts / deals
    return BaseGameEstimate(
        deals=deals,
        dealers_per_deal=k,
        seed=seed,
        house_edge_per_ante=-mean_x,
        ci95_per_ante=Z95 * math.sqrt(var_x),
        house_edge_per_total_wager=-ratio,
        ci95_per_total_wager=Z95 * math.sqrt(var_ratio),
        average_total_wager=mean_y,
        raw_house_edge_per_ante=-sum_x / deals,
        decision_rates={"raise_4x_preflop": float(rates[4]), "raise_2x_flop": float(rates[2]),
                        "raise_1x_river": float(rates[1]), "fold_river": float(rates[0])},
    )


CATEGORY_KEYS = ("high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush",
                 "full_house", "four_of_a_kind", "straight_flush", "royal_flush")


def theory_report(ruleset: Ruleset, deals: int = 1_000_000, seed: int | None = 1,
                  progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Everything ``uth theory --json`` prints, as plain JSON values (fractions as floats);
    ``progress`` as for :func:`base_game_monte_carlo`."""
    trips = trips_theory(ruleset)
    exact = exact_base_edge(ruleset)
    report: dict[str, Any] = {
        "ruleset": ruleset.name,
        "title": ruleset.title,
        "trips_house_edge": trips.house_edge,
        "trips_return": 1 - trips.house_edge,
        "trips_sd_per_unit": trips.sd,
        "trips_hit_rate": sum(trips.hit_rates.values()),
        "trips_hands_enumerated": trips.total,
        "trips_table": {CATEGORY_KEYS[c]: {
            "pays_to_1": ruleset.trips_table[c],
            "hands": trips.counts[c],
            "probability": trips.hit_rates[c],
            "return": trips.hit_rates[c] * ruleset.trips_table[c],
        } for c in sorted(ruleset.trips_table, reverse=True)},
        "category_counts": dict(zip(CATEGORY_KEYS, trips.counts, strict=True)),
        "published": {"base_house_edge_per_ante_optimal": PUBLISHED_OPTIMAL_EDGE,
                      "base_house_edge_per_ante_practical": PUBLISHED_PRACTICAL_EDGE,
                      # for this ruleset's blind table and multiples: None when the
                      # figures above (the shipped table's) do not apply
                      "base_house_edge_per_ante_exact": None if exact is None
                      else float(exact)},
    }
    if deals > 0:
        est = base_game_monte_carlo(ruleset, deals, seed, progress=progress)
        report["base_game"] = {
            "strategy": "practical basic strategy (Wizard of Odds)",
            "deals": est.deals,
            "dealer_hands_per_deal": est.dealers_per_deal,
            "seed": est.seed,
            "house_edge_per_ante": est.house_edge_per_ante,
            "ci95_per_ante": [est.house_edge_per_ante - est.ci95_per_ante,
                              est.house_edge_per_ante + est.ci95_per_ante],
            "house_edge_per_total_wager": est.house_edge_per_total_wager,
            "ci95_per_total_wager": [est.house_edge_per_total_wager - est.ci95_per_total_wager,
                                     est.house_edge_per_total_wager + est.ci95_per_total_wager],
            "average_total_wager_in_antes": est.average_total_wager,
            "decision_rates": est.decision_rates,
        }
    return report


def category_name(cat: int) -> str:
    return CATEGORY_NAMES[cat]
