"""ONE's facts, stated once: its deck, its joker, what cards are worth and how they rank.

How it works: plain constants and pure functions of cards, imported by the engine
(:mod:`host.games.one.engine`), the moves (:mod:`host.games.one.moves`) and the bots'
knowledge (:mod:`host.games.one.strategy`, :mod:`host.games.one.worlds`), so no two of them
can disagree. The rules are in ``spec/RULES.md``, section ONE.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from protocol.cards import DECK_ONE, JOKER_RED, Card, Rank

__all__ = ["DECK_SET", "JOKER", "MAX_BID", "POINTS", "UPTOWN", "card_points", "strength"]

DECK_SET = frozenset(DECK_ONE)
#: the deck's only joker (cards are interned, so identity is the cheapest test)
JOKER = JOKER_RED
#: points a captured card is worth: K, Q, J one each, the joker three, the rest nothing
POINTS: Mapping[Rank, int] = MappingProxyType(
    {Rank.KING: 1, Rank.QUEEN: 1, Rank.JACK: 1, Rank.JOKER: 3}
)
#: uptown strength within a suit: 9 lowest, ace highest (downtown reverses it)
UPTOWN: Mapping[Rank, int] = MappingProxyType(
    {Rank.NINE: 0, Rank.TEN: 1, Rank.JACK: 2, Rank.QUEEN: 3, Rank.KING: 4, Rank.ACE: 5}
)
#: the highest bid: every point of the deck
MAX_BID = 15


def card_points(c: Card) -> int:
    """Points a captured card is worth: K, Q, J one each, the joker three, the rest nothing."""
    return POINTS.get(c.rank, 0)


def strength(c: Card, *, no_trump: bool, downtown: bool) -> int:
    """A card's rank strength within its suit (the joker: above all with no trump, else the
    lowest trump); ``downtown``: the 9 high."""
    if c is JOKER:
        return 99 if no_trump else -1
    up = UPTOWN[c.rank]
    return 5 - up if downtown else up
