"""Every file under infra/ is read by one of these tests: a new file without a check fails
here until it gets one."""

from __future__ import annotations

import ast
import subprocess

import pytest

from tests.infra import infra_files as f

CHECKED_BY = {
    "infra/compose.yaml": "test_compose.py",
    "infra/compose.tls.yaml": "test_compose.py",
    "infra/kafka/topics.yaml": "test_topics.py",
    "infra/kafka/create_topics.py": "test_topics.py",
    "infra/dagster/dagster.yaml": "test_dagster.py",
    "infra/dagster/workspace.yaml": "test_dagster.py",
    "infra/Dockerfile": "test_dockerfile.py",
    "infra/.env.example": "test_compose.py",
    "infra/.gitignore": "test_secrets.py",
    "infra/RUNBOOK.md": "test_runbook.py",
    "infra/rulesets/README.md": "test_files.py",
}


def infra_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                             "infra"], cwd=f.REPO, capture_output=True, text=True, check=True)
    return sorted(listed.stdout.split())


def test_every_file_has_a_check() -> None:
    files = infra_files()
    unchecked = [p for p in files if p not in CHECKED_BY
                 and not (p.startswith("infra/rulesets/") and p.endswith(".toml"))]
    assert unchecked == []
    assert set(CHECKED_BY) <= set(files), "a checked file has gone"


@pytest.mark.parametrize("path", [p for p in CHECKED_BY if p.endswith(".yaml")])
def test_yaml_files_parse_to_mappings(path: str) -> None:
    assert isinstance(f.load_yaml(f.REPO / path), dict)


def test_the_topic_job_is_valid_python_without_project_imports_at_load() -> None:
    """It runs as a script in the image: project and kafka imports stay inside functions
    so --help works anywhere."""
    tree = ast.parse((f.INFRA / "kafka" / "create_topics.py").read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    modules = {n.module if isinstance(n, ast.ImportFrom) else n.names[0].name for n in top}
    assert modules <= {"__future__", "argparse", "os", "sys", "time", "collections.abc",
                       "dataclasses", "pathlib", "typing"}


def test_site_rulesets_in_the_repository_load() -> None:
    """infra/rulesets/ is mounted as UTH_RULESETS_DIR; any ruleset kept there must load."""
    from events.game.rulesets import load_ruleset

    readme = (f.INFRA / "rulesets" / "README.md").read_text()
    assert "/etc/uth/rulesets" in readme and "UTH_RULESETS_DIR" in readme
    assert f.docker_env()["UTH_RULESETS_DIR"] == "/etc/uth/rulesets"
    for path in sorted((f.INFRA / "rulesets").glob("*.toml")):
        assert load_ruleset(path).name == path.stem
