"""The TableOpened in force at a hand is defined once (issue 32): the table's last one
before the hand's first event, by seq (``events.replay.state.opened_in_force``); a stream
keeps the same answer as it goes (``TablesInForce``)."""

from __future__ import annotations

from typing import Any

from events.contract.codec import decode_many
from events.replay.state import TablesInForce, opened_in_force
from tests.audit.builder import Table, encode_lines


def _opened(table: Table, ruleset: str) -> Any:
    table.open(ruleset=ruleset)
    (ev,) = decode_many(encode_lines(table.events[-1:]))
    return ev


def test_the_table_opened_in_force_is_the_tables_last_before_the_hand() -> None:
    t1, t2 = Table("T1"), Table("T2", seq=5)
    first, other = _opened(t1, "charlevoix-2011"), _opened(t2, "charlevoix-2011")
    t1.seq = 10
    second = _opened(t1, "charlevoix-2011")
    later = [second, other, first]  # any order
    assert opened_in_force(later, "T1", 5) is first
    assert opened_in_force(later, "T1", 11) is second
    assert opened_in_force(later, "T1", 10) is first  # (its own seq: not before)
    assert opened_in_force(later, "T2", 5) is None and opened_in_force([], "T1", 3) is None
    tables = TablesInForce()
    for ev in (first, other, second):
        tables.opened(ev)
    assert tables["T1"].ruleset_name == "charlevoix-2011" and set(tables) == {"T1", "T2"}
