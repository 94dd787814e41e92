"""One person's use (no sign-in, loopback): every access is logged all the same, the user
recorded as ``local (no sign-in)``, so the access log is complete in every mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboards import access, gate

LOCAL = {"sub": "local (no sign-in)", "roles": []}


@pytest.fixture
def log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var in [*access.ENV_AUTH.values(), access.ENV_FILE, access.ENV_ROLES]:
        monkeypatch.delenv(var, raising=False)
    path = tmp_path / "access.jsonl"
    monkeypatch.setenv(access.ENV_LOG, str(path))
    return path


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_pages_and_hands_are_logged_without_sign_in(app, handmade_warehouse: Path,  # type: ignore[no-untyped-def]
                                                    log: Path) -> None:
    at = app(handmade_warehouse, "hand_audit", hand_id="H1")
    assert not at.exception
    at = app(handmade_warehouse, "floor")
    assert not at.exception
    written = lines(log)
    assert all({k: x[k] for k in LOCAL} == LOCAL for x in written), written
    assert [(x["what"], x.get("page"), x.get("hand")) for x in written] == [
        ("page", "hand_audit", None), ("hand", "hand_audit", "H1"), ("page", "floor", None)]


def test_the_default_log_is_beside_the_warehouse(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    for var in [*access.ENV_AUTH.values(), access.ENV_FILE, access.ENV_ROLES, access.ENV_LOG]:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("UTH_WAREHOUSE", str(tmp_path / "w.duckdb"))
    grant = gate.current()  # outside a run of the app: one person's
    assert grant.log == tmp_path / "w.duckdb.access.jsonl" and grant.allowed == access.ALL
    gate.note("download", once=False, download=access.CSV, file="floor.csv")
    assert [{k: x[k] for k in (*LOCAL, "file")} for x in lines(grant.log)] == [
        {**LOCAL, "file": "floor.csv"}]


def test_the_pages_say_that_one_persons_use_is_logged(app, handmade_warehouse: Path,  # type: ignore[no-untyped-def]
                                                      log: Path) -> None:
    """Health and the Access log page said the log was written only with sign-in (it is
    written in every mode), and the log's path was shown with markdown's escapes in it."""
    at = app(handmade_warehouse, "health")
    (lines_metric,) = [m for m in at.metric if m.label == "Access log lines"]
    assert lines_metric.value == "1" and "when sign-in is" not in lines_metric.help
    at = app(handmade_warehouse, "access_log")
    assert not at.exception and not at.info, [i.value for i in at.info]
    (caption,) = [c.value for c in at.caption if "Appended to" in c.value]
    assert f"`{log}`" in caption, caption  # a code span shows its text as it is


@pytest.mark.parametrize("page", [p.url_path for p in access.PAGES])
def test_every_page_says_it_is_one_persons_use(app, handmade_warehouse: Path,  # type: ignore[no-untyped-def]
                                                log: Path, page: str) -> None:
    """Issue 35: bound to loopback with no sign-in, every page says so."""
    at = app(handmade_warehouse, page, **({"hand_id": "H1"} if page == "hand_audit" else {}))
    assert not at.exception, [e.value for e in at.exception]
    assert gate.ONE_PERSON in [c.value for c in at.sidebar.caption], page


def test_the_access_log_shows_its_times_compact(app, handmade_warehouse: Path,  # type: ignore[no-untyped-def]
                                                log: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole ISO time (``2026-12-05T18:50:17.691+00:00``) made the first column a third
    of an 800-pixel page: it reads ``2026-12-05 18:50:17`` under ``at (UTC)``; the CSV
    keeps the time as logged."""
    import csv
    import io
    import re

    from tests.dashboards.test_csv_values import downloads

    assert not app(handmade_warehouse, "floor").exception
    seen = downloads(monkeypatch)
    at = app(handmade_warehouse, "access_log")
    assert not at.exception
    shown = at.dataframe[0].value
    assert shown.columns[0] == "at (UTC)"
    logged = [str(x["at"]) for x in lines(log)][::-1]  # newest first
    assert [str(t) for t in shown["at (UTC)"]] == [
        re.sub(r"^(\S+)T(\d\d:\d\d:\d\d)\.\d+\+00:00$", r"\1 \2", t) for t in logged]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", str(t))
               for t in shown["at (UTC)"])
    rows = list(csv.DictReader(io.StringIO(dict(seen)["access-log.csv"])))
    assert [r["at (UTC)"] for r in rows] == logged
