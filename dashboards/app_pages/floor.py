"""Floor: drop, handle, win and hold per table and gaming day, outliers first."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from dashboards import queries, ui
from dashboards.format import count, day, decimal, money, pct, pct_value

st.title("Floor")
st.caption("Per table and gaming day. Hold % is house win ÷ drop; win ÷ handle is house win "
           "÷ all wagers (ante, blind, play, Trips). Rows whose hold falls outside its 95% "
           "control limits come first, highlighted.")

with ui.warehouse("table_hold_daily") as con:
    opts = queries.floor_options(con)
    if opts.first_day is None:
        ui.empty_notice("table-days")
        st.stop()
    first, last = ui.day_range(opts, "floor_days")
    filters = queries.Filters(
        day_from=first, day_to=last,
        tables=ui.multiselect("Tables", opts.tables, "floor_tables"),
        rulesets=ui.multiselect("Rulesets", opts.rulesets, "floor_rulesets"),
    )
    totals = queries.floor_totals(con, filters)
    series = queries.floor_series(con, filters)
    rows = queries.floor_rows(con, filters)

if rows.empty:
    ui.empty_notice("table-days")
    st.stop()

for total in totals.to_dict("records"):
    cur = total["currency"]
    if len(totals) > 1:
        st.subheader(f"Totals in {ui.md(cur)}")
    ui.metric_row([
        ("Drop", money(total["drop"], cur), "Chips bought at the tables"),
        ("Handle", money(total["handle"], cur), "Sum of all wagers"),
        ("House win", money(total["house_win"], cur), "Minus the players' recorded results"),
        ("Theoretical win", money(total["theoretical_win"], cur), "Handle × exact house edge"),
    ])
    ui.metric_row([
        ("Hold % (win ÷ drop)", pct(total["hold_pct"], "drop"), None),
        ("Win ÷ handle", pct(total["win_to_handle_pct"], "handle"), None),
        ("Hands", count(total["hands"]), None),
        ("Outside 95% limits", f"{count(total['outside'])} of {count(total['table_days'])} "
         "table-days", "Table-days whose hold is outside its 95% control limits"),
    ])

st.subheader("By gaming day")
chart_rows = []
for r in series.to_dict("records"):
    for label, column in (("Hold % (win ÷ drop)", "hold_pct"),
                          ("Win ÷ handle", "win_to_handle_pct")):
        if r[column] is not None and r[column] == r[column]:
            chart_rows.append({"gaming_day": pd.Timestamp(r["gaming_day"]), "currency":
                               r["currency"], "measure": label, "value": float(r[column])})
if chart_rows:
    chart = alt.Chart(pd.DataFrame(chart_rows)).mark_line(point=True).encode(
        x=alt.X("yearmonthdate(gaming_day):O", title="Gaming day"),
        y=alt.Y("value:Q", title="Percent", axis=alt.Axis(format="%")),
        # a colour per currency (a dash pattern alone told them apart badly, and its
        # legend showed black dots); the measure as solid or dashed, drawn as lines
        color=alt.Color("currency:N", title="Currency",
                        legend=alt.Legend(symbolType="stroke", symbolStrokeWidth=3)),
        strokeDash=alt.StrokeDash(
            "measure:N", title=None, scale=alt.Scale(range=[[1, 0], [6, 4]]),
            legend=alt.Legend(symbolType="stroke", symbolStrokeColor="#555",
                              symbolStrokeWidth=2, symbolSize=400, labelLimit=0)),
        tooltip=["gaming_day:T", "measure:N", alt.Tooltip("value:Q", format=".2%")],
    )
    st.altair_chart(chart, width="stretch")

st.subheader("Tables by gaming day, outliers first")
st.caption("The download adds each table-day's control limits (low and high), its pace in "
           "hands per hour and its ruleset.")
# one grid, one row per table-day, every column in view at 1,400 pixels: the hold and the
# money; the limits' bounds, the pace and the ruleset only in the CSV download (with them
# the grid scrolled sideways)
grid = ui.frame({
    "Table": rows["table_id"],
    "Gaming day": [day(d) for d in rows["gaming_day"]],
    "95% limits": ["⚠ outside" if o else "within" for o in rows["outside"]],
    "Hold % (win ÷ drop)": [pct_value(v) for v in rows["hold_pct"]],
    "Drop": ui.money_column(rows, "drop"),
    "House win": ui.money_column(rows, "house_win"),
    "Handle": ui.money_column(rows, "handle"),
    "Theoretical win": ui.money_column(rows, "theoretical_win"),
    "Hold limit low": [pct_value(v) for v in rows["hold_ci_low"]],
    "Hold limit high": [pct_value(v) for v in rows["hold_ci_high"]],
    "Win ÷ handle": [pct_value(v) for v in rows["win_to_handle_pct"]],
    "Hands": [count(v) for v in rows["hands"]],
    "Hands / hour": [decimal(v) for v in rows["hands_per_hour"]],
    "Ruleset": rows["ruleset"],
})
DOWNLOAD_ONLY = ("Hold limit low", "Hold limit high", "Hands / hour", "Ruleset")
ui.table("floor", ui.highlight_rows(grid, rows["outside"]), hide_index=True,
         column_order=[c for c in grid.columns if c not in DOWNLOAD_ONLY],
         column_config=ui.fitted(grid, **{"95% limits": "Limits", "Hold % (win ÷ drop)": "Hold %",
                                          "Theoretical win": "Theo win",
                                          "Win ÷ handle": "Win÷hdl"}))
