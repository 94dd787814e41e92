"""Publish a table's events through a local outbox: on disk first, forwarded later.

A table system (dealer terminal, shoe, bet recognition) calls :meth:`TablePublisher.publish`
for each event. The event is validated against the contract and appended to a local SQLite
log (the *outbox*) in one durable transaction before the call returns, so a network outage
at the table loses nothing. A separate forwarder moves the outbox to the floor's log with
its own stored position, so nothing is sent twice either::

    uth ingest --source sqlite:///outbox.db --sink kafka://broker:9092 --follow

Copy this into the table system (only ``uth-floor``'s ``events`` package is needed)::

    from events.logs.publisher import TablePublisher

    with TablePublisher("/var/lib/table/outbox.db") as pub:
        pub.publish({"type": "TableOpened", "table_id": "T7", "hand_id": None,
                     "payload": {"ruleset": "charlevoix-2011", "min_bet": 500,
                                 "max_bet": 50000, "seats": 7, "currency": "CAD"}})
        pub.publish({"type": "HandStarted", "table_id": "T7", "hand_id": "T7-0001",
                     "payload": {"dealer_id": "D12", "seats": [1, 3]}})

What the publisher fills in when a dict leaves it out (a table that owns these values
passes them and they are kept): ``event_id`` (a random UUID), ``occurred_at`` (now, UTC),
``schema_version`` (1) and ``seq`` (the table's next number, kept in the outbox). Calling
``publish`` again with an ``event_id`` already in the outbox is a no-op that returns the
stored event (safe to retry after a crash). A ``seq`` the table already used for another
event raises :class:`PublishError`, as does any event the contract rejects (the message
says which field and why). One ``TablePublisher`` per process; several processes may share
an outbox (each publish is one SQLite write transaction).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from events.contract.codec import Rejection, decode_line
from events.contract.privacy import PseudonymKeyMissing, pseudonymize_payload
from events.contract.schemas import SCHEMA_VERSION, Event, encode_event
from events.logs.sqlite import SqliteLog


class PublishError(ValueError):
    """The event was not published (nothing of its batch is in the outbox)."""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class TablePublisher:
    """Validate and append events to a durable local outbox (a SQLite event log)."""

    def __init__(self, outbox: str | Path = "outbox.db") -> None:
        text = str(outbox)
        self.url = text if text.startswith("sqlite:") else f"sqlite:///{text}"
        self.log = SqliteLog(self.url)

    def publish(self, event: Event | Mapping[str, Any]) -> Event:
        """Append one event (durable on return) and return it as stored."""
        return self.publish_many([event])[0]

    def publish_many(self, events: Iterable[Event | Mapping[str, Any]]) -> list[Event]:
        """Append events in order in one transaction: all are stored, or none."""
        drafts = [self._draft(e) for e in events]
        if not drafts:
            return []
        out: list[Event] = []
        with self.log.transaction() as conn:
            stored = self._stored(conn, [d["event_id"] for d in drafts])
            next_seq: dict[str, int] = {}
            rows: list[tuple[str, bytes, str | None]] = []
            for draft in drafts:
                table_id = draft.get("table_id")
                if not isinstance(table_id, str):
                    raise PublishError(f"table_id must be a string, got {table_id!r}")
                if draft["event_id"] in stored:
                    out.append(stored[draft["event_id"]])
                    continue
                if table_id not in next_seq:
                    next_seq[table_id] = self._next_seq(conn, table_id)
                expected = next_seq[table_id]
                seq = draft.get("seq")
                if seq is None:
                    draft["seq"] = seq = expected
                elif isinstance(seq, int) and seq < expected:
                    raise PublishError(f"{table_id} seq {seq} is already used (next is "
                                       f"{expected}); a new event needs a new seq")
                data = msgspec.json.encode(draft)
                event = decode_line(data, f"{draft.get('type')} seq {seq}")
                if isinstance(event, Rejection):
                    raise PublishError(str(event))
                next_seq[table_id] = event.seq + 1
                stored[event.event_id] = event
                rows.append((table_id, encode_event(event), event.event_id))
                out.append(event)
            SqliteLog.insert(conn, rows)
            conn.executemany(
                "INSERT INTO table_seq(table_id, next_seq) VALUES (?, ?) ON CONFLICT(table_id) "
                "DO UPDATE SET next_seq = max(next_seq, excluded.next_seq)",
                list(next_seq.items()))
        return out

    def next_seq(self, table_id: str) -> int:
        """The ``seq`` the next event of ``table_id`` will get."""
        return self._next_seq(self.log.connection, table_id)

    @staticmethod
    def _next_seq(conn: Any, table_id: str) -> int:
        row = conn.execute("SELECT next_seq FROM table_seq WHERE table_id = ?",
                           (table_id,)).fetchone()
        if row:
            return int(row[0])
        # a table this publisher never numbered: continue after what other tools stored
        # (the result is kept in table_seq by the publish that asked)
        row = conn.execute(
            "SELECT max(json_extract(CAST(value AS TEXT), '$.seq')) FROM events "
            "WHERE key = ? AND json_valid(CAST(value AS TEXT))", (table_id,)).fetchone()
        return int(row[0]) + 1 if row and isinstance(row[0], int) else 0

    @staticmethod
    def _stored(conn: Any, event_ids: list[str]) -> dict[str, Event]:
        found: dict[str, Event] = {}
        for i in range(0, len(event_ids), 500):
            chunk = event_ids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for event_id, value in conn.execute(
                    f"SELECT event_id, value FROM events WHERE event_id IN ({marks})", chunk):
                event = decode_line(bytes(value), f"outbox {event_id}")
                if not isinstance(event, Rejection):
                    found[event_id] = event
        return found

    @staticmethod
    def _draft(event: Event | Mapping[str, Any]) -> dict[str, Any]:
        if isinstance(event, Mapping):
            draft = dict(event)
        elif isinstance(event, msgspec.Struct):
            draft = msgspec.to_builtins(event)
        else:
            raise PublishError(f"publish takes an event or a dict, not {type(event).__name__}")
        if not draft.get("event_id"):
            draft["event_id"] = str(uuid.uuid4())
        draft.setdefault("occurred_at", _now())
        draft.setdefault("schema_version", SCHEMA_VERSION)
        draft.setdefault("hand_id", None)
        draft.setdefault("payload", {})
        if isinstance(draft["payload"], dict):  # a player is stored only as a pseudonym
            try:
                draft["payload"] = pseudonymize_payload(draft["payload"])
            except PseudonymKeyMissing as exc:
                raise PublishError(str(exc)) from exc
        return draft

    def close(self) -> None:
        self.log.close()

    def __enter__(self) -> TablePublisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
