"""The normal bot's Black Jack: counters, runs and declarations from the seat's view.

How it works: :func:`choose` scores each legal turn action (the host's policy,
:mod:`host.bots.policy`, has already made any declaration the window allows) and returns the best;
it reads only the seat's ``view`` and the legal actions in wire form. A play (a card, a run, a
chain) is worth the cards it sheds, more when it goes out having declared, less for each play
the rest of the hand will still need (:func:`plays_needed`: a run of one suit is one play, so
a play that breaks a run costs a turn; a hand with a queen that could go out in one turn, the
queen covered by the rest, counts as one); and:

* against a pick-up, a counter that passes it on grown (a 2 or a black jack) beats the red jack
  that cancels it, which beats taking it;
* otherwise the pick-up cards (2s, black jacks) are kept as counters, and played as attacks
  only when the player who plays next (who would pick up) is down to two cards; aces (they
  name a suit, so they play on anything) and jokers are kept for when nothing else plays;
* a run is judged by its last card, whose magic is the one that applies: an ace names the suit
  the rest of the hand holds most of; an 8 with two players brings the turn straight back;
* a queen is kept for the finish (:data:`QUEEN`): its cover may be any play, so a queen and the
  hand's last play go out in one turn, and a play ending on a queen whose cover can take the
  rest of the hand goes out (having declared);
* a play or draw that says "last card" (the engine offers it when the hand could finish next
  turn) is preferred to the same one unsaid;
* with three players or more, a play is worth more the likelier the next player cannot follow
  it (:data:`BLOCK` times that chance, :func:`_miss`): the cards that would follow it (or, for
  a pick-up, counter it) among the cards the seat has not seen (not in its hand nor on the
  pile), the next player's hand taken as dealt from those at random. With two players the
  turn comes straight back, and keeping a suit the hand can follow pays better.

A draw is the last resort. The game's declaration for bots (:data:`~host.games.black_jack.
presentation.BOT`) names this function as its strategy.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from host.games.black_jack.moves import _finishable, declaration_for
from host.games.presentation import BotFeatures
from protocol.cards import (
    ALL_CARDS,
    Card,
    CardCodeError,
    Color,
    Rank,
    Suit,
    cards_in,
    parse_card,
)
from protocol.decks import deck_of

__all__ = ["BOT", "NOBODY", "Table", "choose", "plays_left", "plays_needed"]

WireMap = dict[str, Any]

#: what one card shed is worth, and the bonuses and costs on top (``LEFT``: per play the rest
#: of the hand still needs; tuned with ``bench/bots.py --pair normal:greedy``, docs/BOTS.md)
LEFT = 2.0
SHED, OUT, PASS_ON, CANCEL, KEEP, URGENT, WILD, AGAIN, SAY = (
    2.0,
    100.0,
    3.0,
    1.0,
    -3.0,
    5.0,
    -2.5,
    1.0,
    0.25,
)

#: with three players or more: what it is worth that the next player cannot follow a play (a
#: certainty; the chance of it counts pro rata), from ``bench/bots.py --pair normal:greedy``
BLOCK = 3.0

#: a queen played while its cover cannot go out: a queen and any one play after it (its cover,
#: whatever its suit) can go out together, so the queen is kept for the finish, as a card that
#: makes a two-play hand end in one turn (``bench/bots.py --pair normal:greedy``, docs/BOTS.md)
QUEEN = -3.0

#: the ranks that answer a pick-up: 2s and jacks (black ones grow it, red ones cancel it), and
#: a joker declared as one
_COUNTER_RANKS = frozenset({Rank.TWO, Rank.JACK, Rank.JOKER})

#: a hand size standing for "no next player"
NOBODY = 99


#: the ranks looked up on every scored play (bound once: the hot path of every search playout)
_JOKER, _ACE, _TWO, _JACK = Rank.JOKER, Rank.ACE, Rank.TWO, Rank.JACK
_EIGHT, _QUEEN = Rank.EIGHT, Rank.QUEEN
_SUIT_OF = {s.value: s for s in Suit}  #: a suit by its wire letter
_BLACK = Color.BLACK


def _is_pickup(c: Card) -> bool:
    return c.rank is _TWO or (c.rank is _JACK and c.color is _BLACK)


def plays_left(hand: Sequence[Card]) -> float:
    """A hand's size in plays rather than cards: each run of one suit (consecutive ranks)
    counts once, and a joker half. (A natural card's ``index`` is its suit's times 13 plus its
    rank less one, so a run is a stretch of indexes within a suit's 13.)"""
    held: set[int] = set()
    jokers = 0
    for c in hand:
        if c.rank is _JOKER:
            jokers += 1
        else:
            held.add(c.index)
    runs = 0
    for i in held:  # a run begins at a card whose lower neighbour in its suit is not held
        if i % 13 == 0 or i - 1 not in held:
            runs += 1
    return runs + 0.5 * jokers


def plays_needed(hand: Sequence[Card]) -> float:
    """:func:`plays_left`, but one for a hand holding a queen that could go out in one turn: a
    queen's cover may be any play, so the queen and the rest of the hand go out together."""
    plays = plays_left(hand)
    if plays > 1 and any(c.rank is _QUEEN for c in hand) and _finishable(hand):
        return 1.0
    return plays


def _next_hand(seat: object, counts: Sequence[int], out: set[int], step: int) -> int:
    """How many cards the next player still in (``step``: the direction of play) holds; a large
    number if there is none."""
    if not isinstance(seat, int) or not counts:
        return NOBODY
    other = (seat + step) % len(counts)
    while other != seat and other in out:
        other = (other + step) % len(counts)
    return int(counts[other]) if other != seat else NOBODY


def choose(view: WireMap, legal: Sequence[WireMap]) -> WireMap | None:
    """The best of the legal turn actions ``legal`` for the seat of ``view``."""
    plays = [a for a in legal if a.get("type") == "play"]
    draws = sorted((a for a in legal if a.get("type") == "draw"), key=lambda a: not a.get("say"))
    if not plays:
        return draws[0] if draws else None
    hand = cards_in(view.get("hand"))
    seat = view.get("seat")
    counts = view.get("hand_counts") or []
    out = set(view.get("out") or ())
    rivals = [n for s, n in enumerate(counts) if s != seat and s not in out]
    declared = view.get("declared") or []
    ready = isinstance(seat, int) and seat < len(declared) and bool(declared[seat])
    step = -1 if view.get("direction") == "counter-clockwise" else 1
    attacked = bool(view.get("pending")) and not view.get("cover")
    options = view.get("options") or {}
    table = Table(
        hand,
        rivals,
        ready,
        attacked,
        _next_hand(seat, counts, out, step),
        _unseen(view, hand),
        anytime=bool(options.get("aces_anytime")),
    )

    def score(action: WireMap) -> float:
        suit = action.get("suit")
        return table.score(
            cards_in(action.get("cards")),
            cards_in(action.get("declare")),
            None if suit is None else str(suit),
            said=bool(action.get("say")),
        )

    return max(plays, key=score)


def _unseen(view: WireMap, hand: Sequence[Card]) -> tuple[Card, ...]:
    """The cards the seat has not seen: the deck less its hand and the discard pile (empty if
    the view does not say which deck is played)."""
    options, seats = view.get("options"), view.get("seats")
    if not isinstance(options, dict) or not isinstance(seats, int):
        return ()
    pool = Counter(deck_of("black-jack", options, seats))
    pool.subtract(hand)
    pool.subtract(cards_in(view.get("discards")))
    return tuple((+pool).elements())


def _miss(unseen: Sequence[Card], held: int, follows: int) -> float:
    """The chance that a hand of ``held`` cards dealt at random from ``unseen`` holds none of
    the ``follows`` cards among them that would follow a play."""
    if held > len(unseen):
        return 0.0
    return math.comb(len(unseen) - follows, held) / math.comb(len(unseen), held)


@dataclass(frozen=True, slots=True)
class Table:
    """What a play is judged against: the seat's hand, its rivals' card counts, whether it has
    declared, and whether a pick-up is aimed at it (also used by the searching bot, on the
    engine's own values)."""

    hand: Sequence[Card]
    rivals: Sequence[int]
    ready: bool
    attacked: bool
    after: int = NOBODY  #: the cards held by the player who plays next
    #: the cards the seat has not seen (none given: the next player's reply is not weighed)
    unseen: Sequence[Card] = ()
    anytime: bool = False  #: the table's ``aces_anytime``: an ace plays on anything

    def score(
        self, cards: Sequence[Card], declare: Sequence[Card], suit: str | None, *, said: bool
    ) -> float:
        """A play of ``cards`` (jokers acting as ``declare``, an ace naming ``suit``)."""
        hand = self.hand
        if not cards:
            return -1.0
        if declare:
            jokers = iter(declare)
            acting = [next(jokers, c) if c.rank is _JOKER else c for c in cards]
        else:
            acting = list(cards)
        value = SHED * len(cards) + (SAY if said else 0.0)
        left = list(hand)
        for c in cards:
            if c in left:
                left.remove(c)
        value -= LEFT * plays_needed(left)
        if len(cards) == len(hand):
            return value + (OUT if self.ready else -OUT / 10)  # undeclared: two penalty cards
        if self.ready and acting[-1].rank is _QUEEN and _finishable(left):
            return value + OUT  # its cover, any play of what is left, goes out this turn
        if self.attacked:
            return value + (PASS_ON if _is_pickup(acting[0]) else CANCEL)
        value += self._blocking(acting, suit)
        pickups = 0  # counted, then added once: the same sum as before, in plain loops
        for c in acting:
            if _is_pickup(c):
                pickups += 1
        value += pickups * (URGENT if self.after <= 2 else KEEP)
        wild = 0
        for c in cards:
            if c.rank is _JOKER or c.rank is _ACE:
                wild += 1
        value += WILD * wild
        return value + self._magic(acting[-1], cards, suit)

    def _magic(self, last: Card, cards: Sequence[Card], suit: str | None) -> float:
        """What the magic of a play's last card ``last`` adds (an ace naming ``suit``)."""
        if last.rank is _ACE:
            named = _SUIT_OF.get(str(suit))  # the rest of the hand in the suit it names
            rest = 0
            for c in self.hand:
                if c.suit is named and named is not None and c not in cards:
                    rest += 1
            return 0.5 * rest
        if last.rank is _EIGHT and len(self.rivals) == 1:
            return AGAIN
        if last.rank is _QUEEN:
            return QUEEN  # covered, it goes out only with the hand's last play (see score)
        return 0.0

    def _blocking(self, acting: Sequence[Card], suit: str | None) -> float:
        """:data:`BLOCK` times the chance that the next player cannot answer a play that ends
        on ``acting[-1]`` (an ace naming ``suit``): no counter against a pick-up, else no card
        of the suit or rank, no joker, nor an ace where aces play on anything (a queen asks
        for a cover first, so it is not weighed). Nothing with two players or no next one."""
        last = acting[-1]
        if not self.unseen or len(self.rivals) < 2 or self.after >= NOBODY:
            return 0.0
        if last.rank is _QUEEN:
            return 0.0
        if any(_is_pickup(c) for c in acting):
            follows = sum(c.rank in _COUNTER_RANKS for c in self.unseen)
        else:
            named = last.suit if suit is None else Suit(suit)
            follows = sum(
                c.is_joker
                or c.suit is named
                or c.rank is last.rank
                or (self.anytime and c.rank is _ACE)
                for c in self.unseen
            )
        return BLOCK * _miss(self.unseen, self.after, follows)


def _could_go_out(view: Mapping[str, Any], call: Mapping[str, Any]) -> bool:
    """Whether the seat's hand could go out next turn, to make the declaration ``call`` (a
    private table offers it in every window; a normal one only then). A view without the
    hand: yes (a needless declaration is free)."""
    raw = view.get("hand")
    if not isinstance(raw, list):
        return True
    return _finishable([parse_card(c) for c in raw])


def _say_with(view: Mapping[str, Any], play: Mapping[str, Any]) -> str | None:
    """The declaration the seat's ``play`` should carry: the one a normal table lists on it
    (``last_card`` when one card would be left, ``cards`` when more), when the hand left could
    go out next turn; else, or without a hand in the view, None."""
    raw, played = view.get("hand"), play.get("cards")
    if not isinstance(raw, list) or not isinstance(played, list):
        return None
    try:
        left = Counter(parse_card(c) for c in raw)
        left.subtract(parse_card(c) for c in played)
    except CardCodeError:
        return None
    if any(n < 0 for n in left.values()):  # not a play of this hand
        return None
    say = declaration_for(list(left.elements()))
    return None if say is None else say.value


BOT = BotFeatures(
    calls=frozenset({"declare"}),
    passive=frozenset({"draw"}),
    attack=frozenset(  # twos and black jacks
        c
        for c in ALL_CARDS
        if c.rank is Rank.TWO or (c.rank is Rank.JACK and c.color is Color.BLACK)
    ),
    attack_early=False,  # counters are kept until a rival is close to going out
    wild=frozenset(c for c in ALL_CARDS if c.rank in (Rank.ACE, Rank.EIGHT, Rank.JOKER)),
    strategy=choose,  # the normal level, above
    call_worth=_could_go_out,
    say_with=_say_with,
)
