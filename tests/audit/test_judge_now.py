"""The compiled judge of one hand as it ends (``events/_walk_judge.c``, called through
``events.audit_batch.judge_now``) agrees with the batch judge (``audit_batch.judge``,
NumPy): the same seats' nets when every payout is right, ``None`` otherwise; on a
simulated floor, on plans damaged in every packed number, and on hands of every category
whose payouts come from the direct evaluator (``evaluate_hand``) and ``settle``, not from
the lookup tables the compiled evaluator shares with the batch one."""

from __future__ import annotations

import random
import tempfile
from array import array
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.audit_batch import judge, judge_now
from events.cards import CARD_INDEX, DECK
from events.codec import decode_many
from events.compiled import compiled
from events.evaluation import evaluate_hand
from events.replay import TableContext
from events.replay_fast import PAY_BYTES, SEAT_BYTES, Plan, fast_plan
from events.rulesets import Ruleset, known_rulesets, load_ruleset
from events.schemas import TableOpened
from events.settlement import OUTCOME_CODES, SPOT_CODES, Wagers, settle
from events.simulation import SimConfig, simulate

pytestmark = pytest.mark.skipif(compiled is None, reason="events/_walk_*.c not built")
RULESETS = known_rulesets()


def batch_answer(plan: Plan) -> dict[int, int] | None:
    """What the batch judge says of ``plan`` alone: its nets when ok, else None."""
    judged = judge([plan])
    return judged.nets[0] if judged.ok[0] else None


def floor_plans(tmp_path: Path) -> Iterator[Plan]:
    path = tmp_path / "floor.jsonl"
    simulate(SimConfig(tables=4, hands=150, seed=5, ruleset="mixed", mispay_rate=0.05,
                       void_rate=0.03, dispute_rate=0.03), str(path))
    tables: dict[str, TableContext] = {}
    hands: dict[str, tuple[TableContext | None, list[object]]] = {}
    for ev in decode_many(path.read_bytes().splitlines()):
        if isinstance(ev, TableOpened):
            tables[ev.table_id] = TableContext.opened(ev)
        elif ev.hand_id is not None:
            hands.setdefault(ev.hand_id, (tables.get(ev.table_id), []))[1].append(ev)
    for table, events in hands.values():
        plan = fast_plan(events, table)  # type: ignore[arg-type]
        if plan is not None:
            yield plan


def test_a_simulated_floor(tmp_path: Path) -> None:
    right = wrong = voided = 0
    for plan in floor_plans(tmp_path):
        now = judge_now(plan)
        if plan.voided:
            assert now is None  # kept whole for the batch (a late payout is judged on it)
            voided += 1
            continue
        assert now == batch_answer(plan)
        right += now is not None
        wrong += now is None
    assert right > 400 and wrong > 5 and voided > 5  # the floor reached every answer


def _pays(rows: list[tuple[int, int, int, int]]) -> bytes:
    return array("q", [v for row in rows for v in row]).tobytes()


def _rows(data: bytes, width: int) -> list[list[int]]:
    flat = array("q", data).tolist()
    return [flat[k:k + width] for k in range(0, len(flat), width)]


DAMAGE = ("amount", "outcome", "spot", "pay_seat", "drop_pay", "pay_twice", "stake",
          "play", "trips", "fold", "swap_cards", "new_card", "same_card", "seat_pair")


@cache
def right_plans() -> list[Plan]:
    with tempfile.TemporaryDirectory() as tmp:
        plans = [p for p in floor_plans(Path(tmp)) if judge_now(p) is not None]
    assert len(plans) > 400
    return plans


