"""Dealers: hands per hour and mispays."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from dashboards import queries, ui
from dashboards.format import count, decimal, mispay_net, pct, share

st.title("Dealers")
st.caption("Hands per hour over the hours each dealer dealt; mispays as found by the audit. "
           "Mispay net is recorded minus correct: positive means players were overpaid.")

with ui.warehouse("dealer_performance", "hands") as con:
    opts = queries.dealer_options(con)
    if opts.first_day is None:
        ui.empty_notice("dealer shifts")
        st.stop()
    first, last = ui.day_range(opts, "dealers_days")
    filters = queries.Filters(day_from=first, day_to=last,
                              dealers=ui.multiselect("Dealers", opts.dealers, "dealers_pick"))
    rows = queries.dealers(con, filters)
    daily = queries.dealer_daily(con, filters)

if rows.empty:
    ui.empty_notice("dealer shifts")
    st.stop()


hands, mispays = int(rows["hands"].sum()), int(rows["mispays"].sum())
floor_rate = mispays / hands if hands else 0.0
ui.metric_row([
    ("Dealers", count(len(rows)), None),
    ("Hands", count(hands), None),
    ("Hands / hour (all dealers)", decimal(hands / rows["hours"].sum())
     if rows["hours"].sum() else "—", "Total hands ÷ total hours dealt"),
    ("Mispays", count(mispays), None),
    ("Mispay rate", pct(floor_rate, "hands", 3) if hands else "—", "Mispays ÷ hands dealt"),
])

st.subheader("By dealer, most mispays per hand first")
st.caption("Highlighted: a mispay rate above the floor's.")
ui.table("dealers", ui.highlight_rows(ui.frame({
    "Dealer": rows["dealer_id"],
    "Days": [count(v) for v in rows["days"]],
    "Hands": [count(v) for v in rows["hands"]],
    "Hours": [decimal(v, 2) for v in rows["hours"]],
    "Hands / hour": [decimal(v) for v in rows["hands_per_hour"]],
    "Mispays": [count(v) for v in rows["mispays"]],
    "Mispays (of hands)": [share(m, h, "hands", 3) for m, h in zip(
        rows["mispays"], rows["hands"], strict=True)],
    "Mispay net (+ overpaid)": [mispay_net(v, c, m) for v, c, m in zip(
        rows["mispay_net"], rows["currency"], rows["mispays"], strict=True)],
}), [h > 0 and m / h > floor_rate for m, h in zip(rows["mispays"], rows["hands"], strict=True)],
    colour="#fff1c9"), hide_index=True, width="stretch")

st.subheader("Hands per hour by dealer")
bars = alt.Chart(rows.assign(mispay_rate=rows["mispays"] / rows["hands"])).mark_bar().encode(
    x=alt.X("hands_per_hour:Q", title="Hands / hour"),
    y=alt.Y("dealer_id:N", title=None, sort="-x"),
    color=alt.Color("mispay_rate:Q", title="Mispays ÷ hands", scale=alt.Scale(scheme="orangered"),
                    legend=alt.Legend(format="%")),
    tooltip=["dealer_id:N", alt.Tooltip("hands_per_hour:Q", format=".1f"), "hands:Q",
             "mispays:Q", alt.Tooltip("mispay_rate:Q", format=".2%")])
st.altair_chart(bars, width="stretch")

if daily["gaming_day"].nunique() >= 3:
    st.subheader("Hands per hour by gaming day")
    chart = alt.Chart(daily.assign(gaming_day=pd.to_datetime(daily["gaming_day"]))).mark_line(
        point=True).encode(
        x=alt.X("yearmonthdate(gaming_day):O", title="Gaming day"),
        y=alt.Y("hands_per_hour:Q", title="Hands / hour"),
        color=alt.Color("dealer_id:N", title="Dealer"),
        tooltip=["dealer_id:N", "gaming_day:T", alt.Tooltip("hands_per_hour:Q", format=".1f"),
                 "hands:Q", "mispays:Q"])
    st.altair_chart(chart, width="stretch")
