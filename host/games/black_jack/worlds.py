"""What the searching bot (:mod:`host.ai`) needs to know about Black Jack.

How it works: every card that leaves a hand is seen (plays stay on the pile), and one kind of
card is seen going back into one: a blunder shows its cards, then they are taken back. A seat's
memory keeps, per other seat, the cards a blunder showed and that seat has not played since. A
world deals the cards the seat has not seen (the deck less its hand and the discards) into the
other hands, each starting with the cards it is known to hold, and the stock
(:meth:`~host.games.black_jack.state.BlackJackState.from_view`). In simulated games the seat in
the declaration window declares whenever it may (as the bots do), and the playout policy sheds
greedily: most often the play that puts down the most cards, else any play, and a draw only
when nothing plays. A simulated game is played for :data:`HORIZON` actions past the search tree
and then scored by the hand sizes, or to its end if that comes first: a win scores 1.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence

from host.ai.deal import deal_hidden
from host.ai.support import GameSupport, SeatMemory, by_hand_size
from host.games.base import Action, Game, WireMap
from host.games.black_jack.engine import BlackJack
from host.games.black_jack.moves import Declare, Draw, Play
from protocol.cards import Card, Color, Rank, Suit, deck_for, parse_card

__all__ = ["CARD_WEIGHT", "HORIZON", "SUPPORT", "BlackJackMemory", "BlackJackSupport"]

#: simulated actions past the search tree before a position is scored by its hand sizes
HORIZON = 12
#: how much each card held lowers a seat's chances (see :func:`host.ai.support.by_hand_size`)
CARD_WEIGHT = 0.35
#: how often the playout policy takes the play that sheds the most cards
GREEDY = 0.75


class BlackJackMemory(SeatMemory):
    """Which cards each other seat is known to hold: shown by a blunder, not played since."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.known: dict[int, Counter[Card]] = {}

    def observe(self, event: WireMap) -> None:
        kind = event.get("kind")
        if kind == "deal":
            self.known = {}
        elif kind in ("blunder", "play"):
            seat = int(event["seat"])
            cards = Counter(parse_card(c) for c in event["cards"])
            held = self.known.setdefault(seat, Counter())
            if kind == "blunder":
                held.update(cards)
            else:
                held.subtract(cards)
                self.known[seat] = +held

    def sample(self, view: WireMap, rng: random.Random) -> Game:
        seats = int(view["seats"])
        options = view["options"]
        decks = options["decks"]
        count = (2 if seats > 5 else 1) if decks == "auto" else int(decks)
        pool = Counter(deck_for(jokers=int(options["jokers"]), decks=count))
        mine = [parse_card(c) for c in view["hand"] or ()]
        pool.subtract(mine)
        pool.subtract(parse_card(c) for c in view["discards"])
        others = [s for s in range(seats) if s != self.seat]
        sizes = [view["hand_counts"][s] for s in others] + [int(view["stock"])]
        known = [list(self.known.get(s, Counter()).elements()) for s in others]
        places = deal_hidden(list((+pool).elements()), sizes, rng, known=known)
        hands: list[list[Card]] = [[] for _ in range(seats)]
        hands[self.seat] = mine
        for s, cards in zip(others, places, strict=False):
            hands[s] = cards
        return BlackJack.from_view(view, hands, places[-1])


