"""Access log, for the audit role: who opened which page, hand, player's evidence and
download, and what was refused, newest first (pseudonyms only, as written)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards import access_log, gate, ui

LIMIT = 5_000
COLUMNS = ["at", "sub", "email", "roles", "what", "page", "hand", "players", "download",
           "file"]

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
what = st.multiselect("What", sorted({str(w) for w in frame["what"].dropna()}),
                      key="access_what", placeholder="All")
if what:
    frame = frame[frame["what"].isin(what)]
ui.table("access-log", frame.fillna(""), hide_index=True, width="stretch")
