"""Money as people read it. Money is integer cents (a currency's minor units) and is
written with integer arithmetic only, with thousands separators: plain, with a sign, with
the currency's code after it or its symbol before it.

>>> money(123456), money(-5050), money(150, sign=True), money(None)
('1,234.56', '-50.50', '+1.50', '-')
>>> money(123456789, "USD", symbol=True), money(-5050, "EUR", symbol=True)
('$1,234,567.89', '-€50.50')
>>> money(7, "CHF", symbol=True), money(150, "JPY", symbol=True), money(123456, "CAD")
('CHF 0.07', '¥150', '1,234.56 CAD')
>>> units(-5050, "EUR"), units(150, "JPY"), units(0, None)
(Decimal('-50.50'), Decimal('150'), Decimal('0.00'))
>>> outcome_words("win", 1500), outcome_words("lose", -500), outcome_words("push", 0)
('win 15.00', 'lose 5.00', 'push')
"""

from __future__ import annotations

from decimal import Decimal

# cents: ten billion in currency units bounds any sane wager or buy-in (the contract's bound
# on every amount, and a ruleset's on its limits)
MAX_AMOUNT = 10**12

# symbol, minor-unit digits; any other code is written "CODE 1,234.56" (two digits)
CURRENCIES: dict[str, tuple[str, int]] = {
    "USD": ("$", 2),
    "CAD": ("CA$", 2),
    "EUR": ("€", 2),
    "GBP": ("£", 2),
    "JPY": ("¥", 0),
    "KRW": ("₩", 0),
}


def money(cents: int | None, currency: str | None = None, *, sign: bool = False,
          symbol: bool = False, missing: str = "-") -> str:
    """``cents`` as text: ``1,234.56``; ``+`` before a gain with ``sign``; the currency's
    code after the amount (``1,234.56 CAD``), or its symbol before it with ``symbol``
    (``CA$1,234.56``); ``missing`` for ``None``."""
    if cents is None:
        return missing
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise TypeError(f"money is integer cents, got {cents!r}")
    code = (currency or "").upper()
    mark, digits = CURRENCIES.get(code, (f"{code} " if code else "", 2))
    units, minor = divmod(abs(cents), 10**digits)
    text = f"{units:,}" + (f".{minor:0{digits}d}" if digits else "")
    lead = "-" if cents < 0 else "+" if sign and cents > 0 else ""
    if symbol:
        return f"{lead}{mark}{text}"
    return f"{lead}{text} {code}" if code else f"{lead}{text}"


def units(cents: int, currency: str | None) -> Decimal:
    """Integer cents as an exact amount in currency units, a number a spreadsheet sums
    (``Decimal('-50.50')``; written ``-50.50`` in a CSV file): the dashboards' downloads
    and ``uth audit --csv`` / ``uth hands --csv`` write money so."""
    digits = CURRENCIES.get((currency or "").upper(), ("", 2))[1]
    return Decimal(int(cents)).scaleb(-digits)


def outcome_words(outcome: str | None, amount: int | None,
                  currency: str | None = None) -> str:
    """A payout as words: ``win 15.00``, ``lose 5.00``, ``push``; ``nothing`` when there is
    none."""
    if outcome is None or amount is None:
        return "nothing"
    if outcome == "push":
        return "push"
    return f"{outcome} {money(abs(amount), currency, symbol=currency is not None)}"
