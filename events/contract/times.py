"""The contract's times: which ``occurred_at`` texts are real RFC 3339 UTC times the
warehouse can hold, one at a time with the reason (:func:`time_problem`), or a whole batch
at once (:func:`times_valid`)."""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

TIME_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|\+00:00)$"


class Timed(Protocol):
    """Anything with the contract's ``occurred_at`` (every event)."""

    @property
    def occurred_at(self) -> str: ...


# Form and ranges (ASCII digits; month 01-12, day 01-31, hour < 24, minute < 60, second
# < 60) at once; the day of the month is checked after it (:func:`_calendar_problem`).
_TIME_BODY = (r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):"
              r"[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?(?:Z|\+00:00)")
_REAL_TIME = re.compile(_TIME_BODY).fullmatch
_REAL_TIMES = re.compile(f"(?:{_TIME_BODY}\n)*").fullmatch
_MONTH_DAYS = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
# a day either side of a time's year is still a real year (zones, gaming days)
FIRST_YEAR, LAST_YEAR = 2, 9998


def time_problem(text: str) -> str | None:
    """Why ``text`` is not an ``occurred_at`` of the contract, or None when it is one.

    A time the warehouse could not store is refused here, with its reason, so that it goes
    to the dead letters rather than stopping every load at its batch: a day the month does
    not have (``2026-02-31``), and a leap second (second 60, which RFC 3339 allows but
    timestamps here do not hold; table clocks are expected to smear it).

    >>> time_problem("2026-11-29T21:03:11.123Z") is None
    True
    >>> time_problem("2027-02-29T10:00:00Z")
    "'2027-02-29T10:00:00Z' is not a real time (2027-02 has no day 29)"
    >>> time_problem("2026-12-31T23:59:60Z")
    "'2026-12-31T23:59:60Z' is a leap second (second 60), which is not recorded"

    A year outside 0002..9998 is refused too: in the casino's zone, or as a gaming day
    that started the evening before, such a time could fall outside the years 1..9999
    the warehouse holds.

    >>> time_problem("9999-12-31T23:00:00Z")[23:]
    'is outside the years 0002 to 9998 that every zone and gaming day can hold'
    """
    if _REAL_TIME(text) is not None:
        return _calendar_problem(text)
    if re.fullmatch(TIME_PATTERN, text, flags=re.ASCII):
        if text[17:19] == "60" and _REAL_TIME(text[:17] + "59" + text[19:]) is not None:
            return f"{text!r} is a leap second (second 60), which is not recorded"
        return f"{text!r} is not a real time"
    return f"{text[:40]!r} is not an RFC 3339 UTC time such as 2026-11-29T21:03:11.123Z"


def _calendar_problem(text: str) -> str | None:
    """For a time of the right form and ranges: a year out of bounds, or a day its month
    does not have."""
    if not FIRST_YEAR <= int(text[0:4]) <= LAST_YEAR:
        return (f"{text!r} is outside the years {FIRST_YEAR:04d} to {LAST_YEAR} that every "
                "zone and gaming day can hold")
    day = int(text[8:10])
    if day < 29:
        return None
    year, month = int(text[0:4]), int(text[5:7])
    if day > _MONTH_DAYS[month] or (month == 2 and day == 29 and not calendar.isleap(year)):
        return f"{text!r} is not a real time ({text[:7]} has no day {day})"
    return None


def times_valid(events: Sequence[Timed]) -> bool:
    """True when every event's ``occurred_at`` is a contract time: in one NumPy pass when
    all have the common form ``2026-11-29T21:03:11.123Z`` (any one number of fraction
    digits, 1 to 9, for the whole batch), else by one regex call and the calendar."""
    times = [e.occurred_at for e in events]
    joined = "\n".join(times) + "\n"
    if _common_form(joined, len(events)):
        return True
    return (joined.count("\n") == len(events) and _REAL_TIMES(joined) is not None
            and not any(map(_calendar_problem, times)))


# the common form, ``YYYY-MM-DDTHH:MM:SS.`` then the fraction digits, ``Z`` and a newline:
# where the date and time digits and the separators are
_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
_SEPARATORS = {4: ord("-"), 7: ord("-"), 10: ord("T"), 13: ord(":"), 16: ord(":"),
               19: ord(".")}


def _common_form(joined: str, n: int) -> bool:
    """True when ``joined`` is ``n`` real times of the form ``YYYY-MM-DDTHH:MM:SS.fffZ``
    (the same number of fraction digits in all, 1 to 9), each followed by a newline (what
    the regex accepts, checked column by column; any other form, valid or not, is left to
    the regex)."""
    if n == 0 or not joined.isascii():
        return False
    width = joined.find("\n") + 1  # of one time and its newline
    fraction = width - 22
    if not 1 <= fraction <= 9 or len(joined) != width * n:
        return False
    rows = np.frombuffer(joined.encode("ascii"), dtype=np.uint8).reshape(n, width)
    separators = {**_SEPARATORS, width - 2: ord("Z"), width - 1: ord("\n")}
    for col, char in separators.items():
        if not (rows[:, col] == char).all():
            return False
    digits = rows[:, _DIGITS + list(range(20, 20 + fraction))].astype(np.int16) - ord("0")
    if not ((digits >= 0) & (digits <= 9)).all():
        return False
    month = digits[:, 4] * 10 + digits[:, 5]
    day = digits[:, 6] * 10 + digits[:, 7]
    hour = digits[:, 8] * 10 + digits[:, 9]
    minute = digits[:, 10] * 10 + digits[:, 11]
    second = digits[:, 12] * 10 + digits[:, 13]
    if not ((month >= 1) & (month <= 12) & (day >= 1) & (hour <= 23) & (minute <= 59)
            & (second <= 59)).all():
        return False
    year = digits[:, 0] * 1000 + digits[:, 1] * 100 + digits[:, 2] * 10 + digits[:, 3]
    if not ((year >= FIRST_YEAR) & (year <= LAST_YEAR)).all():
        return False
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    last = np.asarray(_MONTH_DAYS, dtype=np.int16)[month] - ((month == 2) & ~leap)
    return bool((day <= last).all())
