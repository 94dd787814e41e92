"""Live: each table's last hand, hands this hour and the newest findings, refreshed by
itself while a load or ``uth audit --follow`` runs (``UTH_LIVE_REFRESH`` seconds, 5 by
default; each refresh opens the warehouse only while it reads)."""

from __future__ import annotations

import os
from datetime import timedelta

import streamlit as st

from dashboards import freshness_header, queries, ui
from dashboards.format import count, moment
from events.localtime import to_local, to_utc

st.title("Live")


def refresh_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get("UTH_LIVE_REFRESH", "") or 5))
    except ValueError:
        return 5.0


IN_PLAY = "in play"  # a hand not ended yet whose table has not moved on

every = refresh_seconds()
auto = st.toggle(f"Refresh every {every:g} s", value=True, key="live_auto")
seen: set[str] = st.session_state.setdefault("live_seen", set())


@st.fragment(run_every=every if auto else None)
def floor() -> None:
    freshness_header.header(live=True)
    with ui.warehouse("audit_findings") as con:
        tz = queries.zone(con)
        clock = queries.floor_clock(con)
        if clock is None:
            st.info("No hand has started yet.")
            return
        local_clock = to_local(clock, tz)
        hour = to_utc(local_clock.replace(minute=0, second=0, microsecond=0), tz)
        tables = queries.live_tables(con, clock, hour, tz)
        found = queries.newest_findings(con, tz)
    st.caption(f"Floor clock {moment(local_clock)} ({ui.md(tz)}): the newest hand or "
               f"finding. This hour: since {local_clock:%H}:00.")
    ui.metric_row([
        ("Tables", count(len(tables)), None),
        ("Hands this hour", count(tables["hands_this_hour"].sum()),
         f"Started since {local_clock:%H}:00"),
        ("Hands in the last 60 min", count(tables["hands_last_60_min"].sum()),
         "The floor's hands per hour at its current pace"),
        ("Hands in play", count((tables["status"] == "in_play").sum()),
         "Not ended yet, their table not moved on: no finding until one of them is "
         "left unfinished (pipeline/hands/in_play.py)"),
    ])
    st.subheader("Tables")
    ui.table("live-tables", ui.frame({
        "Table": tables["table_id"], "Last hand": tables["last_hand"],
        "Dealer": tables["dealer_id"],
        "Started": [moment(v) for v in tables["last_started"]],
        "Status": [IN_PLAY if s == "in_play" else s for s in tables["status"]],
        "Hands this hour": [count(v) for v in tables["hands_this_hour"]],
        "Hands in the last 60 min": [count(v) for v in tables["hands_last_60_min"]],
    }), hide_index=True, width="stretch")
    st.subheader("Newest findings")
    if found.empty:
        st.success("No findings yet.")
        return
    ids = [str(f) for f in found["finding_id"]]
    if seen:
        new = [f not in seen for f in ids]
    else:  # the first view: what the last ten minutes of the floor brought
        recent = clock - timedelta(minutes=10)
        new = [ui.known(t) and t >= recent for t in found["occurred_utc"]]
    arrived = sum(new) if seen else 0
    seen.update(ids)
    if arrived:
        st.toast(f"{arrived} new finding{'s' if arrived != 1 else ''}", icon="🚨")
    ui.table("live-findings", ui.highlight_rows(ui.frame({
        "New": ["● new" if n else "" for n in new],
        "Occurred": [moment(v) for v in found["occurred_at"]],
        "Kind": found["kind"], "Table": found["table_id"], "Dealer": found["dealer_id"],
        "Hand": [ui.hand_link(h) if ui.known(h) else None
                 for h in found["hand_id"]],
        "Seat": found["seat"],
        "Expected": ui.money_column(found, "expected"),
        "Recorded": ui.money_column(found, "recorded"),
        "Detail": found["detail"],
    }), new), hide_index=True, width="stretch", column_config={
        "Hand": st.column_config.LinkColumn("Hand", display_text=r"hand_id=(.*)")})


floor()
