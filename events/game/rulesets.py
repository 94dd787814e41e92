"""Rulesets as data: pay tables, table limits and betting options read from TOML files.

The four rulesets of the event contract live in ``events/game/rulesets/*.toml``. A casino adds
its own without code by dropping ``<name>.toml`` into a directory named by
``UTH_RULESETS_DIR`` (read when a ruleset is looked up, never at import; several
directories are separated by ``os.pathsep``) or passed as ``extra_dirs``. A file in such a
directory overrides a built-in ruleset of the same name. Events name a ruleset; only an
operator's command line may give a ``.toml`` path (:func:`load_ruleset_arg`).

>>> rs = load_ruleset("charlevoix-2011")
>>> rs.trips_table[9], rs.trips_table[3], rs.blind_table[5]
(50, 3, Fraction(3, 2))
>>> rs.max_seats, load_ruleset("live-online").max_seats
(7, None)
>>> known_rulesets()
['cardroom', 'charlevoix-2011', 'eu-participation', 'live-online']
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from events.money import MAX_AMOUNT

BUILTIN_DIR = Path(__file__).with_name("rulesets")
ENV_VAR = "UTH_RULESETS_DIR"

# TOML key -> hand category (events.game.evaluation numbering)
HAND_KEYS: dict[str, int] = {
    "royal_flush": 9,
    "straight_flush": 8,
    "four_of_a_kind": 7,
    "full_house": 6,
    "flush": 5,
    "straight": 4,
    "three_of_a_kind": 3,
}
BLIND_KEYS = tuple(k for k, c in HAND_KEYS.items() if c >= 4)
TRIPS_KEYS = tuple(HAND_KEYS)
DEALING_ORDERS = ("community_first", "players_first")
DECKS = ("single", "two_alternating")
ROUNDINGS = ("down",)
# the largest pay a table may offer, either side of the ratio (a pay of 10^18:1 would make
# every payout overflow the warehouse's 64-bit cents and the simulator never end)
MAX_ODDS = 10_000

_RATIO_RE = re.compile(r"^\s*(\d+)\s*(?::|to)\s*(\d+)\s*$")
_CURRENCY_RE = re.compile(r"^[A-Z]{3}$")
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


class RulesetError(ValueError):
    """Base class of ruleset errors."""


class UnknownRulesetError(RulesetError):
    """No ruleset of that name; the message lists the known ones."""


class RulesetFileError(RulesetError):
    """A ruleset file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class TableLimits:
    """Limits in force at one table (``TableOpened``): cents; ``None`` means no limit."""

    min_bet: int
    max_bet: int
    max_trips: int | None = None
    seats: int | None = None


# the field of each street's multiples (the fold asks once per decision)
_MULTIPLES = {"preflop": "preflop_multiples", "flop": "flop_multiples",
              "river": "river_multiples"}


@dataclass(frozen=True)
class Ruleset:
    """One ruleset. Odds are "to 1" integers (trips) or fractions (blind, 3:2 = 3/2)."""

    name: str
    title: str
    source: tuple[str, ...]
    trips_table: dict[int, int] = field(hash=False)
    blind_table: dict[int, Fraction] = field(hash=False)
    min_bet: int
    max_bet: int
    max_trips: int | None
    max_seats: int | None
    currency: str
    rounding: str = "down"
    preflop_multiples: tuple[int, ...] = (4, 3)
    flop_multiples: tuple[int, ...] = (2,)
    river_multiples: tuple[int, ...] = (1,)
    dealing_orders: tuple[str, ...] = ("community_first",)
    decks: tuple[str, ...] = ("single",)
    notes: str = ""
    path: str | None = None

    def trips_odds(self, category: int) -> int:
        """Trips pays this many to 1 for a hand of ``category``; 0 when it loses."""
        return self.trips_table.get(category, 0)

    def blind_odds(self, category: int) -> Fraction | None:
        """Blind odds for a winning hand of ``category``; ``None`` when the blind pushes."""
        return self.blind_table.get(category)

    def multiples(self, street: str) -> tuple[int, ...]:
        """Legal raise multiples of the ante on ``street`` (preflop, flop, river)."""
        name = _MULTIPLES.get(street)
        if name is None:
            raise ValueError(f"{street!r} is not a street (preflop, flop, river)")
        return getattr(self, name)  # type: ignore[no-any-return]

    def limits(self, **overrides: Any) -> TableLimits:
        """The ruleset's default table limits, with ``overrides`` from ``TableOpened``."""
        base = TableLimits(self.min_bet, self.max_bet, self.max_trips, self.max_seats)
        return replace(base, **overrides)


