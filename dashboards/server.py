"""The server ``uth dashboards`` runs: Streamlit's own (``st.App``) over
``streamlit_app.py``, with :class:`dashboards.downloads.Guard` in front, so that a download's
``/media`` URL answers only the user who made it (``streamlit run dashboards/server.py``)."""

from __future__ import annotations

import streamlit as st
from starlette.middleware import Middleware

from dashboards.downloads import Guard

app = st.App("streamlit_app.py", middleware=[Middleware(Guard)])
