"""Pieces every page shares: the warehouse guard, filters and the currency-aware tables."""

from __future__ import annotations

import contextlib
import io
import os
import re
from collections.abc import Iterator
from datetime import date
from typing import Any
from urllib.parse import quote

import duckdb
import pandas as pd
import streamlit as st

from dashboards import access, gate, queries
from dashboards.format import MISSING, Shown, money
from events.localtime import LocalTimeError, to_local
from pipeline.finding_filters import write_csv

ENV_VAR = "UTH_WAREHOUSE"


def favicon() -> Any:
    """The pages' icon, a casino chip, drawn in the process: the floor has no internet."""
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.ellipse((2, 2, 61, 61), fill=(21, 101, 52, 255))  # the felt's green
    for k in range(8):  # the chip's edge spots
        draw.pieslice((2, 2, 61, 61), k * 45 - 8, k * 45 + 8, fill=(245, 245, 240, 255))
    draw.ellipse((14, 14, 49, 49), fill=(21, 101, 52, 255), outline=(245, 245, 240, 255),
                 width=3)
    return image


def warehouse_path() -> str | None:
    return os.environ.get(ENV_VAR) or None


@contextlib.contextmanager
def warehouse(*needed: str) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection for this page run. A missing, empty, busy or foreign
    warehouse stops the page with a message saying what to do, never a traceback."""
    path = warehouse_path()
    try:
        with queries.open_warehouse(path) as con:
            missing = queries.missing_tables(con)
            lacking = [t for t in ("hands", *needed) if t in missing]
            if lacking:
                st.info(f"The warehouse `{path}` has no {', '.join(f'`{t}`' for t in lacking)} "
                        "table yet. Load events into it with `uth load` and reload this page.")
                st.stop()
            if queries.hand_count(con) == 0:
                st.info(f"The warehouse `{path}` has no hands loaded yet. Load events with "
                        "`uth load` (or try `uth simulate` first) and reload this page.")
                st.stop()
            conflicts, tables = queries.sequence_conflicts(con, missing)
            if conflicts:
                st.warning(
                    f"**{conflicts:,} events reuse a sequence number** another event of their "
                    f"table already has, at {tables:,} tables. Were two different floors (or "
                    "table systems) loaded into this warehouse? The first event of each "
                    "number counts; the others stay in `events`, but no hand, rollup or "
                    "replay uses them (Findings page, kind `sequence_conflict`).",
                    icon=":material/warning:")
            yield con
    except queries.WarehouseUnavailable as exc:
        st.info(str(exc))
        st.stop()
    except LocalTimeError as exc:  # UTH_TIMEZONE, UTH_SHIFTS: the casino's settings
        st.warning(f"{exc}. Fix the setting and restart `uth dashboards`.")
        st.stop()
    except duckdb.Error as exc:
        st.warning(f"The warehouse `{path}` could not be read: {str(exc).splitlines()[0]}")
        st.stop()


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-!|<>~$])")
# a backslash escape (or a character reference) leaves "http://x.y", "www.x.y" and "a@b.c"
# as text the renderer still turns into live links: an invisible word joiner (U+2060)
# before each of these characters breaks the pattern, the text reads the same
_MD_LINKING = {".": "\u2060\\.", ":": "\u2060\\:", "@": "\u2060@"}


def md(value: Any) -> str:
    """Warehouse text made inert in Streamlit markdown (no links, autolinked URLs or
    addresses, HTML, emphasis, LaTeX between dollar signs, or ``:icon:`` directives)."""
    escaped = _MD_SPECIAL.sub(r"\\\1", str(value))
    return "".join(_MD_LINKING.get(c, c) for c in escaped)


def code(value: Any) -> str:
    """Text shown as it is, in a markdown code span (escapes would show there): fenced
    by more backticks than any run of them inside."""
    text = str(value)
    fence = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if text.startswith("`") or text.endswith("`") \
        else f"{fence}{text}{fence}"


def hand_link(hand_id: Any) -> str:
    """The hand audit page of a hand, its id URL-encoded (``+``, ``&``, ``#`` and ``/``
    stay part of the id, never the link's own syntax)."""
    return "hand_audit?hand_id=" + quote(str(hand_id), safe="")


def open_in_audit(label: str, labels: dict[Any, str], key: str) -> Any | None:
    """A picker of hands and its "Open in hand audit" button below it (beside it, a
    quarter of an 800-pixel page cut the button's words): the pick once clicked, else None.
    The widgets' keys are ``{key}_open`` and ``{key}_go``."""
    pick = st.selectbox(label, list(labels), format_func=labels.__getitem__,
                        key=f"{key}_open")
    return pick if st.button("Open in hand audit", key=f"{key}_go") else None


def empty_notice(what: str) -> None:
    st.info(f"No {what} in the warehouse for these filters. Widen the filters, or load events "
            "with `uth simulate` and `uth load`.")


def day_range(opts: queries.Options, key: str) -> tuple[date | None, date | None]:
    """A gaming-day range picker in the sidebar (the whole range by default)."""
    if opts.first_day is None or opts.last_day is None:
        return None, None
    picked = st.sidebar.date_input(
        "Gaming days", value=(opts.first_day, opts.last_day), min_value=opts.first_day,
        max_value=opts.last_day, key=key,
        help="A gaming day starts at the warehouse's gaming-day start (06:00 unless it was "
             "built with another), local time.")
    if isinstance(picked, (tuple, list)):
        first = picked[0] if picked else opts.first_day
        last = picked[1] if len(picked) > 1 else first
        return first, last
    return picked, picked


def multiselect(label: str, options: list[str], key: str) -> tuple[str, ...]:
    if not options:
        return ()
    picked = st.sidebar.multiselect(label, options, key=key, placeholder="All")
    return tuple(picked)


LONG_TEXT = frozenset({"Why (auditor)", "Detail"})
# what names a row: kept in view when a narrow screen scrolls a grid sideways
PINNED = frozenset({"Table", "Gaming day", "Hand", "Dealer"})


def fitted(df: pd.DataFrame, **labels: str) -> dict[str, Any]:
    """Column settings that give each column of ``df`` the width of its longest text (or
    header: ``labels`` shortens a header without renaming the column), so no amount is
    clipped (the grid's own sizing cut ``CA$10.00`` to ``CA$10.0`` in a wide table)."""
    config: dict[str, Any] = {}
    for column in df.columns:
        header = labels.get(str(column), str(column))
        if str(column) in LONG_TEXT:  # sentences: the room left, not their whole length
            config[str(column)] = st.column_config.Column(header, width="large")
            continue
        longest = max([len(header), *(len(str(v)) for v in df[column])])
        config[str(column)] = st.column_config.Column(header, width=8 * longest + 22,
                                                      pinned=str(column) in PINNED or None)
    return config


def money_column(df: pd.DataFrame, column: str, currency: str = "currency") -> list[str]:
    """A cents column formatted in each row's currency."""
    return [money(v, c) for v, c in zip(df[column], df[currency], strict=True)]


def metric_row(items: list[tuple[str, str, str | None]]) -> None:
    """Metrics side by side: (label, value, help), each as wide as its figure, onto the
    next line when the screen is narrow (equal columns cut "CA$120..." at 800 pixels)."""
    row = st.container(horizontal=True, gap="large")
    for label, value, help_text in items:
        row.metric(label, value, help=help_text, width="content")


def table(name: str, data: Any, **kwargs: Any) -> None:
    """``st.dataframe`` with a button beside it downloading the same rows as CSV
    (``<name>.csv``: :func:`csv_text`) when the user's role may download CSV; the
    download is logged."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)  # a file name, whatever the data says
    frame = data.data if hasattr(data, "data") and isinstance(data.data, pd.DataFrame) else data
    n = len(frame)
    if n <= 30:  # every row in view (the grid's own height showed 10 of 11)
        kwargs.setdefault("height", "content")
    links = {str(name) for name, cfg in (kwargs.get("column_config") or {}).items()
             if isinstance(cfg, dict) and (cfg.get("type_config") or {}).get("type") == "link"}
    if isinstance(data, pd.DataFrame):
        data = shown(data, links)
    elif frame is not data:  # a Styler: its rules are applied to the cells as shown
        data.data = shown(frame, links)
    st.dataframe(data, **kwargs)
    # offered only to a role that may download CSV, made at the click for that user alone
    gate.download(f"Download as CSV ({n:,} row{'s' if n != 1 else ''})", access.CSV,
                  f"{name}.csv", lambda: csv_text(frame), mime="text/csv", key=f"csv_{name}")


def shown(frame: pd.DataFrame, links: set[str] | frozenset[str] = frozenset()) -> pd.DataFrame:
    """The cells as a person reads them: a missing value (None, NaN, NA) as ``—``, or
    empty in a link column (a dash there would be a link), where the grid wrote "None";
    a column with a gap is text (a dash among numbers would not convert), its whole
    numbers written as such (the gap had made them ``1.0``). The CSV is made from the
    cells as given: a missing value is an empty field there."""
    gaps = _gaps(frame)
    if not gaps:
        return frame
    out = frame.copy()
    for column in gaps:
        empty = "" if str(column) in links else MISSING
        out[column] = pd.Series([empty if not known(v) else _text(v) for v in frame[column]],
                                index=frame.index, dtype=object)
    return out


def _gaps(frame: pd.DataFrame) -> list[Any]:
    """The columns with a missing value (an integer column with one holds floats)."""
    return [c for c in frame.columns if not all(known(v) for v in frame[c])]


def _text(value: Any) -> str:
    if isinstance(value, str):  # a Shown figure stays one
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def frame(columns: Any) -> pd.DataFrame:
    """A table to show, its cells kept as given (pandas would turn the figures' text into
    plain strings and lose the numbers the CSV download writes)."""
    return pd.DataFrame(columns, dtype=object)


def csv_text(frame: pd.DataFrame) -> str:
    """The rows of a shown table as CSV a spreadsheet sums: each figure as its number
    (money in currency units, a percentage as a percent, no separators), with a
    ``Currency`` column when the table has money and no currency column of its own; an
    empty cell for a missing value (and the whole numbers of its column as such, not
    ``1.0``); text that would start a formula neutralised, as ``uth audit --csv`` does
    (the same function)."""
    columns = [str(c) for c in frame.columns]
    gaps = {str(c) for c in _gaps(frame)}
    records = []
    for values in frame.itertuples(index=False, name=None):
        row: dict[str, Any] = {}
        currencies: list[str] = []
        for column, value in zip(columns, values, strict=True):
            if isinstance(value, Shown):
                row[column] = value.number
                if value.currency and value.currency not in currencies:
                    currencies.append(value.currency)
            else:
                missing = not known(value) or value is MISSING or value == MISSING
                whole = column in gaps and isinstance(value, float) and value.is_integer()
                row[column] = "" if missing else int(value) if whole else value
        row["Currency"] = " ".join(currencies)
        records.append(row)
    if any(r["Currency"] for r in records) and "currency" not in {c.lower() for c in columns}:
        columns.append("Currency")
    out = io.StringIO()
    write_csv(records, columns, out)
    return out.getvalue()


def local(value: Any, zone: str) -> Any:
    """A stored (UTC) time, or a contract time string, as wall time in ``zone``; a missing
    value stays missing."""
    if not known(value):
        return value
    return to_local(value, zone)


def known(value: Any) -> bool:
    """False for None, NA and NaN."""
    if value is None or value is pd.NA:
        return False
    try:
        return bool(value == value)
    except (TypeError, ValueError):
        return False


def truth(value: Any) -> bool | None:
    """A nullable boolean from a DataFrame cell: True, False or None (unknown)."""
    if value is None or value is pd.NA:
        return None
    try:
        if value != value:
            return None
    except (TypeError, ValueError):
        return None
    return bool(value)


def highlight_rows(df: pd.DataFrame, flags: Any, colour: str = "#ffd6d6") -> Any:
    """A Styler painting the flagged rows (the regulator's control-limit alarms)."""
    flags = pd.Series([truth(f) is True for f in flags])
    table = df.reset_index(drop=True)

    def paint(row: pd.Series) -> list[str]:
        return [f"background-color: {colour}" if flags.iloc[row.name] else ""] * len(row)

    return table.style.apply(paint, axis=1)
