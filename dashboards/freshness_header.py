"""Every page's header line: how current the warehouse is (the newest loaded event's
time, the last load's, how far behind the log in events and seconds), with a warning past
``UTH_STALE_SECONDS`` (``pipeline.freshness``). A log's end is asked at most every
``ENDS_TTL`` seconds whatever the number of pages open (a broker for two seconds at most)."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import streamlit as st

from dashboards import queries, ui
from dashboards.format import moment
from events.localtime import LocalTimeError, to_local
from pipeline.freshness import Freshness, log_end, of_warehouse

ENDS_TTL = 5.0


@st.cache_data(ttl=ENDS_TTL, show_spinner=False)
def _end(source: str) -> dict[int, int] | None:
    return log_end(source)


def line(f: Freshness, tz: str, now: datetime | None = None) -> str:
    """The header's sentence."""
    def at(when: datetime | None) -> str:
        return "none" if when is None else moment(to_local(when, tz))

    text = f"Newest loaded event {at(f.newest_event)}; "
    age = f.since_load(now)
    text += "no load recorded" if age is None else (
        f"last load {at(f.last_load)}, {age:,.0f} s ago")
    if f.behind_records is None:
        return text + "; behind the log: not known here."
    return text + (f"; behind the log: {f.behind_records:,} events, "
                   f"{f.behind_seconds:,.0f} s.")


def header(live: bool = False) -> None:
    """The line (and its warning) at the top of the page; nothing when the warehouse
    cannot be read (the page itself says why). ``live`` (the Live page): a warning too
    when no load came for longer than the threshold and the log's end is not known."""
    path = ui.warehouse_path()
    if not path:
        return
    try:
        with queries.open_warehouse(path) as con:
            tz = queries.zone(con)
            f = of_warehouse(con, _end)
    except (queries.WarehouseUnavailable, duckdb.Error, LocalTimeError):
        return
    now = datetime.now(UTC).replace(tzinfo=None)
    st.caption(line(f, tz, now))
    why = f.warning(now, by_age=True if live else None)
    if why:
        st.warning(f"The warehouse may be stale: {why}. Is `uth load --follow` or the "
                   "sensor running?", icon=":material/schedule:")
