"""One Card's facts, stated once: which cards attack and for how much, and what each special
rank does.

How it works: plain constants of cards, imported by the moves (:mod:`host.games.one_card.moves`),
the engine (:mod:`host.games.one_card.engine`) and the bots' knowledge
(:mod:`host.games.one_card.strategy`, :mod:`host.games.one_card.worlds`), so no two of them can
disagree. The rules are in ``spec/RULES.md``, section One Card.
"""

from __future__ import annotations

from protocol.cards import DECK_54, JOKER_BLACK, JOKER_RED, Card, Rank
from protocol.cards import card as _c

__all__ = ["AGAIN", "ATTACKERS", "DAMAGE", "REVERSE", "SKIP", "WILD"]

#: what each attack card makes the next player pick up
DAMAGE: dict[Card, int] = {
    **{c: 2 for c in DECK_54 if c.rank is Rank.TWO},
    **{c: 3 for c in DECK_54 if c.rank is Rank.ACE},
    _c("AS"): 5,
    JOKER_BLACK: 10,
    JOKER_RED: 13,
}
#: the attack cards: twos, aces and jokers
ATTACKERS = frozenset(DAMAGE)
#: the wild rank: a seven plays on anything and names the next suit
WILD = Rank.SEVEN
#: a jack skips the next player, a queen reverses the direction, a king gives another turn
SKIP, REVERSE, AGAIN = Rank.JACK, Rank.QUEEN, Rank.KING
