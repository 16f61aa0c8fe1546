"""Cards, suits, ranks, wire codes and the decks of the three games.

How it works: there are exactly 54 distinct cards (52 plus the black joker ``JB`` and the red
joker ``JR``). Each is built once at import time and interned, so cards compare by identity and
hash cheaply; :func:`parse_card` maps a wire code such as ``"10H"`` to the interned object.

The *canonical order* (``ALL_CARDS``) is ranks ``A 2 .. 10 J Q K`` within suits ``S H D C``, then
``JB``, ``JR``. A card's canonical index is its position there. Decks are lists in canonical
order (with repeats for two-deck games: hands are multisets); the fairness module shuffles such a
list and position 0 of the result is the top of the stock.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from protocol.errors import ErrorCode, LocalProtocolError

__all__ = [
    "ALL_CARDS",
    "DECK_52",
    "DECK_54",
    "DECK_ONE",
    "JOKER_BLACK",
    "JOKER_RED",
    "Card",
    "CardCodeError",
    "Color",
    "Rank",
    "Suit",
    "canonical_index",
    "card",
    "cards_in",
    "deck_for",
    "format_cards",
    "parse_card",
    "parse_cards",
    "sort_canonical",
]


class Color(enum.Enum):
    """A card's colour: spades and clubs are black, hearts and diamonds red."""

    BLACK = "black"
    RED = "red"


class Suit(enum.Enum):
    """The four suits; the value is the wire letter."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def color(self) -> Color:
        return Color.RED if self in (Suit.HEARTS, Suit.DIAMONDS) else Color.BLACK

    @classmethod
    def parse(cls, text: object) -> Suit:
        """Parse a suit letter (``S H D C``, case-insensitive); raise :class:`CardCodeError`."""
        if isinstance(text, str):
            try:
                return cls(text.strip().upper())
            except ValueError:
                pass
        raise CardCodeError(f"not a suit: {text!r} (expected one of S, H, D, C)")


class Rank(enum.IntEnum):
    """Ranks with ace low (value 1); ``JOKER`` is 14. Games apply their own ordering."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    JOKER = 14

    @property
    def code(self) -> str:
        return _RANK_CODES[self]


_RANK_CODES = {
    Rank.ACE: "A",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.JOKER: "J",
    **{r: str(int(r)) for r in Rank if 2 <= r <= 10},
}


class CardCodeError(LocalProtocolError):
    """A string that is not a card code (``10H``, ``QS``, ``JB``, ``JR``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code=ErrorCode.BAD_CARD)


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card. Never construct directly: use :func:`card` / :func:`parse_card` (interned)."""

    rank: Rank
    suit: Suit | None  # None for jokers
    color: Color
    code: str
    index: int  # canonical index, 0..53

    @property
    def is_joker(self) -> bool:
        return self.rank is Rank.JOKER

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"card({self.code!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __reduce__(self) -> tuple[object, tuple[str]]:  # keep interning across pickling
        return (parse_card, (self.code,))


def _build() -> tuple[tuple[Card, ...], dict[str, Card]]:
    cards: list[Card] = []
    for suit in Suit:
        for rank in Rank:
            if rank is Rank.JOKER:
                continue
            cards.append(Card(rank, suit, suit.color, rank.code + suit.value, len(cards)))
    cards.append(Card(Rank.JOKER, None, Color.BLACK, "JB", len(cards)))
    cards.append(Card(Rank.JOKER, None, Color.RED, "JR", len(cards)))
    return tuple(cards), {c.code: c for c in cards}


ALL_CARDS, _BY_CODE = _build()
"""All 54 distinct cards in canonical order."""

JOKER_BLACK = _BY_CODE["JB"]
JOKER_RED = _BY_CODE["JR"]


def parse_card(code: object) -> Card:
    """The card for a wire code (``"10H"``, ``"qs"``, ``"JB"``); raise :class:`CardCodeError`.

    Case and surrounding spaces are forgiven; ``T`` is accepted for ten. Anything else is an error
    whose message names the bad input.
    """
    if not isinstance(code, str):
        raise CardCodeError(f"a card code must be a string, not {type(code).__name__}")
    text = code.strip().upper()
    if text.startswith("T") and len(text) == 2:
        text = "10" + text[1]
    found = _BY_CODE.get(text)
    if found is None:
        raise CardCodeError(
            f"not a card: {code!r} (expected rank A 2-10 J Q K then suit S H D C, or JB / JR)"
        )
    return found


def parse_cards(codes: object) -> list[Card]:
    """Parse a list of card codes; raise :class:`CardCodeError` naming the first bad one."""
    if not isinstance(codes, list | tuple):
        raise CardCodeError(f"expected a list of card codes, not {type(codes).__name__}")
    return [parse_card(c) for c in codes]


def cards_in(codes: object) -> list[Card]:
    """The cards among ``codes`` that parse, anything else skipped: for reading a view leniently
    (a bot's strategy), never for checking what a peer sent.

    >>> [c.code for c in cards_in(["7S", "XX", 3, "jr"])]
    ['7S', 'JR']
    >>> cards_in(None)
    []
    """
    out: list[Card] = []
    for code in codes if isinstance(codes, list | tuple) else ():
        try:
            out.append(parse_card(code))
        except CardCodeError:
            continue
    return out


def card(code: str) -> Card:
    """Short alias of :func:`parse_card` for code and tests: ``card("7S")``."""
    return parse_card(code)


def canonical_index(c: Card) -> int:
    return c.index


def sort_canonical(cards: Iterable[Card]) -> list[Card]:
    """Sort by canonical index (stable for the duplicates of a two-deck game)."""
    return sorted(cards, key=canonical_index)


def format_cards(cards: Iterable[Card]) -> list[str]:
    """Wire form of a sequence of cards."""
    return [c.code for c in cards]


DECK_54: tuple[Card, ...] = ALL_CARDS
"""One Card: the 52-card pack and both jokers."""

DECK_52: tuple[Card, ...] = ALL_CARDS[:52]
"""Black Jack without jokers."""

_ONE_RANKS = {Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE}
DECK_ONE: tuple[Card, ...] = tuple(
    c for c in ALL_CARDS if (c.rank in _ONE_RANKS and not c.is_joker) or c is JOKER_RED
)
"""ONE: 9 10 J Q K A in four suits plus one joker (``JR``), 25 cards."""


def deck_for(*, jokers: int = 0, decks: int = 1, base: Sequence[Card] = DECK_52) -> list[Card]:
    """A canonical-order deck: ``decks`` copies of ``base`` plus jokers.

    ``jokers`` counts jokers *per deck*: 1 adds ``JR`` (the rulings use the red code for a single
    joker), 2 adds ``JB`` and ``JR``. The result is sorted canonically, so copies sit together.
    """
    if decks < 1:
        raise ValueError("decks must be at least 1")
    if jokers not in (0, 1, 2):
        raise ValueError("jokers must be 0, 1 or 2")
    one = list(base)
    if jokers == 1:
        one.append(JOKER_RED)
    elif jokers == 2:
        one += [JOKER_BLACK, JOKER_RED]
    return sort_canonical(one * decks)
