"""Findings: mispays and other findings by dealer, table, shift and kind; each opens its hand."""

from __future__ import annotations

import streamlit as st

from dashboards import queries, ui
from dashboards.format import count, moment, money

st.title("Findings")
with ui.warehouse("audit_findings", "table_hold_daily") as con:
    st.caption("Overpaid: the player received more than the correct settlement; underpaid: "
               "less. Shifts (`UTH_SHIFTS`, else the three eight-hour thirds of the gaming "
               "day) by when the finding occurred; times are local to "
               f"{ui.md(queries.zone(con))}.")
    opts = queries.findings_options(con)
    if opts.first_day is None:
        st.success("No findings in the warehouse: every audited hand was settled correctly.")
        st.stop()
    first, last = ui.day_range(opts, "findings_days")
    start = queries.day_start(con)
    filters = queries.Filters(
        day_from=first, day_to=last,
        dealers=ui.multiselect("Dealers", opts.dealers, "findings_dealers"),
        tables=ui.multiselect("Tables", opts.tables, "findings_tables"),
        shifts=ui.multiselect("Shifts", list(queries.shifts(start)), "findings_shifts"),
        kinds=ui.multiselect("Kinds", opts.kinds, "findings_kinds"),
    )
    by = st.radio("Group by", list(queries.FINDING_GROUPS), horizontal=True, key="findings_by")
    grouped = queries.findings_totals(con, filters, by, start=start)
    rows = queries.findings(con, filters, start=start)

if grouped.empty:
    ui.empty_notice("findings")
    st.stop()

totals = grouped.groupby("currency", sort=True)[["findings", "mispays", "overpaid",
                                                  "underpaid", "net"]].sum()
for cur, t in totals.iterrows():
    if len(totals) > 1:
        st.subheader(f"In {ui.md(cur) if cur else 'no currency'}")
    ui.metric_row([
        ("Findings", count(t["findings"]), None),
        ("Mispays", count(t["mispays"]), "Findings with an expected and a recorded amount "
         "that differ"),
        ("Overpaid", money(t["overpaid"], str(cur)), "Paid to players beyond the correct amount"),
        ("Underpaid", money(t["underpaid"], str(cur)), "Short of the correct amount"),
        ("Net (+ overpaid)", money(t["net"], str(cur)), None),
    ])

st.subheader(f"By {by}")
ui.table("findings-by-group", ui.frame({
    by.capitalize(): grouped["group"].astype(object).where(grouped["group"].notna(), "—"),
    "Currency": grouped["currency"],
    "Findings": [count(v) for v in grouped["findings"]],
    "Mispays": [count(v) for v in grouped["mispays"]],
    "Overpaid": ui.money_column(grouped, "overpaid"),
    "Underpaid": ui.money_column(grouped, "underpaid"),
    "Net (+ overpaid)": ui.money_column(grouped, "net"),
}), hide_index=True, width="stretch")

st.subheader("Findings, latest first")
if len(rows) >= queries.FINDINGS_LIMIT:
    st.caption(f"The latest {queries.FINDINGS_LIMIT:,} shown; narrow the filters to see others.")
has_hand = rows["hand_id"].notna()
ui.table("findings", ui.frame({
    "Hand": [ui.hand_link(h) if ok else None
             for h, ok in zip(rows["hand_id"], has_hand, strict=True)],
    "Occurred": [moment(v) for v in rows["occurred_at"]],
    "Shift": rows["shift"],
    "Kind": rows["kind"],
    "Table": rows["table_id"],
    "Dealer": rows["dealer_id"],
    "Seat": rows["seat"],
    "Spot": rows["spot"],
    "Expected": ui.money_column(rows, "expected"),
    "Recorded": ui.money_column(rows, "recorded"),
    "Overpaid": ui.money_column(rows, "over"),
    "Underpaid": ui.money_column(rows, "under"),
    "Detail": rows["detail"],
}), hide_index=True, width="stretch", column_config={
    "Hand": st.column_config.LinkColumn("Hand", display_text=r"hand_id=(.*)",
                                        help="Opens the hand in the audit page"),
})

linked = rows.loc[has_hand]
if not linked.empty:
    labels = {fid: f"{hid} · {kind} · seat {seat} {spot}" for fid, hid, kind, seat, spot in zip(
        linked["finding_id"], linked["hand_id"], linked["kind"], linked["seat"], linked["spot"],
        strict=True)}
    pick = ui.open_in_audit("Open a finding's hand", labels, "findings")
    if pick is not None:
        hand_of = dict(zip(linked["finding_id"], linked["hand_id"], strict=True))
        st.switch_page("app_pages/hand_audit.py", query_params={"hand_id": str(hand_of[pick])})
