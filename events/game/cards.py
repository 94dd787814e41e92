"""Cards as the contract writes them (``As``, ``Td``) and as arrays index them.

A card's index is ``4 * rank + suit`` with rank 0 (deuce) .. 12 (ace) and suits in
the order c, d, h, s, so ``2c`` is 0 and ``As`` is 51.

>>> card_index("As"), card_index("2c"), card_str(38)
(51, 0, 'Jh')
>>> parse_cards("AsKd")
(51, 45)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "cdhs"
CARD_PATTERN = "^[2-9TJQKA][cdhs]$"
_CARD_RE = re.compile(CARD_PATTERN)

RANK_NAMES = (
    "deuce", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "jack", "queen", "king", "ace",
)
RANK_PLURALS = (
    "deuces", "threes", "fours", "fives", "sixes", "sevens", "eights",
    "nines", "tens", "jacks", "queens", "kings", "aces",
)
SUIT_GLYPHS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
DECK: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
CARD_INDEX: dict[str, int] = {c: i for i, c in enumerate(DECK)}  # (no checks: for hot paths)


class CardError(ValueError):
    """A string that is not a card."""


def is_card(text: str) -> bool:
    """True when ``text`` is a two-character card such as ``Td``."""
    return bool(_CARD_RE.match(text))


def card_index(card: str) -> int:
    """The array index of a card string."""
    if len(card) != 2 or not is_card(card):
        raise CardError(f"{card!r} is not a card")
    return 4 * RANKS.index(card[0]) + SUITS.index(card[1])


def card_str(index: int) -> str:
    """The contract's two-character spelling of a card index."""
    if not 0 <= index < 52:
        raise CardError(f"{index} is not a card index (0..51)")
    return RANKS[index >> 2] + SUITS[index & 3]


def rank_of(index: int) -> int:
    return index >> 2


def suit_of(index: int) -> int:
    return index & 3


def parse_cards(text: str | Iterable[str]) -> tuple[int, ...]:
    """Card indices from ``"AsKd"``, ``"As Kd"`` or ``["As", "Kd"]``."""
    if isinstance(text, str):
        compact = text.replace(" ", "").replace(",", "")
        items: Sequence[str] = [compact[i : i + 2] for i in range(0, len(compact), 2)]
    else:
        items = list(text)
    return tuple(card_index(c) for c in items)


def glyph(card: str) -> str:
    """``Ah`` as ``A♥`` for people; ``T`` reads as ``10``."""
    rank = "10" if card[0] == "T" else card[0]
    return rank + SUIT_GLYPHS[card[1]]
