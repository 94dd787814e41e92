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
