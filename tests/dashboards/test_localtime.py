"""Local time on the dashboards: UTH_TIMEZONE moves every shown time and the findings'
shifts to the casino's clock, UTH_SHIFTS names the shifts. Hand-made finding F2 happened
at 02:30 UTC on 2026-11-29: 21:30 on 2026-11-28 in Toronto (UTC-5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards import queries
from tests.dashboards.conftest import no_failure


def finding(at, kind: str = "trips paid on a pair") -> dict[str, str]:  # type: ignore[no-untyped-def]
    rows = at.dataframe[1].value
    return rows.loc[rows["Detail"] == kind].iloc[0].to_dict()


def test_findings_in_utc_by_default(app, handmade_warehouse: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UTH_TIMEZONE", raising=False)
    monkeypatch.delenv("UTH_SHIFTS", raising=False)
    at = app(handmade_warehouse, "findings")
    no_failure(at)
    row = finding(at)
    assert row["Occurred"].startswith("2026-11-29 02:30")
    assert row["Shift"] == "graveyard 22:00-06:00"


def test_findings_on_the_casino_clock(app, handmade_warehouse: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_TIMEZONE", "America/Toronto")
    monkeypatch.delenv("UTH_SHIFTS", raising=False)
    at = app(handmade_warehouse, "findings")
    no_failure(at)
    row = finding(at)
    assert row["Occurred"].startswith("2026-11-28 21:30")
    assert row["Shift"] == "swing 14:00-22:00"
    assert any("America/Toronto" in c.value for c in at.caption)


def test_configured_shifts(app, handmade_warehouse: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_TIMEZONE", "America/Toronto")
    monkeypatch.setenv("UTH_SHIFTS", "early=04:00,late=16:00")
    at = app(handmade_warehouse, "findings")
    no_failure(at)
    assert finding(at)["Shift"] == "late 16:00-04:00"
    assert finding(at, "ante paid twice")["Shift"] == "early 04:00-16:00"  # 10:00 Toronto
    assert queries.shifts(360) == ("early 04:00-16:00", "late 16:00-04:00")


def test_bad_settings_are_said_not_raised(app, handmade_warehouse: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTH_TIMEZONE", "Mars/Olympus")
    at = app(handmade_warehouse, "findings")
    assert not at.exception
    assert any("UTH_TIMEZONE" in w.value for w in at.warning)


def test_hand_audit_times_and_search_are_local(app, handmade_warehouse: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import date, time

    monkeypatch.setenv("UTH_TIMEZONE", "America/Toronto")
    at = app(handmade_warehouse, "hand_audit", hand_id="H1")
    no_failure(at)
    # H1 started at 21:08 UTC: 16:08 in Toronto
    assert any("started 2026-11-28 16:08:00.000 (America/Toronto)" in m.value
               for m in at.markdown)
    at.date_input(key="audit_day").set_value(date(2026, 11, 28))
    at.time_input(key="audit_from").set_value(time(16, 0))
    at.time_input(key="audit_to").set_value(time(16, 30))
    at.text_input(key="audit_hand_id").set_value("")
    at.run()
    no_failure(at)
    assert list(at.selectbox(key="audit_chosen").options) == [
        "H1 · table T1 · dealer D1 · 2026-11-28 16:08:00.000"]
    at.time_input(key="audit_from").set_value(time(21, 0))  # H1's start in UTC
    at.time_input(key="audit_to").set_value(time(21, 10))
    at.run()
    assert any("No hand matches" in i.value for i in at.info)
