"""Why a One Card player cannot put a held card down (:meth:`OneCard.explain`'s wording).

How it works: :meth:`OneCard._why_not` asks :meth:`OneCard.check` first; turn, phase and shape
refusals keep the engine's own message. A card that fails only the matching rule gets
:func:`mismatch_reason`, which names what the card would have to match (the top card's suit or
rank, a joker's colour, a suit named by a seven) and, against an attack, what answers it. The
rules are in ``spec/RULES.md``, section One Card.
"""

from __future__ import annotations

from protocol.cards import Card, Suit

__all__ = ["mismatch_reason"]

_SUIT_NAMES = {
    Suit.SPADES: "spades",
    Suit.HEARTS: "hearts",
    Suit.DIAMONDS: "diamonds",
    Suit.CLUBS: "clubs",
}


def suit_name(suit: Suit) -> str:
    return _SUIT_NAMES[suit]


def mismatch_reason(
    card: Card, top: Card, suit: Suit | None, damage: int, defence: str, *, is_attacker: bool
) -> str:
    """Why ``card`` does not play on ``top`` (the suit to match ``suit``, attack ``damage``)."""
    if damage:
        matching = (
            f"a {top.color.value} attack card or a joker"  # a joker has no suit or rank
            if top.is_joker
            else "an attack card matching the top card's suit or rank"
        )
        answer = {"match": matching, "any": "any attack card", "escalate": "any attack card"}
        what = f"{card.code} is not an attack card"
        if is_attacker:
            what = (
                f"{card.code} is not {top.color.value} (the colour of {top.code})"
                if top.is_joker
                else f"{card.code} does not match {top.code}"
            )
        return (
            f"{what}; you face an attack of {damage} cards: answer with "
            f"{answer.get(defence, 'an attack card')} or draw {damage}"
        )
    if top.is_joker:
        colour = top.color.value
        return f"{card.code} is not {colour}: on a joker only a {colour} card, a joker or a seven"
    assert suit is not None
    if card.is_joker:
        colour = card.color.value
        suits = " or ".join(suit_name(s) for s in Suit if s.color is card.color)
        return (
            f"{card.code} is the {colour} joker: it plays only on {suits}, "
            f"and the suit to match is {suit_name(suit)}"
        )
    if suit is not top.suit:
        return (
            f"{card.code} matches neither the suit named by the seven ({suit_name(suit)}) "
            f"nor the rank of {top.code}"
        )
    return f"{card.code} matches neither the suit nor the rank of {top.code}"
