"""One pass of game protection over decoded events: seat-hands folded, scored a slice at a
time and added up (``tally``); the players assessed, the dealer view, the dealers assessed
and, when asked, the rating slips, from those sums."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from events.protection.assess import (
    DEALER_MIN_HANDS,
    MIN_HANDS,
    THRESHOLD,
    Assessment,
    DealerView,
    Sessions,
    assess_players,
    dealer_view,
    gains_of,
    keyed_draws,
    player_keys,
)
from events.protection.dealers import DealerAlert, dealer_alerts
from events.protection.hands import Adjustments, SeatHandCollector, SeatHands
from events.protection.ratings import SEED as RATINGS_SEED
from events.protection.ratings import RatingSlip, decision_costs, gaming_days, slips_of
from events.protection.tally import Tally

SEED = 22  # the Monte Carlo draws are seeded: the same events give the same report
# seat-hands scored at once: the scoring's working set is about 3 KB a seat-hand, and what
# is kept of them afterwards is sums per player, dealer and day (``tally``)
SLICE = 65_536


@dataclass(frozen=True)
class ProtectionReport:
    hands: int
    seat_hands: int
    assessments: list[Assessment]
    dealers: list[DealerView]
    dealer_alerts: list[DealerAlert]  # every dealer with enough hands, strongest first
    slips: list[RatingSlip] = field(default_factory=list)  # when asked for (``ratings``)


def protect(batches: Iterable[Iterable[object]], min_hands: int = MIN_HANDS,
            threshold: float = THRESHOLD, seed: int = SEED, *,
            adjustments: Adjustments | None = None,
            ratings: tuple[int, str] | None = None,
            days: tuple[int, str] | None = None) -> ProtectionReport:
    """Assess every player of the decoded events (batches of events in log order).

    With ``adjustments`` (every resolved dispute's, read beforehand: :class:`Adjustments`)
    the seat-hands are scored and added up a slice of about ``SLICE`` at a time as their
    hands end, so that memory is bounded by the slice; without, the events' own
    ``DisputeResolved`` are read (one may come long after its hand) and the seat-hands
    are scored at the end, slice by slice. ``ratings=(day_start_minutes, zone)`` adds the
    rating slips; ``days=(day_start_minutes, zone)`` (implied by ``ratings``) the
    gaming days, for the sequential test's crossing date. Each seat-hand's draws are its
    own (seeded by its table, hand and seat), and the sums exact (``tally``): the same
    events and seed give the same report, however they are sliced or ordered."""
    folder = SeatHandCollector(adjustments)
    scorer = Scorer(seed, ratings, days=days)
    for batch in batches:
        folder.feed(batch)
        if adjustments is not None and folder.pending >= SLICE:
            scorer.add(folder.take())
    for sh in slices(folder.take(), SLICE):
        scorer.add(sh)
    return report_of(scorer.tally, min_hands, threshold, ratings is not None)


def report_of(tally: Tally, min_hands: int = MIN_HANDS, threshold: float = THRESHOLD,
              ratings: bool = False) -> ProtectionReport:
    """The report of the seat-hands added up in ``tally`` (with the slips: ``ratings``)."""
    found = assess_players(tally, min_hands, threshold)
    return ProtectionReport(tally.hands, tally.seat_hands, found, dealer_view(found),
                            dealer_alerts(tally, min(min_hands, DEALER_MIN_HANDS), threshold),
                            slips_of(tally) if ratings else [])


class Scorer:
    """Each slice scored (each seat-hand with its own draws, seeded by its table, hand and
    seat: ``draws``), its players named (the seat sessions carried on) and added to the
    tally. The warehouse keeps ``tally`` and ``sessions`` between loads."""

    def __init__(self, seed: int, ratings: tuple[int, str] | None,
                 tally: Tally | None = None, sessions: Sessions | None = None,
                 days: tuple[int, str] | None = None) -> None:
        self.tally = Tally() if tally is None else tally
        self.seed = seed
        self.ratings = ratings
        self.days = ratings if ratings is not None else days
        self.sessions: Sessions = {} if sessions is None else sessions

    def add(self, sh: SeatHands) -> tuple[list[str], list[str] | None]:
        """Score and add ``sh``; its seat-hands' players and (with ratings) gaming days."""
        if not len(sh):
            return [], None
        gains = gains_of(sh, self.seed)
        keys = player_keys(sh, self.sessions)
        if self.days is None:
            self.tally.add(sh, gains, keys)
            return keys, None
        day_start, zone = self.days
        days = gaming_days(sh.started_ms, day_start, zone)
        costs = (None if self.ratings is None
                 else decision_costs(sh, gains, keyed_draws(sh, RATINGS_SEED)))
        self.tally.add(sh, gains, keys, days, costs)
        return keys, days


def slices(sh: SeatHands, size: int) -> Iterable[SeatHands]:
    """``sh`` in slices of about ``size`` seat-hands, each of whole hands."""
    n = len(sh)
    lo = 0
    while lo < n:
        hi = min(lo + size, n)
        while hi < n and sh.hand_id[hi] == sh.hand_id[hi - 1] and (
                sh.table_id[hi] == sh.table_id[hi - 1]):
            hi += 1
        yield sh if (lo, hi) == (0, n) else sh.rows(lo, hi)
        lo = hi
