"""The sequencer's filter of remembered event ids (``events/_walk_ids.c``): its "new" is
certain, its "maybe" is decided by the ids themselves. Two ids sharing a fingerprint are
both taken; a filter that fills up hands the table over to the ids alone; the oldest
generation leaves the filter with its ids; and a stream with every kind of copy is
sequenced alike with and without the filter."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

import events.audit_sequence as audit_sequence
from events.audit_sequence import Sequencer
from events.compiled import compiled
from tests.audit.test_sequencer import closed, taken

pytestmark = pytest.mark.skipif(compiled is None, reason="events/_walk_*.c not built")


def fingerprint(event_id: str) -> int:
    """The filter's fingerprint of an id, but for its generation bit (as in the C)."""
    h = hash(event_id) & (2**64 - 1)
    f = ((h >> 32) ^ h) & 0xFFFFFFFE
    return f or 2


def colliding_ids() -> tuple[str, str]:
    """Two ids with one fingerprint (this process's string hashes: a birthday search)."""
    seen: dict[int, str] = {}
    for k in range(10**7):
        event_id = f"id-{k}"
        other = seen.setdefault(fingerprint(event_id), event_id)
        if other != event_id:
            return other, event_id
    raise AssertionError("no two ids share a fingerprint")  # pragma: no cover


def test_two_ids_sharing_a_fingerprint_are_both_taken() -> None:
    a, b = colliding_ids()
    seq, out = Sequencer(), []
    assert seq.take_run("T1", [closed(0, a)])
    # the filter says maybe (b); the ids say new: b and x are remembered, filter and all
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


def test_the_compiled_filter_answers() -> None:
    assert compiled is not None
    prints = bytearray(4 * (64 + 1))
    assert compiled.prints_take(prints, ["a", "b"], 0) is True
    assert compiled.prints_take(prints, ["c", "a"], 0) is False  # a may be known
    assert compiled.prints_take(prints, ["d", "d"], 0) is False  # twice in the run
    assert compiled.prints_has(prints, "a") and not compiled.prints_has(prints, "zz")
    assert compiled.prints_add(prints, "e", 0) is True
    assert compiled.prints_add(prints, "e", 0) is False
    assert compiled.prints_add(prints, "e", 1) is True  # in the next generation too
    assert compiled.prints_add(prints, "f", 1) is True
    compiled.prints_age(prints, 1)  # generation 0 leaves: a, b, d (and c) go
    assert not any(compiled.prints_has(prints, x) for x in "abd")
    assert compiled.prints_has(prints, "e") and compiled.prints_has(prints, "f")
    assert compiled.prints_take(prints, [str(k) for k in range(40)], 0) is NotImplemented
    assert compiled.prints_take(prints, [1], 0) is NotImplemented  # not a str
    assert compiled.prints_has(prints, 1) is True  # (the caller looks at the ids)
    with pytest.raises(TypeError):
        compiled.prints_take(bytearray(12), ["a"], 0)  # not a power of two of slots
    with pytest.raises(TypeError):
        compiled.prints_add(bytes(4 * 65), "a", 0)


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


def sequenced(seed: int, window: int) -> tuple[Any, ...]:
    seq, out = Sequencer(window=window, hold=50), []
    for how, events in stream(seed):
        if how == "run" and seq.take_run(events[0].table_id, events):
            out.extend((e.table_id, e.seq) for e in events)
            continue
        for ev in events:
            seq.push(ev, None, lambda e, pos: out.append((e.table_id, e.seq)))
    seq.release_all(lambda e, pos: out.append((e.table_id, e.seq)))
    return (out, seq.distinct, seq.duplicates,
            [(f.kind, f.table_id, f.detail) for f in seq.findings])


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("window", [64, 4096])
def test_the_same_with_and_without_the_filter(monkeypatch: pytest.MonkeyPatch, seed: int,
                                              window: int) -> None:
    """With the filter, with one too small to hold a generation (the tables fall back to
    the ids), and without it: the same events on, counts and findings."""
    with_filter = sequenced(seed, window)
    with monkeypatch.context() as m:
        m.setattr(audit_sequence, "PRINT_SLOTS", 16)
        small = sequenced(seed, window)
    with monkeypatch.context() as m:
        m.setattr(audit_sequence, "_compiled", None)
        without = sequenced(seed, window)
    assert with_filter == small == without
    out, distinct, duplicates, findings = with_filter
    assert distinct > 5000 and len(out) == distinct
    assert duplicates > 10 and {kind for kind, _, _ in findings} >= {
        "sequence_conflict", "sequence_gap"}
