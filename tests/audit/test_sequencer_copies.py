"""The sequencer's remembered event ids: a copy under another seq is counted once whether
it comes in a run or alone, and a stream with every kind of copy is sequenced alike when
its runs are taken whole and when every event is pushed one by one."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from events.audit.sequence import Sequencer
from tests.audit.test_sequencer import closed, taken


def test_copies_under_another_seq_are_counted_once() -> None:
    a, b = "id-a", "id-b"
    seq, out = Sequencer(), []
    assert seq.take_run("T1", [closed(0, a)])
    assert seq.take_run("T1", [closed(1, b), closed(2, "x")])
    seq.push(closed(3, "c"), None, taken(out))
    assert seq.tables["T1"].remembered_ids() == {a, b, "x", "c"}
    seq.push(closed(4, a), None, taken(out))  # copies under another seq: counted once
    assert seq.take_run("T1", [closed(4, "y"), closed(5, "x")]) is False
    seq.push(closed(4, "x"), None, taken(out))
    assert (seq.distinct, seq.duplicates, out) == (4, 2, [3])
    one, two = Sequencer(), []
    one.push(closed(0, a), None, taken(two))
    one.push(closed(1, b), None, taken(two))  # one by one alike
    assert (one.distinct, one.duplicates, two) == (2, 0, [0, 1])


def stream(seed: int) -> Iterator[tuple[str, list[Any]]]:
    """Three tables' events: mostly runs, with copies (same seq, other seq), conflicts,
    events out of order and lost; as ``("run", events)``: a batch of one table, offered
    whole first."""
    rng = random.Random(seed)
    sent: dict[str, list[Any]] = {t: [] for t in ("T1", "T2", "T3")}
    nxt = dict.fromkeys(sent, 0)
    for _ in range(400):
        table = rng.choice(list(sent))
        events = []
        for _ in range(rng.randint(1, 40)):
            seq = nxt[table]
            nxt[table] += 1
            events.append(_ev(table, seq, f"{table}-{seq}"))
        sent[table].extend(events)
        how = rng.random()
        if how < 0.6:
            yield "run", events
            continue
        if how < 0.7 and sent[table]:  # a copy of an earlier event, same or other seq
            old = rng.choice(sent[table])
            if rng.random() < 0.5:
                events.insert(rng.randrange(len(events) + 1), old)
            else:  # re-numbered: the run goes on in sequence, only its ids tell
                events.append(_ev(table, nxt[table], old.event_id))
                nxt[table] += 1
        elif how < 0.8:  # another event under a seq already taken
            events.append(_ev(table, rng.randrange(nxt[table]), f"forged-{rng.random()}"))
        elif how < 0.9:
            rng.shuffle(events)
        else:
            del events[rng.randrange(len(events))]
        if events:
            yield "run", events  # taken whole only when it is a plain run


def _ev(table: str, seq: int, event_id: str) -> Any:
    ev = closed(seq, event_id)
    return ev if table == "T1" else ev.__class__(**{
        f: getattr(ev, f) for f in ev.__struct_fields__} | {"table_id": table})


def sequenced(seed: int, window: int, runs: bool) -> tuple[Any, ...]:
    seq, out = Sequencer(window=window, hold=50), []
    for how, events in stream(seed):
        if runs and how == "run" and seq.take_run(events[0].table_id, events):
            out.extend((e.table_id, e.seq) for e in events)
            continue
        for ev in events:
            seq.push(ev, None, lambda e, pos: out.append((e.table_id, e.seq)))
    seq.release_all(lambda e, pos: out.append((e.table_id, e.seq)))
    return (out, seq.distinct, seq.duplicates,
            [(f.kind, f.table_id, f.detail) for f in seq.findings])


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("window", [64, 4096])
def test_runs_taken_whole_or_one_by_one_are_sequenced_alike(seed: int, window: int) -> None:
    """Runs taken whole where they continue the sequence, and every event pushed alone:
    the same events on, counts and findings while every id is remembered (with a small
    window the two age their ids at different moments, so only the counts' kinds hold)."""
    whole = sequenced(seed, window, runs=True)
    if window == 4096:
        assert whole == sequenced(seed, window, runs=False)
    out, distinct, duplicates, findings = whole
    assert distinct > 5000 and len(out) == distinct
    assert duplicates > 10 and {kind for kind, _, _ in findings} >= {
        "sequence_conflict", "sequence_gap"}
