"""The players step's core: the stored events of whole hands folded by the reference
(:class:`events.protection.hands.SeatHandCollector`), their seat-hands scored a slice at a
time into sums of their own (:class:`events.protection.report.Scorer`), and the keys they
touched. The warehouse's load (:mod:`pipeline.players.transforms`) and the re-audit's
groups (:mod:`pipeline.reaudit.players`) read their events each their own way and share
this, so that both score the same hands alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from events.protection.assess import Sessions
    from events.protection.hands import Adjustments, SeatHands


class Touched:
    """The keys of the sums a load changed (only their rows are written back)."""

    def __init__(self) -> None:
        self.players: set[str] = set()
        self.dealers: set[str] = set()
        self.tables: set[str] = set()
        self.slips: set[tuple[str, str]] = set()
        self.seats: set[tuple[str, int]] = set()
        self.seat_rows: list[list[Any]] = []
        self.regulars: set[str] = set()  # dealers whose regulars changed
        self.assessed_dealers: set[str] = set()  # dealers whose alert may have changed

    def add(self, sh: SeatHands, players: list[str], days: list[str]) -> None:
        self.players.update(players)
        self.dealers.update(sh.dealer_id)
        self.tables.update(sh.table_id)
        self.slips.update(zip(players, days, strict=True))
        seats = sh.seat.tolist()
        self.seats.update(zip(sh.table_id, seats, strict=True))
        self.seat_rows += [list(r) for r in zip(sh.table_id, sh.hand_id, seats, players,
                                                days, strict=True)]


class HandScorer:
    """Feed batches of events in log order (:meth:`feed`), then :meth:`finish`: ``new``
    holds the sums of the hands that ended, ``touched`` their keys. The resolved disputes'
    adjustments are given (read first): the events fed hold no ``DisputeResolved``.
    ``ordinals``, ``resumed`` and ``sessions``: the tables' hand counts, the places of
    hands begun before and the seats' sessions, carried on from an earlier load."""

    def __init__(self, day_start_minutes: int, adjustments: Adjustments,
                 ordinals: dict[str, int] | None = None,
                 resumed: dict[tuple[str, str], int] | None = None,
                 sessions: Sessions | None = None) -> None:
        from events.localtime import zone_name
        from events.protection.hands import SeatHandCollector
        from events.protection.report import SEED, SLICE, Scorer
        from events.protection.tally import Tally

        self.folder = SeatHandCollector(adjustments, ordinals, resumed)
        self.new = Tally()  # the sums of these hands alone
        self.scorer = Scorer(SEED, (day_start_minutes, zone_name()), self.new, sessions)
        self.touched = Touched()
        self.seat_hands = 0
        self._slice = SLICE

    def feed(self, events: list[Any]) -> None:
        self.folder.fold(events)
        if self.folder.pending >= self._slice:
            self._add(self.folder.take())

    def finish(self) -> None:
        self._add(self.folder.take())

    def _add(self, sh: SeatHands) -> None:
        players, days = self.scorer.add(sh)
        if days is not None:
            self.touched.add(sh, players, days)
        self.seat_hands += len(sh)
