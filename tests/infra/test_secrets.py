"""No credential is committed: a scan of every file under infra/ for password-like
literals and keys, placeholders only in the env example, and git told to ignore the real
env file and the secrets folder."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.infra import infra_files as f

SECRET_NAME = re.compile(r"(?i)(pass(word|wd)?|secret|token|api[_-]?key|private[_-]?key|"
                         r"credential)")
# name [:=] value, in YAML, env files, properties, JAAS strings (user_NAME="...") and shell
ASSIGNMENT = re.compile(
    r"(?P<name>[A-Za-z0-9_.\-]*(?i:pass(?:word|wd)?|secret|token|api[_-]?key)[A-Za-z0-9_.\-]*"
    r"|\buser_\w+)"
    r"(?:[ \t]*=[ \t]*|[ \t]*:(?:[ \t]+|(?=\n)|$))"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|\$\{[^}\n]*\}|<[^>\n]*>|[^\s,;]*)",
    re.MULTILINE)
KEY_BLOCK = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")
ALLOWED_VALUES = [
    re.compile(r"CHANGE_ME\w*"),                             # the env example's placeholder
    re.compile(r"\$\{[A-Za-z0-9_]+(:?[?-][^}]*)?\}"),          # compose/shell substitution
    re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*"),                  # $VAR
    re.compile(r"\$\(.*"),                                    # $(command)
    re.compile(r"<[^>]*>"),                                   # <placeholder> in the runbook
    re.compile(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+"),               # the name of a variable
    re.compile(r""),                                          # nothing on this line
]


def allowed(value: str) -> bool:
    return any(p.fullmatch(value) for p in ALLOWED_VALUES)


def committed_files() -> list[Path]:
    """Every file under infra/ and tests/infra/ that git would commit."""
    files = [p for d in (f.INFRA, f.REPO / "tests" / "infra") for p in d.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts]
    git = shutil.which("git")
    if git is None:
        return files
    ignored = subprocess.run(
        [git, "check-ignore", "--no-index", "--stdin"], cwd=f.REPO, text=True,
        input="\n".join(str(p.relative_to(f.REPO)) for p in files), capture_output=True,
    ).stdout.split()
    return [p for p in files if str(p.relative_to(f.REPO)) not in set(ignored)]


def literal_secrets(text: str, python: bool = False) -> list[str]:
    """Secret-looking names given a literal value. In Python only quoted values are
    literals (``password = read_it()`` is code)."""
    found = []
    for m in ASSIGNMENT.finditer(text):
        raw = m["value"]
        quoted = raw[:1] in ("'", '"')
        if python and not quoted:
            continue
        value = raw.strip("\"'")
        if allowed(value) or (m["name"].endswith("_FILE") and value.startswith("/")):
            continue  # a reference, a placeholder, or where a secret file is
        found.append(f"{m['name']}={raw}")
    found += KEY_BLOCK.findall(text)
    return found


@pytest.mark.parametrize(("text", "hits"), [
    ('KAFKA_SASL_PASSWORD: "hunter2-prod"', 1),
    ("password=s3cr3t", 1),
    ('user_admin="admin-secret";', 1),
    ("-----BEGIN RSA PRIVATE KEY-----", 1),
    ("KAFKA_SASL_PASSWORD: ${UTH_KAFKA_PASSWORD:?set it}", 0),
    ('password="${KAFKA_ADMIN_PASSWORD:?set it}"', 0),
    ("DAGSTER_POSTGRES_PASSWORD=CHANGE_ME", 0),
    ("password:\n        env: DAGSTER_POSTGRES_PASSWORD", 0),
    ("UTH_KAFKA_PASSWORD=<the new password>", 0),
    ('SCRAM_PASSWORD_ENV = "UTH_SCRAM_PASSWORD"', 0),
    ("KAFKA_SASL_PASSWORD_FILE=/etc/uth/kafka-password", 0),
    ("KAFKA_SASL_PASSWORD=/etc/uth/kafka-password", 1),
    ("KAFKA_TLS_KEY_PASSWORD=CHANGEME", 1),
    ('KAFKA_SASL_PASSWORD="$(cat /run/secrets/kafka)"', 0),
])
def test_the_scanner_finds_literals_and_passes_references(text: str, hits: int) -> None:
    assert len(literal_secrets(text)) == hits, literal_secrets(text)


def test_the_scanner_reads_python_literals_only() -> None:
    assert literal_secrets("password = read_secret()", python=True) == []
    assert literal_secrets('password = "hunter2"', python=True) == ['password="hunter2"']


def test_no_secret_literals_under_infra() -> None:
    files = committed_files()
    assert f.INFRA / "compose.yaml" in files and f.INFRA / ".env.example" in files
    problems = {}
    for path in files:
        if path.parent == Path(__file__).parent and path.name == Path(__file__).name:
            continue  # this file holds the scanner's own examples
        text = path.read_text(errors="replace")
        found = literal_secrets(text, python=path.suffix == ".py")
        if found:
            problems[str(path.relative_to(f.REPO))] = found
    assert problems == {}


def test_env_example_holds_placeholders_only() -> None:
    secret_vars = {k: v for k, v in f.env_example().items() if SECRET_NAME.search(k)}
    assert set(secret_vars) >= {"KAFKA_ADMIN_PASSWORD", "UTH_KAFKA_PASSWORD",
                                "DAGSTER_POSTGRES_PASSWORD", "KAFKA_TLS_KEY_PASSWORD"}
    assert all(v == "CHANGE_ME" for v in secret_vars.values()), secret_vars
    assert f.env_example()["KAFKA_CLUSTER_ID"].startswith("CHANGE_ME")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize(("path", "ignored"), [
    ("infra/.env", True), ("infra/.env.production", True), ("infra/secrets/tls/kafka-1.pem", True),
    ("infra/.env.example", False), ("infra/compose.yaml", False),
])
def test_git_ignores_the_real_env_file_and_secrets(path: str, ignored: bool) -> None:
    result = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=f.REPO)
    assert (result.returncode == 0) is ignored


def test_no_real_env_file_or_secret_is_tracked() -> None:
    git = shutil.which("git")
    assert git is not None, "git is needed to list tracked files"
    tracked = subprocess.run([git, "ls-files", "infra"], cwd=f.REPO, text=True,
                             capture_output=True, check=True).stdout.split()
    assert "infra/.env" not in tracked
    assert not [t for t in tracked if t.startswith("infra/secrets/")]
    assert not [t for t in tracked if t.endswith((".pem", ".key", ".jks", ".p12"))]
