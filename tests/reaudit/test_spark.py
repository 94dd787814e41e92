"""``uth reaudit --engine spark``: on a floor with mispays, voids, disputes, late,
redelivered, lost and conflicting events and hands across the gaming-day boundary, Spark's
hands, wagers, findings, rollups and player tables equal the warehouse's row for row, and
the summary equals
``uth audit``'s on the source log. One Spark session (``local[1]``, a small driver) and one
floor for the module; skipped only where Java is missing."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline.cli import main
from pipeline.reaudit.rollups import SPARK_ROLLUPS
from tests.reaudit.conftest import (
    OUTPUTS,
    PLAYER_TABLES,
    assert_player_tables_equal,
    output_rows,
    warehouse_rows,
)

pytestmark = [
    pytest.mark.spark,
    pytest.mark.skipif(shutil.which("java") is None,
                       reason="Spark needs Java 17 (java not found; .ci/run installs it)"),
]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark", reason="the optional extra spark is not installed")
    from pipeline.reaudit.spark import SMALL_ARCHIVE_CONF, session

    s = session("local[1]", memory="512m", partitions=1, conf=SMALL_ARCHIVE_CONF)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def spark_out(spark: Any, floor: dict[str, Path]) -> Path:
    from pipeline.reaudit.players import players_spark
    from pipeline.reaudit.rollups import spark_rollups
    from pipeline.reaudit.spark import reaudit_spark

    out = floor["dir"] / "spark-out"
    reaudit_spark(spark, floor["archive"], out, 360)
    assert spark_rollups(spark, str(out), str(floor["archive"])) == list(SPARK_ROLLUPS)
    assert players_spark(spark, str(out), str(floor["archive"]), 360) == list(PLAYER_TABLES)
    return out


def test_spark_rows_equal_the_warehouse(spark_out: Path, floor: dict[str, Path]) -> None:
    for name in OUTPUTS:
        want = warehouse_rows(floor["warehouse"], name)
        assert want, name
        assert output_rows(spark_out, name, floor["warehouse"]) == want, name
    kinds = {k for k, in warehouse_rows(floor["warehouse"],
                                         "SELECT DISTINCT kind FROM audit_findings")}
    assert {"mispay", "sequence_gap", "sequence_conflict"} <= kinds
    statuses = {s for s, in warehouse_rows(floor["warehouse"],
                                            "SELECT DISTINCT status FROM hands")}
    assert "voided" in statuses
    days = warehouse_rows(floor["warehouse"], "SELECT DISTINCT gaming_day FROM hands")
    assert len(days) == 2


@pytest.mark.parametrize("name", ["table_hold_daily", "trips_performance",
                                  "dealer_performance"])
def test_spark_rollups_equal_the_warehouse(name: str, spark_out: Path,
                                           floor: dict[str, Path]) -> None:
    want = warehouse_rows(floor["warehouse"], name)
    assert want
    assert output_rows(spark_out, name, floor["warehouse"]) == want


def test_spark_player_tables_equal_the_warehouse(spark_out: Path,
                                                 floor: dict[str, Path]) -> None:
    """Each table's history summed in its own group (``applyInArrow``), the sums merged:
    the warehouse's player ratings and alerts, row for row."""
    assert_player_tables_equal(spark_out, floor["warehouse"])


def test_the_jobs_check_compares_a_sample_with_the_warehouse(
        spark_out: Path, floor: dict[str, Path]) -> None:
    import dagster as dg

    from pipeline.reaudit.compare import compare_sample
    from pipeline.reaudit.definitions import defs

    dg.Definitions.validate_loadable(defs)
    assert defs.resolve_job_def("reaudit_archive") is not None
    passed, meta = compare_sample(spark_out, floor["warehouse"], sample=3)
    assert passed and meta["sampled_keys"] == 3, meta
    # a wager changed in the warehouse is seen (the first key sampled is compared)
    changed = floor["dir"] / "changed.duckdb"
    shutil.copy(floor["warehouse"], changed)
    con = duckdb.connect(str(changed))
    key = meta["keys"].split(", ")[0].split()
    con.execute("UPDATE wagers SET recorded_result = recorded_result + 1 WHERE hand_id = "
                "(SELECT min(hand_id) FROM hands WHERE table_id = ? AND gaming_day = ?)",
                key)
    con.close()
    passed, meta = compare_sample(spark_out, changed, sample=3)
    assert not passed and meta["differing_wagers"] > 0, meta


def test_summary_is_uth_audits(spark_out: Path, floor: dict[str, Path],
                               capsys: pytest.CaptureFixture[str]) -> None:
    from pipeline.reaudit.summary import read_report

    report = read_report(floor["archive"], spark_out)
    assert main(["audit", "--source", str(floor["log"]), "--json"]) == 0
    audited = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(f.finding_id for f in report.findings) == sorted(
        f["finding_id"] for f in audited if "finding_id" in f)
    for key in ("events", "hands", "findings"):
        assert report.summary[key] == audited[-1]["summary"][key], key
