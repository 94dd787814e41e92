"""Pages hold no SQL: every statement lives in the query modules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PAGES = Path(__file__).resolve().parents[2] / "dashboards" / "app_pages"
SQL = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ATTACH|COPY|PRAGMA)\b\s")


def test_pages_hold_no_sql() -> None:
    pages = sorted(PAGES.glob("*.py"))
    assert {p.stem for p in pages} == {"floor", "trips", "hand_audit", "findings", "dealers",
                                       "players", "disputes", "hold", "live", "health",
                                       "access_log"}
    for page in pages:
        tree = ast.parse(page.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not SQL.search(node.value), f"{page.name}: {node.value[:60]!r}"
            if isinstance(node, ast.Attribute):
                assert node.attr not in {"execute", "sql", "query", "executemany"}, (
                    f"{page.name}:{node.lineno} calls .{node.attr}")
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", "") or ""]
                assert not any(n.startswith("duckdb") for n in names), page.name
