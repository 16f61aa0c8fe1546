"""Why a ONE player cannot play a card now: the wording of ``explain`` answers.

How it works: :meth:`One.check <host.games.one.engine.One.check>` keeps terse messages; its
``_why_not`` asks ``check`` first and, for a card refused in the auction or by the rule of
following, answers with the sentences here, which name the suit that was led. The rules are in
``spec/RULES.md``, section ONE.
"""

from __future__ import annotations

from host.games.one.rules import JOKER
from protocol.cards import Card, Suit

__all__ = ["IN_AUCTION", "JOKER_FIRST_LEAD", "SUIT_WORDS", "unfollowed_reason"]

SUIT_WORDS = {s: s.name.lower() for s in Suit}  # spades, hearts, diamonds, clubs
IN_AUCTION = "it is the bidding: bid or pass (cards are played after the auction)"
JOKER_FIRST_LEAD = "the bidder may not lead the joker to the first trick"


def unfollowed_reason(card: Card, led: Suit) -> str:
    """Why ``card`` may not go on a trick led in ``led``: the seat can follow suit."""
    words = SUIT_WORDS[led]
    if card is JOKER:
        return f"the joker may lead, or follow only when you cannot: {words} were led"
    return f"you must follow suit: {words} were led and you can follow"
