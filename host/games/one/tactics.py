"""Rules of thumb for playing ONE, shared by the normal bot and the hard bot's simulations.

How it works: everything here is a pure function of cards and of the public facts of a trick
(trump, whether there is one, the ranking, the suit led), so the normal bot
(:mod:`host.games.one.strategy`) calls it with what its view shows and the hard bot's playouts
(:mod:`host.games.one.worlds`) with a simulated engine's state. It imports no engine, only the
game's facts (:mod:`host.games.one.rules`).

* :func:`trick_winner` finds the winner of a trick from the ranking in
  :mod:`host.games.one.rules`, which the engine ranks by too.
* :func:`bid_value` estimates the points a hand takes as the bidder: its own points, the tricks
  its high cards and long suits should win, and what those tricks bring in from the others.
* :func:`pick_card` chooses the card to play: the bidder's first lead is the top of its best
  suit (which becomes trump); once there is a trump a lead is a top card (the ace uptown) of
  the longest suit holding one, else the cheapest card, a 9 or 10 of the longest suit rather
  than a point card that a higher card would take; with no trump a lead is the strongest card
  of the longest suit; a follower takes a trick worth taking as cheaply as it can (the last
  player only when it is worth something), and otherwise throws its cheapest card, never a
  point card it can keep.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from host.games.one.rules import JOKER, UPTOWN, card_points, strength
from protocol.cards import Card, Rank, Suit

__all__ = [
    "DOWNTOWN_RANKS",
    "UPTOWN_RANKS",
    "bid_value",
    "pick_card",
    "switch_downtown",
    "trick_winner",
]

#: ranks that favour staying uptown (A high), and those that favour switching (9 high)
#: the strength of a suit's top card (the ace uptown, the 9 downtown)
_TOP = 5
UPTOWN_RANKS = frozenset({Rank.ACE, Rank.KING})
DOWNTOWN_RANKS = frozenset({Rank.NINE, Rank.TEN})


def _follows(c: Card, trump: Suit | None) -> Suit | None:
    return trump if c is JOKER else c.suit


def trick_winner(
    cards: Sequence[Card], *, trump: Suit | None, no_trump: bool, downtown: bool, led: Suit | None
) -> int:
    """The index in ``cards`` (a trick in play order, possibly unfinished) of the winning card."""
    if no_trump:
        pool = [i for i, c in enumerate(cards) if c is JOKER]
    else:
        pool = [i for i, c in enumerate(cards) if _follows(c, trump) is trump]
    pool = pool or [i for i, c in enumerate(cards) if c.suit is led and c is not JOKER]
    if not pool:
        return 0
    return max(pool, key=lambda i: strength(cards[i], no_trump=no_trump, downtown=downtown))


def bid_value(hand: Sequence[Card], seats: int) -> float:
    """The points ``hand`` should take as the bidder (its best suit becoming trump)."""
    suits = Counter(c.suit for c in hand if c is not JOKER)
    best = max(suits, key=lambda s: (suits[s], sum(UPTOWN[c.rank] for c in hand if c.suit is s)))
    trumps = [c for c in hand if c.suit is best]
    value = 3.0 if JOKER in hand else 0.0
    per_trick = 15.0 / (len(hand) * seats + 1) * seats  # what a trick brings in, on average
    tricks = 0.0
    for c in hand:
        if c is JOKER:
            continue
        top = {Rank.ACE: 1.0, Rank.KING: 0.6, Rank.QUEEN: 0.25}.get(c.rank, 0.0)
        if c.suit is best:
            top = {Rank.ACE: 1.0, Rank.KING: 0.85, Rank.QUEEN: 0.6, Rank.JACK: 0.4}.get(c.rank, 0.2)
        tricks += top
    tricks += max(0, len(trumps) - 3) * 0.7  # long trump wins tricks once the others run out
    return value + tricks * per_trick


def switch_downtown(hand: Sequence[Card]) -> bool:
    """Switch to downtown (9 high) when the hand holds more nines and tens than aces and kings."""
    favour = sum(c.rank in DOWNTOWN_RANKS for c in hand)
    return favour > sum(c.rank in UPTOWN_RANKS for c in hand)


def pick_card(
    playable: Sequence[Card],
    hand: Sequence[Card],
    table: Sequence[Card],
    *,
    seats: int,
    trump: Suit | None,
    no_trump: bool,
    downtown: bool,
    led: Suit | None,
) -> Card:
    """The card to play among ``playable`` (see the module docstring); ``table``: the trick."""

    def power(c: Card) -> int:
        return strength(c, no_trump=no_trump, downtown=downtown)

    if not table:
        return _lead(playable, hand, trump=trump, power=power)
    winners = [
        c
        for c in playable
        if trick_winner([*table, c], trump=trump, no_trump=no_trump, downtown=downtown, led=led)
        == len(table)
    ]
    stake = sum(card_points(c) for c in table)
    last = len(table) == seats - 1
    if winners and (stake or not last or any(card_points(c) for c in winners)):
        if last or stake == 0:
            return min(winners, key=lambda c: (power(c), card_points(c)))
        return max(winners, key=power)
    return min(playable, key=lambda c: (card_points(c), _follows(c, trump) is trump, power(c)))


def _lead(
    playable: Sequence[Card],
    hand: Sequence[Card],
    *,
    trump: Suit | None,
    power: Callable[[Card], int],
) -> Card:
    """With a trump, a top card of the longest suit holding one, else the cheapest card (a
    point card led below the top is a point given away: leading them lost to a greedy
    baseline, docs/BOTS.md); with none, the strongest card of the longest suit. The joker
    leads only when nothing else may."""
    suits = Counter(c.suit for c in hand if c is not JOKER)
    plain = [c for c in playable if c is not JOKER] or list(playable)
    if trump is not None:
        tops = [c for c in plain if power(c) == _TOP]
        if tops:
            return max(tops, key=lambda c: (suits[c.suit], c.suit is trump))
        return min(plain, key=lambda c: (card_points(c), -suits[c.suit], power(c)))
    return max(plain, key=lambda c: (suits[c.suit], power(c), c.suit is trump))
