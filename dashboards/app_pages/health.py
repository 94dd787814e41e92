"""Health, for IT: the warehouse the dashboards read, how fresh it is, the access log."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import streamlit as st

from dashboards import access_log, gate, queries, ui
from dashboards.format import count
from dashboards.live_queries import floor_clock

st.title("Health")


def _stat(path: Path | None) -> tuple[str, str]:
    """A file's size and last change (UTC), or why there is none."""
    if path is None or not path.is_file():
        return "—", "none yet"
    info = path.stat()
    changed = datetime.fromtimestamp(info.st_mtime, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"{info.st_size:,} bytes", changed


path = ui.warehouse_path()
log = gate.current().log
with ui.warehouse() as con:
    hands = queries.hand_count(con)
    clock = floor_clock(con)
ui.metric_row([
    ("Hands loaded", count(hands), None),
    ("Newest hand or finding (UTC)", str(clock)[:19] if clock is not None else "—", None),
    ("Access log lines", count(len(access_log.read(log))) if log else "—",
     "Every page, hand, evidence and download opened, by a signed-in user or the local "
     "one (no sign-in configured)"),
])
rows = [("warehouse", str(path), *_stat(Path(path) if path else None)),
        ("access log", str(log) if log else "—", *_stat(log))]
ui.table("health", pd.DataFrame(rows, columns=["File", "Path", "Size", "Last changed"]),
         hide_index=True, width="stretch")
