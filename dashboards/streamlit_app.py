"""The floor dashboards: ``streamlit run dashboards/streamlit_app.py`` with ``UTH_WAREHOUSE``
naming the DuckDB warehouse (``uth dashboards --warehouse PATH`` does both)."""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="UTH floor", page_icon="🃏", layout="wide")

PAGES = [
    st.Page("app_pages/floor.py", title="Floor", icon="🎲", url_path="floor", default=True),
    st.Page("app_pages/trips.py", title="Trips", icon="🎯", url_path="trips"),
    st.Page("app_pages/hand_audit.py", title="Hand audit", icon="🔎", url_path="hand_audit"),
    st.Page("app_pages/findings.py", title="Findings", icon="⚠️", url_path="findings"),
    st.Page("app_pages/dealers.py", title="Dealers", icon="🧑‍💼", url_path="dealers"),
]

st.navigation(PAGES).run()
