"""Dealing the cards a seat cannot see into the places they may be: one sampled world.

How it works: :func:`deal_hidden` takes the *pool* (every card the seat has not seen), the
*places* that hide cards (the other hands, the stock, a face-down centre card), how many cards
each holds, the cards already known to be in a place (a Black Jack blunder showed them) and a
rule saying which cards a place may hold (a ONE player who could not follow a suit holds none of
it). Without a rule it is one shuffle. With one, cards are placed most-constrained first, each
into a place that may take it, chosen in proportion to the room left; a dead end starts again,
and after a few dead ends the rule is dropped (a memory that contradicts the view must not stop
the bot). Everything random comes from the caller's generator.

:class:`WorldTemplate` keeps what every world of one view shares (the seat's hand, the pool,
the places' sizes) and the first world the engine's ``from_view`` built from it; later worlds
are copies of that one with the hidden cards dealt afresh (the engine's ``redealt``): the same
worlds, made without reading the view again (a search samples hundreds a move).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, Protocol, Self, TypeVar

from protocol.cards import Card, parse_card

__all__ = ["TRIES", "WorldTemplate", "deal_hidden"]

#: dead ends before :func:`deal_hidden` deals without the rule
TRIES = 20

Allowed = Callable[[int, Card], bool]
"""``allowed(place, card)``: whether the place may hold the card."""


def deal_hidden(
    pool: Sequence[Card],
    sizes: Sequence[int],
    rng: random.Random,
    *,
    known: Sequence[Sequence[Card]] | None = None,
    allowed: Allowed | None = None,
) -> list[list[Card]]:
    """Each place's cards: its ``known`` cards, then cards of ``pool`` up to ``sizes[place]``.

    Args:
        pool: the cards to deal (known cards are taken out of it first, once each).
        sizes: how many cards each place holds in all; they must add up to ``len(pool)``.
        rng: the only source of randomness.
        known: cards known to be in a place; any not in the pool are ignored (the memory is
            stale), and so is any beyond the place's size.
        allowed: which cards a place may hold; ``None``: any.

    Raises:
        ValueError: the sizes do not add up to the pool.
    """
    if sum(sizes) != len(pool):
        raise ValueError(f"{len(pool)} hidden cards do not fill places of {list(sizes)}")
    rest = list(pool)
    places: list[list[Card]] = [[] for _ in sizes]
    for place, cards in enumerate(known or ()):
        for c in cards:
            if c in rest and len(places[place]) < sizes[place]:
                rest.remove(c)
                places[place].append(c)
    room = [size - len(got) for size, got in zip(sizes, places, strict=True)]
    if allowed is not None:
        for _ in range(TRIES):
            dealt = _constrained(rest, room, allowed, rng)
            if dealt is not None:
                return [got + more for got, more in zip(places, dealt, strict=True)]
    rng.shuffle(rest)
    out, start = [], 0
    for got, more in zip(places, room, strict=True):
        out.append(got + rest[start : start + more])
        start += more
    return out


def _constrained(
    cards: Sequence[Card], room: Sequence[int], allowed: Allowed, rng: random.Random
) -> list[list[Card]] | None:
    """One attempt: most-constrained cards first, places weighted by their room left."""
    left = list(room)
    options = [(c, [p for p in range(len(left)) if left[p] and allowed(p, c)]) for c in cards]
    rng.shuffle(options)
    options.sort(key=lambda item: len(item[1]))
    out: list[list[Card]] = [[] for _ in left]
    for c, places in options:
        open_places = [p for p in places if left[p]]
        if not open_places:
            return None
        weights = [left[p] for p in open_places]
        place = rng.choices(open_places, weights)[0] if len(open_places) > 1 else open_places[0]
        out[place].append(c)
        left[place] -= 1
    return out


class Redealable(Protocol):
    """An engine whose worlds a :class:`WorldTemplate` builds and copies."""

    @classmethod
    def from_view(
        cls, view: Mapping[str, Any], hands: Sequence[Sequence[Card]], stock: Sequence[Card]
    ) -> Self: ...

    def clone(self) -> Self: ...

    def redealt(self, hands: Sequence[Sequence[Card]], stock: Sequence[Card]) -> Self: ...


World = TypeVar("World", bound=Redealable)


class WorldTemplate(Generic[World]):
    """What every world of one ``view`` of ``seat`` shares: the seat's ``hand``, the ``pool``
    of cards it has not seen (``deck`` less its hand and the discards, in the deck's order), the
    ``others`` seats and the ``sizes`` of the places (their hands, then the stock), and the
    first world ``engine.from_view`` built, which :meth:`world` copies after."""

    def __init__(
        self, view: Mapping[str, Any], seat: int, engine: type[World], deck: Sequence[Card]
    ) -> None:
        self.view = view
        self.seat = seat
        self.engine = engine
        self.hand = [parse_card(c) for c in view["hand"] or ()]
        pool = Counter(deck)
        pool.subtract(self.hand)
        pool.subtract(parse_card(c) for c in view["discards"])
        self.pool = list((+pool).elements())
        counts = view["hand_counts"]
        self.seats = len(counts)
        self.others = [s for s in range(self.seats) if s != seat]
        self.sizes = [counts[s] for s in self.others] + [int(view["stock"])]
        self._game: World | None = None

    def world(self, places: Sequence[Sequence[Card]]) -> World:
        """The world with ``places`` (as :func:`deal_hidden` dealt them) for the hidden cards."""
        hands: list[list[Card]] = [[] for _ in range(self.seats)]
        hands[self.seat] = list(self.hand)
        for s, cards in zip(self.others, places, strict=False):
            hands[s] = list(cards)
        if self._game is None:
            self._game = self.engine.from_view(self.view, hands, places[-1])
            return self._game.clone()
        return self._game.redealt(hands, places[-1])
