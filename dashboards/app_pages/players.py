"""Players: rating slips, and game protection (hole-card play) with its evidence."""

from __future__ import annotations

import json

import altair as alt
import pandas as pd
import streamlit as st

from dashboards import gate, player_queries, queries, ui
from dashboards.format import count, day, decimal, money, pct_value

st.title("Players")
st.caption("A player is the pseudonym the table sent (never a name or card number) or a seat "
           "session: one seat at one table over consecutive hands. Theo is the exact house "
           "edge of what was wagered under the ruleset (the base game under computer-perfect "
           "play, 2.1850% of the ante, plus the Trips table's exact edge); *unknown* when a "
           "ruleset's blind table or multiples have no exact figure. The decisions' cost is "
           "separate: what the player's own choices gave up against basic strategy, valued "
           "with what the player could see. Actual win counts resolved disputes' adjustments.")

with ui.warehouse("player_ratings", "player_alerts", "player_alert_dealers",
                  "dealer_alerts") as con:
    opts = player_queries.player_options(con)
    if opts.first_day is None:
        ui.empty_notice("rated players")
        st.stop()
    first, last = ui.day_range(opts, "players_days")
    filters = queries.Filters(day_from=first, day_to=last,
                              tables=ui.multiselect("Tables", opts.tables, "players_tables"))
    rows = player_queries.ratings(con, filters)
    daily = player_queries.ratings_daily(con, filters)
    alerts = player_queries.alerts(con)
    evidence = player_queries.evidence(con)
    dealers = player_queries.alert_dealers(con)
    dealer_flags = player_queries.dealer_alerts(con)

if rows.empty:
    ui.empty_notice("rated players")
    st.stop()

UNKNOWN = "unknown"  # a figure no exact edge gives: shown as such, never as 0


def total(part: pd.DataFrame, column: str, currency: str) -> str:
    missing = int(part[column].isna().sum())
    if missing == len(part):
        return UNKNOWN
    shown = money(int(part[column].dropna().sum()), currency)
    return f"{shown} + {count(missing)} unknown" if missing else shown


def theo_column(df: pd.DataFrame, column: str) -> list[str]:
    """Cents in each row's currency; "unknown" where no exact figure exists."""
    return [money(v, c) if ui.known(v) else UNKNOWN
            for v, c in zip(df[column], df["currency"], strict=True)]


ui.metric_row([
    ("Players", count(len(rows)), None),
    ("Seat-hands", count(int(rows["hands"].sum())),
     "Hands played, counted once per player: a hand of three players counts three"),
    ("Flagged players", count(int(rows["flagged"].fillna(False).sum())),
     "Decisions that depend on the dealer's hidden cards"),
])
# the money in each currency of its own (a sum across currencies means nothing)
for currency, part in rows.groupby("currency", sort=True):
    ui.metric_row([
        (f"Handle ({ui.md(currency)})", total(part, "handle", str(currency)),
         "Every wager: ante, blind, play, Trips"),
        (f"Theoretical win ({ui.md(currency)})", total(part, "theo_win", str(currency)),
         "Exact house edge of the wagers under the ruleset; unknown players aside"),
        (f"Actual win ({ui.md(currency)})", total(part, "actual_win", str(currency)),
         "The house's settled result, resolved disputes' adjustments included"),
    ])

st.subheader("Rating slips")
st.caption("Flagged players first (highlighted). Protection score: the strongest of the "
           "player's standardized hidden-card gains (over all hands, and per dealer), adjusted "
           "for how many were tested. Honest play of any skill stays near 0; a player is "
           "flagged from 3.72, a false alarm for at most 1 honest player in 10,000.")
ui.table("players-1", ui.highlight_rows(ui.frame({
    "Player": rows["player"],
    "Tables": rows["tables"],
    "Days": [count(v) for v in rows["days"]],
    "Hands": [count(v) for v in rows["hands"]],
    "Hours": [decimal(v, 2) for v in rows["hours"]],
    "Average ante": ui.money_column(rows, "avg_ante"),
    "Average wager": ui.money_column(rows, "avg_wager"),
    "Handle": ui.money_column(rows, "handle"),
    "Theo win": theo_column(rows, "theo_win"),
    "Decisions' cost": theo_column(rows, "decision_cost"),
    "Dispute adjustments": ui.money_column(rows, "dispute_adjustment"),
    "Actual win": ui.money_column(rows, "actual_win"),
    "Actual − theo": theo_column(rows, "win_minus_theo"),
    "Protection score": [decimal(v, 2) for v in rows["score"]],
}), [bool(ui.truth(v)) for v in rows["flagged"]]), hide_index=True, width="stretch")

with st.expander("Rating slips by gaming day"):
    ui.table("players-2", ui.frame({
        "Gaming day": [day(v) for v in daily["gaming_day"]],
        "Player": daily["player"],
        "Table": daily["table_id"],
        "Hands": [count(v) for v in daily["hands"]],
        "Hours": [decimal(v, 2) for v in daily["hours"]],
        "Average ante": ui.money_column(daily, "avg_ante"),
        "Average wager": ui.money_column(daily, "avg_wager"),
        "Handle": ui.money_column(daily, "handle"),
        "Theo base game": theo_column(daily, "theo_base"),
        "Theo Trips": theo_column(daily, "theo_trips"),
        "Theo win": theo_column(daily, "theo_win"),
        "Decisions' cost": theo_column(daily, "decision_cost"),
        "Dispute adjustments": ui.money_column(daily, "dispute_adjustment"),
        "Actual win": ui.money_column(daily, "actual_win"),
        "Actual − theo": theo_column(daily, "win_minus_theo"),
    }), hide_index=True, width="stretch")

