"""Who a seat-hand belongs to, and the simulator's players as its ground truth says."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from events.protection.assess import player_keys
from events.protection.hands import SeatHands


def _seat_hands(rows: list[tuple[str, int, int, str | None]]) -> SeatHands:
    """(table, seat, table-hand ordinal, player_ref) per seat-hand."""
    n = len(rows)
    z = np.zeros(n, dtype=np.int64)
    return SeatHands(
        table_id=[r[0] for r in rows], hand_id=[f"{r[0]}-{r[2]:04d}" for r in rows],
        dealer_id=["D1"] * n, ruleset=["charlevoix-2011"] * n,
        player_ref=[r[3] for r in rows], seat=np.array([r[1] for r in rows]),
        ordinal=np.array([r[2] for r in rows]), started_ms=z, ended_ms=z, ante=z, blind=z,
        trips=z, play=z, result=z, adjustment=z, hole=np.zeros((n, 2), np.int64),
        dealer=np.zeros((n, 2), np.int64), board=np.zeros((n, 5), np.int64),
        cards_known=np.zeros(n, np.bool_), dec_hand=z[:0], dec_street=z[:0],
        dec_multiple=z[:0])


def test_a_seat_session_ends_with_a_hand_the_seat_sits_out() -> None:
    keys = player_keys(_seat_hands([
        ("T1", 2, 0, None), ("T1", 2, 1, None), ("T1", 2, 3, None),  # sat out hand 2
        ("T1", 3, 1, None), ("T2", 2, 1, None), ("T1", 2, 4, None)]))
    assert keys == ["T1/seat-2/T1-0000", "T1/seat-2/T1-0000", "T1/seat-2/T1-0003",
                    "T1/seat-3/T1-0001", "T2/seat-2/T2-0001", "T1/seat-2/T1-0003"]


def test_a_seat_session_ends_with_a_pause_in_play() -> None:
    """The same seat at the table's next hand, but after the table stood idle for more than
    30 minutes (closed overnight): another seat session."""
    import dataclasses

    sh = _seat_hands([("T1", 2, 0, None), ("T1", 2, 1, None), ("T1", 2, 2, None)])
    minute = 60_000
    sh = dataclasses.replace(sh, started_ms=np.array([0, 2, 34]) * minute,
                             ended_ms=np.array([1, 3, 35]) * minute)
    assert player_keys(sh) == ["T1/seat-2/T1-0000", "T1/seat-2/T1-0000",
                               "T1/seat-2/T1-0002"]  # 31 minutes after hand 1 ended: new


def test_a_pseudonym_is_one_player_across_seats_and_tables() -> None:
    ref = "pr1_" + "ab" * 16
    keys = player_keys(_seat_hands([("T1", 1, 0, ref), ("T2", 4, 9, ref), ("T1", 1, 1, None)]))
    assert keys == [ref, ref, "T1/seat-1/T1-0001"]


def test_the_roster_plays_its_styles(target_floor: tuple[Path, list[dict[str, Any]]]) -> None:
    """From the events: always-raise raises 4x before every flop, never-raise checks twice
    and folds, random raises preflop about a third of the time; the truth lists them."""
    sink, players = target_floor
    style = {(r["table_id"], r["seat"]): r["profile"] for r in players}
    acts: dict[str, Counter[tuple[str, str, int]]] = defaultdict(Counter)
    for line in sink.read_bytes().splitlines():
        ev = msgspec.json.decode(line)
        if ev["type"] == "PlayerDecision":
            p = ev["payload"]
            acts[style[(ev["table_id"], p["seat"])]][
                (p["street"], p["action"], p.get("multiple") or 0)] += 1
    hands = 400 * Counter(style.values())["always_raise"]
    assert acts["always_raise"] == {("preflop", "raise", 4): hands}
    never = 400 * Counter(style.values())["never_raise"]
    assert acts["never_raise"] == {("preflop", "check", 0): never, ("flop", "check", 0): never,
                                   ("river", "fold", 0): never}
    rnd = acts["random"]
    preflop = rnd[("preflop", "raise", 4)] + rnd[("preflop", "raise", 3)]
    assert abs(preflop / (400 * 8) - 1 / 3) < 0.04
    assert acts["hole_card_both"][("river", "fold", 0)] > 0
    assert Counter(r["sees"] for r in players) == {None: 36, "both": 2, "first": 2}


def test_a_roster_floor_is_the_same_bytes_for_the_same_seed(tmp_path: Path) -> None:
    from tests.protection.conftest import write_floor

    roster = ("hole_card_one", "random", "basic")
    a = write_floor(tmp_path / "a", 2, 40, roster, seed=3, ruleset="mixed")
    b = write_floor(tmp_path / "b", 2, 40, roster, seed=3, ruleset="mixed")
    assert a[0].read_bytes() == b[0].read_bytes() and a[1] == b[1]
    assert [(r["table_id"], r["seat"], r["profile"]) for r in a[1]] == [
        ("T01", 1, "hole_card_one"), ("T01", 2, "basic"), ("T02", 1, "random")]


def test_a_pseudonymous_player_is_followed_across_tables(tmp_path: Path) -> None:
    """The table sends a (pseudonymized) ``player_refs`` for seat 1 at both tables: one
    player of both tables' hands; the other seats stay seat sessions."""
    from pipeline.commands.protect import protect_source
    from tests.protection.conftest import write_floor

    sink, _ = write_floor(tmp_path, 2, 60, ("basic", "basic", "random", "weak"), seed=4)
    ref = "pr1_" + "cd" * 16
    lines = []
    for line in sink.read_bytes().splitlines():
        ev = msgspec.json.decode(line)
        if ev["type"] == "HandStarted":
            ev["payload"]["player_refs"] = {"1": ref}
        lines.append(msgspec.json.encode(ev))
    tagged = tmp_path / "tagged.jsonl"
    tagged.write_bytes(b"\n".join(lines) + b"\n")
    found = {a.player: a for a in protect_source(str(tagged), min_hands=1).assessments}
    assert found[ref].hands == 120 and found[ref].seats == (1,)
    assert sorted(found) == sorted([ref, "T01/seat-2/T01-000001", "T02/seat-2/T02-000001"])


