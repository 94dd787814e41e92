"""A load's steps as plain functions, in the asset graph's order, on one write connection.

``uth load`` runs :func:`run_load` in-process: no Dagster run (whose start, per-step
bookkeeping and a connection per asset and check cost seconds a load, whatever it added);
the Dagster assets (:mod:`pipeline.definitions`, for ``dg dev``, the sensor and the daily
rebuild) call the same step functions, one each, so the two report the same metadata.

:func:`run_load` holds the load lock (one load at a time) and one write connection
(:mod:`pipeline.write_session`: readers are let in between transactions) for the whole
load. The steps, each committing its own transactions as before: ``ingest_events`` (the
log's new records), ``seals`` (seal the log, copy its seals), ``audit_hands``, the rollups
(``table_hold_daily``, ``trips_rollup``, ``dealer_performance``), ``players``,
``events_archive`` (the new events appended to the Parquet archive) and the checks
(``warehouse_checks``). The first step that fails stops the load (every later step
depends on it or is redone by the next load from its queue); the checks run only after a
load whose steps all succeeded.

No Dagster here: this module is imported by ``uth load``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from events.logs import EventLog
from pipeline.checks import Outcome

ROLLUP_STEPS = {"table_hold_daily": "table_hold_daily", "trips_rollup": "trips_performance",
                "dealer_performance": "dealer_performance"}


@dataclass(frozen=True)
class LoadSettings:
    """What one load reads, where it writes, and how (``uth load``'s options)."""

    source: str
    warehouse: str
    day_start_minutes: int = 360
    archive: str = ""  # default: <warehouse stem>_archive beside it
    batch_size: int = 100_000
    hands_per_chunk: int = 5_000
    audit_workers: int = 0
    seal_key: str = ""
    seal_past_gaps: bool = False
    full_rebuild: bool = False  # every rollup key, not only those touched
    archive_after: float = 0.0  # archive only when the last archive is this old (s)
    # a follow's knowledge of the stored events, kept from load to load
    # (:class:`pipeline.ingest.steps.Kept`); None: read afresh by each load
    kept: Any = field(default=None, compare=False)

    @property
    def archive_path(self) -> Path:
        if self.archive:
            return Path(self.archive)
        p = Path(self.warehouse)
        return p.with_name(f"{p.stem}_archive")


@dataclass
class LoadResult:
    """Each step's metadata (by asset), the checks' outcomes, and the step that failed."""

    meta: dict[str, dict[str, Any]] = field(default_factory=dict)
    checks: list[Outcome] = field(default_factory=list)
    failed: str = ""  # the step's name
    error: BaseException | None = None
    seconds: dict[str, float] = field(default_factory=dict)  # each step's


def ingest(source: str | EventLog, warehouse: str | Path, batch_size: int,
           day_start_minutes: int, kept: Any = None) -> dict[str, dict[str, Any]]:
    """The log's new records into ``events`` (``dead_letters``, ``load_positions``)."""
    from pipeline.ingest.steps import load_events

    stats = load_events(source, warehouse, batch_size=batch_size,
                        day_start_minutes=day_start_minutes, kept=kept)
    events: dict[str, Any] = {
        "records_read": stats.records, "new_events": stats.new_events,
        "duplicates": stats.duplicates, "rejected": stats.rejected,
        "hands_audited": stats.hands_audited, "hand_findings": stats.hand_findings}
    if stats.note:
        events["source_note"] = stats.note
    return {"events": events, "dead_letters": {"rejected": stats.rejected},
            "load_positions": {"source": source if isinstance(source, str)
                               else source.describe()}}


def seal(source: str | EventLog, warehouse: str | Path, seal_key: str, past_gaps: bool,
         say: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Seal the log when a key is given (and append to ``UTH_SEAL_WITNESS``), then copy
    the log's seals into the warehouse. The key is read to sign and goes nowhere else."""
    import os

    from events.ledger.keys import load_private
    from events.ledger.logs import seal_log
    from events.ledger.witness import append_witness
    from events.logs import LogError, open_log
    from pipeline.ledger.store import copy_log_seals

    sealed = copied = 0
    log = open_log(source, create=False, growing=True) if isinstance(source, str) else source
    try:
        if seal_key:
            made = seal_log(log, load_private(seal_key), past_gaps=past_gaps)
            sealed = 1
            say(f"sealed {log.describe()}: seal {made.parsed().number}")
            witness = os.environ.get("UTH_SEAL_WITNESS", "")
            if witness:
                append_witness(witness, made)
        try:
            copied = copy_log_seals(log, warehouse)
        except LogError as exc:
            say(f"seals not copied: {exc}")
    finally:
        if isinstance(source, str):
            log.close()
    return {"sealed": sealed, "copied": copied}


def audit(warehouse: str | Path, day_start_minutes: int, hands_per_chunk: int,
          workers: int) -> dict[str, dict[str, Any]]:
    """The queued hands audited again from all their events; the sequence findings."""
    from pipeline.hands.steps import update_hands

    return audit_metadata(update_hands(warehouse, day_start_minutes, hands_per_chunk, workers))


def audit_metadata(stats: Any) -> dict[str, dict[str, Any]]:
    """What the audit step did (:class:`pipeline.hands.steps.HandStats`), by asset."""
    return {"hands": {"hands_audited": stats.hands, "hands_audited_again": stats.again,
                      "events_read": stats.events},
            "wagers": {"hands_audited": stats.hands},
            "audit_findings": {"hand_findings": stats.findings,
                               "tables_sequence_checked": stats.tables,
                               "sequence_findings": stats.sequence_findings}}


def rollup(warehouse: str | Path, name: str, full: bool) -> int:
    """One rollup's queued keys (every key with ``full``) rebuilt; how many."""
    from pipeline.analytics.steps import update_rollup

    return update_rollup(warehouse, name, full)


def players(warehouse: str | Path, day_start_minutes: int) -> dict[str, int]:
    """The hands ended since the last load scored; the player tables from the sums."""
    from pipeline.players.transforms import update_players
    from pipeline.warehouse import writing

    with writing(warehouse) as con:
        return update_players(con, day_start_minutes)


def archive(warehouse: str | Path, root: Path) -> dict[str, Any]:
    """The events not archived yet appended to the Parquet archive, and the seals."""
    from pipeline.ingest.steps import archive_pending
    from pipeline.ledger.store import write_archive_seals

    partitions = archive_pending(warehouse, root)
    sealed = write_archive_seals(warehouse, root)
    return {"partitions_written": partitions, "seals_written": sealed, "path": str(root)}


def checks(warehouse: str | Path, names: set[str] | None = None,
           since: int | None = None) -> list[Outcome]:
    """The warehouse's checks: of what the load touched (the events from ``since`` on),
    or, with None, of every row."""
    from pipeline.checks import evaluate

    return evaluate(warehouse, names, since)


def scope_start(warehouse: str | Path, settings: LoadSettings) -> int | None:
    """Where this load's events will start in ``events`` (how many are stored), when its
    checks may look at them alone: nothing was left waiting by an earlier load (a killed
    one), and the load rebuilds nothing whole. None: its checks look at every row."""
    from pipeline.warehouse import PENDING, reading

    if settings.full_rebuild:
        return None
    with reading(warehouse) as con:
        waiting = con.execute(" UNION ALL ".join(
            f"SELECT count(*) FROM pending.{name}" for name in PENDING
            if name not in ("archive", "in_play"))).fetchall()
        if any(n for (n,) in waiting):
            return None
        return int(con.execute("SELECT count(*) FROM events").fetchall()[0][0])


def _archive_due(settings: LoadSettings) -> bool:
    """Whether this load archives (and copies the log's seals): always, but in a follow
    that archives on a slower cadence (the queued events wait in the warehouse, nothing is
    lost; the log's seals wait in the log), and always with a seal key (the seal covers
    what the load loaded, and the archive's seals beside the archived events)."""
    if settings.archive_after <= 0 or settings.seal_key:
        return True
    stamp = Path(f"{settings.warehouse}.archived")
    try:
        return time.time() - stamp.stat().st_mtime >= settings.archive_after
    except FileNotFoundError:
        return True


def run_load(settings: LoadSettings, say: Callable[[str], None] = lambda _: None) -> LoadResult:
    """Every step of a load, in order, on one write connection; see the module."""
    from events.logs import open_log

    s, wh = settings, settings.warehouse
    result = LoadResult()
    logs: list[EventLog] = []  # the log, opened once for the ingest and the seals

    def log() -> EventLog:
        if not logs:
            logs.append(open_log(s.source, create=False, growing=True))
        return logs[0]

    due = _archive_due(s)  # (in a follow, the seals are copied on the archive's cadence)
    steps: list[tuple[str, Callable[[], None]]] = [
        ("ingest_events", lambda: result.meta.update(
            ingest(log(), wh, s.batch_size, s.day_start_minutes, s.kept))),
        *([("seals", lambda: result.meta.__setitem__(
            "seals", seal(log(), wh, s.seal_key, s.seal_past_gaps, say)))] if due else []),
        ("audit_hands", lambda: result.meta.update(
            audit(wh, s.day_start_minutes, s.hands_per_chunk, s.audit_workers))),
        *[(step, _rollup_step(result, wh, step, s.full_rebuild)) for step in ROLLUP_STEPS],
        ("players", lambda: result.meta.__setitem__(
            "player_ratings", {"rows": -1, **players(wh, s.day_start_minutes)})),
    ]
    if due:
        steps.append(("events_archive", lambda: _archive_step(result, s)))
    try:
        _run_steps(result, steps, s)
    except BaseException as exc:  # the warehouse could not be opened (read-only, locked),
        if not result.failed:  # told as the first step's failure
            result.failed, result.error = steps[0][0], exc
    finally:
        for opened in logs:
            opened.close()
    return result


def _run_steps(result: LoadResult, steps: list[tuple[str, Callable[[], None]]],
               s: LoadSettings) -> None:
    from pipeline.warehouse import load_lock
    from pipeline.write_session import held

    wh = s.warehouse
    with load_lock(wh), held(wh):
        since = scope_start(wh, s)
        for name, step in steps:
            began = time.perf_counter()
            try:
                step()
            except BaseException as exc:  # told by the caller (and an interrupt, re-raised
                result.failed, result.error = name, exc  # there, is a stop)
                return
            finally:
                result.seconds[name] = time.perf_counter() - began
        began = time.perf_counter()
        try:
            result.checks = checks(wh, since=since)
        except BaseException as exc:
            result.failed, result.error = "warehouse_checks", exc
        result.seconds["warehouse_checks"] = time.perf_counter() - began


def _rollup_step(result: LoadResult, warehouse: str, step: str,
                 full: bool) -> Callable[[], None]:
    def run() -> None:
        keys = rollup(warehouse, ROLLUP_STEPS[step], full)
        result.meta[ROLLUP_STEPS[step]] = {"keys_rebuilt": keys, "full_rebuild": full}
    return run


def _archive_step(result: LoadResult, s: LoadSettings) -> None:
    result.meta["events_archive"] = archive(s.warehouse, s.archive_path)
    Path(f"{s.warehouse}.archived").touch()
