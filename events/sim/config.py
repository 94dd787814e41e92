"""What a simulated floor is: its configuration and its tables (rulesets in turn when
mixed, limits, dealing procedures, dealers, opening times)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from events.game.rulesets import Ruleset, known_rulesets, load_ruleset
from events.sim.players import DEFAULT_PROFILE_WEIGHTS, PROFILES, split_profile
from events.sim.table import TableSpec

DEFAULT_START = "2026-11-29T18:00:00Z"
ONLINE_SEATS = 22  # one deck deals 5 community + 2 dealer + 2 x 22 players


def parse_start(text: str) -> int:
    """Epoch milliseconds of an ISO 8601 time (UTC when no offset is given)."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"start {text!r} is not an ISO 8601 time like {DEFAULT_START}"
                         ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return round(moment.timestamp() * 1000)


@dataclass(frozen=True)
class SimConfig:
    """What to simulate. ``hands`` is per table; rates are probabilities (0..1)."""

    tables: int = 1
    hands: int = 100
    seed: int = 0
    ruleset: str = "mixed"  # a ruleset name or path, or "mixed" (all known, in turn)
    mispay_rate: float = 0.0
    void_rate: float = 0.0
    dispute_rate: float = 0.0
    pace: float | None = None  # hands per hour per table; None: each table's own pace
    start: str = DEFAULT_START
    profile_weights: tuple[float, ...] = DEFAULT_PROFILE_WEIGHTS
    batch_hands: int | None = None  # hands per table per batch (default by table count)
    # players seated for the whole run, by profile: player i at table i % tables, seat
    # i // tables + 1 (the other seats stay empty); None: players come and go
    roster: tuple[str, ...] | None = None
    dealers: int = 3  # per table, taking shifts in turn (a flashing dealer deals 1/dealers)

    def __post_init__(self) -> None:
        if self.tables < 1 or self.hands < 0:
            raise ValueError("tables must be at least 1 and hands not negative")
        if self.dealers < 1:
            raise ValueError("dealers must be at least 1 a table")
        for name in ("mispay_rate", "void_rate", "dispute_rate"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name.replace('_', '-')} must be between 0 and 1")
        if self.pace is not None and self.pace <= 0:
            raise ValueError("pace must be a positive number of hands per hour")
        parse_start(self.start)
        if self.roster is not None:
            if any(split_profile(p)[1] >= self.dealers for p in self.roster):
                raise ValueError(f"a roster entry's @N names a dealer past the table's "
                                 f"{self.dealers}")
            unknown = sorted({split_profile(p)[0] for p in self.roster} - set(PROFILES))
            if unknown:
                raise ValueError(f"unknown player profile {unknown[0]!r}: one of "
                                 + ", ".join(PROFILES))

    @property
    def batch(self) -> int:
        # about 4,096 hands in flight across the floor: big batches, bounded memory
        return self.batch_hands or int(np.clip(4096 // self.tables, 16, 1024))


def table_specs(config: SimConfig, rng: np.random.Generator) -> list[TableSpec]:
    """The floor's tables: rulesets in turn when mixed, limits, procedures, dealers."""
    if config.ruleset == "mixed":
        rulesets: list[Ruleset] = [load_ruleset(n) for n in known_rulesets()]
    else:
        rulesets = [load_ruleset(config.ruleset)]
    start = parse_start(config.start)
    width = max(2, len(str(config.tables)))
    # tables open over ten minutes, or within one hand's time at a given pace
    stagger = 600 if config.pace is None else max(1, min(600, int(3600 / config.pace)))
    specs = []
    for i in range(config.tables):
        rs = rulesets[i % len(rulesets)]
        online = rs.max_seats is None
        steps = [m for m in (1, 1, 1, 2, 5) if rs.min_bet * m * 10 <= rs.max_bet] or [1]
        specs.append(TableSpec(
            index=i,
            table_id=f"T{i + 1:0{width}d}",
            ruleset=rs,
            min_bet=rs.min_bet * int(steps[int(rng.integers(len(steps)))]),
            max_bet=rs.max_bet,
            max_trips=rs.max_trips,
            seats=rs.max_seats or ONLINE_SEATS,
            online=online,
            dealing_order=str(rng.choice(list(rs.dealing_orders))),
            decks=str(rng.choice(list(rs.decks))),
            busyness=float(rng.uniform(0.35, 0.6) if online else rng.uniform(0.4, 0.85)),
            dealers=tuple(f"D{config.dealers * i + k + 1:04d}" for k in range(config.dealers)),
            dealer_care=tuple(float(x) for x in rng.gamma(2.0, 0.5, config.dealers)),
            opens_at=start + 1000 * int(rng.integers(0, stagger)),
            roster=None if config.roster is None else config.roster[i::config.tables],
        ))
        if specs[-1].roster is not None and len(specs[-1].roster or ()) > specs[-1].seats:
            raise ValueError(f"the roster seats more players at {specs[-1].table_id} than "
                             f"its {specs[-1].seats} seats")
    return specs
