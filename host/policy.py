"""Bot decision policies: pure functions from (own view, legal wire actions) to one action.

How it works: a policy sees exactly what its seat's client sees, the ``view`` map the host sends
that seat and the list of legal actions in wire form, never the engine. Two policies:

* :func:`random_choice` picks uniformly among the legal actions (calls included).
* :func:`heuristic_choice` is a sensible generic player for all three games: it always makes a
  legal call ("one card", "last card") once, prefers playing over drawing, keeps wild cards
  (a One Card seven) for when nothing else plays, sheds several cards at once when it can, and
  names the suit it holds most of. In One Card it plays attack cards and kings early, so that
  a game against it ends in minutes; in Black Jack it keeps counters until an opponent is close
  to going out; in ONE it bids by counting its high cards.

Both are used by the bot clients in :mod:`host.bots` and by a table that plays for a seat whose
player stayed away past the grace period.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from protocol.cards import Card, CardCodeError, Rank, parse_card

__all__ = ["CALL_TYPES", "PASSIVE_TYPES", "choose", "heuristic_choice", "random_choice"]

WireMap = dict[str, Any]

#: action types that are announcements, not turns: made once when legal
CALL_TYPES = frozenset({"call", "one_card", "last_card", "declare", "knock", "cards"})
#: action types that give up the turn without shedding
PASSIVE_TYPES = frozenset({"draw", "pass", "pick_up", "take", "cover_draw"})
#: what a card is worth when bidding in ONE: its points, plus trick-taking power for A and K
_BID_STRENGTH = {Rank.ACE: 0.5, Rank.KING: 1.5, Rank.QUEEN: 1.0, Rank.JACK: 1.0, Rank.JOKER: 4.0}


def random_choice(legal: Sequence[WireMap], rng: random.Random | None = None) -> WireMap | None:
    """A uniformly random legal action (None if there is none)."""
    if not legal:
        return None
    return (rng or random.Random()).choice(list(legal))


def _cards_of(action: WireMap) -> list[Card]:
    raw = action.get("cards")
    if raw is None and "card" in action:
        raw = [action["card"]]
    out: list[Card] = []
    if isinstance(raw, list):
        for code in raw:
            try:
                out.append(parse_card(code))
            except CardCodeError:
                continue
    return out


def _hand(view: WireMap) -> list[Card]:
    raw = view.get("hand")
    return _cards_of({"cards": raw}) if isinstance(raw, list) else []


def _is_attack(c: Card, game: str) -> bool:
    if game == "black-jack":
        return c.rank is Rank.TWO or (c.rank is Rank.JACK and c.color.value == "black")
    return c.rank in (Rank.TWO, Rank.ACE, Rank.JOKER)


def _is_wild(c: Card, game: str) -> bool:
    if game == "black-jack":
        return c.rank in (Rank.ACE, Rank.EIGHT, Rank.JOKER)
    return c.rank is Rank.SEVEN


def _opponent_low(view: WireMap) -> bool:
    sizes = view.get("hand_counts")
    seat = view.get("seat")
    if not isinstance(sizes, list):
        return False
    others = [n for i, n in enumerate(sizes) if i != seat and isinstance(n, int) and n > 0]
    return bool(others) and min(others) <= 2


def _bid(view: WireMap, legal: Sequence[WireMap]) -> WireMap | None:
    # points held (K, Q, J one each, the joker three) plus the tricks high cards should win
    estimate = sum(_BID_STRENGTH.get(c.rank, 0.0) for c in _hand(view))
    bids = sorted(
        (a for a in legal if a.get("type") == "bid" and isinstance(a.get("value"), int)),
        key=lambda a: int(a["value"]),
    )
    if bids and int(bids[0]["value"]) <= estimate:
        return bids[0]
    return next((a for a in legal if a.get("type") == "pass"), None)


def _trick_play(view: WireMap, plays: Sequence[WireMap]) -> WireMap:
    order = {Rank.NINE: 0, Rank.TEN: 1, Rank.JACK: 2, Rank.QUEEN: 3, Rank.KING: 4, Rank.ACE: 5}
    order[Rank.JOKER] = 6

    def strength(a: WireMap) -> int:
        cards = _cards_of(a)
        return order.get(cards[0].rank, 0) if cards else 0

    trick = view.get("trick")
    leading = not (isinstance(trick, dict) and trick.get("cards"))
    ranked = sorted(plays, key=strength)
    return ranked[-1] if leading else ranked[0]


def _shed_play(view: WireMap, plays: Sequence[WireMap], game: str) -> WireMap:
    hand = _hand(view)
    suits = Counter(c.suit.value for c in hand if c.suit is not None)
    attack_now = _opponent_low(view)
    # One Card is a race to shed under fire: an attack card played now both sheds a card and
    # grows a rival's hand towards bankruptcy, so it goes early; a king's extra turn sheds
    # another card. Black Jack keeps its counters until a rival is close to going out.
    if game == "one-card":
        attack_value, king_value = 3.0, 1.0
    else:
        attack_value, king_value = (5.0 if attack_now else -3.0), 0.0

    def score(a: WireMap) -> float:
        cards = _cards_of(a)
        value = 2.0 * len(cards)
        for c in cards:
            if _is_attack(c, game):
                value += attack_value
            if _is_wild(c, game):
                value -= 2.0  # keep a wild card (a One Card seven) for when nothing else plays
            if c.rank is Rank.KING:
                value += king_value
        suit = a.get("suit")
        if isinstance(suit, str):
            value += 0.5 * suits.get(suit, 0)
        if a.get("say"):  # Black Jack: announce "last card" / "cards" with the play
            value += 0.25
        return value

    return max(plays, key=score)


def heuristic_choice(
    view: WireMap, legal: Sequence[WireMap], *, last: WireMap | None = None
) -> WireMap | None:
    """A sensible legal action for any of the three games (None if there is none).

    ``last`` is the seat's previous action: a call is never repeated back to back.
    """
    if not legal:
        return None
    game = str(view.get("game", ""))
    for a in legal:
        if a.get("type") in CALL_TYPES and a != last:
            return a
    turns = [a for a in legal if a.get("type") not in CALL_TYPES]
    if not turns:
        return None
    if any(a.get("type") == "bid" for a in turns):
        chosen = _bid(view, turns)
        if chosen is not None:
            return chosen
    if any(a.get("type") == "downtown" for a in turns):
        hand = _hand(view)
        low = sum(c.rank in (Rank.NINE, Rank.TEN) for c in hand)
        high = sum(c.rank in (Rank.ACE, Rank.KING) for c in hand)
        return next((a for a in turns if a.get("switch") == (low > high)), turns[0])
    plays = [a for a in turns if _cards_of(a)]
    if plays:
        if game == "one":
            return _trick_play(view, plays)
        return _shed_play(view, plays, game)
    passive = [a for a in turns if a.get("type") in PASSIVE_TYPES]
    passive.sort(key=lambda a: not a.get("say"))  # a draw that announces beats a silent one
    return passive[0] if passive else turns[0]


def choose(
    kind: str,
    view: WireMap,
    legal: Sequence[WireMap],
    *,
    last: WireMap | None = None,
    rng: random.Random | None = None,
) -> WireMap | None:
    """Dispatch on a bot kind: ``"random"`` or ``"heuristic"``."""
    if kind == "random":
        non_repeat = [a for a in legal if not (a.get("type") in CALL_TYPES and a == last)]
        return random_choice(non_repeat, rng)
    return heuristic_choice(view, legal, last=last)
