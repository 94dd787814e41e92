"""The casino's local time: its zone, when its gaming day starts, and its shifts.

Tables stamp events in UTC (the contract); a floor counts days and shifts on its own clock.
Three settings, read from the environment each time they are asked for (never at import):

- ``UTH_TIMEZONE``: an IANA zone (``America/Toronto``); default ``UTC``. The zone data
  ships with the project (the ``tzdata`` package), so a bare machine has it.
- ``UTH_GAMING_DAY_START``: local time the gaming day starts, ``HH:MM``; default ``06:00``.
- ``UTH_SHIFTS``: ``name=HH:MM`` pairs in local time, e.g.
  ``day=06:00,swing=14:00,graveyard=22:00``; each shift runs to the next one's start. By
  default three eight-hour shifts from the gaming day's start (day, swing, graveyard).

>>> parse_shifts("day=06:00,swing=14:00,graveyard=22:00")[2]
Shift(name='graveyard', start=1320)
>>> [(s.name, clock(s.start)) for s in default_shifts(7 * 60)]
[('day', '07:00'), ('swing', '15:00'), ('graveyard', '23:00')]
>>> shift_of(3 * 60, parse_shifts("day=06:00,swing=14:00,graveyard=22:00"))
'graveyard'
>>> to_local("2026-11-29T03:00:00.000Z", "America/Toronto").isoformat()
'2026-11-28T22:00:00'
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

ZONE_VAR = "UTH_TIMEZONE"
DAY_START_VAR = "UTH_GAMING_DAY_START"
SHIFTS_VAR = "UTH_SHIFTS"
DEFAULT_ZONE = "UTC"
DEFAULT_DAY_START = "06:00"
SHIFT_NAMES = ("day", "swing", "graveyard")
# what an IANA name is made of; the name is spliced into SQL, so nothing else may pass
_ZONE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*$")
_SHIFT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9 _\-]{0,31}$")


class LocalTimeError(ValueError):
    """A local-time setting that cannot be used, with what to write instead."""


@dataclass(frozen=True)
class Shift:
    name: str
    start: int  # minutes after local midnight


def check_zone(name: str) -> str:
    """``name`` when it is an IANA zone this machine knows; else :class:`LocalTimeError`."""
    if not _ZONE_NAME.match(name):
        raise LocalTimeError(f"{ZONE_VAR}={name!r} is not an IANA time zone name "
                             "(e.g. America/Toronto, Europe/Paris, UTC)")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise LocalTimeError(f"{ZONE_VAR}={name!r} is not a known IANA time zone "
                             "(e.g. America/Toronto, Europe/Paris, UTC)") from exc
    return name


def zone_name() -> str:
    """The casino's zone (``UTH_TIMEZONE``, default UTC), checked."""
    return check_zone(os.environ.get(ZONE_VAR, "").strip() or DEFAULT_ZONE)


def parse_clock(text: str, what: str = "a time") -> int:
    """``"06:30"`` -> 390 minutes after midnight."""
    try:
        hours, minutes = (int(p) for p in text.strip().split(":"))
    except ValueError as exc:
        raise LocalTimeError(f"{what} {text!r} is not HH:MM") from exc
    if not (0 <= hours < 24 and 0 <= minutes < 60):
        raise LocalTimeError(f"{what} {text!r} is not a time of day")
    return hours * 60 + minutes


def day_start() -> int:
    """Minutes after local midnight the gaming day starts (``UTH_GAMING_DAY_START``)."""
    text = os.environ.get(DAY_START_VAR, "").strip() or DEFAULT_DAY_START
    return parse_clock(text, DAY_START_VAR)


def clock(minutes: int) -> str:
    minutes %= 1440
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def default_shifts(start: int) -> tuple[Shift, ...]:
    """Three eight-hour shifts from the gaming day's start."""
    return tuple(Shift(name, (start + 480 * i) % 1440) for i, name in enumerate(SHIFT_NAMES))