@settings(max_examples=300, deadline=None)
@given(pick=st.integers(0, 10**6), how=st.sampled_from(DAMAGE), seed=st.integers(0, 2**32))
def test_damaged_plans(pick: int, how: str, seed: int) -> None:
    rng = random.Random(seed)
    plans = right_plans()
    plan = plans[pick % len(plans)]
    seats, pays = _rows(plan.seats, 5), _rows(plan.pays, 4)
    cards = array("h", plan.cards).tolist()
    j, p = rng.randrange(len(seats)), rng.randrange(len(pays))
    if how == "amount":
        pays[p][3] += rng.choice([-100, -1, 1, 100])
    elif how == "outcome":
        pays[p][2] = rng.choice([c for c in (-1, 0, 1) if c != pays[p][2]])
    elif how == "spot":
        pays[p][1] = rng.choice([s for s in range(4) if s != pays[p][1]])
    elif how == "pay_seat":
        pays[p][0] = rng.choice([s for s in range(0, 10) if s != pays[p][0]])
    elif how == "drop_pay":
        del pays[p]
    elif how == "pay_twice":
        pays.insert(rng.randrange(len(pays) + 1), list(pays[p]))
    elif how in ("stake", "play", "trips"):
        column = {"stake": 1, "play": 2, "trips": 3}[how]
        seats[j][column] = max(0, seats[j][column] + rng.choice([-100, 100, 1000]))
    elif how == "fold":
        seats[j][4] = 1 - seats[j][4]
    elif how == "swap_cards":  # a hole card of a seat swapped with one of the dealer's
        a, b = rng.randrange(2), 7 * (j + 1) + rng.randrange(2)
        cards[a], cards[b] = cards[b], cards[a]
    elif how == "new_card":  # a card nobody holds replaces one
        used = set(cards)
        k = rng.randrange(len(cards))
        cards[k] = rng.choice([c for c in range(52) if c not in used])
    elif how == "same_card":  # a row holding one card twice
        row = 7 * rng.randrange(len(cards) // 7)
        cards[row + 1] = cards[row]
    elif how == "seat_pair" and len(seats) > 1:  # two seats' numbers exchanged
        k = (j + 1) % len(seats)
        seats[j][0], seats[k][0] = seats[k][0], seats[j][0]
    damaged = plan._replace(
        cards=array("h", cards).tobytes(),
        seats=array("q", [v for row in seats for v in row]).tobytes(),
        pays=_pays([tuple(r) for r in pays]))  # type: ignore[misc]
    assert len(damaged.seats) % SEAT_BYTES == 0 and len(damaged.pays) % PAY_BYTES == 0
    now = judge_now(damaged)
    if how == "same_card" or any(row[4] and row[2] for row in seats):
        # not seven distinct cards, or a play wager on a folded seat (which no plan has:
        # the batch judge refuses it): left to the batch judge
        assert now is None
        return
    assert now == batch_answer(damaged)


def _plan(ruleset: Ruleset, dealer: list[str], board: list[str],
          seats: list[tuple[int, list[str], Wagers, bool]]) -> tuple[Plan, dict[int, int]]:
    """A plain plan whose payouts are ``settle``'s, from the direct evaluator; and the
    seats' nets."""
    idx = CARD_INDEX
    d = evaluate_hand([*dealer, *board])
    cards = [idx[c] for c in (*dealer, *board)]
    seat_rows: list[int] = []
    pays: list[tuple[int, int, int, int]] = []
    nets: dict[int, int] = {}
    for seat, hole, wagers, folded in seats:
        me = evaluate_hand([*hole, *board])
        cards += [idx[c] for c in (*hole, *board)]
        seat_rows += [seat, wagers.ante, wagers.play, wagers.trips, int(folded)]
        results = settle(ruleset, wagers, folded, me.strength, me.category, d.strength,
                         d.category)
        pays += [(seat, SPOT_CODES[r.spot], OUTCOME_CODES[r.outcome], r.amount)
                 for r in results]
        nets[seat] = sum(r.amount for r in results)
    plan = Plan(ruleset, False, array("h", cards).tobytes(), array("q", seat_rows).tobytes(),
                _pays(pays))
    return plan, nets


# hands of every category, for a seat and for the dealer (the board is shared)
SHOWN = {
    "royal flush": (["As", "Ks"], ["Qs", "Js", "Ts", "2d", "3c"]),
    "straight flush": (["9h", "8h"], ["7h", "6h", "5h", "Kd", "Kc"]),
    "wheel flush": (["Ad", "2d"], ["3d", "4d", "5d", "Kh", "Kc"]),
    "quads": (["7c", "7d"], ["7h", "7s", "2c", "9d", "Jh"]),
    "full house": (["Qc", "Qd"], ["Qh", "4s", "4c", "9d", "Jh"]),
    "flush": (["Ac", "9c"], ["5c", "3c", "2c", "Kd", "Jh"]),
    "straight": (["Tc", "9d"], ["8h", "7s", "6c", "2d", "2h"]),
    "wheel": (["Ac", "2d"], ["3h", "4s", "5c", "9d", "Jh"]),
    "trips": (["8c", "8d"], ["8h", "3s", "5c", "9d", "Jh"]),
    "two pair": (["8c", "3d"], ["8h", "3s", "5c", "9d", "Jh"]),
    "pair": (["8c", "2d"], ["8h", "3s", "5c", "9d", "Jh"]),
    "high card": (["Ac", "2d"], ["8h", "3s", "5c", "9d", "Jh"]),
}


@pytest.mark.parametrize("ruleset_name", RULESETS)
@pytest.mark.parametrize("shown", sorted(SHOWN))
def test_every_category_is_settled_by_the_rules(ruleset_name: str, shown: str) -> None:
    """A seat holding each category against a dealer who qualifies, one who does not, and
    one holding the same: the nets of ``settle`` (every wager), and one cent off is never
    right."""
    ruleset = load_ruleset(ruleset_name)
    hole, board = SHOWN[shown]
    rest = [c for c in DECK if c not in {*hole, *board}]
    wagers = Wagers(ante=2500, blind=2500, trips=500, play=10000)
    for dealer in (rest[:2], rest[-2:], [rest[5], rest[17]]):
        for folded in (False, True):
            w = Wagers(2500, 2500, 500, 0) if folded else wagers
            plan, nets = _plan(ruleset, dealer, board, [(3, hole, w, folded)])
            assert judge_now(plan) == nets == batch_answer(plan)
            pays = _rows(plan.pays, 4)
            for k in range(len(pays)):
                off = [list(r) for r in pays]
                off[k][3] += 1
                assert judge_now(plan._replace(pays=_pays([tuple(r) for r in off]))) is None


@pytest.mark.parametrize("ruleset_name", RULESETS)
def test_random_hands_against_the_direct_evaluator(ruleset_name: str) -> None:
    """Two thousand random tables of one to six seats: every payout from ``settle`` and
    ``evaluate_hand`` is judged right, with the nets of ``settle``."""
    ruleset = load_ruleset(ruleset_name)
    rng = random.Random(ruleset_name)
    for _ in range(2000):
        deck = rng.sample(DECK, 52)
        dealer, board, deck = deck[:2], deck[2:7], deck[7:]
        seats = []
        for seat in sorted(rng.sample(range(1, 8), rng.randint(1, 6))):
            hole, deck = deck[:2], deck[2:]
            ante = rng.choice([500, 1000, 2500, 2700])
            folded = rng.random() < 0.2
            play = 0 if folded else ante * rng.choice([1, 2, 3, 4])
            seats.append((seat, hole, Wagers(ante, ante, rng.choice([0, 500, 1300]), play),
                          folded))
        plan, nets = _plan(ruleset, dealer, board, seats)
        assert judge_now(plan) == nets


def test_what_it_leaves_to_the_batch_judge() -> None:
    """Stakes beyond machine integers' safe range, no compiled evaluation of a voided
    hand: ``None``, and the batch judge answers."""
    ruleset = load_ruleset("charlevoix-2011")
    hole, board = SHOWN["royal flush"]
    for huge in (Wagers(2**41, 2**41, 0, 0), Wagers(1000, 1000, 0, 2**43),
                 Wagers(1000, 1000, 2**41, 0)):
        plan, nets = _plan(ruleset, ["2c", "3d"], board, [(1, hole, huge, False)])
        assert judge_now(plan) is None
        assert batch_answer(plan) == nets
    assert judge_now(Plan(ruleset, True)) is None
    assert judge_now(Plan(None, False)) is None
    # no seat, no payout: nothing to pay, right; a payout without a wager: never right
    dealer = array("h", [CARD_INDEX[c] for c in ("2c", "3d", *board)]).tobytes()
    assert judge_now(Plan(ruleset, False, dealer)) == {} == batch_answer(
        Plan(ruleset, False, dealer))
    stray = Plan(ruleset, False, dealer, b"", _pays([(3, 0, 1, 500)]))
    assert judge_now(stray) is None is batch_answer(stray)


def test_the_compiled_judge_refuses_what_is_not_a_plan() -> None:
    assert compiled is not None
    with pytest.raises(TypeError):
        compiled.judge(b"", b"", b"")
    with pytest.raises(TypeError):
        compiled.judge("x", b"", b"", b"")
    rules = bytes(240)
    assert compiled.judge(b"", b"\0" * 39, b"", rules) is None  # not whole seats
    assert compiled.judge(b"", bytes(40), b"", rules) is None  # a seat without cards
    assert compiled.judge(b"", b"", b"", b"short") is None
    # a payout on a spot that is not one (no plan has it: the batch judge cannot read it)
    plan, _ = _plan(load_ruleset("charlevoix-2011"), ["2c", "3d"], SHOWN["pair"][1],
                    [(1, SHOWN["pair"][0], Wagers(1000, 1000, 0, 0), True)])
    # a folded seat with a play wager (no plan has it either), paid as if it pushed
    seats = _rows(plan.seats, 5)
    seats[0][2] = 3000
    assert judge_now(plan._replace(seats=array("q", seats[0]).tobytes(), pays=_pays(
        [*(tuple(r) for r in _rows(plan.pays, 4)), (1, 2, 0, 0)]))) is None
    for spot in (-1, 4, 2**40):
        pays = _rows(plan.pays, 4)
        pays[0][1] = spot
        assert judge_now(plan._replace(pays=_pays([tuple(r) for r in pays]))) is None
    for tables in [(), (b"",) * 7, tuple(bytes(8 * 52) if k == 0 else b"\0\0\0" for k in range(7))]:
        with pytest.raises((TypeError, ValueError)):
            compiled.configure_evaluation(tables)


def test_a_tie_pushes_every_wager_but_trips() -> None:
    """The board plays for both (a royal flush): ante, blind and play push, trips wins."""
    ruleset = load_ruleset("charlevoix-2011")
    board = ["As", "Ks", "Qs", "Js", "Ts"]
    plan, nets = _plan(ruleset, ["2c", "3d"], board,
                       [(2, ["4h", "5h"], Wagers(1000, 1000, 200, 3000), False)])
    assert nets == {2: 200 * ruleset.trips_odds(9)}
    assert judge_now(plan) == nets


def test_the_auditor_lets_a_right_hand_go_as_it_ends(tmp_path: Path) -> None:
    """Fed a floor with no flush due, the lean auditor holds only the hands it could not
    judge at once (a mispay, a void, a dispute): the others are settled clean, their
    events let go. The report is the same as when every hand waits for its batch (the
    compiled passes' test compares whole reports)."""
    from events.audit import Auditor
    from events.audit_clean import CleanHand

    path = tmp_path / "floor.jsonl"
    simulate(SimConfig(tables=3, hands=100, seed=8, ruleset="mixed", mispay_rate=0.02,
                       void_rate=0.02, dispute_rate=0.02), str(path))
    auditor = Auditor(batch=10**6)
    auditor.feed_many(decode_many(path.read_bytes().splitlines()))
    clean = sum(isinstance(blob, CleanHand) for _, blob in auditor.completed.values())
    assert clean > 240 and len(auditor.ready) < 40
    assert clean + len(auditor.ready) + len(auditor.open) == 300
    report = auditor.finish()
    assert report.summary["hands"] == 300 and not auditor.ready
