"""Hand audit: find a hand, replay it step by step, check every wager's settlement."""

from __future__ import annotations

import json
from datetime import datetime, time
from typing import Any

import pandas as pd
import streamlit as st

from dashboards import access, evidence, gate, queries, ui
from dashboards.format import Shown, day, moment, money
from dashboards.replay_view import describe, fold, table_html
from events.game.evaluation import CATEGORY_NAMES
from events.localtime import to_utc
from events.money import outcome_words

st.title("Hand audit")

wanted = st.query_params.get("hand_id", "")
with st.expander("Find a hand", expanded=not wanted):
    c1, c2, c3, c4 = st.columns(4)
    hand_id = c1.text_input("Hand id (or its start)", value=wanted, key="audit_hand_id").strip()
    table_id = c2.text_input("Table", key="audit_table").strip()
    dealer_id = c3.text_input("Dealer", key="audit_dealer").strip()
    seat = c4.number_input("Seat", min_value=1, max_value=1000, value=None, step=1,
                           key="audit_seat")
    c5, c6, c7 = st.columns(3)
    on_day = c5.date_input("Started on", value=None, key="audit_day")
    t_from = c6.time_input("from", value=None, key="audit_from")
    t_to = c7.time_input("until", value=None, key="audit_to")
with ui.warehouse("hands", "events", "wagers", "audit_findings") as con:
    tz = queries.zone(con)  # the search times are the casino's, the stored ones UTC
    start = to_utc(datetime.combine(on_day, t_from or time(0, 0)), tz) if on_day else None
    end = (to_utc(datetime.combine(on_day, t_to or time(23, 59, 59, 999999)), tz)
           if on_day else None)
    found = queries.find_hands(con, hand_id=hand_id, table_id=table_id, dealer_id=dealer_id,
                               seat=None if seat is None else int(seat), start=start, end=end)
    if found.empty:
        st.info("No hand matches. Check the hand id, table, dealer, seat or time "
                "(all given criteria must match).")
        st.stop()
    rows = {str(r["hand_id"]): r for r in found.to_dict("records")}
    ids = list(rows)
    searched = any((hand_id, table_id, dealer_id, seat is not None, on_day))
    st.caption(f"{len(ids)} hand(s) found" + (
        "" if searched else " on the latest gaming day; search to see others") + (
        f", latest first; the first {len(ids)} shown." if len(ids) >= queries.HAND_SEARCH_LIMIT
        else "."))
    chosen = st.selectbox(
        "Hand", ids, index=ids.index(wanted) if wanted in ids else 0, key="audit_chosen",
        format_func=lambda h: f"{h} · table {rows[h]['table_id']} · dealer "
                              f"{rows[h]['dealer_id']} · "
                              f"{moment(ui.local(rows[h]['started_at'], tz))}")
    row = rows[chosen]
    all_events = st.toggle(f"Include events of this hand from any later date (not only up "
                           f"to {queries.LATE_EVENT_DAYS} days after it; slower)",
                           key="audit_all_events")
    events_df = queries.hand_events(con, row, None if all_events else queries.LATE_EVENT_DAYS)
    opened = (queries.table_opened_before(con, str(row["table_id"]),
                                          int(events_df["seq"].min()),
                                          events_df["occurred_at"].min().to_pydatetime())
              if not events_df.empty else pd.DataFrame())
    wagers = queries.hand_wagers(con, chosen, row.get("gaming_day"))
    hand_findings = queries.hand_findings(con, chosen)
    proof = queries.hand_proof(con, events_df, opened)

if st.query_params.get("hand_id") != chosen:
    st.query_params["hand_id"] = chosen
gate.note("hand", page="hand_audit", hand=chosen)
cur = str(row.get("currency") or "")

st.subheader(f"Hand {ui.md(chosen)}")
st.markdown(f"Table **{ui.md(row['table_id'])}** · dealer **{ui.md(row['dealer_id'])}** · "
            f"ruleset **{ui.md(row['ruleset'])}** · {ui.md(cur)} · seats {ui.md(row['seats'])} "
            f"· started {moment(ui.local(row['started_at'], tz))} ({ui.md(tz)}) · gaming day "
            f"{day(row['gaming_day'])} · "
            f"status **{ui.md(row['status'])}**")

# ------------------------------------------------------------------ replay
events = evidence.event_dicts(events_df)
if not events:
    st.info("No events of this hand are loaded, so it cannot be replayed.")
else:
    key = f"audit_step_{chosen}"
    if key not in st.session_state:
        st.session_state[key] = len(events)

    def _move(delta: int) -> None:
        st.session_state[key] = min(len(events), max(1, st.session_state[key] + delta))

    buttons = st.container(horizontal=True)  # each button as wide as its label
    buttons.button("◀ Step back", on_click=_move, args=(-1,), key="audit_back")
    buttons.button("Step ▶", on_click=_move, args=(1,), key="audit_fwd")
    step = (st.slider("Replay step", 1, len(events), key=key) if len(events) > 1
            else len(events))
    current = events[step - 1]
    st.markdown(f"**Step {step} of {len(events)}** · seq {current['seq']} · "
                f"{moment(ui.local(current['occurred_at'], tz))} · "
                f"{ui.md(describe(current, cur))}")
    st.markdown(table_html(fold(events, step), cur), unsafe_allow_html=True)
    with st.expander("All events of the hand"):
        ui.table("hand-events", ui.frame({
            "Step": range(1, len(events) + 1),
            "Seq": [e["seq"] for e in events],
            "Time": [moment(ui.local(e["occurred_at"], tz)) for e in events],
            "Event": [describe(e, cur) for e in events],
        }), hide_index=True, width="stretch")

