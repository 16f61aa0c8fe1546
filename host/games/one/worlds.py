"""What the searching bot (:mod:`host.bots.ai`) needs to know about ONE.

How it works: ONE's view shows the trick on the table and the last one, not every card played
this hand, so a seat's memory keeps what the events showed: the cards of each trick taken and
who took them, the trump, and the suits each player has shown it cannot follow (a card of
another suit on a lead it had to follow: with trump the joker counts as trump, with no trump
it is played only by a player who cannot follow). A world (:meth:`One.from_view`) deals the cards
nobody has seen yet into the other hands and the centre, no player getting a suit it showed it
lacks; a memory that missed the start of the hand (a bot that joined mid-hand) deals the cards
already played as well, handing each player point cards worth what its view says it took.

Simulated tables bid, play and choose downtown by the rules of thumb of
:mod:`host.games.one.strategy` (:func:`quick_action`) and stop at the end of the hand: each
seat is scored by its match total against the best other (:func:`hand_returns`), a won match
scoring 1.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from host.games.base import Action, State, WireMap
from host.games.deal import deal_hidden
from host.games.one.engine import One, Phase, Ranking
from host.games.one.moves import PASS, Bid, DowntownChoice, Play
from host.games.one.rules import JOKER, MAX_BID, card_points
from host.games.one.strategy import bid_value, pick_card, switch_downtown
from host.games.support import GameSupport, SeatMemory
from protocol.cards import DECK_ONE, Card, Suit, parse_card

__all__ = [
    "SCORE_SCALE",
    "SEARCH_MARGIN",
    "SUPPORT",
    "OneMemory",
    "OneSupport",
    "hand_returns",
    "quick_action",
]

#: points of lead over the best other player that make a seat's score 0.73 (tanh of 1)
SCORE_SCALE = 10.0


def hand_returns(game: One) -> list[float] | None:
    """Each seat's score once the hand (or the match) is over, else ``None``.

    A won match scores 1 for the winner; otherwise a seat scores ``0.5 + 0.5 * tanh(lead /
    SCORE_SCALE)``, its lead being its match total less the best other seat's.
    """
    if game.phase is Phase.OVER:
        outcome = game.outcome()
        assert outcome is not None
        return [1.0 if s in outcome.winners else 0.0 for s in range(game.seats)]
    if game.phase is not Phase.DEAL:
        return None
    scores = game.scores
    out = []
    for s, mine in enumerate(scores):
        best = max(v for o, v in enumerate(scores) if o != s)
        out.append(0.5 + 0.5 * math.tanh((mine - best) / SCORE_SCALE))
    return out


class OneMemory(SeatMemory):
    """The hand's tricks, its trump and each player's missing suits (see the module docstring)."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.hand_no: int | None = None
        self.won: dict[int, list[Card]] = {}
        self.voids: dict[int, set[Suit]] = {}
        self.trump: Suit | None = None
        self.led: Suit | None = None
        self.leading = True

    def observe(self, event: WireMap) -> None:
        kind = event.get("kind")
        if kind == "deal":
            self.hand_no = int(event["hand_no"])
            self.won, self.voids, self.trump, self.led, self.leading = {}, {}, None, None, True
        elif kind == "trump":
            self.trump = Suit(event["suit"])
        elif kind == "trick":
            cards = [parse_card(c) for c in event["cards"]]
            self.won.setdefault(int(event["winner"]), []).extend(cards)
            self.leading = True
        elif kind == "play":
            card = parse_card(event["card"])
            named = event.get("suit")
            follows = self.trump if card is JOKER else card.suit
            if self.leading:
                self.led = Suit(named) if named else follows or card.suit
                self.leading = False
            elif follows is not self.led and self.led is not None:
                self.voids.setdefault(int(event["seat"]), set()).add(self.led)

    def sample(self, view: WireMap, rng: random.Random) -> State:
        seats = int(view["seats"])
        mine = [parse_card(c) for c in view["hand"] or ()]
        table = [parse_card(p["card"]) for p in view["trick"]["cards"]]
        others = [s for s in range(seats) if s != self.seat]
        sizes = [view["hand_counts"][s] for s in others] + [1]
        complete = self.hand_no == view["hand_no"]
        gone = [c for pile in self.won.values() for c in pile] if complete else []
        seen = {*mine, *table, *gone}
        pool = [c for c in DECK_ONE if c not in seen]
        trump = None if view["trump"] is None else Suit(view["trump"])
        if not complete:  # the cards already played are hidden too
            sizes.append(len(pool) - sum(sizes))
        voids = [self.voids.get(s, set()) if complete else set() for s in others]

        def allowed(place: int, card: Card) -> bool:
            if place >= len(voids):
                return True
            follows = trump if card is JOKER else card.suit
            return follows is None or follows not in voids[place]

        places = deal_hidden(pool, sizes, rng, allowed=allowed if any(voids) else None)
        hands: list[list[Card]] = [[] for _ in range(seats)]
        hands[self.seat] = mine
        for s, cards in zip(others, places, strict=False):
            hands[s] = cards
        won = (
            [self.won.get(s, []) for s in range(seats)]
            if complete
            else _piles(places[-1], view["points_taken"])
        )
        return One.from_view(view, hands, places[len(others)][0], won)


