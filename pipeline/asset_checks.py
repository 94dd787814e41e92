"""The Dagster asset checks of the warehouse: every check of :mod:`pipeline.checks` in one
step (no ``from __future__ import annotations`` here: Dagster reads the parameters' types)."""

from collections.abc import Iterator

import dagster as dg

from pipeline.checks import CHECK_LIST, evaluate
from pipeline.resources import Warehouse


# Every check in one step on one read-only connection: six steps cost a load about a
# quarter of a second (Dagster's per-step work and a DuckDB connection each) for queries
# of milliseconds. A run that selects some assets runs only their checks.
@dg.multi_asset_check(
    specs=[dg.AssetCheckSpec(c.name, asset=c.asset, description=c.description,
                             additional_deps=list(c.additional_deps)) for c in CHECK_LIST],
    name="warehouse_checks", can_subset=True,
    description="The warehouse's checks after a load (pipeline/checks.py).")
def warehouse_checks(context: dg.AssetCheckExecutionContext,
                     warehouse: Warehouse) -> Iterator[dg.AssetCheckResult]:
    names = {key.name for key in context.selected_asset_check_keys}
    for outcome in evaluate(warehouse.path, names):
        yield dg.AssetCheckResult(
            asset_key=outcome.asset, check_name=outcome.name, passed=outcome.passed,
            metadata=outcome.metadata,
            severity=dg.AssetCheckSeverity.WARN if outcome.warn_only
            else dg.AssetCheckSeverity.ERROR)