# ------------------------------------------------------------------ settlement
st.subheader("Settlement: computed against recorded")


def payout(outcome: Any, cents: Any) -> str:
    """A recorded or computed payout as the command line writes it (``lose €5.00``, never
    ``lose -€5.00``), keeping its signed amount for the CSV download."""
    if not ui.known(cents):
        return f"{outcome} —" if ui.known(outcome) else "—"
    text = outcome_words(str(outcome), int(cents), cur or None)
    shown = money(int(cents), cur)
    return Shown(text, shown.number, shown.currency) if isinstance(shown, Shown) else text


def verdict(rec: Any, cor: Any, rec_out: Any, cor_out: Any) -> str:
    if not ui.known(cor):
        return "not computed"
    if not ui.known(rec):
        return "✗ not recorded"
    if int(rec) > int(cor):
        return f"✗ overpaid by {money(int(rec) - int(cor), cur)}"
    if int(rec) < int(cor):
        return f"✗ underpaid by {money(int(cor) - int(rec), cur)}"
    return "✓ correct" if rec_out == cor_out else "✗ wrong outcome"


context = evidence.event_dicts(opened) if not opened.empty else []
doc = evidence.document(row, context + events, wagers, hand_findings, proof)
auditor = doc.get("auditor") or {}
checks = evidence.wager_checks(auditor)
dealer = auditor.get("dealer") or {}
if dealer.get("hand"):
    st.markdown(f"Dealer: **{ui.md(dealer['hand'])}** "
                f"({'qualifies' if dealer.get('qualifies') else 'does not qualify'})")

if wagers.empty:
    st.info("No wagers of this hand are in the warehouse.")
else:
    verdicts = [verdict(r, c, ro, co) for r, c, ro, co in zip(
        wagers["recorded_result"], wagers["correct_result"], wagers["recorded_outcome"],
        wagers["correct_outcome"], strict=True)]
    # what decides first (seat, spot, verdict, the two payouts), so a narrow screen shows
    # it; the auditor's sentences below the grid, whole
    settlement = ui.frame({
        "Seat": wagers["seat"],
        "Spot": wagers["spot"],
        "Verdict": verdicts,
        "Recorded": [payout(o, v) for o, v in zip(
            wagers["recorded_outcome"], wagers["recorded_result"], strict=True)],
        "Computed": [payout(o, v) for o, v in zip(
            wagers["correct_outcome"], wagers["correct_result"], strict=True)],
        "Wager": [money(v, cur) for v in wagers["amount"]],
        "Player's hand": [checks.get((int(seat), "hand")) or (
            CATEGORY_NAMES[int(c)] if ui.known(c) and 0 <= int(c) <= 9 else "—")
            for seat, c in zip(wagers["seat"], wagers["player_category"], strict=True)],
    })
    ui.table("hand-settlement",
             ui.highlight_rows(settlement, [v.startswith("✗") for v in verdicts]),
             hide_index=True, width="stretch", column_config=ui.fitted(settlement))
    why = [(seat, spot, checks.get((int(seat), str(spot)), "")) for seat, spot in zip(
        wagers["seat"], wagers["spot"], strict=True)]
    if any(text for _, _, text in why):
        st.markdown("**Why (auditor)**\n\n" + "\n".join(
            f"- seat {ui.md(seat)} {ui.md(spot)}: {ui.md(text)}" for seat, spot, text in why
            if text))
    wrong = [v for v in verdicts if v.startswith("✗")]
    if wrong:
        st.warning(f"Verdict: {len(wrong)} of {len(verdicts)} wagers settled wrongly.")
    elif all(v == "✓ correct" for v in verdicts):
        st.success(f"Verdict: all {len(verdicts)} wagers settled correctly.")
    else:
        st.info("Verdict: some wagers could not be computed (see above).")
if auditor.get("verdict"):
    st.caption(f"Auditor's replay of the events: {ui.md(auditor['verdict'])}")

if not hand_findings.empty:
    st.subheader("Findings on this hand")
    found = ui.frame({
        "Kind": hand_findings["kind"], "Seat": hand_findings["seat"],
        "Spot": hand_findings["spot"],
        "Expected": [money(v, cur) for v in hand_findings["expected"]],
        "Recorded": [money(v, cur) for v in hand_findings["recorded"]],
        "Detail": hand_findings["detail"],
    })
    ui.table("hand-findings", found, hide_index=True, width="stretch",
             column_config=ui.fitted(found))

if gate.may(access.EVIDENCE):  # a role without evidence downloads is not offered them
    gate.download("Download evidence (JSON)", access.EVIDENCE, f"evidence-{chosen}.json",
                  lambda: evidence.to_json(doc), mime="application/json",
                  key="audit_download", hand=chosen)
    printable = evidence.sheet(doc, events_df, tz)
    if printable is not None:
        gate.download("Download evidence sheet (HTML, printable)", access.EVIDENCE,
                      f"evidence-{chosen}.html", lambda: printable, mime="text/html",
                      key="audit_download_html", hand=chosen)
    if doc.get("auditor", {}).get("inclusion_proof"):
        sealed = doc["auditor"]["inclusion_proof"]
        st.caption(f"Both downloads carry the hand's inclusion proof against seal "
                   f"{ui.md(json.loads(sealed['seal']['body']).get('number'))}: "
                   "`uth verify --evidence FILE --public-key KEY.pub` checks them alone.")
    elif doc.get("auditor", {}).get("inclusion_proof_missing"):
        st.caption(f"No inclusion proof: {ui.md(doc['auditor']['inclusion_proof_missing'])}.")
if "auditor_error" in doc:
    st.caption(f"The auditor's replay is not included: {ui.md(doc['auditor_error'])}")
