"""``player_ratings``, ``player_alerts``, ``player_alert_dealers`` and ``dealer_alerts``
rebuilt from the warehouse's events by ``events.protection`` (the same analysis as ``uth
protect``).

A player's score is a statistic over all their hands, so the tables are rebuilt whole (in
memory bounded by a slice of seat-hands: the analysis keeps sums, ``events.protection.
tally``); a load that brought no new events leaves them as they are (the event count they were built
from is kept in ``meta``). Events a sequence conflict left out are not read, as the audit
does not read them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa

from pipeline.warehouse import CONFLICT_LOSERS, META

if TYPE_CHECKING:
    from events.protection.hands import Adjustments

BATCH = 20_000
RATING_COLUMNS = ("player", "gaming_day", "table_id", "hands", "hours", "avg_ante",
                  "avg_wager", "handle", "theo_base", "theo_trips", "theo_win",
                  "decision_cost", "dispute_adjustment", "actual_win", "win_minus_theo",
                  "protection_score", "flagged")
# versioned: a warehouse built before the theo's two parts and the disputes' adjustments
# is rebuilt on its next load
BUILT_FROM = "players_built_from_events_v2"
_EVENT_JSON = """json_object('event_id', event_id, 'type', type,
    'schema_version', schema_version, 'table_id', table_id, 'hand_id', hand_id, 'seq', seq,
    'occurred_at', strftime(occurred_at, '%Y-%m-%dT%H:%M:%S.%gZ'), 'payload', payload)"""


def _batches(con: duckdb.DuckDBPyConnection) -> Iterator[list[Any]]:
    # One table at a time, in the order ``ORDER BY table_id, seq`` gives the whole: sorted
    # whole, the events' JSON was held at once (5 GB for a 200,000-hand floor), where
    # now one table's is.
    tables = [row[0] for row in con.execute(
        "SELECT DISTINCT table_id FROM events ORDER BY table_id").fetchall()]
    for table_id in tables:
        yield from _decoded(con, "table_id IS NOT DISTINCT FROM ?", [table_id], "seq")


def _adjustments(con: duckdb.DuckDBPyConnection) -> Adjustments:
    """Every resolved dispute's adjustment, read before the events (one may come long
    after its hand), so that the analysis can score the seat-hands as their hands end."""
    from events.protection.hands import Adjustments

    adjustments = Adjustments()
    for events in _decoded(con, "type = 'DisputeResolved'", [], "table_id, seq"):
        adjustments.feed(events)
    return adjustments


def _decoded(con: duckdb.DuckDBPyConnection, where: str, params: list[Any],
             order: str) -> Iterator[list[Any]]:
    """The stored events matching ``where`` (those a sequence conflict left out excepted),
    decoded, in batches. As Arrow batches of bytes, which the decoder reads as they are
    (fetched as rows, each text was a tuple and then encoded again)."""
    from events.contract.codec import decode_many

    reader = con.sql(f"""SELECT encode(CAST({_EVENT_JSON} AS VARCHAR)) FROM events
        WHERE {where} AND event_id NOT IN {CONFLICT_LOSERS}
        ORDER BY {order}""", params=params).to_arrow_reader(BATCH)
    for batch in reader:
        if batch.num_rows:
            yield decode_many(batch.column(0).to_pylist())


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


def update_players(con: duckdb.DuckDBPyConnection, day_start_minutes: int,
                   force: bool = False) -> dict[str, int]:
    """Rebuild the player tables when the warehouse holds events they were not built
    from; counts of rows written (empty when nothing changed)."""
    from events.localtime import zone_name
    from events.protection.report import protect

    events = int(con.execute("SELECT count(*) FROM events").fetchall()[0][0])
    built = con.execute(f"SELECT value FROM {META} WHERE key = ?", [BUILT_FROM]).fetchall()
    if not force and built and int(built[0][0]) == events:
        return {}
    report = protect(_batches(con), adjustments=_adjustments(con),
                     ratings=(day_start_minutes, zone_name()))
    slips = report.slips
    scores = {a.player: (a.score, a.flagged) for a in report.assessments}
    con.execute("DELETE FROM player_ratings")
    _insert(con, "player_ratings", [
        [s.player, s.gaming_day, s.table_id, s.hands, s.seconds / 3600.0, s.avg_ante,
         s.avg_wager, s.handle, s.theo_base, s.theo_trips, s.theo_win, s.decision_cost,
         s.dispute_adjustment, s.actual_win, s.win_minus_theo,
         scores.get(s.player, (None, False))[0], scores.get(s.player, (None, False))[1]]
        for s in slips], RATING_COLUMNS)
    con.execute("""UPDATE player_ratings r SET currency = c.currency
        FROM (SELECT table_id, any_value(currency) AS currency FROM hands GROUP BY table_id) c
        WHERE c.table_id = r.table_id""")
    flagged = [a for a in report.assessments if a.flagged]
    con.execute("DELETE FROM player_alerts")
    _insert(con, "player_alerts", [
        [a.player, a.table_id, ",".join(map(str, a.seats)), a.hands, a.decisions, a.score,
         a.z_both, a.z_one, a.pattern, a.gain, json.dumps(list(a.evidence)),
         a.dealers[0].dealer_id if a.dealers else None, a.only_with_dealer] for a in flagged])
    con.execute("DELETE FROM player_alert_dealers")
    dealer_rows = [[a.player, d.dealer_id, d.hands, d.gain, d.z] for a in flagged
                   for d in a.dealers]
    _insert(con, "player_alert_dealers", dealer_rows)
    dealers = [d for d in report.dealer_alerts if d.flagged]
    con.execute("DELETE FROM dealer_alerts")
    _insert(con, "dealer_alerts", [
        [d.dealer_id, ",".join(d.tables), d.hands, d.seat_hands, d.score, *d.z, d.contrast,
         d.pattern, d.gain, json.dumps(list(d.evidence)),
         json.dumps([{"player": p, "gain_antes": round(g, 2)} for p, g in d.players])]
        for d in dealers])
    con.execute(f"DELETE FROM {META} WHERE key = ?", [BUILT_FROM])
    con.execute(f"INSERT INTO {META} VALUES (?, ?)", [BUILT_FROM, str(events)])
    return {"player_ratings": len(slips), "player_alerts": len(flagged),
            "player_alert_dealers": len(dealer_rows), "dealer_alerts": len(dealers)}