def dealers_flagged() -> None:
    """The dealers flagged on their own statistic (after the players' alerts, or alone)."""
    if dealer_flags.empty:
        return
    st.subheader("Dealers flagged")
    st.caption("A dealer whose hands host players who gain from the dealer's hidden cards, "
               "on the dealer's own statistic (everyone at the dealer's hands, and each "
               "player there): flagged from 3.72, a false alarm for at most 1 dealer in "
               "10,000 whose players are honest. Flashes: the gain is this dealer's (against "
               "the same players' or tables' other dealers); hosts hole-carders: the players "
               "gain whoever deals.")
    ui.table("players-6", ui.frame({
        "Dealer": dealer_flags["dealer_id"],
        "Tables": dealer_flags["tables"],
        "Hands": [count(v) for v in dealer_flags["hands"]],
        "Score": [decimal(v, 1) for v in dealer_flags["score"]],
        "Pattern": dealer_flags["pattern"],
        "Against the other dealers": [decimal(v, 1) for v in dealer_flags["contrast"]],
        "Hidden-card gain (antes)": [decimal(v, 1) for v in dealer_flags["gain_antes"]],
        "Players": [", ".join(p["player"] for p in json.loads(v))
                    for v in dealer_flags["players"]],
        "Evidence hands": [", ".join(json.loads(v)) for v in dealer_flags["evidence"]],
    }), hide_index=True, width="stretch")


st.header("Game protection")
if alerts.empty:
    st.success("No player's decisions depend on the dealer's hidden cards: nobody flagged.")
    dealers_flagged()
    st.stop()
st.caption("Each decision is valued with the dealer's actual cards and with cards the player "
           "could not tell apart: honest play gains nothing from them on average; these "
           "players' gains keep growing. Pattern: which cards the decisions match; streets: "
           "where the informative decisions went their way; crossed the line on: the gaming "
           "day the evidence over the player's whole history first crossed it (sequential "
           "test); only with dealer: the evidence is in that dealer's hands alone (a dealer "
           "who flashes).")
ui.table("players-3", ui.frame({
    "Player": alerts["player"],
    "Table": alerts["table_id"],
    "Seats": alerts["seats"],
    "Hands": [count(v) for v in alerts["hands"]],
    "Decisions": [count(v) for v in alerts["decisions"]],
    "Score": [decimal(v, 1) for v in alerts["score"]],
    "Pattern": alerts["pattern"],
    "Streets": alerts["streets"],
    "Crossed the line on": [str(v)[:10] if ui.known(v) else "—" for v in alerts["crossed_on"]],
    "Hidden-card gain (antes)": [decimal(v, 1) for v in alerts["gain_antes"]],
    "Most with dealer": alerts["top_dealer"],
    "Only with dealer": alerts["only_with_dealer"],
}), hide_index=True, width="stretch")

st.subheader("Evidence: the strongest hands")
gate.note("evidence", page="players",  # whose evidence was shown: pseudonyms only
          players=sorted({str(p) for p in evidence["player"]}))
ui.table("players-4", ui.frame({
    "Hand": [ui.hand_link(h) for h in evidence["hand_id"]],
    "Player": evidence["player"],
    "Rank": evidence["rank"],
    "Table": evidence["table_id"],
    "Dealer": evidence["dealer_id"],
}), hide_index=True, width="stretch", column_config={
    "Hand": st.column_config.LinkColumn("Hand", display_text=r"hand_id=(.*)",
                                        help="Opens the hand in the audit page"),
})
labels = {f"{h}|{p}": f"{h} · {p}" for h, p in zip(evidence["hand_id"], evidence["player"],
                                                    strict=True)}
if labels:
    pick = ui.open_in_audit("Open an evidence hand", labels, "players")
    if pick is not None:
        gate.note("evidence", once=False, page="players", hand=pick.split("|")[0],
                  players=[pick.split("|", 1)[1]])
        st.switch_page("app_pages/hand_audit.py", query_params={"hand_id": pick.split("|")[0]})

st.subheader("Dealers the alerts concentrate on")
st.caption("The flagged players' hidden-card gains by the dealer who dealt: a dealer who "
           "flashes cards carries most of them.")
ui.table("players-5", ui.frame({
    "Dealer": dealers["dealer_id"],
    "Flagged players": [count(v) for v in dealers["flagged_players"]],
    "Hands": [count(v) for v in dealers["hands"]],
    "Gain (antes)": [decimal(v, 1) for v in dealers["gain_antes"]],
    "Share of the gain": [pct_value(v, 0) for v in dealers["gain_share"]],
    "Best score with the dealer": [decimal(v, 1) for v in dealers["max_z"]],
}), hide_index=True, width="stretch")
st.altair_chart(alt.Chart(dealers).mark_bar().encode(
    x=alt.X("gain_antes:Q", title="Hidden-card gain (antes)"),
    y=alt.Y("dealer_id:N", title=None, sort="-x"),
    tooltip=["dealer_id:N", "flagged_players:Q", "hands:Q",
             alt.Tooltip("gain_antes:Q", format=".1f"), alt.Tooltip("max_z:Q", format=".1f")]),
    width="stretch")
dealers_flagged()
