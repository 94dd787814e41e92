"""The Dagster code location. The UI with the asset graph, checks, sensor and schedule::

    UTH_SOURCE=sqlite:///demo-data/events.db UTH_WAREHOUSE=demo-data/warehouse.duckdb \
        .venv/bin/dagster dev -m pipeline.definitions

Assets by concept (ingest, audit, analytics, players), each calling plain step functions; resources
``source`` (the event log URL: ``UTH_SOURCE``) and ``warehouse`` (the DuckDB path:
``UTH_WAREHOUSE``; ``UTH_GAMING_DAY_START``, ``UTH_ARCHIVE``, ``UTH_SEAL_KEY``); the job
``load_warehouse`` (the whole graph, started by ``new_events_sensor`` when the log grows, or
by ``uth load``; it seals the log after each load when ``UTH_SEAL_KEY`` names a key) and
``rebuild_rollups`` (the rollups, rebuilt whole by the ``daily_rollups`` schedule).
"""

from __future__ import annotations

import os

import dagster as dg

from pipeline.analytics.assets import dealer_performance, table_hold_daily, trips_rollup
from pipeline.asset_checks import warehouse_checks
from pipeline.audit.assets import audit_hands
from pipeline.ingest.assets import events_archive, ingest_events
from pipeline.ledger.assets import seals
from pipeline.players.assets import players
from pipeline.resources import default_source, default_warehouse
from pipeline.sensors import LOAD_JOB, ROLLUP_JOB, make_schedule, make_sensor

ASSETS = [ingest_events, seals, events_archive, audit_hands, table_hold_daily, trips_rollup,
          dealer_performance, players]
CHECKS = [warehouse_checks]
ROLLUP_ASSETS = ["table_hold_daily", "trips_performance", "trips_hits", "dealer_performance"]

load_job = dg.define_asset_job(LOAD_JOB, selection=dg.AssetSelection.all(),
                               description="Load new events and update everything after them.")
rollups_job = dg.define_asset_job(ROLLUP_JOB, selection=dg.AssetSelection.assets(*ROLLUP_ASSETS),
                                  description="Rebuild the rollups from hands and wagers.")

defs = dg.Definitions(
    assets=ASSETS,
    asset_checks=CHECKS,
    jobs=[load_job, rollups_job],
    sensors=[make_sensor(load_job)],
    schedules=[make_schedule(rollups_job, os.environ.get("UTH_GAMING_DAY_START", "06:00"))],
    resources={"source": default_source(), "warehouse": default_warehouse()},
    executor=dg.in_process_executor,
)
