"""Settlement of one seat's wagers, exactly as the event contract's settlement section.

The player's and the dealer's hands are given as strengths (higher is better, equal is a
tie) and categories (0 high card .. 9 royal flush) from ``events.game.evaluation``. The dealer
qualifies with a pair or better. Amounts are the player's net on each spot, as
``PayoutRecorded.amount``: winnings when ``win``, 0 when ``push``, minus the stake when
``lose``. Fractional pays are rounded down (3:2 on 25 cents pays 37).

>>> from events.game.rulesets import load_ruleset
>>> rs = load_ruleset("charlevoix-2011")
>>> for r in settle(rs, Wagers(ante=25, blind=25, trips=10, play=100), False,
...                 player_strength=900, player_category=5,   # a flush
...                 dealer_strength=500, dealer_category=1):  # a pair: qualifies
...     print(r.spot, r.outcome, r.amount)
ante win 25
blind win 37
play win 100
trips win 60
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from events.game.rulesets import Ruleset

QUALIFYING_CATEGORY = 1  # a pair
BLIND_MIN_CATEGORY = 4  # a straight
TRIPS_MIN_CATEGORY = 3  # three of a kind

# outcome codes of settle_batch
WIN: int = 1
PUSH: int = 0
LOSE: int = -1
NO_WAGER: int = 2  # the spot had no wager on that row (play after a fold, no trips bet)
OUTCOME_NAMES: dict[int, str] = {WIN: "win", PUSH: "push", LOSE: "lose"}
# the wagers a seat can hold, the one list (the contract's PayoutSpot names the same)
SPOTS = ("ante", "blind", "play", "trips")
#: Each payout spot's place in ``SPOTS`` and each outcome's code (packed plans, the judge).
SPOT_CODES: dict[str, int] = {spot: k for k, spot in enumerate(SPOTS)}
OUTCOME_CODES: dict[str, int] = {name: code for code, name in OUTCOME_NAMES.items()}

Outcome = Literal["win", "lose", "push"]
IntArray = npt.NDArray[np.integer]
BoolArray = npt.NDArray[np.bool_]
ArrayLike = npt.ArrayLike


class SettlementError(ValueError):
    """Wagers that cannot be settled (a play wager after a fold, a negative stake)."""


@dataclass(frozen=True)
class Wagers:
    """One seat's stakes in cents; ``play`` is 0 when the seat never raised."""

    ante: int
    blind: int
    trips: int = 0
    play: int = 0


@dataclass(frozen=True)
class SpotResult:
    """The correct settlement of one wager: ``amount`` as ``PayoutRecorded.amount``."""

    spot: str
    outcome: Outcome
    amount: int


def _win(spot: str, amount: int) -> SpotResult:
    return SpotResult(spot, "win", amount)


def _lose(spot: str, stake: int) -> SpotResult:
    return SpotResult(spot, "lose", -stake)


def _push(spot: str) -> SpotResult:
    return SpotResult(spot, "push", 0)


def trips_result(ruleset: Ruleset, stake: int, player_category: int) -> SpotResult:
    """Trips wins by the trips table at three of a kind or better, whatever else happened."""
    odds = ruleset.trips_odds(player_category) if player_category >= TRIPS_MIN_CATEGORY else 0
    return _win("trips", stake * odds) if odds > 0 else _lose("trips", stake)


def blind_win_amount(ruleset: Ruleset, stake: int, player_category: int) -> int | None:
    """What a winning blind pays (rounded down), or ``None`` when it pushes (below a
    straight).

    >>> from events.game.rulesets import load_ruleset
    >>> rs = load_ruleset("charlevoix-2011")
    >>> blind_win_amount(rs, 25, 5), blind_win_amount(rs, 25, 9), blind_win_amount(rs, 25, 3)
    (37, 12500, None)
    """
    if player_category < BLIND_MIN_CATEGORY:
        return None
    odds = ruleset.blind_odds(player_category)
    if odds is None:
        return None
    return stake * odds.numerator // odds.denominator


def settle(
    ruleset: Ruleset,
    wagers: Wagers,
    folded: bool,
    player_strength: int,
    player_category: int,
    dealer_strength: int,
    dealer_category: int,
) -> tuple[SpotResult, ...]:
    """The correct results, one per wager placed: ante, blind, play (if > 0), trips (if > 0).

    A folded seat loses ante and blind and has no play wager; its trips still settles.
    """
    if min(wagers.ante, wagers.blind, wagers.trips, wagers.play) < 0:
        raise SettlementError(f"a stake is negative: {wagers}")
    if folded and wagers.play:
        raise SettlementError("a seat that folded has no play wager")
    out: list[SpotResult] = []
    if folded:
        out += [_lose("ante", wagers.ante), _lose("blind", wagers.blind)]
    else:
        qualifies = dealer_category >= QUALIFYING_CATEGORY
        if player_strength > dealer_strength:
            blind = blind_win_amount(ruleset, wagers.blind, player_category)
            out += [
                _win("ante", wagers.ante) if qualifies else _push("ante"),
                _win("blind", blind) if blind is not None else _push("blind"),
            ]
            if wagers.play:
                out.append(_win("play", wagers.play))
        elif player_strength < dealer_strength:
            out += [
                _lose("ante", wagers.ante) if qualifies else _push("ante"),
                _lose("blind", wagers.blind),
            ]
            if wagers.play:
                out.append(_lose("play", wagers.play))
        else:
            out += [_push("ante"), _push("blind")]
            if wagers.play:
                out.append(_push("play"))
    if wagers.trips:
        out.append(trips_result(ruleset, wagers.trips, player_category))
    return tuple(out)


