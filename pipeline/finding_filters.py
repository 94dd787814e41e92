"""The filters ``uth audit`` (and ``uth hands``) share: table, dealer, kind, a time window,
and CSV output.

``--since`` and ``--until`` are times on the casino's clock (``UTH_TIMEZONE``) unless they
carry their own offset or ``Z``: ``2026-11-29``, ``2026-11-29T21:00``,
``2026-11-29T21:00:00Z``. A day alone covers the whole day for ``--until``.
"""

from __future__ import annotations

import argparse
import csv
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import IO, Any


def add_arguments(p: argparse.ArgumentParser, kinds: bool = True) -> None:
    p.add_argument("--table", action="append", default=[], metavar="TABLE",
                   help="only this table (repeat for more)")
    p.add_argument("--dealer", action="append", default=[], metavar="DEALER",
                   help="only this dealer (repeat for more)")
    if kinds:
        p.add_argument("--kind", action="append", default=[], metavar="KIND", type=kind,
                       help="only this kind of finding, e.g. mispay (repeat for more)")
    p.add_argument("--since", type=moment, metavar="TIME",
                   help="from this time, local (UTH_TIMEZONE) unless it ends in Z or an offset")
    p.add_argument("--until", type=lambda t: moment(t, end=True), metavar="TIME",
                   help="up to this time (a day alone: to its end)")
    p.add_argument("--csv", action="store_true", help="CSV on standard output")


def kind(text: str) -> str:
    """A kind of finding (or ``dispute``); any other word is refused with the list."""
    from events.findings import FINDING_KINDS

    known = (*FINDING_KINDS, "dispute")
    if text not in known:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a kind of finding: one of {', '.join(known)}")
    return text


def exclusive_formats(args: argparse.Namespace, command: str) -> str | None:
    """The error when both ``--csv`` and ``--json`` are asked for (one output only)."""
    if getattr(args, "csv", False) and getattr(args, "json", False):
        return f"uth {command}: --csv and --json write different outputs: choose one"
    return None


def moment(text: str, end: bool = False) -> datetime:
    """A time argument as an aware UTC datetime."""
    from zoneinfo import ZoneInfo

    from events.localtime import LocalTimeError, zone_name

    raw = text.strip()
    try:
        when = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a time: write 2026-11-29, 2026-11-29T21:00 or "
            "2026-11-29T21:00:00Z") from exc
    if end and len(raw) == 10:  # a day: up to its end
        when += timedelta(days=1) - timedelta(microseconds=1)
    if when.tzinfo is None:
        try:
            when = when.replace(tzinfo=ZoneInfo(zone_name()))
        except LocalTimeError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from exc
    return when.astimezone(UTC)


@dataclass(frozen=True)
class Filter:
    tables: frozenset[str] = frozenset()
    dealers: frozenset[str] = frozenset()
    kinds: frozenset[str] = frozenset()
    since: datetime | None = None
    until: datetime | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Filter:
        return cls(frozenset(args.table), frozenset(args.dealer),
                   frozenset(getattr(args, "kind", None) or ()), args.since, args.until)

    @property
    def active(self) -> bool:
        return bool(self.tables or self.dealers or self.kinds or self.since or self.until)

    def keep(self, item: Any) -> bool:
        """Whether a finding (or a finding's JSON object, or a dispute) passes."""
        get = item.get if isinstance(item, Mapping) else (lambda k: getattr(item, k, None))
        if self.tables and get("table_id") not in self.tables:
            return False
        if self.dealers and get("dealer_id") not in self.dealers:
            return False
        if self.kinds and (get("kind") or "dispute") not in self.kinds:
            return False
        if self.since is None and self.until is None:
            return True
        return self.within(get("occurred_at"))

    def within(self, occurred_at: Any) -> bool:
        from events.localtime import utc_moment

        when = utc_moment(occurred_at) if isinstance(occurred_at, str) else None
        if when is None:
            return False
        return ((self.since is None or when >= self.since)
                and (self.until is None or when <= self.until))

    def describe(self) -> str:
        parts = [f"{name} {', '.join(sorted(values))}" for name, values in (
            ("table", self.tables), ("dealer", self.dealers), ("kind", self.kinds)) if values]
        if self.since:
            parts.append(f"since {self.since.isoformat()}")
        if self.until:
            parts.append(f"until {self.until.isoformat()}")
        return "; ".join(parts)


_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows and never evaluates (text from events can start
    with ``=``); numbers stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return value


def in_units(row: dict[str, Any], keys: Sequence[str], currency: str | None) -> dict[str, Any]:
    """``row`` with its cents at ``keys`` as amounts in ``currency``'s units (a number a
    spreadsheet sums, ``-50.50``), and that currency in ``row["currency"]``."""
    from events.money import units

    out = {**row, "currency": currency}
    for key in keys:
        if out.get(key) is not None:
            out[key] = units(out[key], currency)
    return out


def finding_row(finding: Any, currencies: Mapping[str, str]) -> dict[str, Any]:
    """A finding as ``uth audit --csv`` writes it: its money in its table's currency."""
    return in_units(finding.to_json(), ("expected", "recorded"),
                    currencies.get(finding.table_id or ""))


def write_csv(rows: Iterable[Mapping[str, Any]], fields: Sequence[str], out: IO[str]) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(fields)
    n = 0
    for row in rows:
        writer.writerow([cell(row.get(f)) for f in fields])
        n += 1
    return n
