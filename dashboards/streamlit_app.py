"""The floor dashboards: ``streamlit run dashboards/streamlit_app.py`` with ``UTH_WAREHOUSE``
naming the DuckDB warehouse (``uth dashboards --warehouse PATH`` does both). Who may open
which page: ``dashboards/gate.py``."""

from __future__ import annotations

import streamlit as st

from dashboards import gate
from dashboards.ui import favicon

# the icon drawn here: a named or material icon would be fetched from the internet
st.set_page_config(page_title="UTH floor", page_icon=favicon(), layout="wide")
# metric values long enough to carry their currency and denominator ("16.74% of drop")
st.markdown("<style>[data-testid='stMetricValue']{font-size:1.55rem}</style>",
            unsafe_allow_html=True)

# the pages (dashboards/access.py's registry), those this user's roles may open
gate.enter()
