"""infra/dagster/: the instance file validates against Dagster's own schema (storage in
PostgreSQL, one run at a time), its classes exist, and the workspace names a real module."""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import tomllib
from pathlib import Path

import pytest

from tests.infra import infra_files as f

INSTANCE = f.INFRA / "dagster" / "dagster.yaml"
WORKSPACE = f.INFRA / "dagster" / "workspace.yaml"


def env_refs(value: object) -> set[str]:
    if isinstance(value, dict):
        if set(value) == {"env"}:
            return {value["env"]}
        return {v for item in value.values() for v in env_refs(item)}
    if isinstance(value, list):
        return {v for item in value for v in env_refs(item)}
    return set()


@pytest.fixture
def instance_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:  # type: ignore[type-arg]
    from dagster._core.instance.config import dagster_instance_config

    for var in env_refs(f.load_yaml(INSTANCE)):
        monkeypatch.setenv(var, f.container_env("dagster-daemon")[var])
    shutil.copy(INSTANCE, tmp_path / "dagster.yaml")
    config, custom_class = dagster_instance_config(str(tmp_path))
    assert custom_class is None
    return dict(config)


def test_instance_validates_and_stores_everything_in_postgres(instance_config: dict) -> None:  # type: ignore[type-arg]
    db = instance_config["storage"]["postgres"]["postgres_db"]
    assert {k: v["env"] for k, v in db.items()} == {
        "hostname": "DAGSTER_POSTGRES_HOST", "port": "DAGSTER_POSTGRES_PORT",
        "db_name": "DAGSTER_POSTGRES_DB", "username": "DAGSTER_POSTGRES_USER",
        "password": "DAGSTER_POSTGRES_PASSWORD"}
    # no separate run/event/schedule storages that would override it
    assert not {"run_storage", "event_log_storage", "schedule_storage"} & set(instance_config)


def test_a_typo_in_the_instance_file_is_caught(tmp_path: Path) -> None:
    """The validation above can fail: the same check on a misspelt key."""
    from dagster._core.errors import DagsterInvalidConfigError
    from dagster._core.instance.config import dagster_instance_config

    (tmp_path / "dagster.yaml").write_text(
        INSTANCE.read_text().replace("max_concurrent_runs", "max_concurent_runs")
        .replace("run_coordinator", "run_cordinator"))
    with pytest.raises(DagsterInvalidConfigError):
        dagster_instance_config(str(tmp_path))


@pytest.mark.parametrize("key", ["run_coordinator", "run_launcher"])
def test_configured_classes_exist_and_accept_their_config(
    instance_config: dict, key: str,  # type: ignore[type-arg]
) -> None:
    from dagster._config import validate_config

    entry = instance_config[key]
    cls = getattr(importlib.import_module(entry["module"]), entry["class"])
    result = validate_config(cls.config_type(), entry.get("config") or {})
    assert result.success, result.errors


def test_one_run_at_a_time_because_duckdb_has_one_writer(instance_config: dict) -> None:  # type: ignore[type-arg]
    coordinator = instance_config["run_coordinator"]
    assert coordinator["class"] == "QueuedRunCoordinator"
    assert coordinator["config"]["max_concurrent_runs"] == 1
    assert instance_config["telemetry"] == {"enabled": False}


def test_every_variable_of_the_instance_is_given_to_both_dagster_services() -> None:
    refs = env_refs(f.load_yaml(INSTANCE))
    assert len(refs) == 5
    for name in ("dagster-webserver", "dagster-daemon"):
        env = f.container_env(name)
        assert refs <= set(env), name
        assert all(env[r] for r in refs), name


def test_workspace_validates_and_names_the_pipeline_module() -> None:
    from dagster._core.workspace.config_schema import ensure_workspace_config

    config = ensure_workspace_config(f.load_yaml(WORKSPACE), str(WORKSPACE))
    (location,) = config["load_from"]
    module = location["python_module"]["module_name"]
    assert module == "pipeline.definitions"
    assert location["python_module"]["location_name"] == "uth"
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    assert Path(spec.origin) == f.REPO / "pipeline" / "definitions.py"
    # installed in the image's environment
    project = tomllib.loads((f.REPO / "pyproject.toml").read_text())
    assert "pipeline*" in project["tool"]["setuptools"]["packages"]["find"]["include"]


def test_workspace_module_holds_definitions() -> None:
    """``dagster-webserver -w workspace.yaml`` loads the module's Definitions object."""
    import dagster as dg

    module = importlib.import_module("pipeline.definitions")
    found = [v for v in vars(module).values() if isinstance(v, dg.Definitions)]
    assert len(found) == 1
