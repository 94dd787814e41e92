"""Hold report: drop, handle, house win and hold by table, pit, shift or week."""

from __future__ import annotations

import streamlit as st

from dashboards import queries, ui
from dashboards.format import count, money, pct_value

st.title("Hold report")

with ui.warehouse("table_hold_daily") as con:
    st.caption("Hold % is house win ÷ drop; win ÷ handle is house win ÷ all wagers. Pits are "
               "the sets of tables named by `UTH_PITS` (e.g. `main=T01,T02;high-limit=T03`); "
               "shifts are by local time in "
               f"{ui.md(queries.zone(con))} (`UTH_SHIFTS`, else thirds of the gaming day); "
               "weeks run Monday to Sunday by gaming day.")
    opts = queries.floor_options(con)
    if opts.first_day is None:
        ui.empty_notice("table-days")
        st.stop()
    first, last = ui.day_range(opts, "hold_days")
    by = st.radio("Group by", list(queries.HOLD_GROUPS), horizontal=True, key="hold_by")
    try:
        rows = queries.hold_report(con, by, first, last)
    except queries.PitsError as exc:
        st.warning(f"{exc}. Fix the setting and restart `uth dashboards`.")
        st.stop()

if rows.empty:
    ui.empty_notice("hands or buy-ins")
    st.stop()
if by == "pit" and rows["group"].isna().all():
    st.info("No pit is set: name them with `UTH_PITS` (e.g. `main=T01,T02;high-limit=T03`) "
            "and restart `uth dashboards`.")

none = {"pit": "no pit", "shift": "—", "table": "—", "week": "—"}[by]
ui.table(f"hold-by-{by}", ui.frame({
    by.capitalize(): rows["group"].astype(object).where(rows["group"].notna(), none),
    "Currency": rows["currency"],
    "Hands": [count(v) for v in rows["hands"]],
    "Drop": ui.money_column(rows, "drop"),
    "Handle": ui.money_column(rows, "handle"),
    "House win": ui.money_column(rows, "house_win"),
    "Hold % of drop": [pct_value(v) for v in rows["hold_pct"]],
    "Win % of handle": [pct_value(v) for v in rows["win_to_handle_pct"]],
}), hide_index=True, width="stretch")
totals = rows.groupby("currency")[["drop", "house_win"]].sum()
for cur, t in totals.iterrows():
    st.caption(f"Total in {ui.md(cur) or 'no currency'}: drop {money(t['drop'], str(cur))}, "
               f"house win {money(t['house_win'], str(cur))}.")
