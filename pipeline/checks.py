"""The warehouse's checks, as plain data: what each checks, on which asset, and how bad a
failure is. Dagster runs them as asset checks after a load (one step, one read-only
connection: :data:`pipeline.definitions.CHECKS`); ``uth load`` runs the same queries
itself when the log has nothing new and no Dagster run is needed.

No Dagster here: this module is imported on the quick path of ``uth load``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.analytics.checks import hold_outliers
from pipeline.audit.checks import findings_reported, payouts_balance
from pipeline.ingest.checks import duplicate_events, sequence_conflicts, sequence_gaps
from pipeline.warehouse import Connection, connected

Query = Callable[[str | Path | Connection, bool], tuple[bool, dict[str, Any]]]


@dataclass(frozen=True)
class Check:
    name: str
    asset: str
    query: Query
    description: str
    warn_only: bool = False  # a failure is a warning (WARN), not an error
    additional_deps: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    name: str
    asset: str
    passed: bool
    warn_only: bool
    metadata: dict[str, Any]


CHECK_LIST: tuple[Check, ...] = (
    Check("no_duplicate_events", "events", duplicate_events,
          "Every event_id appears once in events (and every hand and wager once in theirs).",
          additional_deps=("hands", "wagers")),
    Check("no_sequence_gaps", "events", sequence_gaps,
          "No table is missing seq numbers (lost events); a warning.", warn_only=True,
          additional_deps=("audit_findings",)),
    Check("no_sequence_conflicts", "events", sequence_conflicts,
          "No event reuses a seq another event of its table has (two floors in one "
          "warehouse, or a table system's fault); a warning.", warn_only=True,
          additional_deps=("audit_findings",)),
    Check("recorded_payouts_balance", "wagers", payouts_balance,
          "Recorded payouts balance: events = wagers = minus house win.",
          additional_deps=("table_hold_daily",)),
    Check("findings_are_reported", "audit_findings", findings_reported,
          "Every touched hand audited; every wrong payout has a finding."),
    Check("hold_within_control_limits", "table_hold_daily", hold_outliers,
          "Each table-day's hold inside its 95% control limits; a warning.", warn_only=True),
)


def evaluate(source: str | Path | Connection, names: Iterable[str] | None = None,
             since: int | None = None) -> list[Outcome]:
    """Run the checks (those named, default all) on one connection, in list order.

    ``since``: only what a load touched, the events it appended (``events`` only grows:
    those with a ``rowid`` of at least ``since``, the count before the load), their hands
    and their table-days, each looked up among the stored rows; the checks of small tables
    (findings, the daily hold) stay whole. None: every row (a load with nothing new, a
    load after a killed one, the Dagster asset checks)."""
    wanted = None if names is None else set(names)
    out: list[Outcome] = []
    with connected(source) as con:
        if since is not None:
            _scope(con, since)
        try:
            for check in CHECK_LIST:
                if wanted is not None and check.name not in wanted:
                    continue
                passed, meta = check.query(con, since is not None)
                out.append(Outcome(check.name, check.asset, passed, check.warn_only, meta))
        finally:
            if since is not None:
                con.execute("DROP TABLE IF EXISTS scope_events; DROP TABLE IF EXISTS "
                            "scope_hands; DROP TABLE IF EXISTS scope_days")
    return out


def _scope(con: Connection, since: int) -> None:
    con.execute(f"""CREATE OR REPLACE TEMP TABLE scope_events AS
            SELECT event_id, hand_id, table_id, gaming_day FROM events
            WHERE rowid >= {int(since)};
        CREATE OR REPLACE TEMP TABLE scope_hands AS
            SELECT DISTINCT hand_id FROM scope_events WHERE hand_id IS NOT NULL;
        CREATE OR REPLACE TEMP TABLE scope_days AS  -- and the days of the hands (a late
            SELECT DISTINCT table_id, gaming_day FROM (  -- dispute's is another)
                SELECT table_id, gaming_day FROM scope_events UNION ALL
                SELECT table_id, gaming_day FROM hands
                WHERE hand_id IN (SELECT hand_id FROM scope_hands))""")
