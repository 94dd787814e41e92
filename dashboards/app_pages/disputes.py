"""Disputes: the open queue first, each dispute opening its hand audit; resolved ones with
their adjustment checked against what the replay says the house owed."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboards import queries, ui
from dashboards.format import count, moment, money

st.title("Disputes")
st.caption("Owed: what the house owes the player on the hand by the auditor's replay (the "
           "correct net minus the recorded net for the seat, before any adjustment); "
           "negative when the player was overpaid. A resolved dispute's adjustment is right "
           "when it equals what was owed. A seat that placed no wager on the hand was owed "
           "nothing: 0, noted. Times are local to the casino (`UTH_TIMEZONE`).")

with ui.warehouse("events", "wagers") as con:
    every = queries.disputes(con, limit=None)
    totals = queries.dispute_totals(con, every)
    rows = every.head(queries.DISPUTES_LIMIT)
    tz = queries.zone(con)

if rows.empty:
    st.success("No disputes in the warehouse.")
    st.stop()

for cur, t in totals.set_index("currency").iterrows():
    if len(totals) > 1:
        st.subheader(f"In {ui.md(cur) if cur else 'no currency'}")
    ui.metric_row([
        ("Open", count(t["open"]), "Disputes without a resolution yet"),
        ("Owed to players (open)", money(t["owed_open"], str(cur)),
         "What the house owes the players of the open disputes it underpaid"),
        ("Overpaid (open)", money(t["overpaid_open"], str(cur)),
         "What the players of the open disputes were paid too much"),
        ("Resolved", count(t["resolved"]), None),
        ("Wrong adjustments", count(t["wrong"]),
         "Resolved disputes whose adjustment is not what the house owed"),
    ])
if len(every) > len(rows):
    st.caption(f"The first {len(rows):,} of {len(every):,} disputes shown.")


def notes(frame: pd.DataFrame) -> list[str]:
    return ["" if pd.isna(n) else str(n) for n in frame["note"]]


def links(hands: pd.Series) -> list[str]:
    return [ui.hand_link(h) for h in hands]


LINK = {"Hand": st.column_config.LinkColumn("Hand", display_text=r"hand_id=(.*)",
                                            help="Opens the hand in the audit page")}

waiting = rows.loc[rows["status"] == "open"]
done = rows.loc[rows["status"] == "resolved"]

st.subheader(f"Open queue, oldest first ({count(len(waiting))})")
if waiting.empty:
    st.success("No open disputes.")
else:
    queue = ui.frame({
        "Hand": links(waiting["hand_id"]),
        "Opened": [moment(ui.local(v, tz)) for v in waiting["opened_at"]],
        "Table": waiting["table_id"], "Dealer": waiting["dealer_id"], "Seat": waiting["seat"],
        "Owed": ui.money_column(waiting, "owed"),
        "Claim": waiting["claim"],
        "Note": notes(waiting),
    })
    ui.table("disputes-open", queue, hide_index=True, width="stretch", column_config=LINK)

st.subheader(f"Resolved, latest first ({count(len(done))})")
if done.empty:
    st.info("No resolved disputes.")
else:
    def checked(ok: object, owed: object, cur: str) -> str:
        if ui.truth(ok) is None:
            return "not computed"
        return "✓ equals what was owed" if ui.truth(ok) else (
            f"✗ owed {money(owed, cur)}")

    marks = [checked(ok, o, c) for ok, o, c in zip(
        done["adjustment_correct"], done["owed"], done["currency"], strict=True)]
    resolved = ui.frame({
        "Hand": links(done["hand_id"]),
        "Opened": [moment(ui.local(v, tz)) for v in done["opened_at"]],
        "Table": done["table_id"], "Dealer": done["dealer_id"], "Seat": done["seat"],
        "Owed": ui.money_column(done, "owed"),
        "Adjustment": ui.money_column(done, "adjustment"),
        "Adjustment checked": marks,
        "Claim": done["claim"], "Resolution": done["resolution"], "Note": notes(done),
        "Resolved": [moment(ui.local(v, tz)) for v in done["resolved_at"]],
    })
    ui.table("disputes-resolved", ui.highlight_rows(resolved, [m.startswith("✗") for m in marks]),
             hide_index=True, width="stretch", column_config=LINK)

labels = {i: f"{r['hand_id']} · seat {r['seat']} · {r['status']} · {r['claim']}"
          for i, r in rows.iterrows()}
pick = ui.open_in_audit("Open a dispute's hand", labels, "disputes")
if pick is not None:
    st.switch_page("app_pages/hand_audit.py",
                   query_params={"hand_id": str(rows.loc[pick, "hand_id"])})