def _dirs(extra_dirs: Iterable[str | os.PathLike[str]] | None) -> list[Path]:
    dirs = [BUILTIN_DIR]
    env = os.environ.get(ENV_VAR, "")
    dirs += [Path(p) for p in env.split(os.pathsep) if p]
    dirs += [Path(p) for p in (extra_dirs or ())]
    return dirs


def _catalog(extra_dirs: Iterable[str | os.PathLike[str]] | None) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for d in _dirs(extra_dirs):
        if d.is_dir():
            for p in sorted(d.glob("*.toml")):
                found[p.stem] = p  # later directories override earlier ones
    return found


def known_rulesets(extra_dirs: Iterable[str | os.PathLike[str]] | None = None) -> list[str]:
    """Names of every ruleset found (built-in, ``UTH_RULESETS_DIR``, ``extra_dirs``)."""
    return sorted(_catalog(extra_dirs))


_CACHE: dict[tuple[str, int, int], Ruleset] = {}


def load_ruleset(
    name: str, extra_dirs: Iterable[str | os.PathLike[str]] | None = None,
) -> Ruleset:
    """A ruleset by name (``charlevoix-2011``), from the rulesets directories.

    Only a name is looked up, never a path: a ``TableOpened`` names its ruleset, and a file
    is never opened because an event named it (``../x.toml`` or ``/proc/self/mem`` is
    just a name no directory holds). Raises :class:`UnknownRulesetError` (listing the
    known names) or :class:`RulesetFileError` (naming the file and the field).

    >>> try:
    ...     load_ruleset("no-such-game")
    ... except UnknownRulesetError as exc:
    ...     print(exc)
    unknown ruleset 'no-such-game'; known rulesets: cardroom, charlevoix-2011, \
eu-participation, live-online
    """
    catalog = _catalog(extra_dirs)
    if not isinstance(name, str) or name not in catalog:
        known = ", ".join(sorted(catalog)) or "(none)"
        raise UnknownRulesetError(f"unknown ruleset {str(name)[:80]!r}; known rulesets: {known}")
    return _parse_cached(catalog[name])


def load_ruleset_file(path: str | os.PathLike[str]) -> Ruleset:
    """The ruleset in a ``.toml`` file an operator names (a command-line argument)."""
    file = Path(path)
    if not file.is_file():
        raise RulesetFileError(f"{os.fspath(path)}: no such ruleset file")
    return _parse_cached(file)


def load_ruleset_arg(
    text: str, extra_dirs: Iterable[str | os.PathLike[str]] | None = None,
) -> Ruleset:
    """A command-line ``--ruleset``: a ``.toml`` path, or else a ruleset name."""
    if text.endswith(".toml") or os.sep in text or "/" in text:
        return load_ruleset_file(text)
    return load_ruleset(text, extra_dirs)


def _parse_cached(path: Path) -> Ruleset:
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    cached = _CACHE.get(key)
    if cached is None:
        cached = _CACHE[key] = parse_ruleset(path.read_bytes(), path)
    return cached


