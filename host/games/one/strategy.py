"""The normal bot's ONE: bidding and trick play from what the seat's view shows.

How it works: :func:`choose` reads only the seat's ``view`` and the legal actions in wire form,
and applies the rules of thumb at the end of this module:

* in the auction it bids the lowest legal bid when :func:`bid_value` says the hand takes about
  that many points (:data:`MARGIN`: a little short of it will do,
  since the bidder names trump and leads; more daring when an opponent may reach the target
  with this hand, more careful when it may itself), and passes otherwise (a higher bid than
  needed only makes the contract harder);
* as the bidder its first lead is the top of its best suit, which becomes trump; in play it
  takes a trick worth taking as cheaply as it can and otherwise throws its cheapest card
  (:func:`pick_card`); leading the joker with no trump, it names its longest suit;
* it switches downtown when its nines and tens outnumber its aces and kings.

The game's declaration for bots (:data:`~host.games.one.presentation.BOT`) names this function
as its strategy.

The rules of thumb are pure functions of cards and of the public facts of a trick (trump,
whether there is one, the ranking, the suit led), so :func:`choose` calls them with what its view
shows and the hard bot's playouts (:mod:`host.games.one.worlds`) with a simulated engine's state.
They import no engine, only the game's facts (:mod:`host.games.one.rules`).

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
from typing import Any

from host.games.one.rules import JOKER, UPTOWN, card_points, strength
from host.games.presentation import BotFeatures
from protocol.cards import Card, CardCodeError, Rank, Suit, parse_card

__all__ = [
    "BOT",
    "DOWNTOWN_RANKS",
    "MARGIN",
    "UPTOWN_RANKS",
    "bid_value",
    "choose",
    "pick_card",
    "switch_downtown",
    "trick_winner",
]

WireMap = dict[str, Any]

#: per seat count, the points a hand must be worth beyond the lowest bid before the normal bot
#: bids (tuned with ``bench/bots.py --pair normal:greedy``: see docs/BOTS.md)
MARGIN = {2: -4.0, 3: -1.5, 4: -0.25}
#: how much more risk to take when an opponent is about to win, and less when we are
RISK = 1.0
#: points from the target within which a player may win with this hand
CLOSE = 5


def _card(code: object) -> Card | None:
    try:
        return parse_card(code)
    except CardCodeError:
        return None


def _hand(view: WireMap) -> list[Card]:
    raw = view.get("hand")
    return [c for c in (_card(x) for x in raw) if c is not None] if isinstance(raw, list) else []


def _suit(code: object) -> Suit | None:
    return Suit(code) if code in ("S", "H", "D", "C") else None


def _margin(view: WireMap, seats: int) -> float:
    """The points a hand must be worth beyond the lowest bid (negative: bid on a hand a little
    short of it, since taking the contract names trump and leads), moved by the score: more
    daring when an opponent may reach the target with this hand, more careful when we may
    (a contract failed scores us nothing)."""
    margin = MARGIN.get(seats, MARGIN[4])
    scores, seat = view.get("scores"), view.get("seat")
    target = int(view.get("target") or 30)
    if isinstance(scores, list) and isinstance(seat, int) and 0 <= seat < len(scores):
        if any(int(p) + CLOSE >= target for s, p in enumerate(scores) if s != seat):
            margin -= RISK
        elif int(scores[seat]) + CLOSE >= target:
            margin += RISK
    return margin


def choose(view: WireMap, legal: Sequence[WireMap]) -> WireMap | None:
    """The best of the legal turn actions ``legal`` for the seat of ``view``."""
    hand = _hand(view)
    seats = int(view.get("seats") or 2)
    bids = sorted((a for a in legal if a.get("type") == "bid"), key=lambda a: int(a["value"]))
    passes = [a for a in legal if a.get("type") == "pass"]
    if bids or passes:
        if bids and hand and int(bids[0]["value"]) + _margin(view, seats) <= bid_value(hand, seats):
            return bids[0]
        return passes[0] if passes else None
    switches = [a for a in legal if a.get("type") == "downtown"]
    if switches:
        wanted = switch_downtown(hand)
        return next((a for a in switches if a.get("switch") is wanted), switches[0])
    plays = [a for a in legal if a.get("type") == "play"]
    playable = list(dict.fromkeys(c for c in (_card(a.get("card")) for a in plays) if c))
    if not playable:
        return legal[0] if legal else None
    trick = view.get("trick") or {}
    table = [c for c in (_card(p.get("card")) for p in trick.get("cards") or ()) if c]
    card = pick_card(
        playable,
        hand,
        table,
        seats=seats,
        trump=_suit(view.get("trump")),
        no_trump=bool(view.get("no_trump")),
        downtown=view.get("ranking") == "downtown",
        led=_suit(trick.get("led")),
    )
    options = [a for a in plays if a.get("card") == card.code]
    if card is JOKER and len(options) > 1:  # a no-trump joker lead names a suit
        longest = Counter(c.suit.value for c in hand if c.suit is not None)
        return max(options, key=lambda a: longest.get(str(a.get("suit")), 0))
    return options[0]


BOT = BotFeatures(
    passive=frozenset({"pass"}),
    trick_order={**UPTOWN, Rank.JOKER: len(UPTOWN)},  # the joker above all
    # points held (K, Q, J one each, the joker three) plus the tricks high cards should win
    bid="bid",
    bid_strength={Rank.ACE: 0.5, Rank.KING: 1.5, Rank.QUEEN: 1.0, Rank.JACK: 1.0, Rank.JOKER: 4.0},
    # downtown (9 high) when the hand has more nines and tens than aces and kings
    switch="downtown",
    switch_for=frozenset({Rank.NINE, Rank.TEN}),
    stay_for=frozenset({Rank.ACE, Rank.KING}),
    strategy=choose,  # the normal level, above
)


# --------------------------------------------------------------------------- rules of thumb


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
