"""Why a One Card player cannot do something now: the wording of refusals and ``explain``.

How it works: :meth:`OneCard.check` refuses a card that does not play with :func:`refusal` (terse:
what it does not play on) and a call out of place with :func:`no_call_reason` (someone called
first, the next turn closed the window, or none was open). :meth:`OneCard._why_not` asks
``check`` first; turn, phase and shape refusals keep the engine's own message, and a card that
fails only the matching rule gets :func:`mismatch_reason`, which names what the card would have
to match (the top card's suit or rank, a joker's colour, a suit named by a seven) and, against
an attack, what answers it. The rules are in ``spec/RULES.md``, section One Card.
"""

from __future__ import annotations

from protocol.cards import Card, Suit

__all__ = ["mismatch_reason", "no_call_reason", "refusal"]

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


def refusal(card: Card, top: Card, suit: Suit | None, damage: int, defence: str) -> str:
    """:meth:`OneCard.check`'s refusal of ``card`` on ``top`` (suit to match ``suit``)."""
    if damage:
        return (
            f"{card.code} does not answer the attack on {top.code}: play an attack card "
            f"({defence} defence) or draw {damage}"
        )
    if suit is None:  # a joker on top: it has no suit, only a colour
        return (
            f"{card.code} does not play on {top.code} (on a joker: a card of its colour, "
            "a joker or a seven)"
        )
    return f"{card.code} does not play on {top.code} (suit {suit.value})"


def no_call_reason(
    seat: int, called: tuple[int, int] | None, closed: tuple[int, int] | None
) -> str:
    """Why ``seat`` may not call now: ``called`` is the last call (caller, holder) until the next
    turn action, ``closed`` the window that turn action closed (holder, seat that acted)."""
    if called is not None:
        caller, holder = called
        if seat == caller:
            return "you already called One Card"
        if caller == holder:
            return f"too late: seat {holder} already called One Card on their own last card"
        if seat == holder:
            return f"too late: seat {caller} already called One Card on you"
        return f"too late: seat {caller} already called One Card on seat {holder}"
    if closed is not None:
        holder, actor = closed
        who = "you" if actor == seat else f"seat {actor}"
        went = "you" if holder == seat else f"seat {holder}"
        return (
            f"too late: the One Card call closed when {who} took a turn "
            f"after {went} went down to one card"
        )
    return (
        "no One Card call is open: one opens when a player goes down to one card "
        "and closes at the next turn"
    )
