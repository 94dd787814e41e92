"""Readers for the files under ``infra/`` and checks shared by the tests in this folder.

Nothing here runs a container: the files are parsed (YAML with PyYAML, the Dockerfile line
by line, Markdown code blocks with ``shlex``) and every command, path, module and variable
they name is looked up in the project itself.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
INFRA = REPO / "infra"
COMPOSE_FILES = (INFRA / "compose.yaml", INFRA / "compose.tls.yaml")

_VAR = re.compile(
    r"(?<!\$)\$\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}"
    r"|(?<!\$)\$(?P<bare>[A-Za-z_][A-Za-z0-9_]*)")


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


@cache
def compose() -> dict[str, Any]:
    return load_yaml(INFRA / "compose.yaml")  # type: ignore[no-any-return]


@cache
def compose_tls() -> dict[str, Any]:
    return load_yaml(INFRA / "compose.tls.yaml")  # type: ignore[no-any-return]


def services() -> dict[str, dict[str, Any]]:
    return compose()["services"]  # type: ignore[no-any-return]


@cache
def env_example() -> dict[str, str]:
    """``infra/.env.example`` as a mapping (comments and blank lines skipped)."""
    out: dict[str, str] = {}
    for number, raw in enumerate((INFRA / ".env.example").read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        assert sep and re.fullmatch(r"[A-Z][A-Z0-9_]*", key), f".env.example:{number}: {raw!r}"
        assert key not in out, f".env.example:{number}: {key} set twice"
        out[key] = value
    return out


def variables(text: str) -> set[str]:
    """Names of the variables compose would substitute in ``text`` (``$$`` escapes)."""
    return {m["braced"] or m["bare"] for m in _VAR.finditer(text)}


def strings(value: Any) -> Iterator[str]:
    """Every string (keys included) in a parsed YAML document."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, str):
        yield value


def compose_variables() -> set[str]:
    """Variables the compose files substitute (from their parsed values: not comments)."""
    return {v for doc in (compose(), compose_tls()) for s in strings(doc) for v in variables(s)}


def interpolate(value: Any, env: Mapping[str, str]) -> Any:
    """Compose's substitution of ``${VAR}``, ``${VAR:-default}``, ``${VAR:?error}`` ..."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def one(m: re.Match[str]) -> str:
        name, op, arg = m["braced"] or m["bare"], m["op"] or "", m["arg"] or ""
        have = env.get(name)
        unset = have is None or (op.startswith(":") and have == "")
        if op.endswith("-"):
            return arg if unset else str(have)
        if op.endswith("?") and unset:
            raise KeyError(f"{name} is required: {arg}")
        return "" if have is None else str(have)

    return _VAR.sub(one, value).replace("$$", "$")


def environment(service: Mapping[str, Any]) -> dict[str, str]:
    """A service's ``environment`` as a mapping (list or mapping form)."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def container_env(name: str) -> dict[str, str]:
    """The environment compose would give ``name``, with ``.env.example``'s values."""
    return interpolate(environment(services()[name]), env_example())  # type: ignore[no-any-return]


def command(service: Mapping[str, Any]) -> list[str] | None:
    cmd = service.get("command")
    if cmd is None:
        return None
    return list(cmd) if isinstance(cmd, list) else shlex.split(cmd)


# --- topics (through the topic job's own reader) -----------------------------------------