class BlackJackSupport(GameSupport):
    """Black Jack for the search (see the module docstring)."""

    calls = frozenset({"declare"})
    horizon = HORIZON

    def memory(self, seat: int) -> SeatMemory:
        return BlackJackMemory(seat)

    def turn_actions(self, world: Game, seat: int) -> list[Action]:
        """The turn actions, a play or draw that says "last card" standing for its unsaid twin:
        a simulated table declares in the window at once, but at a real one a rival's move may
        close the window first, and going out undeclared costs two cards."""
        legal = [a for a in world.legal_actions(seat) if not isinstance(a, Declare)]
        said = {
            dataclasses.replace(a, say=None) for a in legal if isinstance(a, Play | Draw) and a.say
        }
        return [a for a in legal if a not in said]

    def announce(self, world: Game, rng: random.Random) -> tuple[int, Action] | None:
        assert isinstance(world, BlackJack)
        seat = world.window
        if seat is None or world.declared[seat]:
            return None
        said = [a for a in world.legal_actions(seat) if isinstance(a, Declare)]
        return (seat, said[0]) if said else None

    def evaluate(self, world: Game) -> list[float]:
        assert isinstance(world, BlackJack)
        cards = [
            len(h) if live else None for h, live in zip(world.hands, world.active, strict=True)
        ]
        return by_hand_size(cards, CARD_WEIGHT)

    def playout(self, world: Game, seat: int, rng: random.Random) -> Action:
        assert isinstance(world, BlackJack)
        play = quick_play(world, seat, rng)
        if play is not None:
            return play
        if not world.options["must_play_if_able"]:
            return Draw()
        plays = [a for a in world.legal_actions(seat) if isinstance(a, Play)]
        return plays[rng.randrange(len(plays))] if plays else Draw()


def quick_play(world: BlackJack, seat: int, rng: random.Random) -> Play | None:
    """A simulated seat's play without listing every legal one (``None``: it draws).

    Against a pick-up: a random counter (a 2 or a jack). Otherwise, from each card that may
    start (jokers left out; pick-ups and aces too while no rival is down to two cards and
    another card starts), the longest run it starts, up or down; most often the longest of
    them all, else a random start alone. A queen is never the last card out, and an ace as the
    last card names the suit the rest of the hand holds most of.
    """
    hand = world.hands[seat]
    top, named = world.to_match()
    assert top is not None
    natural = [c for c in hand if not c.is_joker]
    if world.pending and not world.covering:
        counters = [c for c in natural if c.rank in (Rank.TWO, Rank.JACK)]
        return Play((counters[rng.randrange(len(counters))],)) if counters else None
    suit = named or top.suit
    anytime = bool(world.options["aces_anytime"])
    starts = [
        c
        for c in natural
        if world.covering
        or c.rank is top.rank
        or c.suit is suit
        or (anytime and c.rank is Rank.ACE)
    ]
    if not starts:
        return None
    if not any(len(h) <= 2 for s, h in enumerate(world.hands) if s != seat and world.active[s]):
        starts = [c for c in starts if not _kept(c)] or starts  # as the normal bot keeps them
    if rng.random() < GREEDY:
        runs = [_run(c, step, natural) for c in starts for step in (1, -1)]
        longest = max(len(r) for r in runs)
        options = [r for r in runs if len(r) == longest]
    else:
        options = [[c] for c in starts]
    rng.shuffle(options)
    for run in options:
        if len(run) == len(hand) and run[-1].rank is Rank.QUEEN:
            run = run[:-1]  # noqa: PLW2901 (a queen cannot be the last card out)
        if run:
            return Play(tuple(run), _named_suit(run, hand))
    return None


def _kept(c: Card) -> bool:
    """A card the normal bot keeps until it is needed: a pick-up (2, black jack) or an ace."""
    return c.rank in (Rank.TWO, Rank.ACE) or (c.rank is Rank.JACK and c.color is Color.BLACK)


def _run(first: Card, step: int, hand: Sequence[Card]) -> list[Card]:
    """The longest run from ``first`` in the direction ``step`` (ace low, no wrap) in ``hand``."""
    by_rank = {(c.suit, int(c.rank)): c for c in hand}
    run = [first]
    while (nxt := by_rank.get((first.suit, int(run[-1].rank) + step))) is not None:
        run.append(nxt)
    return run


def _named_suit(cards: Sequence[Card], hand: Sequence[Card]) -> Suit | None:
    """The suit an ace as the last card names: the one the rest of the hand holds most of."""
    if cards[-1].rank is not Rank.ACE:
        return None
    rest = Counter(c.suit for c in hand if c not in cards and c.suit is not None)
    return max(Suit, key=lambda s: rest[s])


SUPPORT = BlackJackSupport()