def parse_ruleset(data: bytes | str, path: str | os.PathLike[str]) -> Ruleset:
    """Parse and validate the TOML text of a ruleset file; ``path`` names it in errors."""
    where = _display(Path(path))
    try:
        raw = tomllib.loads(data.decode("utf-8") if isinstance(data, bytes) else data)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RulesetFileError(f"{where}: not valid TOML: {exc}") from None
    return _Parser(where, Path(path)).ruleset(raw)


def _display(path: Path) -> str:
    """The file as the operator named it (the whole path: a shortened one may name another
    file), shown printable."""
    return ascii(str(path))[1:-1] if not str(path).isprintable() else str(path)


class _Parser:
    def __init__(self, where: str, path: Path) -> None:
        self.where = where
        self.path = path
        self.stem = path.stem

    def fail(self, fld: str, message: str) -> RulesetFileError:
        return RulesetFileError(f"{self.where}: {fld}: {message}")

    def table(self, raw: Mapping[str, Any], key: str, required: bool = True) -> dict[str, Any]:
        value = raw.get(key)
        if value is None:
            if required:
                raise self.fail(key, "missing section")
            return {}
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table ([" + key + "])")
        return value

    def only(self, raw: Mapping[str, Any], prefix: str, allowed: Iterable[str]) -> None:
        allowed = set(allowed)
        for k in raw:
            if k not in allowed:
                name = f"{prefix}.{k}" if prefix else k
                raise self.fail(name, "unknown field (allowed: " + ", ".join(sorted(allowed)) + ")")

    def text(self, raw: Mapping[str, Any], key: str, default: str | None = None) -> str:
        value = raw.get(key, default)
        if value is None:
            raise self.fail(key, "missing: a non-empty string is required")
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"{value!r} must be a non-empty string")
        return value

    def cents(self, raw: Mapping[str, Any], prefix: str, key: str, optional: bool) -> int | None:
        value = raw.get(key)
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise self.fail(f"{prefix}.{key}", f"{value!r} must be a whole number of cents > 0")
        if value > MAX_AMOUNT:
            raise self.fail(f"{prefix}.{key}", f"{value} is above the {MAX_AMOUNT} cents any "
                            "wager may be")
        return value

    def ratio(self, fld: str, value: Any) -> Fraction:
        match = _RATIO_RE.match(value) if isinstance(value, str) else None
        if match is None:
            raise self.fail(fld, f"'{value}' must be a ratio like {value}:1")
        if max(len(match.group(1)), len(match.group(2))) > 12:  # no endless int()
            raise self.fail(fld, f"'{value[:40]}' pays beyond {MAX_ODDS}:1")
        num, den = int(match.group(1)), int(match.group(2))
        if num <= 0 or den <= 0:
            raise self.fail(fld, f"'{value}' must pay more than nothing (like 3:2)")
        if num > MAX_ODDS or den > MAX_ODDS:
            raise self.fail(fld, f"'{value}': each side of a pay is at most {MAX_ODDS} "
                            f"(like {MAX_ODDS}:1)")
        return Fraction(num, den)

    def pays(
        self, raw: Mapping[str, Any], section: str, keys: tuple[str, ...]
    ) -> dict[int, Fraction]:
        table = self.table(raw, section)
        self.only(table, section, keys)
        out: dict[int, Fraction] = {}
        for k in keys:
            if k not in table:
                raise self.fail(f"{section}.{k}", "missing (every hand of the table needs a pay)")
            out[HAND_KEYS[k]] = self.ratio(f"{section}.{k}", table[k])
        return out

    def ints(
        self, raw: Mapping[str, Any], section: str, key: str, default: tuple[int, ...]
    ) -> tuple[int, ...]:
        value = raw.get(key, list(default))
        ok = isinstance(value, list) and value and all(
            isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 10 for v in value)
        if not ok:
            raise self.fail(f"{section}.{key}", f"{value!r} must be a list like [4, 3]")
        return tuple(value)

    def choices(self, raw: Mapping[str, Any], section: str, key: str, allowed: tuple[str, ...],
                default: tuple[str, ...]) -> tuple[str, ...]:
        value = raw.get(key, list(default))
        if not isinstance(value, list) or not value or any(v not in allowed for v in value):
            raise self.fail(f"{section}.{key}", f"{value!r} must be a list from {list(allowed)}")
        return tuple(value)

    def ruleset(self, raw: dict[str, Any]) -> Ruleset:
        self.only(raw, "", ("name", "title", "source", "currency", "rounding", "notes", "limits",
                            "play", "dealing", "blind", "trips"))
        name = raw.get("name", self.stem)
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise self.fail("name", f"{name!r} must be lowercase letters, digits, '-', '.' or '_'")
        if name != self.stem:
            raise self.fail("name", f"{name!r} must equal the file name {self.stem!r}")
        source = raw.get("source", [])
        if isinstance(source, str):
            source = [source]
        if not isinstance(source, list) or not all(isinstance(s, str) for s in source):
            raise self.fail("source", f"{source!r} must be a string or a list of strings")
        currency = self.text(raw, "currency")
        if not _CURRENCY_RE.match(currency):
            raise self.fail("currency", f"{currency!r} must be a three-letter code like CAD")
        rounding = self.text(raw, "rounding", "down")
        if rounding not in ROUNDINGS:
            raise self.fail("rounding", f"{rounding!r} is not supported (only 'down')")
        notes = raw.get("notes", "")
        if not isinstance(notes, str):
            raise self.fail("notes", f"{notes!r} must be a string")

        limits = self.table(raw, "limits")
        self.only(limits, "limits", ("min_bet", "max_bet", "max_trips", "max_seats"))
        min_bet = self.cents(limits, "limits", "min_bet", optional=False)
        max_bet = self.cents(limits, "limits", "max_bet", optional=False)
        assert min_bet is not None and max_bet is not None
        if min_bet > max_bet:
            raise self.fail("limits.min_bet", f"{min_bet} is above limits.max_bet {max_bet}")
        max_trips = self.cents(limits, "limits", "max_trips", optional=True)
        seats = limits.get("max_seats")
        if seats == "unlimited":
            seats = None
        if seats is not None and (isinstance(seats, bool) or not isinstance(seats, int)
                                  or not 1 <= seats <= 1000):
            raise self.fail("limits.max_seats", f"{seats!r} must be 1..1000 or \"unlimited\"")

        play = self.table(raw, "play", required=False)
        self.only(play, "play", ("preflop", "flop", "river"))
        dealing = self.table(raw, "dealing", required=False)
        self.only(dealing, "dealing", ("orders", "decks"))

        blind = self.pays(raw, "blind", BLIND_KEYS)
        trips_fr = self.pays(raw, "trips", TRIPS_KEYS)
        trips: dict[int, int] = {}
        for cat, odds in trips_fr.items():
            if odds.denominator != 1:
                key = next(k for k, c in HAND_KEYS.items() if c == cat)
                raise self.fail(f"trips.{key}", f"'{odds.numerator}:{odds.denominator}' must "
                                "pay whole units to 1, like 3:1")
            trips[cat] = odds.numerator
        return Ruleset(
            name=name,
            title=self.text(raw, "title", name),
            source=tuple(source),
            trips_table=trips,
            blind_table=blind,
            min_bet=min_bet,
            max_bet=max_bet,
            max_trips=max_trips,
            max_seats=seats,
            currency=currency,
            rounding=rounding,
            preflop_multiples=self.ints(play, "play", "preflop", (4, 3)),
            flop_multiples=self.ints(play, "play", "flop", (2,)),
            river_multiples=self.ints(play, "play", "river", (1,)),
            dealing_orders=self.choices(dealing, "dealing", "orders", DEALING_ORDERS,
                                        ("community_first",)),
            decks=self.choices(dealing, "dealing", "decks", DECKS, ("single",)),
            notes=notes,
            path=str(self.path),
        )
