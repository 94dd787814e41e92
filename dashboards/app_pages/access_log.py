"""Access log, for the audit role: who opened which page, hand, player's evidence and
download, and what was refused, newest first (pseudonyms only, as written)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pandas as pd
import streamlit as st

from dashboards import access_log, gate, ui
from dashboards.format import Shown

LIMIT = 5_000
COLUMNS = ["at", "sub", "email", "roles", "what", "page", "hand", "players", "download",
           "file"]

AT = "at (UTC)"


def compact(at: Any) -> Any:
    """A line's time to the second, ``2026-12-05 18:50:17`` (the header says UTC): the
    whole ``2026-12-05T18:50:17.691+00:00`` took a third of an 800-pixel page. The CSV
    keeps it whole."""
    try:
        moment = datetime.fromisoformat(str(at))
    except ValueError:
        return at
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return Shown(f"{moment:%Y-%m-%d %H:%M:%S}", at)


st.title("Access log")
log = gate.current().log
if log is None:
    st.info("No access log: the dashboards were started without a warehouse.")
    st.stop()
st.caption(f"Appended to {ui.code(log)} (beside the warehouse, never rewritten): the last "
           f"{LIMIT:,} lines, newest first.")
records = access_log.read(log, LIMIT)
if not records:
    st.info("Nothing logged yet. Every page, hand, player's evidence, download and refusal "
            "is written here, by the signed-in user or, with no sign-in configured, as "
            "the local user.")
    st.stop()
frame = pd.DataFrame(records[::-1]).reindex(columns=COLUMNS)
for column in ("roles", "players"):
    frame[column] = [", ".join(v) if isinstance(v, list) else v for v in frame[column]]
frame["at"] = pd.Series([compact(v) if isinstance(v, str) else v for v in frame["at"]],
                        index=frame.index, dtype=object)  # as shown, their whole time kept
what = st.multiselect("What", sorted({str(w) for w in frame["what"].dropna()}),
                      key="access_what", placeholder="All")
if what:
    frame = frame[frame["what"].isin(what)]
ui.table("access-log", frame.fillna("").rename(columns={"at": AT}), hide_index=True,
         width="stretch")
