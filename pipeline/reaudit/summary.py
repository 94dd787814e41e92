"""What ``uth reaudit`` prints: the re-audit's outputs read back (by DuckDB, whichever
engine wrote them) as the report ``uth audit`` prints for the source log."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from events.findings import SEQUENCE_CONFLICT, Finding
from pipeline.hands.findings import TIME_FORMAT


@dataclass
class ReauditReport:
    """The fields of ``uth audit``'s report that an archive has (it holds only valid
    events, once each: the log's rejected and redelivered inputs are not in it)."""

    findings: list[Finding]
    summary: dict[str, int]
    disputes: list[Any] = field(default_factory=list)
    rejected: list[Any] = field(default_factory=list)


def parquet(root: Path, name: str) -> str:
    """SQL reading output table ``name`` (``out/output=<name>/``; its partition columns
    typed)."""
    from pipeline.reaudit.groups import partition_keys

    where = str(root / f"output={name}" / "**" / "*.parquet").replace("'", "''")
    keys = partition_keys(name)
    if not keys:
        return f"read_parquet('{where}', union_by_name = true)"
    table = ", 'table_id': VARCHAR" if "table_id" in keys else ""
    return (f"read_parquet('{where}', hive_partitioning = true, union_by_name = true, "
            f"hive_types = {{'gaming_day': DATE{table}}})")


def read_report(archive: str | Path, out: str | Path) -> ReauditReport:
    root = Path(out)
    con = duckdb.connect(":memory:")
    try:
        events = _count(con, Path(archive), "archive")
        hands = _count(con, root, "hands")
        rows = [] if not _has(root, "audit_findings") else con.execute(f"""
            SELECT kind, hand_id, table_id, dealer_id, seat, spot, expected, recorded, detail,
                   event_id, strftime(occurred_at, '{TIME_FORMAT}'), position
            FROM {parquet(root, "audit_findings")}""").fetchall()
    finally:
        con.close()
    findings = sorted((Finding(*row) for row in rows), key=Finding.sort_key)
    # a conflict's loser is in the archive (as received) but, as in `uth audit`, not counted
    losers = sum(1 for f in findings if f.kind == SEQUENCE_CONFLICT)
    summary = {"events": events - losers, "hands": hands, "findings": len(findings),
               "rejected_events": 0, "duplicates_ignored": 0}
    return ReauditReport(findings, summary)


def _has(root: Path, name: str) -> bool:
    return any((root / f"output={name}").glob("**/*.parquet"))


def _count(con: duckdb.DuckDBPyConnection, root: Path, name: str) -> int:
    if name == "archive":
        if not any(root.glob("**/*.parquet")):
            return 0
        where = str(root / "**" / "*.parquet").replace("'", "''")
        return int(con.execute(f"SELECT count(*) FROM read_parquet('{where}')")
                   .fetchall()[0][0])
    if not _has(root, name):
        return 0
    return int(con.execute(f"SELECT count(*) FROM {parquet(root, name)}").fetchall()[0][0])
