"""Checks on ``events``: no duplicate events; no sequence gaps, no sequence conflicts
(warnings). Plain queries, each on a warehouse path or an open connection; the Dagster
asset checks (:mod:`pipeline.checks`) run them."""


from pathlib import Path
from typing import Any

from pipeline.warehouse import Connection, connected

KEYS = {"hands": "hand_id", "wagers": "hand_id, seat, spot"}


def duplicate_events(source: str | Path | Connection,
                     scoped: bool = False) -> tuple[bool, dict[str, Any]]:
    """No event_id twice in ``events`` (nor a hand, nor a wager, twice in theirs).
    ``scoped``: only the load's events and hands (``scope_events``, ``scope_hands``:
    :func:`pipeline.checks.evaluate`), each looked up among the stored ones."""
    with connected(source) as con:
        if scoped:
            total = con.execute("SELECT count(*) FROM events").fetchall()[0][0]
            # a copy of an event has its time, so its gaming day: the days' row groups
            # only (the days follow the order rows were stored in)
            found, distinct = con.execute(
                "SELECT count(*), count(DISTINCT event_id) FROM events "
                "WHERE (gaming_day IN (SELECT gaming_day FROM scope_events) "
                "OR gaming_day IS NULL) AND event_id IN (SELECT event_id FROM scope_events)"
            ).fetchall()[0]
            duplicates = found - distinct
        else:
            total, distinct = con.execute(
                "SELECT count(*), count(DISTINCT event_id) FROM events").fetchall()[0]
            duplicates = total - distinct
        meta: dict[str, Any] = {"events": total, "duplicates": duplicates}
        among = " WHERE hand_id IN (SELECT hand_id FROM scope_hands)" if scoped else ""
        for table, key in KEYS.items():
            meta[f"duplicate_{table}"] = con.execute(
                f"SELECT count(*) FROM (SELECT {key} FROM {table}{among} GROUP BY ALL "
                "HAVING count(*) > 1)").fetchall()[0][0]
    return duplicates == 0 and not any(meta[f"duplicate_{t}"] for t in KEYS), meta


def sequence_gaps(source: str | Path | Connection,
                  scoped: bool = False) -> tuple[bool, dict[str, Any]]:
    """Gaps as the audit step found them (from all events of each table); every table's,
    scoped or not (``audit_findings`` holds findings only: a small table)."""
    with connected(source) as con:
        gaps, tables = con.execute(
            "SELECT count(*), count(DISTINCT table_id) FROM audit_findings "
            "WHERE kind = 'sequence_gap'").fetchall()[0]
        sample = con.execute("SELECT detail FROM audit_findings WHERE kind = 'sequence_gap' "
                             "ORDER BY table_id, occurred_at LIMIT 10").fetchall()
    meta: dict[str, Any] = {"gaps": gaps, "tables_with_gaps": tables}
    if sample:
        meta["first_gaps"] = "\n".join(r[0] for r in sample)
    return gaps == 0, meta


def sequence_conflicts(source: str | Path | Connection,
                       scoped: bool = False) -> tuple[bool, dict[str, Any]]:
    """Events that reuse a seq of their table, as the audit step found them. Many mean two
    different floors were loaded into one warehouse."""
    with connected(source) as con:
        conflicts, tables = con.execute(
            "SELECT count(*), count(DISTINCT table_id) FROM audit_findings "
            "WHERE kind = 'sequence_conflict'").fetchall()[0]
    return conflicts == 0, {"conflicts": conflicts, "tables_with_conflicts": tables}