def _piles(cards: Sequence[Card], points: Sequence[int]) -> list[list[Card]]:
    """Taken piles worth about ``points`` each, made of ``cards`` (for a memory that missed
    the hand's start): point cards go to the seats still short of their points."""
    piles: list[list[Card]] = [[] for _ in points]
    short = list(points)
    for c in sorted(cards, key=card_points, reverse=True):
        value = card_points(c)
        seat = max(range(len(short)), key=lambda s: short[s]) if value else 0
        piles[seat].append(c)
        short[seat] -= value
    return piles


#: points a hand must be worth beyond a bid before the search considers it (the normal bot's
#: margin when the hard bot was measured; the normal bot now bids on less: its ``MARGIN``)
SEARCH_MARGIN = 0.5


class OneSupport(GameSupport):
    """ONE for the search (see the module docstring)."""

    table_iterations = 1_750  #: 3,000-3,200 iterations a CPU second (docs/BOTS.md)

    def memory(self, seat: int) -> SeatMemory:
        return OneMemory(seat)

    def turn_actions(self, world: State, seat: int) -> list[Action]:
        """In the auction, only the bids the hand is worth by the normal bot's measure
        (:data:`SEARCH_MARGIN` to spare) compete with the pass: left to
        itself the search bid on hands it then failed (a third of its bids made at 4 seats,
        ``bench/bots.py``); now it chooses whether to bid and how high, within that."""
        assert isinstance(world, One)
        legal = world.legal_actions(seat)
        if world.phase is not Phase.AUCTION:
            return legal
        worth = bid_value(world.hands[seat], world.seats) - SEARCH_MARGIN
        return [a for a in legal if not isinstance(a, Bid) or a.value <= worth] or legal

    def playout(self, world: State, seat: int, rng: random.Random) -> Action:
        assert isinstance(world, One)
        return quick_action(world, seat, world.legal_actions(seat), rng)

    def returns(self, world: State) -> list[float] | None:
        assert isinstance(world, One)
        return hand_returns(world)


def quick_action(game: One, seat: int, legal: Sequence[Action], rng: random.Random) -> Action:
    """What a simulated seat does in a hard bot's playout: bid by
    :func:`~host.games.one.strategy.bid_value` (give or take a point), choose downtown by
    :func:`~host.games.one.strategy.switch_downtown`, play by
    :func:`~host.games.one.strategy.pick_card` (one time in ten at random, so that playouts
    differ)."""
    hand = game.hands[seat]
    if game.phase is Phase.AUCTION:
        low = game.min_bid if game.high is None else game.high + 1
        value = bid_value(hand, game.seats) + rng.uniform(-1.0, 1.0)
        return Bid(low) if low <= min(value, MAX_BID) else PASS
    if game.phase is Phase.DOWNTOWN:
        return DowntownChoice(switch_downtown(hand))
    plays = [a for a in legal if isinstance(a, Play)]
    if rng.random() < 0.1:
        return plays[rng.randrange(len(plays))]
    playable = list(dict.fromkeys(a.card for a in plays))
    card = pick_card(
        playable,
        hand,
        [c for _, c in game.trick],
        seats=game.seats,
        trump=game.trump,
        no_trump=game.no_trump,
        downtown=game.ranking is Ranking.DOWNTOWN,
        led=game.led,
    )
    return next(a for a in plays if a.card is card)


SUPPORT = OneSupport()
