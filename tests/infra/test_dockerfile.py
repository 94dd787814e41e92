"""infra/Dockerfile, read instruction by instruction: it installs the project with uv from
uv.lock, copies what exists, sets variables the project reads, and runs as a plain user."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.infra import infra_files as f


def runs() -> list[str]:
    return [i.args for i in f.dockerfile() if i.keyword == "RUN"]


def args() -> dict[str, str]:
    out = {}
    for ins in f.dockerfile():
        if ins.keyword == "ARG" and "=" in ins.args:
            key, _, value = ins.args.partition("=")
            out[key] = value
    return out


def locked(name: str) -> str:
    lock = tomllib.loads((f.REPO / "uv.lock").read_text())
    (version,) = [p["version"] for p in lock["package"] if p["name"] == name]
    return str(version)


def test_two_stages_on_a_python_the_project_supports() -> None:
    froms = [i.args for i in f.dockerfile() if i.keyword == "FROM"]
    assert froms == ["${PYTHON_IMAGE} AS build", "${PYTHON_IMAGE}"]
    image = args()["PYTHON_IMAGE"]
    minor = re.fullmatch(r"python:3\.(\d+)-slim-\w+", image)
    assert minor, image
    requires = tomllib.loads((f.REPO / "pyproject.toml").read_text())["project"][
        "requires-python"]
    assert requires == ">=3.11,<3.14" and 11 <= int(minor.group(1)) < 14


def test_project_installed_by_uv_from_the_lock_file() -> None:
    syncs = [shlex.split(r) for r in runs() if r.startswith("uv sync")]
    assert len(syncs) == 2
    for argv in syncs:
        assert "--frozen" in argv and "--no-dev" in argv  # the lock, as is; no test tools
    assert "--no-install-project" in syncs[0] and "--no-editable" in syncs[1]
    copies = [i.args for i in f.dockerfile() if i.keyword == "COPY" and i.stage == 0]
    assert copies[0] == "pyproject.toml uv.lock README.md ./"
    # uv pinned to a version that reads this lock file
    (pip,) = [r for r in runs() if r.startswith("pip install")]
    assert '"uv==${UV_VERSION}"' in pip and re.fullmatch(r"\d+\.\d+\.\d+", args()["UV_VERSION"])
    env = {i.args for i in f.dockerfile() if i.keyword == "ENV" and i.stage == 0}
    assert any("UV_PROJECT_ENVIRONMENT=/opt/venv" in e for e in env)


def test_every_package_of_the_wheel_is_copied() -> None:
    found = tomllib.loads((f.REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"]["find"]["include"]
    packages = [p.removesuffix("*") for p in found]
    copied = [i.args.split()[0] for i in f.dockerfile() if i.keyword == "COPY" and i.stage == 0]
    assert set(packages) <= set(copied)


def test_copy_sources_exist() -> None:
    for ins in f.dockerfile():
        if ins.keyword != "COPY" or "--from=" in ins.args:
            continue
        *sources, _dest = [t for t in shlex.split(ins.args) if not t.startswith("--")]
        for src in sources:
            assert (f.REPO / src).exists(), f"Dockerfile:{ins.line}: {src} is not in the repo"


def test_postgres_storage_adapter_matches_the_locked_dagster() -> None:
    """dagster 1.N.x goes with its libraries 0.(N+16).x; the adapter is not in uv.lock."""
    major, minor, _ = locked("dagster").split(".")
    adapter = args()["DAGSTER_POSTGRES_VERSION"].split(".")
    assert major == "1" and adapter[:2] == ["0", str(int(minor) + 16)]
    (install,) = [r for r in runs() if "dagster-postgres" in r]
    assert '"dagster-postgres==${DAGSTER_POSTGRES_VERSION}"' in install
    assert '"psycopg2-binary==${PSYCOPG2_VERSION}"' in install and "--no-deps" in install
    assert re.fullmatch(r"\d+\.\d+\.\d+", args()["PSYCOPG2_VERSION"])
    storage = f.load_yaml(f.INFRA / "dagster" / "dagster.yaml")["storage"]
    assert list(storage) == ["postgres"]


def test_runtime_environment_is_what_the_project_reads() -> None:
    from events.game import _eval_cache, rulesets

    env = f.docker_env()
    assert env["PATH"].startswith("/opt/venv/bin:")
    assert env["UTH_RULESETS_DIR"] == "/etc/uth/rulesets"
    assert rulesets.ENV_VAR == "UTH_RULESETS_DIR"
    assert '"UTH_CACHE_DIR"' in (f.REPO / "events" / "game" / "_eval_cache.py").read_text()
    assert _eval_cache.cache_dir  # the reader of UTH_CACHE_DIR
    assert env["DAGSTER_HOME"] == "/opt/dagster/home"
    assert f.host_path(env["DAGSTER_HOME"] + "/dagster.yaml") == f.INFRA / "dagster/dagster.yaml"
    assert f.host_path(env["DAGSTER_HOME"] + "/workspace.yaml") == (
        f.INFRA / "dagster/workspace.yaml")
    # The directories the variables name are created, and owned by the user that runs.
    (mkdir,) = [r for r in runs() if r.startswith("groupadd")]
    for directory in (env["UTH_CACHE_DIR"], env["DAGSTER_HOME"], env["UTH_RULESETS_DIR"]):
        assert directory in mkdir
    assert f"chown -R uth:uth {env['DAGSTER_HOME']} /var/lib/uth {env['UTH_CACHE_DIR']}" in mkdir


def test_named_volumes_of_uth_services_are_created_for_the_user() -> None:
    """An empty named volume takes the owner of the image's directory at its mount point:
    unless the image makes that directory for uth, the service cannot write there."""
    (mkdir,) = [r for r in runs() if r.startswith("groupadd")]
    made = shlex.split(mkdir.split("mkdir -p", 1)[1].split("&&", 1)[0])
    owned = shlex.split(mkdir.split("chown -R uth:uth", 1)[1])
    checked = 0
    for name, service in f.services().items():
        if service.get("image") != "${UTH_IMAGE:-uth-floor:latest}":
            continue
        for item in service.get("volumes") or []:
            source, target, *mode = str(item).split(":")
            if source.startswith(".") or mode == ["ro"]:
                continue
            assert target in made, f"{name}: {target} is not created in the image"
            assert any(target == o or target.startswith(o + "/") for o in owned), name
            checked += 1
    assert checked >= 1


def test_runs_as_an_unprivileged_user() -> None:
    users = [i.args for i in f.final_stage() if i.keyword == "USER"]
    assert users == ["uth"]
    last_user = max(i.line for i in f.final_stage() if i.keyword == "USER")
    first_copy = min(i.line for i in f.final_stage() if i.keyword == "COPY")
    assert first_copy < last_user  # files are root-owned, read-only to the service


def test_python_snippets_import_what_exists_and_run(tmp_path: Path) -> None:
    snippets = 0
    for ins in f.final_stage():
        if ins.keyword != "RUN" or not ins.args.startswith("python -c"):
            continue
        code = shlex.split(ins.args)[2]
        for module, names in re.findall(r"from ([\w.]+) import ([\w, ]+)", code):
            assert importlib.util.find_spec(module) is not None, module
            imported = importlib.import_module(module)
            for name in names.split(","):
                assert hasattr(imported, name.strip()), f"{module}.{name.strip()}"
        # and it runs: here it fills a fresh cache directory as it does in the image
        env = {**os.environ, "UTH_CACHE_DIR": str(tmp_path / "cache")}
        subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=300)
        assert any((tmp_path / "cache").iterdir())
        snippets += 1
    assert snippets == 1


def test_default_command_is_the_cli() -> None:
    (cmd,) = [i.args for i in f.dockerfile() if i.keyword == "CMD"]
    assert cmd == '["uth", "--help"]'
    scripts = tomllib.loads((f.REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["uth"] == "pipeline.cli:main"


def test_no_stage_installs_a_compiler() -> None:
    """The project is pure Python (and wheels): no stage needs a C compiler."""
    installs = " ".join(r for r in runs() if "apt-get install" in r)
    assert not any(tool in installs.split() for tool in ("gcc", "g++", "build-essential",
                                                          "libc6-dev", "clang"))
