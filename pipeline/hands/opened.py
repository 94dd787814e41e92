"""The ``TableOpened`` in force, for SQL callers: one text.

A hand plays under its table's last ``TableOpened`` before the hand's first event (by
``seq``), a sequence conflict's loser left out (it is no event of the table's); Python
callers ask :func:`events.replay.state.opened_in_force` the same question.
"""

from __future__ import annotations

from pipeline.warehouse import CONFLICT_LOSERS

# Every TableOpened that counts, as a relation: an ``ASOF LEFT JOIN OPENED_EVENTS o ON
# x.table_id = o.table_id AND x.first_seq > o.seq`` picks the one in force at ``first_seq``
OPENED_EVENTS = ("(SELECT * FROM events WHERE type = 'TableOpened' "
                 f"AND event_id NOT IN {CONFLICT_LOSERS})")

