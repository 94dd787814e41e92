"""How the dashboards write money, percentages and counts.

Money is integer cents and is formatted with integer arithmetic only (no float ever
touches an amount), in the table's currency, with thousands separators:

>>> money(123456789, "USD"), money(-5050, "EUR"), money(7, "CHF"), money(None, "USD")
('$1,234,567.89', '-€50.50', 'CHF 0.07', '—')
>>> money(150, "JPY")
'¥150'

A percentage always says what it is a percentage of:

>>> pct(0.123456, "drop")
'12.35% of drop'
>>> pct(None, "drop"), pct(0.5, None)
('— (no drop)', '50.00%')
>>> share(3, 12, "wagers")
'25.00% (3 of 12 wagers)'
>>> count(1234567), rate(37.25, "hands/hour")
('1,234,567', '37.2 hands/hour')

Each of them is text that also carries its number, which a table's CSV download writes
instead (money in currency units beside its currency, a percentage as a percent):

>>> money(-5050, "EUR").number, money(-5050, "EUR").currency, pct(0.123456, "drop").number
(Decimal('-50.50'), 'EUR', Decimal('12.3456'))
"""

from __future__ import annotations

import math
from datetime import datetime
from decimal import Decimal
from typing import Any

from events.money import money as events_money
from events.money import units

MISSING = "—"


class Shown(str):
    """A figure as shown (``CA$1,234.56``, ``12.35% of drop``) that keeps its value:
    ``number`` (currency units, a percent, a count; or the whole text of a value shown
    short) and, for money, ``currency``. The CSV downloads write the value."""

    number: Decimal | int | str
    currency: str | None

    def __new__(cls, text: str, number: Decimal | int | str,
                currency: str | None = None) -> Shown:
        shown = super().__new__(cls, text)
        shown.number, shown.currency = number, currency
        return shown


def _percent(fraction: float, digits: int = 6) -> Decimal:
    """A fraction as a percent, plainly written: ``Decimal('12.3456')``, ``Decimal('10')``."""
    text = f"{fraction * 100:.{digits}f}".rstrip("0").rstrip(".")
    return Decimal(text if text not in ("", "-0") else "0")


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN / pandas NA
    except (TypeError, ValueError):
        return True


def money(cents: Any, currency: str | None) -> str:
    """``cents`` (an integer number of minor units) as ``$1,234.56`` in ``currency``."""
    if _is_missing(cents):
        return MISSING
    if isinstance(cents, float):
        if not cents.is_integer():
            raise ValueError(f"money is integer cents, got {cents!r}")
        cents = int(cents)
    return Shown(events_money(int(cents), currency, symbol=True), units(int(cents), currency),
                 currency)


def mispay_net(cents: Any, currency: str, mispays: Any) -> str:
    """A dealer's mispays' net (+ overpaid): ``none`` without a mispay (no amount, and no
    currency to give one in), cents when they span several currencies."""
    if not _is_missing(mispays) and int(mispays) == 0:
        return "none"
    if currency == "mixed" and not _is_missing(cents):
        return f"{int(cents):,} cents (several currencies)"
    return money(cents, currency)


def pct(fraction: Any, denominator: str | None, digits: int = 2) -> str:
    """``fraction`` (0..1) as a percentage naming its denominator: ``12.35% of drop``."""
    if _is_missing(fraction) or (isinstance(fraction, float) and math.isinf(fraction)):
        return f"{MISSING} (no {denominator})" if denominator else MISSING
    text = f"{float(fraction) * 100:.{digits}f}%"
    exact = _percent(float(fraction))
    return Shown(f"{text} of {denominator}" if denominator else text, exact)


def pct_value(fraction: Any, digits: int = 2) -> str:
    """A bare percentage for a column whose header names the denominator."""
    return pct(fraction, None, digits)


def share(part: Any, whole: Any, noun: str, digits: int = 2) -> str:
    """``part`` of ``whole`` with both counts shown: ``25.00% (3 of 12 wagers)``."""
    if _is_missing(part) or _is_missing(whole):
        return MISSING
    if int(whole) == 0:
        return f"{MISSING} (0 {noun})"
    fraction = int(part) / int(whole)
    return Shown(f"{fraction * 100:.{digits}f}% ({int(part):,} of {int(whole):,} {noun})",
                 _percent(fraction))


def count(value: Any) -> str:
    """An integer count with thousands separators."""
    return MISSING if _is_missing(value) else Shown(f"{int(value):,}", int(value))


def rate(value: Any, unit: str, digits: int = 1) -> str:
    """A rate such as hands per hour."""
    if _is_missing(value):
        return MISSING
    return Shown(f"{float(value):,.{digits}f} {unit}", Decimal(f"{float(value):.{digits}f}"))


def day(value: Any) -> str:
    """A gaming day as ``2026-11-28``."""
    if _is_missing(value):
        return MISSING
    return value.date().isoformat() if isinstance(value, datetime) else str(value)[:10]


def moment(value: Any) -> str:
    """A time to the millisecond: ``2026-11-30 02:16:35.981``."""
    if _is_missing(value):
        return MISSING
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.") + f"{value.microsecond // 1000:03d}"
    return str(value)


def decimal(value: Any, digits: int = 1) -> str:
    """A plain number with thousands separators."""
    if _is_missing(value):
        return MISSING
    return Shown(f"{float(value):,.{digits}f}", Decimal(f"{float(value):.{digits}f}"))


def probability(value: Any) -> str:
    """An exact probability as a percentage with enough digits for a royal flush."""
    if _is_missing(value):
        return MISSING
    return Shown(f"{float(value) * 100:.4f}%", _percent(float(value), 8))
