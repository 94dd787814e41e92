"""The layout of ``events/``: subpackages with small public APIs, a few top-level modules,
pure modules that import no transport, warehouse, orchestrator or dashboard, and no
package cycles in ``pipeline/``."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVENTS = REPO / "events"
# the transport adapters (events/logs/kafka*.py) are the only modules allowed these
IMPURE = ("kafka", "duckdb", "dagster", "streamlit")


def _modules(under: Path) -> list[str]:
    return sorted(".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
                  for p in under.rglob("*.py"))


def test_at_most_a_dozen_top_level_modules() -> None:
    top = sorted(p.name for p in EVENTS.glob("*.py"))
    assert len(top) <= 12, top
    assert {p.name for p in EVENTS.iterdir() if (p / "__init__.py").exists()} >= {
        "game", "contract", "replay", "audit", "sim", "logs", "ledger", "protection"}


def test_pure_modules_import_no_transport_warehouse_orchestrator_or_dashboard() -> None:
    pure = [m for m in _modules(EVENTS) if not m.startswith("events.logs.kafka")]
    assert len(pure) > 50 and "events.audit.auditor" in pure
    code = ("import importlib, sys\n"
            f"for name in {pure!r}:\n"
            "    importlib.import_module(name)\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({IMPURE!r})))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO).stdout.strip()
    assert out == "[]", out


def _package_imports(root: Path) -> dict[str, set[str]]:
    """Which of ``root``'s subpackages each one imports (lazy imports inside functions too)."""
    packages = {p.name for p in root.iterdir() if (p / "__init__.py").exists()}
    prefix = f"{root.name}."
    deps: dict[str, set[str]] = {p: set() for p in packages}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).parts
        if len(parts) < 2 or parts[0] not in packages:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                if name.startswith(prefix):
                    target = name.split(".")[1]
                    if target in packages and target != parts[0]:
                        deps[parts[0]].add(target)
    return deps


def _cycles(deps: dict[str, set[str]]) -> list[str]:
    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(d == goal or (d not in seen and reaches(d, goal, seen | {d}))
                   for d in deps[start])

    return sorted(p for p in deps if reaches(p, p, {p}))


def test_no_package_cycles_in_pipeline() -> None:
    deps = _package_imports(REPO / "pipeline")
    assert deps["audit"] and deps["ingest"]  # (the packages are seen importing)
    cycles = _cycles(deps)
    assert not cycles, {p: sorted(deps[p]) for p in cycles}


def test_no_package_cycles_in_events() -> None:
    deps = _package_imports(EVENTS)
    assert "replay" in deps["audit"] and "game" in deps["replay"]  # (seen importing)
    cycles = _cycles(deps)
    assert not cycles, {p: sorted(deps[p]) for p in cycles}


def test_the_cycle_finder_sees_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c"]


ARCHITECTURE = REPO / "docs" / "architecture.md"
DOCUMENTED = ("events", "pipeline", "dashboards")


def _named_in_tree(text: str) -> set[str]:
    """The files the architecture's tree names: each line ``<indent>name`` under the
    folders (``name/``) it is indented under; a name is the line's first word."""
    block = text.split("```", 2)[1]
    named: set[str] = set()
    stack: list[tuple[int, str]] = []  # (indent, folder)
    for line in block.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        word = line.split()[0]
        if not (word.endswith("/") or word.endswith(".py")):
            continue  # a description's continuation
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = "/".join([f for _, f in stack] + [word.rstrip("/")])
        if word.endswith("/"):
            stack.append((indent, word.rstrip("/")))
        named.add(path)
    return named


def _modules_on_disk() -> set[str]:
    return {str(p.relative_to(REPO)) for top in DOCUMENTED for p in (REPO / top).rglob("*.py")
            if p.name != "__init__.py"}


def test_the_architecture_names_every_module() -> None:
    """docs/architecture.md's tree names every module of events/, pipeline/ and
    dashboards/, one line each, and no module that is not there."""
    named = _named_in_tree(ARCHITECTURE.read_text(encoding="utf-8"))
    on_disk = _modules_on_disk()
    assert len(on_disk) > 150
    assert not on_disk - named, f"not in docs/architecture.md: {sorted(on_disk - named)}"
    stale = {n for n in named if n.endswith(".py") and n.split("/")[0] in DOCUMENTED} - on_disk
    assert not stale, f"named in docs/architecture.md but not there: {sorted(stale)}"


def test_the_tree_reader_follows_indentation() -> None:
    text = ("```\nevents/   the domain\n  game/     rules\n    rules.py  verify\n"
            "              can and do\n  money.py  cents\npipeline/\n  cli.py\n```\n")
    assert _named_in_tree(text) == {"events", "events/game", "events/game/rules.py",
                                    "events/money.py", "pipeline", "pipeline/cli.py"}


def test_no_module_over_400_lines() -> None:
    """The guide's bound: a module that grows past it is split by what its parts are."""
    long = {str(p.relative_to(REPO)): n for top in ("events", "pipeline", "dashboards")
            for p in (REPO / top).rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert not long, long


def test_sequence_findings_are_worded_once() -> None:
    """A gap and a conflict in a table's ``seq`` are worded in one place
    (``events.findings``), whoever finds them (the auditor's sequencer, the warehouse)."""
    for words in ("never arrived", "received earlier with the same seq",
                  "arrived twice with different"):
        where = sorted(str(p.relative_to(REPO)) for top in ("events", "pipeline", "dashboards")
                       for p in (REPO / top).rglob("*.py")
                       if words in p.read_text(encoding="utf-8"))
        assert where == ["events/findings.py"], (words, where)


_WAGER = r"""b?["'](?:ante|blind|play|trips)["']"""


def test_the_wagers_are_listed_once() -> None:
    """The spots a seat can hold are listed in one place (``events.game.settlement.SPOTS``;
    the contract's ``Spot`` and ``PayoutSpot`` types name them too, as types must)."""
    listing = re.compile(rf"{_WAGER}\s*,\s*{_WAGER}\s*,\s*{_WAGER}")
    where = sorted(str(p.relative_to(REPO)) for top in ("events", "pipeline", "dashboards")
                   for p in (REPO / top).rglob("*.py")
                   if listing.search(p.read_text(encoding="utf-8")))
    assert where == ["events/contract/schemas.py", "events/game/settlement.py"], where
