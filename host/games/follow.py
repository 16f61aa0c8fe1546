"""What may be played on the top card, said to every player as a shedding game's view key.

How it works: a shedding game knows the set of cards that its player to act may start a play
with (One Card's ``follow_set``, Black Jack's matching rule); :func:`follow_map` writes that set
the short way a person reads it: whole suits (every card of the suit plays), whole ranks (every
suit of the rank plays), then the single cards left over. A client shows it next to the top card
("may follow: any ♥, any 9, any 7 or Joker(B)") without knowing any rule: a joker on top, a
named suit, a pending attack or a queen to cover all come out as the set they allow. Public
information only: the top card and what is pending, never a hand.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from host.games.base import WireMap
from protocol.cards import ALL_CARDS, Card, Rank, Suit

__all__ = ["follow_map"]

_PLAIN = [c for c in ALL_CARDS if not c.is_joker]


def follow_map(allowed: Iterable[Card]) -> WireMap:
    """``{"suits", "ranks", "cards"}``: the suits and ranks all of whose cards are in
    ``allowed``, and the other cards of ``allowed`` (jokers included), in canonical order;
    every suit listed means any card (no rank is listed then).

    >>> from protocol.cards import card
    >>> hearts = [c for c in _PLAIN if c.suit is Suit.HEARTS]
    >>> follow_map([*hearts, card("9S"), card("9D"), card("9C"), card("JR")])
    {'suits': ['H'], 'ranks': ['9'], 'cards': ['JR']}
    >>> follow_map([card("2H"), card("AS")])
    {'suits': [], 'ranks': [], 'cards': ['AS', '2H']}
    """
    suits, ranks, rest = _follow(frozenset(allowed))
    return {"suits": list(suits), "ranks": list(ranks), "cards": list(rest)}


@functools.lru_cache(maxsize=512)
def _follow(cards: frozenset[Card]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """:func:`follow_map`'s lists for one set, worked out once: every seat's view of every state
    asks, and a game has few distinct sets (one per top card and what is pending)."""
    suits = [s for s in Suit if all(c in cards for c in _PLAIN if c.suit is s)]
    ranks = [
        r
        for r in Rank
        if r is not Rank.JOKER
        and all(c in cards for c in _PLAIN if c.rank is r)
        and len(suits) < len(Suit)  # (every suit plays: no rank adds anything)
    ]
    rest = sorted(
        (c for c in cards if c.is_joker or (c.suit not in suits and c.rank not in ranks)),
        key=lambda c: c.index,
    )
    return (
        tuple(s.value for s in suits),
        tuple(r.code for r in ranks),
        tuple(c.code for c in rest),
    )
