"""The deck each ruleset deals from (``spec/PROTOCOL.md`` 7.3): game + options + seats -> cards.

How it works: :data:`DECKS` is the one table from a game, its options and the number of seats
to the hand's deck in canonical order, one row per game; :func:`deck_of` looks it up. One Card
always deals the 54-card pack, ONE its 25 cards, Black Jack ``decks`` packs (``auto``: two
beyond five seats) with ``jokers`` jokers per pack.
:func:`ruleset_deck` reads the same from a signed ``ruleset_id`` alone (its options are text),
so a verifier derives the deck a hand must use without any rules engine. The engines take their
deck from :func:`deck_of` too, so what a host deals and what a client expects cannot drift.
Anything the table does not know (another game, a value out of range) is a
:class:`~protocol.cardfair.RulesetError`: a verifier refuses it rather than guess.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping

from protocol.cardfair import RulesetError
from protocol.cards import DECK_54, DECK_ONE, Card, deck_for

__all__ = ["DECKS", "DeckGame", "DeckRule", "deck_of", "parse_ruleset", "ruleset_deck"]


class DeckGame(enum.StrEnum):
    """The games whose deck the table knows (the engine names of ``host.games``)."""

    ONE_CARD = "one-card"
    ONE = "one"
    BLACK_JACK = "black-jack"


#: Black Jack's deck options and their defaults (an option left out of a ruleset is its default)
_BJ_JOKERS = {"0": 0, "1": 1, "2": 2}
_BJ_DECKS = ("auto", "1", "2")
#: ``decks=auto`` deals two packs from this many seats on
AUTO_TWO_DECKS_FROM = 6


def _text(value: bool | int | str) -> str:
    """An option value as ``ruleset_id`` writes it (7.3)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _black_jack(opts: Mapping[str, str], seats: int) -> tuple[Card, ...]:
    jokers = opts.get("jokers", "0")
    decks = opts.get("decks", "auto")
    if jokers not in _BJ_JOKERS:
        raise RulesetError(f"black-jack has no deck with jokers={jokers}")
    if decks not in _BJ_DECKS:
        raise RulesetError(f"black-jack has no deck with decks={decks}")
    packs = (2 if seats >= AUTO_TWO_DECKS_FROM else 1) if decks == "auto" else int(decks)
    return tuple(deck_for(jokers=_BJ_JOKERS[jokers], decks=packs))


DeckRule = Callable[[Mapping[str, str], int], tuple[Card, ...]]
"""A game's deck from its options (as ``ruleset_id`` text) and its seat count."""

#: the deck table: one row per game (a new game adds its row; docs/ADDING-A-GAME.md)
DECKS: dict[str, DeckRule] = {
    DeckGame.ONE_CARD: lambda opts, seats: DECK_54,
    DeckGame.ONE: lambda opts, seats: DECK_ONE,
    DeckGame.BLACK_JACK: _black_jack,
}


def deck_of(game: str, options: Mapping[str, object] | None, seats: int) -> tuple[Card, ...]:
    """The deck, in canonical order, that ``game`` with ``options`` deals at ``seats`` seats.

    >>> len(deck_of("one-card", {}, 4)), len(deck_of("one", {}, 3))
    (54, 25)
    >>> [len(deck_of("black-jack", {"jokers": 1, "decks": "auto"}, n)) for n in (5, 6)]
    [53, 106]

    Raises:
        RulesetError: the game is unknown, or a deck option has a value the table lacks.
    """
    if seats < 1:
        raise RulesetError(f"a deck for {seats} seats")
    opts = {k: _text(v) for k, v in (options or {}).items() if isinstance(v, bool | int | str)}
    rule = DECKS.get(game)
    if rule is None:
        raise RulesetError(f"unknown game {game!r}: no deck is defined for it")
    return rule(opts, seats)


def parse_ruleset(rid: str) -> tuple[str, dict[str, str]]:
    """Split a ``ruleset_id`` into its game and its options (values as text).

    >>> parse_ruleset("black-jack?decks=auto&jokers=2")
    ('black-jack', {'decks': 'auto', 'jokers': '2'})

    Raises:
        RulesetError: an option without ``=``, or one named twice.
    """
    game, _, rest = rid.partition("?")
    options: dict[str, str] = {}
    for part in rest.split("&") if rest else ():
        key, eq, value = part.partition("=")
        if not eq or not key:
            raise RulesetError(f"ruleset {rid!r}: {part!r} is not key=value")
        if key in options:
            raise RulesetError(f"ruleset {rid!r} names option {key!r} twice")
        options[key] = value
    return game, options


def ruleset_deck(rid: str, seats: int) -> tuple[Card, ...]:
    """The deck a hand signed under ``rid`` with ``seats`` seats must use (:func:`deck_of`)."""
    game, options = parse_ruleset(rid)
    return deck_of(game, options, seats)