@cache
def create_topics() -> Any:
    """infra/kafka/create_topics.py loaded as a module (it is a script, not a package)."""
    import importlib.util
    import sys

    path = INFRA / "kafka" / "create_topics.py"
    spec = importlib.util.spec_from_file_location("uth_infra_create_topics", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def topics() -> dict[str, Any]:
    """Name -> TopicSpec, as the job reads infra/kafka/topics.yaml."""
    return {t.name: t for t in create_topics().load_spec(INFRA / "kafka" / "topics.yaml")}


# --- the Dockerfile -----------------------------------------------------------------------


@dataclass(frozen=True)
class Instruction:
    keyword: str
    args: str
    stage: int
    line: int


@cache
def dockerfile() -> tuple[Instruction, ...]:
    out: list[Instruction] = []
    stage = -1
    pending = ""
    start = 0
    for number, raw in enumerate((INFRA / "Dockerfile").read_text().splitlines(), 1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        text = pending + stripped
        pending = ""
        keyword, _, args = text.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            stage += 1
        out.append(Instruction(keyword, args.strip(), stage, start))
    assert not pending, "Dockerfile ends inside a continued line"
    return tuple(out)


def final_stage() -> list[Instruction]:
    last = max(i.stage for i in dockerfile())
    return [i for i in dockerfile() if i.stage == last]


def docker_env() -> dict[str, str]:
    """``ENV`` of the final stage (``KEY=VALUE`` pairs, later ones win)."""
    env: dict[str, str] = {}
    for ins in final_stage():
        if ins.keyword == "ENV":
            for token in shlex.split(ins.args):
                key, sep, value = token.partition("=")
                assert sep, f"Dockerfile:{ins.line}: ENV {token!r} is not KEY=VALUE"
                env[key] = value
    return env


def image_paths() -> dict[str, Path]:
    """Container path -> repository path, for the final stage's ``COPY`` from the context."""
    out: dict[str, Path] = {}
    for ins in final_stage():
        if ins.keyword != "COPY" or "--from=" in ins.args:
            continue
        tokens = [t for t in shlex.split(ins.args) if not t.startswith("--")]
        *sources, dest = tokens
        for src in sources:
            target = dest + PurePosixPath(src).name if dest.endswith("/") else dest
            out[target] = REPO / src
    return out


def mounts(service: Mapping[str, Any]) -> dict[str, Path]:
    """Container path -> path on the host (relative to infra/), for bind mounts."""
    out: dict[str, Path] = {}
    for item in service.get("volumes") or []:
        source, _, rest = str(item).partition(":")
        target = rest.split(":")[0]
        if source.startswith("."):
            out[target] = (INFRA / source).resolve()
    return out


def host_path(container_path: str, service: Mapping[str, Any] | None = None) -> Path | None:
    """Where a path seen inside a UTH container comes from (bind mount, else image)."""
    table = {**image_paths(), **(mounts(service) if service is not None else {})}
    for prefix in sorted(table, key=len, reverse=True):
        if container_path == prefix or container_path.startswith(prefix.rstrip("/") + "/"):
            rest = container_path[len(prefix.rstrip("/")):].lstrip("/")
            return table[prefix] / rest if rest else table[prefix]
    return None


# --- commands --------------------------------------------------------------------------


def uth_subcommands() -> dict[str, Any]:
    from pipeline.cli import build_parser

    parser = build_parser()
    for action in parser._subparsers._group_actions:  # type: ignore[union-attr]
        if getattr(action, "choices", None):
            return dict(action.choices)
    raise AssertionError("the uth parser has no subcommands")


def check_uth(argv: list[str], where: str) -> None:
    """Parse ``uth argv`` with the project's own parser (``pipeline.cli.build_parser``)."""
    from pipeline.cli import build_parser

    assert argv, f"{where}: `uth` without a subcommand"
    assert argv[0] in uth_subcommands(), (
        f"{where}: `uth {argv[0]}` is not a subcommand of the uth CLI "
        f"(known: {', '.join(sorted(uth_subcommands()))})")
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            build_parser().parse_args(argv)
    except SystemExit as exc:
        raise AssertionError(f"{where}: `uth {shlex.join(argv)}` is rejected by the CLI: "
                             f"{err.getvalue().strip()}") from exc


def check_click(script: str, argv: list[str], where: str) -> None:
    """Parse a Dagster console script's arguments with its own click command."""
    from importlib.metadata import entry_points

    import click

    eps = {ep.name: ep for ep in entry_points(group="console_scripts")}
    assert script in eps, f"{where}: no console script {script!r} in the environment"
    cmd = getattr(importlib.import_module(eps[script].module), "cli", None)
    assert isinstance(cmd, click.Command), f"{where}: {script} is not a click command"
    try:
        parent = None
        args = list(argv)
        info = script
        while isinstance(cmd, click.Group):  # dagster sensor start ...: walk the groups
            parent = click.Context(cmd, info_name=info, parent=parent)
            sub = cmd.get_command(parent, args[0]) if args else None
            assert sub is not None, f"{where}: `{info} {args[:1]}` is not a subcommand"
            cmd, info, args = sub, args[0], args[1:]
        cmd.make_context(info, args, parent=parent)
    except click.ClickException as exc:
        raise AssertionError(f"{where}: `{script} {shlex.join(argv)}`: {exc.format_message()}"
                             ) from exc


# --- Markdown ---------------------------------------------------------------------------


def code_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Shell lines inside fenced code blocks (continuations joined, comments dropped)."""
    inside = False
    pending = ""
    start = 0
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        if raw.lstrip().startswith("```"):
            inside = not inside
            continue
        if not inside:
            continue
        line = raw.strip()
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        if line and not line.startswith("#"):
            yield start, line


SHELL_OPERATORS = {"|", "||", "&&", ";", "&"}
REDIRECTIONS = {">", ">>", "<", "2>", "2>>"}


def split_commands(line: str) -> list[list[str]]:
    """A shell line as its simple commands (``a | b && c`` -> three token lists), with
    redirections (``> file``) left out."""
    tokens = shlex.split(line, comments=True)
    out: list[list[str]] = [[]]
    skip = False
    for token in tokens:
        if skip:
            skip = False
        elif token in SHELL_OPERATORS:
            out.append([])
        elif token in REDIRECTIONS:
            skip = True
        elif token != "2>&1":
            out[-1].append(token)
    return [c for c in out if c]
