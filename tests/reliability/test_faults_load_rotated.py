"""Issue 30 (4), for ``uth load``: a JSON Lines source rotated or replaced at its path since
the warehouse stored its position is recognised as ``uth ingest`` recognises it (the same
code: identity, size, the bytes before the position), said, and loaded from its first
line; a source that only grew resumes where the last load stopped, without a word."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.warehouse import reading
from tests.logs.factory import encode, table_events


def _lines(table: str, hands: int) -> bytes:
    return b"".join(encode(e) + b"\n" for e in table_events(table, hands))


def _events(warehouse: Path) -> dict[str, int]:
    with reading(warehouse) as con:
        return dict(con.execute(
            "SELECT table_id, count(*) FROM events GROUP BY table_id").fetchall())


def _load(src: Path, warehouse: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    assert main(["load", "--source", str(src), "--warehouse", str(warehouse), "-q"]) == 0
    out, err = capsys.readouterr()
    return out, err


@pytest.mark.parametrize("how", ["shorter-in-place", "longer-renamed"])
def test_a_replaced_source_is_loaded_from_its_start_and_said(
        how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], ledger: Any) -> None:
    src = tmp_path / "floor.jsonl"
    warehouse = tmp_path / "warehouse.duckdb"
    src.write_bytes(_lines("T1", 3))  # 1 + 3 x 15 events
    _, err = _load(src, warehouse, capsys)
    assert "rotated or replaced" not in err
    assert _events(warehouse) == {"T1": 46}
    if how == "shorter-in-place":
        src.write_bytes(_lines("T2", 1))  # 16 lines of another table, in the same file
        new = {"T2": 16}
    else:
        os.rename(src, tmp_path / "floor.jsonl.1")
        (tmp_path / "next.jsonl").write_bytes(_lines("T3", 5))  # 76 lines
        os.rename(tmp_path / "next.jsonl", src)
        new = {"T3": 76}
    out, err = _load(src, warehouse, capsys)
    assert "nothing new" not in out
    assert _events(warehouse) == {"T1": 46, **new}  # none of the new file skipped
    assert "rotated or replaced" in err and "line 47" in err and str(src) in err
    assert "read from its first line" in err
    sent = sum(new.values())
    ledger.record("fault", "a source replaced at its path [uth load]", sent=sent,
                  processed=sum(_events(warehouse).values()) - 46)
    # the new file, grown: the next load goes on where this one stopped, and says nothing
    with src.open("ab") as f:
        f.write(_lines("T4", 1))
    out, err = _load(src, warehouse, capsys)
    assert "rotated or replaced" not in err
    assert _events(warehouse) == {"T1": 46, **new, "T4": 16}
    assert "0 duplicates ignored" in out
