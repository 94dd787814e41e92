"""Real names in every text field of every event, in several scripts, with quotes and
backslashes (JSON escapes): the warehouse loads them, loads again, and holds them as sent.

A dealer called José once stopped the players step on every later load: the events were
rendered to JSON text and cast to BLOB, which DuckDB allows for ASCII only (and reads a
backslash as a hex escape)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.warehouse import query
from tests.pipeline import streams
from tests.pipeline.conftest import write_log

# table, hand, dealer and shoe names; claims, resolutions and void reasons
TABLES = {"T1": "Mesa Ñandú 1", "T2": "Стол «2»"}
HANDS = {"H1": "Main 1 — José", "H2": "手 2", "H3": "Χέρι 3", "H4": "יד 4", "H5": "Hand \"5\""}
DEALERS = {"D1": "José Ñúñez", "D2": "王伟 \\ O'Brien"}
SHOE = "Sabot n°7 «ß»"
TEXT = 'Player said "I raised" — le joueur a dit « j’ai relancé », 玩家说\\n\t'


def _relabelled(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for event in events:
        e = {**event, "payload": dict(event["payload"])}
        e["table_id"] = TABLES[e["table_id"]]
        e["event_id"] = f"é-{e['event_id']}"
        if e["hand_id"] is not None:
            e["hand_id"] = HANDS[e["hand_id"]]
        p = e["payload"]
        if "dealer_id" in p:
            p["dealer_id"] = DEALERS[p["dealer_id"]]
            p["shoe_id"] = SHOE
            p["player_refs"] = {str(s): f"Zoë Ørsted-{s}" for s in p["seats"]}
        for key in ("claim", "resolution", "reason"):
            if key in p:
                p[key] = TEXT
        out.append(e)
    return out


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("text")
    t1, t2 = streams.floor()
    events = streams.interleave(t1, t2)
    first = _relabelled(events)
    log = write_log(d / "events.jsonl", streams.lines(first))
    wh = d / "w.duckdb"
    assert main(["load", "--source", str(log), "--warehouse", str(wh), "-q"]) == 0
    # a later load, with a dispute whose claim holds quotes, must not fail either
    later = _relabelled(streams.dispute(t1))
    with log.open("ab") as f:
        f.write(b"".join(line + b"\n" for line in streams.lines(later)))
    assert main(["load", "--source", str(log), "--warehouse", str(wh), "-q"]) == 0
    return wh


def test_every_text_is_held_as_sent(loaded: Path) -> None:
    hands = dict(query(loaded, "SELECT hand_id, dealer_id FROM hands"))
    assert hands == {HANDS["H1"]: DEALERS["D1"], HANDS["H2"]: DEALERS["D1"],
                     HANDS["H3"]: DEALERS["D2"], HANDS["H4"]: DEALERS["D2"],
                     HANDS["H5"]: DEALERS["D2"]}
    assert {t for (t,) in query(loaded, "SELECT DISTINCT table_id FROM events")} == set(
        TABLES.values())
    (claims,), = query(loaded, """SELECT count(*) FROM events
        WHERE type = 'DisputeOpened' AND payload->>'claim' = ?""", [TEXT])
    assert claims == 1


def test_the_players_step_rates_every_seat(loaded: Path) -> None:
    """Five settled seat-hands (H1's two seats, H2, H4, H5), every one on a rating slip,
    the dispute's adjustment counted."""
    (hands, adjustment), = query(loaded, """SELECT sum(hands), sum(dispute_adjustment)
        FROM player_ratings""")
    assert hands == 5
    assert adjustment == -2000
    tables = {t for (t,) in query(loaded, "SELECT DISTINCT table_id FROM player_ratings")}
    assert tables == set(TABLES.values())
