"""``player_ratings``, ``player_alerts``, ``player_alert_dealers`` and ``dealer_alerts``
from the warehouse's events by ``events.protection`` (the same analysis as ``uth protect``).

A load scores only the hands it brought: the hands its new events touched wait in
``pending.players``; those that ended are folded from their own events, scored (each
seat-hand with its own draws, seeded by its table, hand and seat) and added to the sums
the warehouse keeps in ``protection_sums`` (per player and dealer, per dealer and table,
per table, per player and gaming day, and the seats' sessions: ``events.protection.
state``). A hand still in play is kept in ``protection_hands`` with its place among its
table's hands and read again, whole, by the next load. A resolved dispute of a hand scored
before adjusts that hand's rating slip only (``protection_seat_hands`` says whose slip).
The sums are exact, so the tables are the same whatever the load boundaries were, and the
same as ``uth protect`` over the same events. The assessments are read from the sums: a
load costs the hands it adds, plus the players' and dealers' sums. Events a sequence
conflict left out are not read, as the audit does not read them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import duckdb
import pyarrow as pa

from pipeline.players.scored import HandScorer, Touched
from pipeline.players.sums import Kept, add_regulars, regulars_row, save, seat_state
from pipeline.warehouse import CONFLICT_LOSERS, META

BATCH = 20_000
PLAYER_TABLES = ("player_ratings", "player_alerts", "player_alert_dealers", "dealer_alerts")
RATING_COLUMNS = ("player", "gaming_day", "table_id", "hands", "hours", "avg_ante",
                  "avg_wager", "handle", "theo_base", "theo_trips", "theo_win",
                  "decision_cost", "dispute_adjustment", "actual_win", "win_minus_theo",
                  "protection_score", "flagged")
ALERT_COLUMNS = ("player", "table_id", "seats", "hands", "decisions", "score", "z_both",
                 "z_one", "pattern", "gain_antes", "evidence", "top_dealer",
                 "only_with_dealer", "test", "streets", "crossed_on")
# the state's version: a warehouse built by another (or whose players step was cut short
# by hand) has its player tables rebuilt from every event on its next load
BUILT_FROM = "players_built_from_events_v2"
VERSION = "sums-6"  # with the dealers' regulars (read by look-ups: ``sums``)
FORMER_VERSION = "sums-5"  # the same rows but the regulars: those are added to it
# an ``events`` row's columns as :func:`pipeline.hands.transforms.stored_events` reads
# them (times to the millisecond, as protection has always read them)
EVENT_COLUMNS_SQL = """event_id, type, schema_version, table_id, hand_id, seq,
    strftime(occurred_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS occurred_at,
    CAST(payload AS VARCHAR) AS payload"""
_WORK = "players_work"
# where the next players step starts reading ``events`` (a ``rowid``: ``events`` only
# grows): the first event of the oldest hand it left in play, or the events stored when it
# began; so a load reads the events stored since, never every stored event
FROM_ROW = "players_from_row"


def _in_work(since: int) -> str:
    """An event of a hand at work (stored from row ``since`` on)."""
    return (f"rowid >= {int(since)} AND hand_id IN (SELECT hand_id FROM {_WORK}) AND "
            f"EXISTS (SELECT 1 FROM {_WORK} w WHERE w.hand_id = events.hand_id "
            "AND w.table_id IS NOT DISTINCT FROM events.table_id)")


def _decoded(con: duckdb.DuckDBPyConnection, wheres: list[str], order: str
             ) -> Iterator[list[Any]]:
    """The stored events matching any of ``wheres`` (those a sequence conflict left out
    excepted), in batches, each built from its Arrow batch of columns (no event JSON
    rendered and decoded again). (One query per condition, put together: DuckDB scans
    every row for a disjunction, but prunes by ``rowid`` and joins a condition alone.)"""
    from pipeline.hands.transforms import stored_events

    union = " UNION ALL ".join(f"SELECT {EVENT_COLUMNS_SQL} FROM events WHERE {where}"
                               for where in wheres)
    reader = con.sql(f"""SELECT * FROM ({union})
        WHERE event_id NOT IN {CONFLICT_LOSERS}
        ORDER BY {order}""").to_arrow_reader(BATCH)
    for batch in reader:
        if batch.num_rows:
            yield stored_events(batch)


def _insert(con: duckdb.DuckDBPyConnection, table: str, rows: list[list[Any]],
            columns: tuple[str, ...] = ()) -> None:
    """Insert ``rows`` (values in the order of ``columns``, or of the table's columns) in
    one statement over an Arrow table of them: ``executemany`` ran one insert per row
    (6 s for 1,500 rating slips). Each column is typed as Arrow reads its Python values
    and cast to the table's type by the insert, as the parameters of ``executemany``
    were."""
    if not rows:
        return
    width = len(rows[0])
    values = pa.table({f"c{i}": pa.array([row[i] for row in rows]) for i in range(width)})
    names = f" ({', '.join(columns)})" if columns else ""
    con.register("player_rows", values)
    try:
        con.execute(f"INSERT INTO {table}{names} SELECT * FROM player_rows")
    finally:
        con.unregister("player_rows")



def _reset(con: duckdb.DuckDBPyConnection) -> None:
    """Forget the kept sums and queue every hand: the next step rebuilds from every event."""
    for table in ("protection_sums", "protection_hands", "protection_seat_hands",
                  "protection_disputes", "pending.players", *PLAYER_TABLES):
        con.execute(f"DELETE FROM {table}")
    con.execute("""INSERT INTO pending.players SELECT DISTINCT table_id, hand_id FROM events
        WHERE hand_id IS NOT NULL""")
    con.execute(f"DELETE FROM {META} WHERE key = ?", [FROM_ROW])  # every event read again


def _late_disputes(con: duckdb.DuckDBPyConnection, scored: set[tuple[str, str]],
                   since: int) -> tuple[Any, list[Any], list[tuple[str, str, str]]]:
    """The resolved disputes of the hands at work not applied yet: those of hands still to
    score (as their adjustments), those of hands scored before (to adjust their slips),
    and all of them as (table, hand, event id)."""
    from events.contract.schemas import DisputeResolved
    from events.protection.hands import Adjustments

    fresh, late, ids = Adjustments(), [], []
    for events in _decoded(con, [f"""type = 'DisputeResolved' AND {_in_work(since)}
            AND event_id NOT IN (SELECT event_id FROM protection_disputes)"""],
                           "table_id, seq"):
        for ev in events:
            if not isinstance(ev, DisputeResolved) or ev.hand_id is None:
                continue
            ids.append((ev.table_id, ev.hand_id, ev.event_id))
            if (ev.table_id, ev.hand_id) in scored:
                late.append(ev)
            else:
                fresh.add(ev)
    return fresh, late, ids


def _score_new_hands(con: duckdb.DuckDBPyConnection, day_start_minutes: int, since: int
                     ) -> tuple[Any, Touched, int]:
    """Fold, score and add up the hands at work that ended; keep those still in play.
    Their sums added to the stored sums of the keys they touch (:mod:`pipeline.players.
    sums`, read by look-ups), the keys it changed, and the seat-hands scored."""
    stored = int(con.execute("SELECT count(*) FROM events").fetchall()[0][0])
    scored = {(t, h) for t, h in con.execute(f"""SELECT p.table_id, p.hand_id
        FROM protection_hands p JOIN {_WORK} w ON p.hand_id = w.hand_id
            AND p.table_id IS NOT DISTINCT FROM w.table_id WHERE p.ended""").fetchall()}
    resumed = {(t, h): int(n) for t, h, n in con.execute(
        "SELECT table_id, hand_id, ordinal FROM protection_hands WHERE NOT ended").fetchall()}
    tables = {t for (t,) in con.execute(
        f"SELECT DISTINCT table_id FROM {_WORK} WHERE table_id IS NOT NULL").fetchall()}
    sessions, ordinals = seat_state(con, tables)
    fresh, late, dispute_ids = _late_disputes(con, scored, since)
    hands = HandScorer(day_start_minutes, fresh, ordinals, resumed, sessions)
    folder, touched = hands.folder, hands.touched
    # the resolved disputes are the adjustments read above, not the fold's
    wheres = [f"type <> 'DisputeResolved' AND {_in_work(since)}",
              f"type = 'TableOpened' AND table_id IN (SELECT table_id FROM {_WORK})"]
    for events in _decoded(con, wheres, "table_id, seq"):
        if scored:  # a hand scored by an earlier load is not folded again
            events = [ev for ev in events if (getattr(ev, "table_id", None),
                                              getattr(ev, "hand_id", None)) not in scored]
        hands.feed(events)
    hands.finish()
    adjustments = _late_adjustments(con, late)
    ended = [[t, h, -1, True] for t, h in folder.ended]
    still = [[t, h, n, False] for t, h, n in folder.open_hands()]
    con.execute(f"""DELETE FROM protection_hands p USING {_WORK} w
        WHERE p.hand_id = w.hand_id AND p.table_id IS NOT DISTINCT FROM w.table_id
            AND NOT p.ended""")
    _insert(con, "protection_hands", ended + still)
    _set_from_row(con, since, stored, still)
    _insert(con, "protection_seat_hands", touched.seat_rows)
    # a dispute of a hand still in play is read again with its hand
    done = scored | folder.ended
    _insert(con, "protection_disputes", [[i] for t, h, i in dispute_ids if (t, h) in done])
    kept = _kept_with(con, hands.new, adjustments, touched)
    from events.protection.state import rows_of

    rows = rows_of(kept.tally, hands.scorer.sessions, touched.players, touched.dealers,
                   touched.tables, touched.slips, touched.seats)
    rows += [("ordinal", t, str(n)) for t, n in folder.ordinals.items()]
    rows += [regulars_row(d, kept.regulars[d]) for d in touched.regulars]
    save(con, rows)
    return kept, touched, hands.seat_hands


def _from_row(con: duckdb.DuckDBPyConnection) -> int:
    row = con.execute(f"SELECT value FROM {META} WHERE key = ?", [FROM_ROW]).fetchall()
    return int(row[0][0]) if row else 0


def _set_from_row(con: duckdb.DuckDBPyConnection, since: int, stored: int,
                  still: list[list[Any]]) -> None:
    """Where the next players step reads from: the first event of the hands left in play
    (they are read again whole), else the events stored when this one began."""
    first = None
    if still:
        first = con.execute(f"""SELECT min(e.rowid) FROM events e
            SEMI JOIN (SELECT table_id, hand_id FROM protection_hands WHERE NOT ended) p
                ON e.hand_id = p.hand_id AND e.table_id IS NOT DISTINCT FROM p.table_id
            WHERE e.rowid >= {int(since)}""").fetchall()[0][0]
    con.execute(f"DELETE FROM {META} WHERE key = ?", [FROM_ROW])
    con.execute(f"INSERT INTO {META} VALUES (?, ?)",
                [FROM_ROW, str(stored if first is None else min(int(first), stored))])


def _kept_with(con: duckdb.DuckDBPyConnection, new: Any,
               adjustments: list[tuple[tuple[str, str], int]], touched: Touched) -> Kept:
    """The stored sums of the keys this load's hands (and late disputes) touch, with the
    new hands' sums added, the late disputes applied, the dealers' regulars brought up to
    date, and every dealer whose alert may have changed read with all its regulars."""
    from events.protection.assess import DEALER_MIN_HANDS

    touched.players = set(new.players) | {key[0] for key, _ in adjustments}
    touched.dealers, touched.tables = set(new.dealers), set(new.tables)
    touched.slips = set(new.slips)
    kept = Kept.read(con, touched.players, touched.dealers, touched.tables)
    kept.tally.merge(new)
    for key, adjustment in adjustments:
        slip = kept.tally.slips.get(key)
        if slip is not None:
            slip.adjustment += adjustment
            touched.slips.add(key)
    for player, sums in new.players.items():
        for dealer in sums.dealers:
            regulars = kept.regulars.setdefault(dealer, set())
            if (player not in regulars
                    and kept.tally.players[player].dealers[dealer].n >= DEALER_MIN_HANDS):
                regulars.add(player)
                touched.regulars.add(dealer)
    touched.assessed_dealers = set(touched.dealers) | {
        d for p in touched.players if p in kept.tally.players
        for d, pair in kept.tally.players[p].dealers.items() if pair.n >= DEALER_MIN_HANDS}
    kept.more(con, dealers=touched.assessed_dealers)
    kept.more(con, players={p for d in touched.assessed_dealers
                            for p in kept.regulars.get(d, ())})
    return kept


def _late_adjustments(con: duckdb.DuckDBPyConnection, late: list[Any]
                      ) -> list[tuple[tuple[str, str], int]]:
    """A resolved dispute of a hand scored by an earlier load: the slip of that seat's
    player and gaming day, only, takes the adjustment. (slip key, adjustment) each."""
    out = []
    for ev in late:
        found = con.execute("""SELECT player, gaming_day FROM protection_seat_hands
            WHERE table_id IS NOT DISTINCT FROM ? AND hand_id = ? AND seat = ?""",
                            [ev.table_id, ev.hand_id, ev.payload.seat]).fetchall()
        if found:
            out.append(((str(found[0][0]), str(found[0][1])), int(ev.payload.adjustment)))
    return out


def update_players(con: duckdb.DuckDBPyConnection, day_start_minutes: int,
                   force: bool = False) -> dict[str, int]:
    """Score the hands ended since the last load, add them to the kept sums and write the
    player tables from the sums; counts of rows written and of seat-hands scored (empty
    when nothing was waiting). ``force``, or a warehouse whose state is of another
    version: rebuilt from every event."""
    built = con.execute(f"SELECT value FROM {META} WHERE key = ?", [BUILT_FROM]).fetchall()
    if built and built[0][0] == FORMER_VERSION and not force:
        add_regulars(con)  # the same sums, and who each dealer's regulars are
        built = [(VERSION,)]
        _stamp(con)
    if force or not built or built[0][0] != VERSION:
        _reset(con)
    elif not con.execute("SELECT count(*) FROM pending.players").fetchall()[0][0]:
        return {}
    con.execute(f"""CREATE OR REPLACE TEMP TABLE {_WORK} AS SELECT DISTINCT table_id, hand_id
        FROM (SELECT table_id, hand_id FROM pending.players
              UNION ALL SELECT table_id, hand_id FROM protection_hands WHERE NOT ended)""")
    try:
        kept, touched, seat_hands = _score_new_hands(con, day_start_minutes, _from_row(con))
    finally:
        con.execute(f"DROP TABLE IF EXISTS {_WORK}")
    con.execute("DELETE FROM pending.players")
    write_tables(con, kept, touched)
    counts = {table: int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])
              for table in PLAYER_TABLES}
    _stamp(con)
    return {**counts, "seat_hands_scored": seat_hands}


def _stamp(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(f"DELETE FROM {META} WHERE key = ?", [BUILT_FROM])
    con.execute(f"INSERT INTO {META} VALUES (?, ?)", [BUILT_FROM, VERSION])


def _part(tally: Any, players: set[str], dealers: set[str]) -> Any:
    """A tally holding these players' (and their slips') and dealers' sums of ``tally``."""
    from events.protection.tally import Tally

    part = Tally()
    part.players = {p: tally.players[p] for p in sorted(players) if p in tally.players}
    part.dealers = {d: tally.dealers[d] for d in sorted(dealers) if d in tally.dealers}
    part.slips = {k: s for k, s in tally.slips.items() if k[0] in players}
    part.rulesets = tally.rulesets
    return part


def write_tables(con: duckdb.DuckDBPyConnection, kept: Kept, touched: Touched) -> None:
    """The player tables' rows of the players and dealers this load touched, from the sums
    (as ``uth protect`` reports them): a player's rating slips and alert, a dealer's alert,
    each read from their own sums only (:mod:`pipeline.players.sums`)."""
    from events.protection.assess import DEALER_MIN_HANDS, MIN_HANDS, THRESHOLD, assess_players
    from events.protection.dealers import dealer_alerts
    from events.protection.ratings import slips_of

    players = touched.players
    assessments = assess_players(_part(kept.tally, players, set()))
    slips = slips_of(_part(kept.tally, players, set()))
    scores = {a.player: (a.score, a.flagged) for a in assessments}
    con.register("touched_players", pa.table({"player": pa.array(sorted(players), pa.string())}))
    con.register("touched_dealers", pa.table({
        "dealer_id": pa.array(sorted(touched.assessed_dealers), pa.string())}))
    try:
        for table in ("player_ratings", "player_alerts", "player_alert_dealers"):
            con.execute(f"DELETE FROM {table} WHERE player IN (SELECT player FROM "
                        "touched_players)")
        con.execute("DELETE FROM dealer_alerts WHERE dealer_id IN (SELECT dealer_id FROM "
                    "touched_dealers)")
        _insert(con, "player_ratings", [
            [s.player, s.gaming_day, s.table_id, s.hands, s.seconds / 3600.0, s.avg_ante,
             s.avg_wager, s.handle, s.theo_base, s.theo_trips, s.theo_win, s.decision_cost,
             s.dispute_adjustment, s.actual_win, s.win_minus_theo,
             scores.get(s.player, (None, False))[0], scores.get(s.player, (None, False))[1]]
            for s in slips], RATING_COLUMNS)
        con.execute("""UPDATE player_ratings r SET currency = c.currency
            FROM (SELECT table_id, any_value(currency) AS currency FROM hands
                  WHERE table_id IN (SELECT DISTINCT r.table_id FROM player_ratings r
                      SEMI JOIN touched_players t ON r.player = t.player)
                  GROUP BY table_id) c
            WHERE c.table_id = r.table_id AND r.player IN (SELECT player FROM touched_players)""")
    finally:
        con.unregister("touched_players")
        con.unregister("touched_dealers")
    flagged = [a for a in assessments if a.flagged]
    _insert(con, "player_alerts", [
        [a.player, a.table_id, ",".join(map(str, a.seats)), a.hands, a.decisions, a.score,
         a.z_both, a.z_one, a.pattern, a.gain, json.dumps(list(a.evidence)),
         a.dealers[0].dealer_id if a.dealers else None, a.only_with_dealer, a.test,
         ",".join(a.streets), a.crossed_on] for a in flagged], ALERT_COLUMNS)
    _insert(con, "player_alert_dealers", [[a.player, d.dealer_id, d.hands, d.gain, d.z]
                                          for a in flagged for d in a.dealers])
    around = _part(kept.tally, kept.players, touched.assessed_dealers)
    dealers = [d for d in dealer_alerts(around, min(MIN_HANDS, DEALER_MIN_HANDS), THRESHOLD)
               if d.flagged]
    _insert(con, "dealer_alerts", [
        [d.dealer_id, ",".join(d.tables), d.hands, d.seat_hands, d.score, *d.z, d.contrast,
         d.pattern, d.gain, json.dumps(list(d.evidence)),
         json.dumps([{"player": p, "gain_antes": round(g, 2)} for p, g in d.players])]
        for d in dealers])
