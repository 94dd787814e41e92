"""One pass of game protection over decoded events: seat-hands, gains, players assessed,
the dealer view, dealers assessed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from events.protection.assess import (
    MIN_HANDS,
    THRESHOLD,
    Assessment,
    DealerView,
    assess,
    dealer_view,
    gains_of,
    player_keys,
)
from events.protection.dealers import DealerAlert, assess_dealers
from events.protection.hands import HandFolder, SeatHands
from events.protection.scoring import Gains

SEED = 22  # the Monte Carlo draws are seeded: the same events give the same report


@dataclass(frozen=True)
class ProtectionReport:
    seat_hands: SeatHands
    gains: Gains
    players: list[str]  # the player of each seat-hand
    assessments: list[Assessment]
    dealers: list[DealerView]
    dealer_alerts: list[DealerAlert]  # every dealer with enough hands, strongest first

    @property
    def hands(self) -> int:
        return len(set(self.seat_hands.hand_id))


def protect(batches: Iterable[Iterable[object]], min_hands: int = MIN_HANDS,
            threshold: float = THRESHOLD, seed: int = SEED) -> ProtectionReport:
    """Assess every player of the decoded events (batches of events in log order)."""
    folder = HandFolder()
    for batch in batches:
        folder.feed(batch)
    sh = folder.seat_hands()
    gains = gains_of(sh, np.random.default_rng(seed))
    keys = player_keys(sh)
    found = assess(sh, gains, keys, min_hands, threshold)
    return ProtectionReport(sh, gains, keys, found, dealer_view(found),
                            assess_dealers(sh, gains, keys, min_hands, threshold))
