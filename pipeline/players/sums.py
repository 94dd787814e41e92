"""The protection sums a load reads and writes: the rows of the keys its hands touch, found
by look-ups, never every stored row (``protection_sums``, rows of
:mod:`events.protection.state`).

A load reads the sums of the players its new hands seated (with every gaming day's slip of
theirs: a player's sequential test runs over all their days), of those hands' dealers and
tables, the totals, and the seats' sessions and hand ordinals of the tables at work. It
adds its hands' sums to them (:meth:`events.protection.tally.Tally.merge`) and writes back
those keys only.

A dealer's alert compares each of their regulars (the players with at least
``DEALER_MIN_HANDS`` seat-hands with the dealer; fewer count in no test of theirs) on the
dealer's hands against the same player's other hands. So the dealers a load assesses again
are its hands' dealers and every dealer one of its players is a regular of (that player's
other hands changed), each with the sums of all its regulars. Who a dealer's regulars are
is kept as a ``regulars`` row per dealer (key: the dealer; value: the players, sorted),
written when a player becomes one (a pair's count only grows).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa

if TYPE_CHECKING:
    from events.protection.assess import Sessions
    from events.protection.tally import Tally

Row = tuple[str, str, str]
REGULARS = "regulars"


def _prefix(first: str) -> str:
    """The start of a JSON key ``[first, ...]`` (``state._key``) as Python writes it."""
    return json.dumps([first])[:-1] + ", "


def _read(con: duckdb.DuckDBPyConnection, keys: Iterable[tuple[str, str]],
          prefixes: Iterable[tuple[str, str]] = ()) -> list[Row]:
    """The stored rows of these (kind, key), and of each (kind, key prefix)."""
    keys, prefixes = list(keys), list(prefixes)
    out: list[Row] = []
    for name, wanted, sql in (
            ("sums_keys", keys, "s.kind = w.kind AND s.key = w.key"),
            ("sums_prefixes", prefixes, "s.kind = w.kind AND starts_with(s.key, w.key)")):
        if not wanted:
            continue
        con.register(name, pa.table({"kind": pa.array([k for k, _ in wanted], pa.string()),
                                     "key": pa.array([v for _, v in wanted], pa.string())}))
        try:
            # the rows found by their keys first, then their values fetched: joined with
            # the values, the join read every stored value (tens of MB) to keep a few
            out += [(str(k), str(key), str(v)) for k, key, v in con.execute(
                "SELECT kind, key, value FROM protection_sums WHERE rowid IN (SELECT "
                f"s.rowid FROM protection_sums s SEMI JOIN {name} w ON {sql})").fetchall()]
        finally:
            con.unregister(name)
    return out


def seat_state(con: duckdb.DuckDBPyConnection, tables: Iterable[str]
               ) -> tuple[Sessions, dict[str, int]]:
    """The seats' sessions and the hand ordinals of these tables."""
    from events.protection.state import load

    tables = sorted(tables)
    rows = _read(con, [("ordinal", t) for t in tables],
                 [("session", _prefix(t)) for t in tables])
    _, sessions = load(r for r in rows if r[0] == "session")
    return sessions, {key: int(v) for kind, key, v in rows if kind == "ordinal"}


@dataclass
class Kept:
    """The stored sums read so far (one tally), and the regulars of the dealers read."""

    tally: Tally
    regulars: dict[str, set[str]] = field(default_factory=dict)
    players: set[str] = field(default_factory=set)  # whose rows were read
    dealers: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, con: duckdb.DuckDBPyConnection, players: set[str], dealers: set[str],
             tables: set[str]) -> Kept:
        """The sums of these players (their slips of every day), dealers (their
        regulars) and tables, and the totals."""
        from events.protection.tally import Tally

        kept = cls(Tally())
        kept._add(con, players, dealers, tables, first=True)
        return kept

    def more(self, con: duckdb.DuckDBPyConnection, players: Iterable[str] = (),
             dealers: Iterable[str] = ()) -> None:
        """Read these players' (without their slips) and dealers' sums too, those not read
        yet."""
        self._add(con, set(players) - self.players, set(dealers) - self.dealers, set(),
                  first=False)

    def _add(self, con: duckdb.DuckDBPyConnection, players: set[str], dealers: set[str],
             tables: set[str], first: bool) -> None:
        from events.protection.state import load

        keys = [("player", p) for p in sorted(players)]
        keys += [(kind, d) for d in sorted(dealers) for kind in ("dealer", REGULARS)]
        keys += [("table", t) for t in sorted(tables)]
        if first:
            keys.append(("totals", ""))
        rows = _read(con, keys, [("slip", _prefix(p)) for p in sorted(players)] if first
                     else [])
        part, _ = load(r for r in rows if r[0] != REGULARS)
        t = self.tally
        t.players.update(part.players)
        t.dealers.update(part.dealers)
        t.tables.update(part.tables)
        t.slips.update(part.slips)
        if first:
            t.rulesets, t.seat_hands, t.hands = part.rulesets, part.seat_hands, part.hands
        for kind, key, value in rows:
            if kind == REGULARS:
                self.regulars[key] = set(json.loads(value))
        self.players |= players
        self.dealers |= dealers


def regulars_row(dealer: str, players: set[str]) -> Row:
    return (REGULARS, dealer, json.dumps(sorted(players)))


def save(con: duckdb.DuckDBPyConnection, rows: list[Row]) -> None:
    """Write these rows in place of the stored rows of their keys."""
    if not rows:
        return
    con.register("sums_rows", pa.table({
        "kind": pa.array([r[0] for r in rows], pa.string()),
        "key": pa.array([r[1] for r in rows], pa.string()),
        "value": pa.array([r[2] for r in rows], pa.string())}))
    try:
        con.execute("""DELETE FROM protection_sums s USING sums_rows r
            WHERE s.kind = r.kind AND s.key = r.key""")
        con.execute("INSERT INTO protection_sums SELECT kind, key, value FROM sums_rows")
    finally:
        con.unregister("sums_rows")


def add_regulars(con: duckdb.DuckDBPyConnection) -> int:
    """Write every dealer's ``regulars`` row from the stored players' sums (once, for a
    warehouse whose sums were kept before the regulars were); how many."""
    from events.protection.assess import DEALER_MIN_HANDS
    from events.protection.state import load

    tally, _ = load((str(k), str(key), str(v)) for k, key, v in con.execute(
        "SELECT kind, key, value FROM protection_sums WHERE kind = 'player'").fetchall())
    regulars: dict[str, set[str]] = {}
    for player, sums in tally.players.items():
        for dealer, pair in sums.dealers.items():
            if pair.n >= DEALER_MIN_HANDS:
                regulars.setdefault(dealer, set()).add(player)
    save(con, [regulars_row(d, players) for d, players in sorted(regulars.items())])
    return len(regulars)
