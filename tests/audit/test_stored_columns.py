"""Events built from stored columns (``events.contract.columns``) are the events decoded
from their JSON, and the auditor fed each table's events in order without its sequencer
(``sequenced=False``, the warehouse's feed) finds what it finds with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from events.audit.auditor import audit
from events.contract.codec import Rejection, decode_many
from events.contract.columns import events_of
from events.findings import SEQUENCE_CONFLICT, SEQUENCE_GAP
from events.sim.simulation import SimConfig, simulate
from tests.audit.test_columns import _rows
from tests.audit.test_golden import GOLDEN

_encode = msgspec.json.Encoder().encode


def _floor(tmp_path: Path) -> list[Any]:
    path = tmp_path / "floor.jsonl"
    simulate(SimConfig(tables=3, hands=120, seed=5, ruleset="mixed", mispay_rate=0.05,
                       void_rate=0.03, dispute_rate=0.05), str(path))
    return decode_many(path.read_bytes().splitlines())


def _columns(events: list[Any]) -> list[list[Any]]:
    """The stored columns of ``events``: the envelope's values, the payload as JSON."""
    return [[e.event_id for e in events], [type(e).__name__ for e in events],
            [e.schema_version for e in events], [e.table_id for e in events],
            [e.hand_id for e in events], [e.seq for e in events],
            [e.occurred_at for e in events], [_encode(e.payload) for e in events]]


def test_events_from_columns_are_the_decoded_events(tmp_path: Path) -> None:
    events = _floor(tmp_path)
    for path in sorted(GOLDEN.glob("*.jsonl")):
        events += [e for e in decode_many(path.read_bytes().splitlines())
                   if type(e) is not Rejection]
    assert len({type(e).__name__ for e in events}) == 14  # every type of the contract
    built = events_of(*_columns(events))
    assert built == events
    assert [type(e) for e in built] == [type(e) for e in events]
    # the payloads as text, as the warehouse returns them
    texts = _columns(events)
    texts[-1] = [p.decode() for p in texts[-1]]
    assert events_of(*texts) == events


def test_the_unsequenced_feed_finds_what_the_sequencer_does(tmp_path: Path) -> None:
    events = _floor(tmp_path)
    want = audit(events, columns=True, batch=64)
    got = audit(events, columns=True, batch=64, sequenced=False)
    assert _rows(got) == _rows(want)
    assert got.findings == want.findings and got.findings
    assert got.summary == want.summary


def test_the_unsequenced_feed_makes_no_sequence_finding() -> None:
    """Gaps and conflicts are the warehouse's table-level findings: its feed, which jumps
    over other hands' seq numbers, must not make them again."""
    lines = (GOLDEN / "sequence_faults.jsonl").read_bytes().splitlines()
    items = [e for e in decode_many(lines) if type(e) is not Rejection]
    sequenced = audit(items)
    assert {f.kind for f in sequenced.findings} & {SEQUENCE_GAP, SEQUENCE_CONFLICT}
    kept = audit(items, sequenced=False)
    assert not {f.kind for f in kept.findings} & {SEQUENCE_GAP, SEQUENCE_CONFLICT}