def net(results: tuple[SpotResult, ...]) -> int:
    """The player's net over all spots of a seat."""
    return sum(r.amount for r in results)


def _lookup(table: dict[int, int], default: int = 0) -> npt.NDArray[np.int64]:
    arr = np.full(10, default, dtype=np.int64)
    for cat, value in table.items():
        arr[cat] = value
    return arr


def pay_tables(ruleset: Ruleset) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                                          npt.NDArray[np.int64]]:
    """The ruleset's pays by player category 0..9, as :func:`settle_batch` applies them:
    blind numerators (0 below a straight: the blind pushes), blind denominators (1 where
    none) and trips odds to one (0 below three of a kind: trips lose)."""
    num = _lookup({c: int(f.numerator) for c, f in ruleset.blind_table.items()
                   if c >= BLIND_MIN_CATEGORY})
    den = _lookup({c: int(f.denominator) for c, f in ruleset.blind_table.items()}, 1)
    todds = _lookup({c: o for c, o in ruleset.trips_table.items() if c >= TRIPS_MIN_CATEGORY})
    return num, den, todds


def settle_batch(
    ruleset: Ruleset,
    ante: ArrayLike,
    play: ArrayLike,
    trips: ArrayLike,
    folded: ArrayLike,
    p_strength: ArrayLike,
    p_category: ArrayLike,
    d_strength: ArrayLike,
    d_category: ArrayLike,
) -> dict[str, tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]]:
    """Vectorized :func:`settle` over NumPy arrays (scalars broadcast); blind = ante.

    Returns ``{spot: (outcome codes, amounts)}`` for ante, blind, play and trips; codes
    are ``WIN`` 1, ``PUSH`` 0, ``LOSE`` -1 and ``NO_WAGER`` 2 (amount 0) where a row has
    no wager on that spot.

    >>> from events.game.rulesets import load_ruleset
    >>> rs = load_ruleset("charlevoix-2011")
    >>> out = settle_batch(rs, [25, 10], [100, 0], [0, 5], [False, True],
    ...                    [900, 10], [5, 0], [500, 20], [1, 1])
    >>> {k: (c.tolist(), a.tolist()) for k, (c, a) in out.items()}
    {'ante': ([1, -1], [25, -10]), 'blind': ([1, -1], [37, -10]), \
'play': ([1, 2], [100, 0]), 'trips': ([2, -1], [0, -5])}
    """
    a, pl, tr, fo, ps, pc, ds, dc = np.broadcast_arrays(
        np.asarray(ante, dtype=np.int64), np.asarray(play, dtype=np.int64),
        np.asarray(trips, dtype=np.int64), np.asarray(folded, dtype=np.bool_),
        np.asarray(p_strength, dtype=np.int64), np.asarray(p_category, dtype=np.int64),
        np.asarray(d_strength, dtype=np.int64), np.asarray(d_category, dtype=np.int64),
    )
    if (a < 0).any() or (pl < 0).any() or (tr < 0).any():
        raise SettlementError("a stake is negative")
    if (fo & (pl > 0)).any():
        raise SettlementError("a seat that folded has no play wager")
    if ((pc < 0) | (pc > 9)).any():
        raise SettlementError("a player category is outside 0..9")
    live = ~fo
    win = live & (ps > ds)
    lose = live & (ps < ds)
    qualifies = dc >= QUALIFYING_CATEGORY

    def codes(w: BoolArray, lo: BoolArray) -> npt.NDArray[np.int8]:
        return np.where(w, WIN, np.where(lo, LOSE, PUSH)).astype(np.int8)

    # ante: folded loses; live: win/lose only when the dealer qualifies
    ante_win, ante_lose = win & qualifies, fo | (lose & qualifies)
    ante_amt = np.where(ante_win, a, np.where(ante_lose, -a, 0))

    num, den, todds = pay_tables(ruleset)
    # blind (= ante): folded or beaten loses; a win below a straight pushes
    paying = num[pc] > 0
    blind_win, blind_lose = win & paying, fo | lose
    blind_amt = np.where(blind_win, a * num[pc] // den[pc], np.where(blind_lose, -a, 0))

    # play: only rows that raised
    has_play = pl > 0
    play_code = np.where(has_play, codes(win, lose), NO_WAGER).astype(np.int8)
    play_amt = np.where(has_play & win, pl, np.where(has_play & lose, -pl, 0))

    # trips: whatever the dealer holds, even after a fold
    has_trips = tr > 0
    trips_win = todds[pc] > 0
    trips_code = np.where(has_trips, np.where(trips_win, WIN, LOSE), NO_WAGER).astype(np.int8)
    trips_amt = np.where(has_trips, np.where(trips_win, tr * todds[pc], -tr), 0)

    return {
        "ante": (codes(ante_win, ante_lose), ante_amt.astype(np.int64)),
        "blind": (codes(blind_win, blind_lose), blind_amt.astype(np.int64)),
        "play": (play_code, play_amt.astype(np.int64)),
        "trips": (trips_code, trips_amt.astype(np.int64)),
    }
