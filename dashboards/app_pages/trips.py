"""Trips: actual hold against the exact theoretical hold and its 95% band; paying hands
against their exact probabilities."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from dashboards import queries, ui
from dashboards.format import count, decimal, pct_value, probability, share

st.title("Trips")
st.caption("Trips hold is Trips win ÷ Trips handle. It needs about 280,000 bets to come within "
           "a point of theory, so judge it against its 95% band, not against the point.")

with ui.warehouse("trips_performance", "trips_hits") as con:
    opts = queries.trips_options(con)
    if opts.first_day is None:
        ui.empty_notice("Trips wagers")
        st.stop()
    first, last = ui.day_range(opts, "trips_days")
    filters = queries.Filters(
        day_from=first, day_to=last,
        tables=ui.multiselect("Tables", opts.tables, "trips_tables"),
        rulesets=ui.multiselect("Rulesets", opts.rulesets, "trips_rulesets"),
    )
    by_ruleset = queries.trips_summary(con, filters, by_table=False)
    by_table = queries.trips_summary(con, filters, by_table=True)
    hits = queries.trips_hits(con, filters)

if by_ruleset.empty:
    ui.empty_notice("Trips wagers")
    st.stop()


def summary_frame(df: pd.DataFrame, with_table: bool) -> pd.DataFrame:
    out = {"Ruleset": df["ruleset"]}
    if with_table:
        out["Table"] = df["table_id"]
    out.update({
        "Trips wagers": [count(v) for v in df["trips_wagers"]],
        "Trips handle": ui.money_column(df, "trips_handle"),
        "Trips win": ui.money_column(df, "trips_win"),
        "Hold (win ÷ Trips handle)": [pct_value(v, 3) for v in df["hold_pct"]],
        "Theoretical hold": [pct_value(v, 3) for v in df["theoretical_hold_pct"]],
        "95% band low": [pct_value(v, 3) for v in df["ci_low"]],
        "95% band high": [pct_value(v, 3) for v in df["ci_high"]],
        "Within band": [{True: "yes", False: "⚠ no", None: "—"}[ui.truth(w)]
                        for w in df["within_band"]],
    })
    return ui.frame(out)


st.subheader("By ruleset")
ui.table("trips-by-ruleset", ui.highlight_rows(summary_frame(by_ruleset, False),
                               [ui.truth(w) is False for w in by_ruleset["within_band"]]),
             hide_index=True, width="stretch")

chart_data = by_table.dropna(subset=["hold_pct", "ci_low", "ci_high"]).assign(
    label=lambda d: d["ruleset"] + " · " + d["table_id"])
if not chart_data.empty:
    base = alt.Chart(chart_data[["label", "hold_pct", "theoretical_hold_pct", "ci_low",
                                 "ci_high"]])
    band = base.mark_rule(strokeWidth=8, opacity=0.35).encode(
        # the whole label ("charlevoix-2011 · T02"): Vega cuts axis labels at 180 px
        y=alt.Y("label:N", title=None, axis=alt.Axis(labelLimit=0)),
        x=alt.X("ci_low:Q", title="Hold (win ÷ Trips handle)",
                                               axis=alt.Axis(format="%")), x2="ci_high:Q")
    theory = base.mark_tick(color="black", thickness=2).encode(
        y="label:N", x="theoretical_hold_pct:Q")
    actual = base.mark_point(filled=True, size=80, color="#c0392b").encode(
        y="label:N", x="hold_pct:Q",
        tooltip=["label:N", alt.Tooltip("hold_pct:Q", format=".3%", title="actual"),
                 alt.Tooltip("theoretical_hold_pct:Q", format=".3%", title="theoretical")])
    st.altair_chart(band + theory + actual, width="stretch")
    st.caption("Bar: 95% band around the theoretical hold (tick); dot: actual hold.")

st.subheader("By ruleset and table")
ui.table("trips-by-table", ui.highlight_rows(summary_frame(by_table, True),
                               [ui.truth(w) is False for w in by_table["within_band"]]),
             hide_index=True, width="stretch")

st.subheader("Paying hands: observed frequency against exact probability")
if hits.empty:
    ui.empty_notice("Trips hits")
for ruleset, group in hits.groupby("ruleset", sort=True):
    st.markdown(f"**{ui.md(ruleset)}**")
    ui.table(f"trips-paying-hands-{ruleset}", ui.frame({
        "Hand": group["category_name"],
        "Hits": [count(v) for v in group["hits"]],
        "Frequency (of Trips wagers)": [share(h, w, "wagers", 4)
                                        for h, w in zip(group["hits"], group["wagers"],
                                                        strict=True)],
        "Exact probability": [probability(v) for v in group["probability"]],
        "Expected hits": [decimal(v, 2) for v in group["expected_hits"]],
    }), hide_index=True, width="stretch")
