"""A re-audit's outputs beside the warehouse: the ``hands``, ``wagers`` and
``audit_findings`` rows of a sample of (table, gaming day) partitions, compared row for row
(what the ``reaudit_archive`` job's asset check runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from pipeline.reaudit.groups import OUTPUTS
from pipeline.reaudit.summary import parquet


def compare_sample(out: str | Path, warehouse: str | Path,
                   sample: int = 5) -> tuple[bool, dict[str, Any]]:
    """(all equal, what was compared and how many rows differ per table) over ``sample``
    (table, gaming day) keys of the warehouse's hands, chosen by a hash of the key (the same
    keys every time, spread over the floor)."""
    root = Path(out)
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        keys = con.execute("""SELECT table_id, gaming_day FROM
            (SELECT DISTINCT table_id, gaming_day FROM hands WHERE gaming_day IS NOT NULL)
            ORDER BY hash(table_id || CAST(gaming_day AS VARCHAR)) LIMIT ?""",
                           [sample]).fetchall()
        con.execute("CREATE TEMP TABLE sample_keys (table_id VARCHAR, gaming_day DATE)")
        con.executemany("INSERT INTO sample_keys VALUES (?, ?)", keys)
        differing: dict[str, int] = {}
        for name in OUTPUTS:
            columns = ", ".join(f'"{c}"' for c, in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "AND table_schema = 'main' ORDER BY ordinal_position", [name]).fetchall())
            mine = (f"(SELECT {columns} FROM {name} "
                    "SEMI JOIN sample_keys USING (table_id, gaming_day))")
            theirs = (f"(SELECT {columns} FROM {parquet(root, name)} "
                      "SEMI JOIN sample_keys USING (table_id, gaming_day))")
            differing[name] = int(con.execute(
                f"SELECT count(*) FROM (({mine} EXCEPT ALL {theirs}) "
                f"UNION ALL ({theirs} EXCEPT ALL {mine}))").fetchall()[0][0])
    finally:
        con.close()
    meta: dict[str, Any] = {"sampled_keys": len(keys),
                            "keys": ", ".join(f"{t} {d}" for t, d in keys)}
    meta.update({f"differing_{name}": n for name, n in differing.items()})
    return bool(keys) and not any(differing.values()), meta
