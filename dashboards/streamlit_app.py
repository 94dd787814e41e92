"""The floor dashboards: ``streamlit run dashboards/streamlit_app.py`` with ``UTH_WAREHOUSE``
naming the DuckDB warehouse (``uth dashboards --warehouse PATH`` does both)."""

from __future__ import annotations

import streamlit as st

from dashboards.ui import favicon

# the icon drawn here: a named or material icon would be fetched from the internet
st.set_page_config(page_title="UTH floor", page_icon=favicon(), layout="wide")
# metric values long enough to carry their currency and denominator ("16.74% of drop")
st.markdown("<style>[data-testid='stMetricValue']{font-size:1.55rem}</style>",
            unsafe_allow_html=True)

PAGES = [
    st.Page("app_pages/floor.py", title="Floor", icon=":material/casino:", default=True),
    st.Page("app_pages/trips.py", title="Trips", icon=":material/target:"),
    st.Page("app_pages/hand_audit.py", title="Hand audit", icon=":material/search:"),
    st.Page("app_pages/live.py", title="Live", icon=":material/monitor_heart:"),
    st.Page("app_pages/findings.py", title="Findings", icon=":material/report:"),
    st.Page("app_pages/disputes.py", title="Disputes", icon=":material/gavel:"),
    st.Page("app_pages/hold.py", title="Hold report", icon=":material/table_chart:"),
    st.Page("app_pages/dealers.py", title="Dealers", icon=":material/badge:"),
    st.Page("app_pages/players.py", title="Players", icon=":material/groups:"),
]

st.navigation(PAGES).run()
