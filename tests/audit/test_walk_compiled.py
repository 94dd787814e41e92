"""The compiled pass over a hand (``events/_walk_*.c``) answers exactly as the Python pass
(``events.replay_fast._walk_python``, ``_fast_plan_python``) or steps aside
(``NotImplemented``): on a simulated floor (every ruleset, voids, disputes, mispays) and on
hands with one event damaged in every way the tests know."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import events.replay_fast as replay_fast
from events.audit_intake import hand_runs
from events.cards import DECK
from events.codec import Rejection, decode_many
from events.replay import TableContext
from events.replay_fast import Plan, _Walk
from events.schemas import Event, TableOpened
from events.simulation import SimConfig, simulate
from tests.audit.builder import Table, encode_lines, random_hand

compiled = replay_fast._compiled


def test_the_compiled_pass_is_built() -> None:
    """``make install`` builds it; without it the auditor is correct but slower."""
    assert compiled is not None, "events/_walk_*.c not built: run `uv sync` (make install)"


def python_answers(events: list[Event], table: TableContext | None,
                   monkeypatch: pytest.MonkeyPatch) -> tuple[_Walk | None, Plan | None]:
    with monkeypatch.context() as m:
        m.setattr(replay_fast, "_compiled", None)
        return (replay_fast._walk_python(events, table),
                replay_fast._fast_plan_python(events, table))


def compare(events: list[Event], table: TableContext | None,
            monkeypatch: pytest.MonkeyPatch) -> tuple[bool, bool]:
    """Whether the compiled walk and plan answered (each answer checked)."""
    assert compiled is not None
    walk, plan = python_answers(events, table, monkeypatch)
    c_walk = compiled.walk(events, table)
    c_plan = compiled.plan(events, table)
    if c_walk is not NotImplemented:
        assert walk is not None
        assert tuple.__new__(_Walk, c_walk) == walk
        assert list(map(type, c_walk)) == list(map(type, walk))
    if c_plan is not NotImplemented:
        assert plan is not None
        assert tuple.__new__(Plan, c_plan) == plan
    # and what the module's callers get is the Python pass's answer either way
    assert replay_fast._walk(events, table) == walk
    assert replay_fast.fast_plan(events, table) == plan
    return c_walk is not NotImplemented, c_plan is not NotImplemented


def hands_of(items: list[Any]) -> Iterator[tuple[list[Event], TableContext | None]]:
    """Each hand's events in order, with its table's rules."""
    tables: dict[str, TableContext] = {}
    hands: dict[str, tuple[TableContext | None, list[Event]]] = {}
    for ev in items:
        if isinstance(ev, TableOpened):
            tables[ev.table_id] = TableContext.opened(ev)
        elif ev.hand_id is not None:
            hands.setdefault(ev.hand_id, (tables.get(ev.table_id), []))[1].append(ev)
    for table, events in hands.values():
        yield events, table


def test_a_simulated_floor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "floor.jsonl"
    simulate(SimConfig(tables=4, hands=120, seed=3, ruleset="mixed", mispay_rate=0.03,
                       void_rate=0.03, dispute_rate=0.03), str(path))
    items = decode_many(path.read_bytes().splitlines())
    answered = planned = hands = 0
    for events, table in hands_of(items):
        walked, plan = compare(events, table, monkeypatch)
        answered += walked
        planned += plan
        hands += 1
    assert answered > 0.9 * hands  # the common hand takes the compiled pass
    assert planned > 0.85 * hands


SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])
DAMAGE = ["none", "drop", "repeat", "swap", "recard", "rebet", "reseat", "restreet",
          "remultiple", "reorder", "truncate", "void", "dispute", "limits", "redeal"]


@SETTINGS
@given(seed=st.integers(0, 2**32), pick=st.integers(0, 10**6), how=st.sampled_from(DAMAGE),
       ruleset=st.sampled_from(["charlevoix-2011", "live-online", "cardroom"]))
def test_damaged_hands(seed: int, pick: int, how: str, ruleset: str,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    t = Table("T0")
    t.open(ruleset=ruleset)
    t.hand(random_hand(rng, "H1"))
    opened, *hand = t.events
    if how == "limits":
        opened = {**opened, "payload": {**opened["payload"], "seats": 2,
                                        "max_trips": 500}}
    # the event to damage: one the damage applies to
    field = {"recard": "cards", "rebet": "amount", "reseat": "seat", "restreet": "street",
             "remultiple": "multiple", "redeal": "seat"}.get(how)
    targets = [i for i, e in enumerate(hand) if i and (
        field is None or e["payload"].get(field) is not None)] or [1]
    k = targets[pick % len(targets)]
    ev = hand[k]
    payload = ev["payload"]
    if how == "drop":
        hand = [*hand[:k], *hand[k + 1:]]
    elif how == "repeat":
        hand = [*hand[:k], ev, *hand[k:]]
    elif how == "swap" and k + 1 < len(hand):
        hand[k], hand[k + 1] = hand[k + 1], hand[k]
    elif how == "reorder":
        hand = [hand[0], *rng.sample(hand[1:], len(hand) - 1)]
    elif how == "truncate":
        hand = hand[:k]
    elif how == "recard" and "cards" in payload:
        cards = list(payload["cards"])
        cards[pick % len(cards)] = rng.choice(["2c", "As", "Kd", "7h", "Tc"])
        hand[k] = {**ev, "payload": {**payload, "cards": cards}}
    elif how == "rebet" and payload.get("amount"):
        hand[k] = {**ev, "payload": {**payload, "amount": payload["amount"] + 100}}
    elif how == "reseat" and payload.get("seat") is not None:
        hand[k] = {**ev, "payload": {**payload, "seat": 1 + pick % 9}}
    elif how == "restreet" and ev["type"] == "PlayerDecision":
        hand[k] = {**ev, "payload": {**payload, "street": rng.choice(
            ["preflop", "flop", "river"])}}
    elif how == "remultiple" and payload.get("multiple"):
        m = rng.choice([1, 2, 3, 4])
        hand[k] = {**ev, "payload": {**payload, "multiple": m,
                                     "amount": payload["amount"] // payload["multiple"] * m}}
    elif how == "redeal" and ev["type"] == "CardsDealt":  # a seat dealt twice, fresh cards
        used = {c for e in hand for c in e["payload"].get("cards", [])}
        fresh = [c for c in DECK if c not in used][:2]
        hand = [*hand[:k + 1], {**ev, "payload": {**payload, "cards": fresh}}, *hand[k + 1:]]
    elif how == "void":
        end = next(i for i, e in enumerate(hand) if e["type"] == "HandEnded")
        hand[end] = {**hand[end], "type": "HandVoided",
                     "payload": {"reason": "misdeal"}}
    elif how == "dispute":
        hand.append({**hand[-1], "event_id": hand[-1]["event_id"] + "d",
                     "type": "DisputeOpened", "seq": hand[-1]["seq"] + 1,
                     "payload": {"seat": 1, "claim": "short paid"}})
    items = decode_many(encode_lines([opened, *hand]))
    table_ev = items[0]
    if not isinstance(table_ev, TableOpened):
        return  # the damage made the table event invalid: nothing to walk
    events: list[Event] = [e for e in items[1:] if not isinstance(e, Rejection)]
    if not events:
        return
    walked, _ = compare(events, TableContext.opened(table_ev), monkeypatch)
    if how == "none":
        assert walked  # a legal hand always takes the compiled pass


def split_python(items: list[Any]) -> tuple[list[Any], dict[str, list[Any]]]:
    """What ``split_tables`` gives, in Python."""
    rejections: list[Any] = []
    tables: dict[str, list[Any]] = {}
    pairs = bool(items) and type(items[0]) is tuple
    for pair in items:
        position, item = pair if type(pair) is tuple else (None, pair)
        if isinstance(item, Rejection):
            rejections.append(item)
            continue
        group = tables.setdefault(item.table_id, [[], [], [], True, None,
                                                  [] if pairs else None])
        if group[0] and item.seq != group[0][-1].seq + 1:
            group[3] = False
        group[0].append(item)
        group[1].append(item.event_id)
        if pairs:
            group[5].append(position)
    for group in tables.values():
        group[2] = hand_runs(group[0])
    return rejections, tables


@SETTINGS
@given(seed=st.integers(0, 2**32), cut=st.integers(1, 400), paired=st.booleans())
def test_split_tables_is_the_python_grouping(seed: int, cut: int, paired: bool) -> None:
    """Batches of a floor with events lost, repeated, swapped and corrupted, cut anywhere:
    the same rejections, tables, events, ids, runs of one hand (and whether they hold its
    end), seq runs and positions (``paired``: items given as (position, item), a few bare)
    as the Python grouping."""
    assert compiled is not None
    rng = random.Random(seed)
    lines = []
    for t in range(3):
        table = Table(f"T{t}")
        table.open()
        for h in range(2):
            table.hand(random_hand(rng, f"T{t}-H{h}"))
        lines += encode_lines(table.events)
    rng.shuffle(lines)  # tables interleaved, and each table's order broken
    for _ in range(rng.randrange(4)):
        k = rng.randrange(len(lines))
        lines[k] = rng.choice([lines[k][:-5], b"{}", b"not json", lines[k - 1]])
    items: list[Any] = decode_many(lines)
    if paired:
        items = [item if k % 7 == 3 else (f"line {k}", item) for k, item in enumerate(items)]
    for start in range(0, len(items), cut):
        batch = items[start:start + cut]
        split = compiled.split_tables(batch)
        if type(batch[0]) is not tuple and any(type(item) is tuple for item in batch):
            assert split is NotImplemented  # pairs are told by the first item
            continue
        rejections, tables = split
        want_rejections, want = split_python(batch)
        assert rejections == want_rejections
        assert list(tables) == list(want)
        for table_id, (events, ids, runs, contiguous, _last, positions) in tables.items():
            assert [events, ids, runs, contiguous] == want[table_id][:4]
            assert positions == want[table_id][5]


def test_split_tables_steps_aside_for_positions_and_strangers() -> None:
    assert compiled is not None
    items = decode_many(encode_lines(Table("T1").events or []))
    assert compiled.split_tables([(1, object())]) is NotImplemented
    assert compiled.split_tables([(1, 2, 3)]) is NotImplemented
    assert compiled.split_tables([*items, (1, 2)]) is NotImplemented  # bare first: no pairs
    assert compiled.split_tables([object()]) is NotImplemented
    assert compiled.split_tables((1, 2)) is NotImplemented
    assert compiled.split_tables(items) == ([], {})


@pytest.mark.parametrize("seed", [1, 2])
def test_the_audit_is_the_same_without_the_compiled_passes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """A damaged floor (events lost, repeated, re-numbered, out of order, corrupted) fed
    in uneven batches: the same report with and without the compiled passes."""
    import events.audit_batch as audit_batch
    import events.audit_intake as audit_intake
    import events.audit_sequence as audit_sequence
    from events.audit import Auditor

    path = tmp_path / "floor.jsonl"
    simulate(SimConfig(tables=3, hands=60, seed=seed, ruleset="mixed", mispay_rate=0.05,
                       void_rate=0.03, dispute_rate=0.03), str(path))
    lines = path.read_bytes().splitlines()
    rng = random.Random(seed)
    for _ in range(25):
        k = rng.randrange(1, len(lines) - 1)
        how = rng.choice(["drop", "repeat", "swap", "corrupt"])
        if how == "drop":
            del lines[k]
        elif how == "repeat":
            lines.insert(rng.randrange(k, len(lines)), lines[k])
        elif how == "swap":
            lines[k], lines[k + 1] = lines[k + 1], lines[k]
        else:
            lines[k] = lines[k][: len(lines[k]) // 2]
    items = decode_many(lines)

    def run() -> Any:
        auditor = Auditor(batch=16)
        k = 0
        while k < len(items):
            n = rng.randrange(1, 300)
            auditor.feed_many(items[k:k + n])
            k += n
        return auditor.finish()

    rng.seed(seed)
    fast = run()
    with monkeypatch.context() as m:
        m.setattr(audit_intake, "compiled", None)
        m.setattr(replay_fast, "_compiled", None)
        m.setattr(audit_batch, "compiled", None)  # every hand judged in its batch
        m.setattr(audit_sequence, "_compiled", None)  # ids looked up in sets
        rng.seed(seed)
        slow = run()
    assert fast.findings == slow.findings
    assert fast.rejected == slow.rejected
    assert fast.summary == slow.summary
    assert {f.kind for f in fast.findings} >= {"mispay", "sequence_gap"}


def test_a_payout_in_a_hand_without_wagers_is_never_judged_right() -> None:
    """A plain plan with a recorded payout and no wager: not ok whether or not the other
    plans judged with it have seats (it once passed when judged alone)."""
    from array import array

    from events.audit_batch import judge
    from events.rulesets import load_ruleset

    ruleset = load_ruleset("charlevoix-2011")
    dealer = array("h", [0, 5, 10, 20, 30, 40, 50]).tobytes()
    stray = Plan(ruleset, False, dealer, b"", array("q", [3, 0, 1, 500]).tobytes())
    assert judge([stray]).ok == [False]
    seated = Plan(ruleset, False, dealer + array("h", [1, 2, 10, 20, 30, 40, 50]).tobytes(),
                  array("q", [1, 500, 0, 0, 1]).tobytes(), b"")
    assert judge([seated, stray]).ok == [False, False]  # seated: its wagers were never paid
    assert judge([Plan(ruleset, False, dealer)]).ok == [True]  # nothing wagered, nothing paid


@pytest.mark.parametrize("name", ["mispays", "disputes", "illegal_actions"])
def test_findings_carry_the_positions_fed_with_their_events(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Items fed as (position, event) pairs, through the compiled intake and without it:
    each finding that names an event of its hand carries that event's position."""
    import events.audit_intake as audit_intake
    from events.audit import audit
    from tests.audit.test_golden import GOLDEN

    lines = (GOLDEN / f"{name}.jsonl").read_bytes().splitlines()
    items = decode_many(lines)
    where = {item.event_id: f"line {k}" for k, item in enumerate(items, 1)
             if not isinstance(item, Rejection)}
    pairs = [(f"line {k}", item) for k, item in enumerate(items, 1)]
    compiled_findings = audit(pairs).findings
    monkeypatch.setattr(audit_intake, "compiled", None)
    assert audit(pairs).findings == compiled_findings
    placed = [f for f in compiled_findings if f.position is not None]
    assert placed  # (these floors have findings that name events)
    for f in placed:
        assert f.position == where[f.event_id], f
