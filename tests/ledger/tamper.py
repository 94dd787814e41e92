"""Someone with write access to a store changes one sealed event: table T1's seq 21 (seat
1's blind paid 1,500; the "theft" raises it to 15,000), or swaps its seq with seq 22's
(each event then claims the other's place in the table's order).

In the warehouse and the archive the tamperer is thorough: the event's stored bytes (the
ledger's leaf) are changed with its columns, the way a careful forger would; ``columns_only``
changes the columns the dashboards read and leaves the bytes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

KINDS = ("altered", "deleted", "inserted", "forged", "moved")
TABLE, SEQ, OTHER = "T1", 21, 22


def _is(row: dict[str, Any], seq: int) -> bool:
    return row.get("table_id") == TABLE and row.get("seq") == seq


def _mutate(rows: list[Any], kind: str, view: Callable[[Any], dict[str, Any]],
            change: Callable[[Any, str | None], Any], swap: Callable[[Any, Any], tuple[Any, Any]]
            ) -> list[Any]:
    """The rows (store order) with ``kind`` done to the target; ``view(row)`` reads a row's
    envelope, ``change(row, new_id)`` is the row with the blind's amount raised (and a new
    event id when given), ``swap(a, b)`` the two rows each in the other's place."""
    at = next(i for i, r in enumerate(rows) if _is(view(r), SEQ))
    out = list(rows)
    if kind == "altered":
        out[at] = change(rows[at], None)
    elif kind == "deleted":
        del out[at]
    elif kind == "inserted":
        out.insert(at + 1, change(rows[at], "00000000-0000-0000-0000-00000000beef"))
    elif kind == "forged":
        out[at] = change(rows[at], "00000000-0000-0000-0000-00000000f00d")
    elif kind == "moved":
        other = next(i for i, r in enumerate(rows) if _is(view(r), OTHER))
        out[at], out[other] = swap(rows[at], rows[other])
    else:
        raise ValueError(kind)
    return out


def _line_view(line: bytes) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _line_change(line: bytes, new_id: str | None) -> bytes:
    event = json.loads(line)
    event["payload"]["amount"] = 15000
    if new_id:
        event["event_id"] = new_id
    return json.dumps(event, separators=(",", ":")).encode()


def _with_seq(line: bytes, seq: int) -> bytes:
    event = json.loads(line)
    event["seq"] = seq
    return json.dumps(event, separators=(",", ":")).encode()


def _line_swap(a: bytes, b: bytes) -> tuple[bytes, bytes]:
    """Each event takes the other's seq (and place in the log)."""
    return (_with_seq(b, json.loads(a)["seq"]), _with_seq(a, json.loads(b)["seq"]))


def tamper_lines(lines: list[bytes], kind: str) -> list[bytes]:
    return _mutate(lines, kind, _line_view, _line_change, _line_swap)


def tamper_jsonl(path: Path, kind: str) -> None:
    lines = path.read_bytes().splitlines()
    path.write_bytes(b"".join(line + b"\n" for line in tamper_lines(lines, kind)))


def tamper_sqlite(path: Path, kind: str) -> None:
    """Rewrites the log's events table (row ids renumbered from 1, as a copy would)."""
    conn = sqlite3.connect(path, isolation_level=None)
    rows = conn.execute("SELECT key, value FROM events ORDER BY pos").fetchall()
    lines = tamper_lines([bytes(v) for _, v in rows], kind)
    conn.execute("BEGIN")
    conn.execute("DELETE FROM events")
    conn.executemany("INSERT INTO events(pos, key, value) VALUES (?, ?, ?)",
                     [(i, TABLE, line) for i, line in enumerate(lines, 1)])
    conn.execute("COMMIT")
    conn.close()


def _row_change(row: dict[str, Any], new_id: str | None, *, bytes_too: bool = True
                ) -> dict[str, Any]:
    payload = json.loads(row["payload"])
    payload["amount"] = 15000
    out = {**row, "payload": json.dumps(payload, separators=(",", ":")),
           **({"event_id": new_id} if new_id else {})}
    if bytes_too:
        out["stored"] = _line_change(row["stored"], new_id)
    return out


def _row_swap(a: dict[str, Any], b: dict[str, Any], *, bytes_too: bool = True
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each event takes the other's seq and place in the log (its position)."""
    first = {**a, "seq": b["seq"], "position": b["position"]}
    second = {**b, "seq": a["seq"], "position": a["position"]}
    if bytes_too:
        first["stored"], second["stored"] = (_with_seq(a["stored"], b["seq"]),
                                             _with_seq(b["stored"], a["seq"]))
    return first, second


def tamper_rows(rows: list[dict[str, Any]], kind: str, *, bytes_too: bool = True
                ) -> list[dict[str, Any]]:
    return _mutate(rows, kind, lambda r: r,
                   lambda r, new_id: _row_change(r, new_id, bytes_too=bytes_too),
                   lambda a, b: _row_swap(a, b, bytes_too=bytes_too))


def tamper_warehouse(path: Path, kind: str, *, bytes_too: bool = True) -> None:
    con = duckdb.connect(str(path))
    try:
        table = con.sql("SELECT e.*, b.stored FROM events e LEFT JOIN event_bytes b "
                        "ON b.event_id = e.event_id ORDER BY e.position").to_arrow_table()
        rows = tamper_rows(table.to_pylist(), kind, bytes_too=bytes_too)
        changed = pa.Table.from_pylist(rows, schema=table.schema)
        con.execute("DELETE FROM events")
        con.execute("DELETE FROM event_bytes")
        con.register("changed", changed)
        con.execute("INSERT INTO events SELECT * EXCLUDE (stored) FROM changed")
        con.execute("INSERT INTO event_bytes SELECT event_id, stored FROM changed")
    finally:
        con.close()


def tamper_archive(root: Path, kind: str, *, bytes_too: bool = True) -> None:
    for path in sorted(root.glob(f"gaming_day=*/table_id={TABLE}/*.parquet")):
        table = pq.read_table(path)
        rows = table.to_pylist()
        if any(r["seq"] == SEQ for r in rows):
            rows = tamper_rows([{**r, "table_id": TABLE} for r in rows], kind,
                               bytes_too=bytes_too)
            rows = [{k: v for k, v in r.items() if k != "table_id"} for r in rows]
            pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
            return
    raise AssertionError("the archive holds no partition with the target event")
