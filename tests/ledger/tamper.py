"""Someone with write access to a store changes one sealed event: table T1's seq 21 (seat
1's blind paid 1,500; the "theft" raises it to 15,000), or swaps it with seq 22."""

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


def tamper_lines(lines: list[bytes], kind: str) -> list[bytes]:
    return _mutate(lines, kind, _line_view, _line_change, lambda a, b: (b, a))


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


def _row_change(row: dict[str, Any], new_id: str | None) -> dict[str, Any]:
    payload = json.loads(row["payload"])
    payload["amount"] = 15000
    return {**row, "payload": json.dumps(payload, separators=(",", ":")),
            **({"event_id": new_id} if new_id else {})}


def _row_swap(a: dict[str, Any], b: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each event takes the other's place in the log (its position)."""
    return {**a, "position": b["position"]}, {**b, "position": a["position"]}


def tamper_rows(rows: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return _mutate(rows, kind, lambda r: r, _row_change, _row_swap)


def tamper_warehouse(path: Path, kind: str) -> None:
    con = duckdb.connect(str(path))
    try:
        table = con.sql("SELECT * FROM events").to_arrow_table()
        rows = tamper_rows(table.to_pylist(), kind)
        changed = pa.Table.from_pylist(rows, schema=table.schema)
        con.execute("DELETE FROM events")
        con.register("changed", changed)
        con.execute("INSERT INTO events SELECT * FROM changed")
    finally:
        con.close()


def tamper_archive(root: Path, kind: str) -> None:
    for path in sorted(root.glob(f"gaming_day=*/table_id={TABLE}/*.parquet")):
        table = pq.read_table(path)
        rows = table.to_pylist()
        if any(r["seq"] == SEQ for r in rows):
            rows = tamper_rows([{**r, "table_id": TABLE} for r in rows], kind)
            rows = [{k: v for k, v in r.items() if k != "table_id"} for r in rows]
            pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
            return
    raise AssertionError("the archive holds no partition with the target event")