def test_a_bad_roster_is_refused(tmp_path: Path, capsys: Any) -> None:
    from pipeline.cli import main

    sink = str(tmp_path / "x.jsonl")
    for roster, says in (("basic*x", "is not profile*count"),
                         ("wizard", "unknown player profile 'wizard'"),
                         ("basic@1", "only the hole_card_* styles take @N"),
                         ("basic*8", "seats more players at T01 than its 7 seats")):
        assert main(["simulate", "--tables", "1", "--hands", "5", "--ruleset",
                     "charlevoix-2011", "--roster", roster, "--sink", sink, "--quiet"]) == 2
        assert says in capsys.readouterr().err


def test_redelivered_copies_count_once(tmp_path: Path) -> None:
    """Every third event delivered twice (the contract's at-least-once delivery): the same
    players, hands, results and scores as the log without copies."""
    from pipeline.commands.protect import protect_source
    from tests.protection.conftest import write_floor

    sink, _ = write_floor(tmp_path, 1, 80, ("basic", "random"), seed=4)
    lines = sink.read_bytes().splitlines()
    copies = tmp_path / "copies.jsonl"
    copies.write_bytes(b"".join(x + b"\n" + (x + b"\n" if i % 3 == 0 else b"")
                                for i, x in enumerate(lines)))
    seen = []
    for source in (sink, copies):
        r = protect_source(str(source), min_hands=1, ratings=(360, "UTC"))
        seen.append(([(a.player, a.hands, a.score) for a in r.assessments],
                     [(s.player, s.hands, s.handle, s.actual_win) for s in r.slips]))
    assert len(seen[0][0]) == 2 and seen[1] == seen[0]
