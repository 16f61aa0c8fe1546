"""The normal bot's ONE: bidding and trick play from what the seat's view shows.

How it works: :func:`choose` reads only the seat's ``view`` and the legal actions in wire form,
and applies the rules of thumb of :mod:`host.games.one.tactics`:

* in the auction it bids the lowest legal bid when :func:`~host.games.one.tactics.bid_value`
  says the hand takes about that many points (:data:`MARGIN`: a little short of it will do,
  since the bidder names trump and leads; more daring when an opponent may reach the target
  with this hand, more careful when it may itself), and passes otherwise (a higher bid than
  needed only makes the contract harder);
* as the bidder its first lead is the top of its best suit, which becomes trump; in play it
  takes a trick worth taking as cheaply as it can and otherwise throws its cheapest card
  (:func:`~host.games.one.tactics.pick_card`); leading the joker with no trump, it names its
  longest suit;
* it switches downtown when its nines and tens outnumber its aces and kings.

The game's declaration for bots (:data:`~host.games.one.presentation.BOT`) names this function
as its strategy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from host.games.one.rules import JOKER, UPTOWN
from host.games.one.tactics import bid_value, pick_card, switch_downtown
from host.games.presentation import BotFeatures
from protocol.cards import Card, CardCodeError, Rank, Suit, parse_card

__all__ = ["BOT", "MARGIN", "choose"]

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
