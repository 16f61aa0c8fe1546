"""Black Jack's facts, stated once: its natural cards, what counters a pick-up, what a blunder
costs.

How it works: plain constants of cards, imported by the play shapes
(:mod:`host.games.black_jack.moves`), the engine (:mod:`host.games.black_jack.engine`) and the
bots' knowledge (:mod:`host.games.black_jack.worlds`), so no two of them can disagree. The
rules are in ``spec/RULES.md``, section Black Jack.
"""

from __future__ import annotations

from protocol.cards import ALL_CARDS, Rank

__all__ = ["ANY_CARD", "BLUNDER_CARDS", "COUNTERS", "NATURAL"]

#: the 52 natural cards (every card but the jokers), canonical order
NATURAL = ALL_CARDS[:52]
BLUNDER_CARDS = 2
"""Cards a blunder costs (``spec/RULES.md``, Black Jack, Blunders)."""
#: the cards that counter a pick-up (2s and jacks), and every natural card (covering a queen)
COUNTERS = frozenset(c for c in NATURAL if c.rank is Rank.TWO or c.rank is Rank.JACK)
ANY_CARD = frozenset(NATURAL)
