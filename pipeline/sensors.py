"""The sensor that starts a load when the log has grown, and the daily rollup rebuild.

The sensor compares the log's end with the position stored in ``load_positions`` (read-only,
with the usual brief retry; a load holding the warehouse just means "try next tick") and
asks for one run per new end of the log (the run key). It asks for none while a
``load_warehouse`` run is queued or running: the loads never pile up, and the next tick
after a run ends asks for one load of all that came meanwhile (a load reads up to the
log's end as it was when it began, so each run ends).
"""


import json
from typing import Any

import dagster as dg

from events.logs import LogError, source_key
from pipeline.analytics.assets import full_rebuild_config
from pipeline.ingest.rotated import replaced_note, stored_mark
from pipeline.resources import EventSource, Warehouse
from pipeline.warehouse import WarehouseBusy, cursor_text, parse_cursor, parse_day_start, reading

LOAD_JOB = "load_warehouse"
ROLLUP_JOB = "rebuild_rollups"


def stored_position(warehouse: Warehouse, source: str) -> tuple[str | None, object]:
    """The position stored for ``source``, as ``load_positions`` holds it (or None), and
    the source file's fingerprint kept with it (``pipeline.ingest.rotated``)."""
    try:
        with reading(warehouse.path, timeout=2.0) as con:
            rows = con.execute("SELECT position FROM load_positions WHERE source = ?",
                               [source]).fetchall()
            mark = stored_mark(con, source)
    except FileNotFoundError:
        return None, None
    return (str(rows[0][0]) if rows and rows[0][0] else None), mark


IN_FLIGHT = [dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED,
             dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED,
             dg.DagsterRunStatus.CANCELING]


def loads_in_flight(context: dg.SensorEvaluationContext) -> list[str]:
    """The ids of the ``load_warehouse`` runs queued or running now (none known without
    an instance, as in a test's bare context)."""
    try:
        instance = context.instance
    except dg.DagsterInvariantViolationError:
        return []
    runs = instance.get_runs(dg.RunsFilter(job_name=LOAD_JOB, statuses=IN_FLIGHT), limit=5)
    return [run.run_id for run in runs]


def make_sensor(job: Any) -> dg.SensorDefinition:
    @dg.sensor(job=job, name="new_events_sensor", minimum_interval_seconds=30,
               default_status=dg.DefaultSensorStatus.RUNNING,
               description="Starts a load when the event log has records the warehouse "
                           "has not loaded yet.")
    def new_events_sensor(context: dg.SensorEvaluationContext, source: EventSource,
                          warehouse: Warehouse) -> dg.SensorResult | dg.SkipReason:
        running = loads_in_flight(context)
        if running:
            return dg.SkipReason(f"a load is queued or running (run {running[0][:8]}); the "
                                 "next starts after it, with all that came meanwhile")
        try:
            with source.open() as log:
                end = log.end()
                name = source_key(log.describe())
                position, mark = stored_position(warehouse, name)
                replaced = replaced_note(log, position, mark)  # another file at the path
        except LogError as exc:
            return dg.SkipReason(f"the event log cannot be read: {exc}")
        except WarehouseBusy:
            return dg.SkipReason("a load is writing the warehouse; checking again next tick")
        stored = parse_cursor(position)
        if replaced is None and not any(offset > stored.get(p, 0) for p, offset in end.items()):
            return dg.SkipReason("no new events")
        key = cursor_text(end)
        if context.cursor == key:
            return dg.SkipReason(f"a load up to {key} was already requested")
        return dg.SensorResult(
            run_requests=[dg.RunRequest(run_key=key, tags={"uth/log_end": key})],
            cursor=key)

    return new_events_sensor


def rollup_cron(day_start: str) -> str:
    """Every day a quarter of an hour after the gaming day starts."""
    minutes = (parse_day_start(day_start) + 15) % (24 * 60)
    return f"{minutes % 60} {minutes // 60} * * *"


def make_schedule(job: Any, day_start: str, zone: str | None = None) -> dg.ScheduleDefinition:
    """The daily rebuild, on the casino's clock (``zone``, default ``UTH_TIMEZONE``): the
    gaming day starts at ``day_start`` local time."""
    from events.localtime import check_zone, zone_name

    return dg.ScheduleDefinition(
        name="daily_rollups", job=job, cron_schedule=rollup_cron(day_start),
        run_config=full_rebuild_config(),
        execution_timezone=zone_name() if zone is None else check_zone(zone),
        default_status=dg.DefaultScheduleStatus.RUNNING,
        description="Rebuilds every rollup once a day, after the gaming day turns.")


__all__ = ["LOAD_JOB", "ROLLUP_JOB", "json", "make_schedule", "make_sensor", "rollup_cron"]
