"""The sums game protection keeps (``tally``) and the seats' sessions, as rows of text: what
the warehouse stores between loads, so that a load scores only the hands it brought and
adds them to the sums of the hands before (JSON numbers round-trip exactly).

A row is ``(kind, key, value)``: ``player``, ``dealer``, ``table``, ``slip`` (key: the
player and gaming day), ``session`` (key: the table and seat), and one ``totals``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from events.protection.assess import Sessions
from events.protection.tally import (
    DealerSums,
    HandSums,
    PairSums,
    PlayerSums,
    SlipSums,
    Tally,
    Top,
)

Row = tuple[str, str, str]


def _top(rows: Any) -> Top:
    return [(float(s), int(o), str(h)) for s, o, h in rows]


def _hand_sums(v: Any) -> HandSums:
    return HandSums(int(v[0]), [float(x) for x in v[1]], [float(x) for x in v[2]])


def _hand_json(h: HandSums) -> list[Any]:
    return [h.n, h.total, h.squares]


def _dumps(value: object) -> str:
    """JSON with sorted keys: the same sums give the same text, whatever the order their
    keys were first met in (a player seen at two tables, loaded in other orders)."""
    return json.dumps(value, sort_keys=True)


def _key(*parts: object) -> str:
    return _dumps(list(parts))


def player_row(player: str, p: PlayerSums) -> Row:
    return ("player", player, _dumps({
        "decisions": p.decisions, "seats": sorted(p.seats), "tables": p.tables,
        "dealers": {d: [s.n, s.gain, s.var, [list(t) for t in s.top], s.sign, s.sign_var,
                        s.squares]
                    for d, s in p.dealers.items()}}))


def dealer_row(dealer: str, d: DealerSums) -> Row:
    return ("dealer", dealer, _dumps({
        "seat_hands": d.seat_hands, "hands": _hand_json(d.hands),
        "at_table": {t: _hand_json(h) for t, h in d.at_table.items()},
        "top": [list(t) for t in d.top]}))


def table_row(table: str, h: HandSums) -> Row:
    return ("table", table, _dumps(_hand_json(h)))


def slip_row(key: tuple[str, str], s: SlipSums) -> Row:
    return ("slip", _key(*key), _dumps({
        "hands": s.hands, "ante": s.ante, "wager": s.wager, "result": s.result,
        "adjustment": s.adjustment, "cost": s.cost, "tables": s.tables, "stakes": s.stakes,
        "stats": s.stats, "stat_var": s.stat_var}))


def session_row(where: tuple[str, int], last: tuple[int, str, int]) -> Row:
    return ("session", _key(*where), _dumps(list(last)))


def totals_row(tally: Tally) -> Row:
    return ("totals", "", _dumps({"seat_hands": tally.seat_hands, "hands": tally.hands,
                                      "rulesets": sorted(tally.rulesets)}))


def rows_of(tally: Tally, sessions: Sessions, players: Iterable[str] | None = None,
            dealers: Iterable[str] | None = None, tables: Iterable[str] | None = None,
            slips: Iterable[tuple[str, str]] | None = None,
            seats: Iterable[tuple[str, int]] | None = None) -> list[Row]:
    """The rows of the given keys (every key of a kind given as None), and the totals."""
    out = [player_row(k, tally.players[k])
           for k in (tally.players if players is None else players)]
    out += [dealer_row(k, tally.dealers[k])
            for k in (tally.dealers if dealers is None else dealers)]
    out += [table_row(k, tally.tables[k]) for k in (tally.tables if tables is None else tables)]
    out += [slip_row(k, tally.slips[k]) for k in (tally.slips if slips is None else slips)]
    out += [session_row(k, sessions[k]) for k in (sessions if seats is None else seats)]
    out.append(totals_row(tally))
    return out


def load(rows: Iterable[tuple[str, str, str]]) -> tuple[Tally, Sessions]:
    """The tally and sessions the rows hold (an empty tally for no rows)."""
    tally = Tally()
    sessions: Sessions = {}
    for kind, key, text in rows:
        v = json.loads(text)
        if kind == "player":
            tally.players[key] = PlayerSums(
                dealers={d: PairSums(int(n), [float(x) for x in g], [float(x) for x in var],
                                     [_top(t) for t in top], [float(x) for x in sign],
                                     [float(x) for x in svar], [float(x) for x in sq])
                         for d, (n, g, var, top, sign, svar, sq) in v["dealers"].items()},
                decisions=int(v["decisions"]), seats={int(s) for s in v["seats"]},
                tables={t: int(n) for t, n in v["tables"].items()})
        elif kind == "dealer":
            tally.dealers[key] = DealerSums(
                hands=_hand_sums(v["hands"]), seat_hands=int(v["seat_hands"]),
                at_table={t: _hand_sums(h) for t, h in v["at_table"].items()},
                top=[_top(t) for t in v["top"]])
        elif kind == "table":
            tally.tables[key] = _hand_sums(v)
        elif kind == "slip":
            player, day = json.loads(key)
            tally.slips[(player, day)] = SlipSums(
                hands=int(v["hands"]), ante=int(v["ante"]), wager=int(v["wager"]),
                result=int(v["result"]), adjustment=int(v["adjustment"]),
                cost=float(v["cost"]),
                tables={t: [int(x) for x in span] for t, span in v["tables"].items()},
                stakes={r: [int(x) for x in st] for r, st in v["stakes"].items()},
                stats=[float(x) for x in v["stats"]],
                stat_var=[float(x) for x in v["stat_var"]])
        elif kind == "session":
            table, seat = json.loads(key)
            ordinal, name, end = v
            sessions[(str(table), int(seat))] = (int(ordinal), str(name), int(end))
        elif kind == "totals":
            tally.seat_hands = int(v["seat_hands"])
            tally.hands = int(v["hands"])
            tally.rulesets = set(v["rulesets"])
    return tally, sessions