def parse_shifts(text: str) -> tuple[Shift, ...]:
    """``day=06:00,swing=14:00,...`` as shifts in order of their start."""
    out: list[Shift] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, at = part.partition("=")
        name = name.strip()
        if not sep or not _SHIFT_NAME.match(name):
            raise LocalTimeError(f"{SHIFTS_VAR}: {part!r} is not name=HH:MM "
                                 "(e.g. day=06:00,swing=14:00,graveyard=22:00)")
        out.append(Shift(name, parse_clock(at, f"{SHIFTS_VAR} {name}")))
    if not out:
        raise LocalTimeError(f"{SHIFTS_VAR} names no shift "
                             "(e.g. day=06:00,swing=14:00,graveyard=22:00)")
    for attr in ("name", "start"):
        values = [getattr(s, attr) for s in out]
        if len(set(values)) != len(values):
            raise LocalTimeError(f"{SHIFTS_VAR}: two shifts share a {attr} ({text!r})")
    return tuple(sorted(out, key=lambda s: s.start))


def shifts(start: int | None = None) -> tuple[Shift, ...]:
    """The configured shifts (``UTH_SHIFTS``), else eight-hour thirds from ``start`` (the
    gaming day's start by default)."""
    text = os.environ.get(SHIFTS_VAR, "").strip()
    if text:
        return parse_shifts(text)
    return default_shifts(day_start() if start is None else start)


def shift_of(minute_of_day: int, configured: Sequence[Shift]) -> str:
    """The shift a local minute of the day falls in (before the first start: the last)."""
    ordered = sorted(configured, key=lambda s: s.start)
    found = ordered[-1]
    for s in ordered:
        if s.start <= minute_of_day % 1440:
            found = s
    return found.name


def labels(configured: Sequence[Shift]) -> dict[str, str]:
    """Shift name -> ``name HH:MM-HH:MM`` (each to the next start), in the given order."""
    starts = sorted(s.start for s in configured)

    def end(start: int) -> int:
        return next((x for x in starts if x > start), starts[0])

    return {s.name: f"{s.name} {clock(s.start)}-{clock(end(s.start))}" for s in configured}


def utc_moment(text: str) -> datetime | None:
    """A contract time (RFC 3339, UTC) as an aware datetime, or None when it is not one."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def gaming_day_of(moment: datetime, day_start_minutes: int, zone: str = DEFAULT_ZONE) -> date:
    """The gaming day of a moment (aware, or naive UTC): the local date (in ``zone``) of the
    time ``day_start_minutes`` of local time earlier. The one definition in Python (the
    warehouse's SQL: ``pipeline.warehouse.gaming_day_sql``).

    >>> gaming_day_of(datetime(2026, 11, 29, 10, 59), 360, "America/Toronto").isoformat()
    '2026-11-28'
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    local = moment.astimezone(ZoneInfo(zone)).replace(tzinfo=None)
    return (local - timedelta(minutes=day_start_minutes)).date()


def to_local(value: datetime | str, zone: str | None = None) -> datetime:
    """A table time (naive UTC, aware, or an RFC 3339 string) as naive local wall time."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(ZoneInfo(zone or zone_name())).replace(tzinfo=None)


def to_utc(local: datetime, zone: str | None = None) -> datetime:
    """A local wall time (naive) as naive UTC, as the warehouse stores times (an hour that
    occurs twice when the clocks go back is taken the first time)."""
    aware = local.replace(tzinfo=ZoneInfo(zone or zone_name()))
    return aware.astimezone(UTC).replace(tzinfo=None)


def stamp(text: str, clock_only: bool = False) -> str:
    """A contract time as the casino's clock shows it (to the millisecond, with the zone's
    abbreviation); in UTC, or when it is not a time, the text itself (the clock part of it
    with ``clock_only``)."""
    zone = zone_name()
    if zone == DEFAULT_ZONE:
        if clock_only:
            return text[11:23] if len(text) >= 23 and text[19:20] == "." else text[11:19]
        return text
    moment = utc_moment(text)
    if moment is None:
        return text
    local = moment.astimezone(ZoneInfo(zone))
    shown = local.strftime("%H:%M:%S.%f")[:-3]
    return shown if clock_only else f"{local:%Y-%m-%d} {shown} {local:%Z}"
