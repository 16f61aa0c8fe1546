"""Bot decision policies: pure functions from (own view, legal wire actions) to one action.

How it works: a policy sees exactly what its seat's client sees, the ``view`` map the host sends
that seat and the list of legal actions in wire form, never the engine; what it knows about the
game itself (which actions are announcements or give up the turn, which cards attack, are wild
or give another turn, how to bid and rank tricks) is the game's own declaration,
its ``BOT`` (:class:`host.games.presentation.BotFeatures`), found through the registry
(:func:`host.games.find_bot`) by the view's ``game``. Two policies:

* :func:`random_choice` picks uniformly among the legal actions (calls included).
* :func:`heuristic_choice` is a sensible generic player: it always makes a legal call ("one
  card", "last card") once, prefers playing over drawing, keeps wild cards for when nothing else
  plays, sheds several cards at once when it can, and names the suit it holds most of. Attack
  cards go early where the game says so (One Card: a game against it ends in minutes), else
  when an opponent is close to going out (Black Jack); cards giving another turn go early; a
  trick-taking game leads high and follows low, and bids by what its cards are worth (ONE).
  After the calls it asks the game's own player first (``BotFeatures.strategy``, each game's
  ``strategy`` module); the generic rules above decide only what that leaves open.

They are the easy and normal levels of :mod:`host.bots.ai.levels` (the bot clients of
:mod:`host.bots.bots`), and the normal one plays for a seat whose player stayed away past the grace
period.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from host.games import find_bot, game_names
from host.games.base import OptionError
from host.games.presentation import BotFeatures
from protocol.cards import Card, CardCodeError, parse_card

__all__ = [
    "call_to_make",
    "call_types",
    "choose",
    "features",
    "heuristic_choice",
    "passive_types",
    "random_choice",
    "with_say",
]

WireMap = dict[str, Any]


@functools.cache
def call_types() -> frozenset[str]:
    """Every game's announcement action types (loads every game's bot knowledge, once, on the
    first call: importing this module loads none)."""
    return frozenset().union(*(find_bot(name).calls for name in game_names()))


@functools.cache
def passive_types() -> frozenset[str]:
    """Every game's action types that give up the turn without shedding."""
    return frozenset().union(*(find_bot(name).passive for name in game_names()))


@functools.lru_cache(maxsize=64)
def _features_of(game: str) -> BotFeatures:
    try:
        return find_bot(game)
    except OptionError:
        # a game the host does not run (or none): call once, pass or draw as any game would
        return BotFeatures(calls=call_types(), passive=passive_types())


def features(view: WireMap) -> BotFeatures:
    """What the game of ``view`` declares for bots (for an unknown game: only which actions are
    calls and which give up the turn, from every game the host runs)."""
    return _features_of(str(view.get("game", "")))


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


def _opponent_low(view: WireMap) -> bool:
    sizes = view.get("hand_counts")
    seat = view.get("seat")
    if not isinstance(sizes, list):
        return False
    others = [n for i, n in enumerate(sizes) if i != seat and isinstance(n, int) and n > 0]
    return bool(others) and min(others) <= 2


def _bid(view: WireMap, legal: Sequence[WireMap], bot: BotFeatures) -> WireMap | None:
    """The lowest bid when the hand is worth it, else a passive action (a pass)."""
    estimate = sum(bot.bid_strength.get(c.rank, 0.0) for c in _hand(view))
    bids = sorted(
        (a for a in legal if a.get("type") == bot.bid and isinstance(a.get("value"), int)),
        key=lambda a: int(a["value"]),
    )
    if bids and int(bids[0]["value"]) <= estimate:
        return bids[0]
    return next((a for a in legal if a.get("type") in bot.passive), None)


def _switch(view: WireMap, turns: Sequence[WireMap], bot: BotFeatures) -> WireMap:
    """Switch (``switch: true``) when more cards favour it than favour staying."""
    hand = _hand(view)
    favour = sum(c.rank in bot.switch_for for c in hand)
    against = sum(c.rank in bot.stay_for for c in hand)
    return next((a for a in turns if a.get("switch") == (favour > against)), turns[0])


def _trick_play(view: WireMap, plays: Sequence[WireMap], bot: BotFeatures) -> WireMap:
    order = bot.trick_order

    def strength(a: WireMap) -> int:
        cards = _cards_of(a)
        return order.get(cards[0].rank, 0) if cards else 0

    trick = view.get("trick")
    leading = not (isinstance(trick, dict) and trick.get("cards"))
    ranked = sorted(plays, key=strength)
    return ranked[-1] if leading else ranked[0]


def _shed_play(view: WireMap, plays: Sequence[WireMap], bot: BotFeatures) -> WireMap:
    hand = _hand(view)
    suits = Counter(c.suit.value for c in hand if c.suit is not None)
    # where attacks go early (One Card, a race to shed under fire) an attack card both sheds a
    # card and grows a rival's hand towards bankruptcy; elsewhere (Black Jack) counters are
    # kept until a rival is close to going out. A card that gives another turn sheds another.
    attack_value = 3.0 if bot.attack_early else 5.0 if _opponent_low(view) else -3.0

    def score(a: WireMap) -> float:
        cards = _cards_of(a)
        value = 2.0 * len(cards)
        for c in cards:
            if c in bot.attack:
                value += attack_value
            if c in bot.wild:
                value -= 2.0  # keep a wild card for when nothing else plays
            if c in bot.extra_turn:
                value += 1.0
        suit = a.get("suit")
        if isinstance(suit, str):
            value += 0.5 * suits.get(suit, 0)
        if a.get("say"):  # announce "last card" / "cards" with the play
            value += 0.25
        return value

    return max(plays, key=score)


def heuristic_choice(
    view: WireMap, legal: Sequence[WireMap], *, last: WireMap | None = None
) -> WireMap | None:
    """A sensible legal action for any game (None if there is none).

    ``last`` is the seat's previous action (see :func:`call_to_make`); a play goes out
    :func:`with_say`.
    """
    if not legal:
        return None
    call = call_to_make(view, legal, last=last)
    if call is not None:
        return call
    chosen = _turn_action(view, legal, features(view))
    return None if chosen is None else with_say(view, chosen)


def call_to_make(
    view: WireMap, legal: Sequence[WireMap], *, last: WireMap | None = None
) -> WireMap | None:
    """The call on offer the seat should make now, if any: one the game finds worth making
    (``BotFeatures.call_worth``), never the seat's previous action again, and none right after
    an action that carried the call (``say``)."""
    bot = features(view)
    if last is not None and last.get("say"):
        return None
    worth = bot.call_worth
    for a in legal:
        if a.get("type") in bot.calls and a != last and (worth is None or worth(view, a)):
            return a
    return None


def with_say(view: WireMap, action: WireMap) -> WireMap:
    """``action``, a play of the seat's, with the ``say`` the game gives it
    (``BotFeatures.say_with``) when it was listed without one (a private table's listing)."""
    say_with = features(view).say_with
    if say_with is None or "say" in action or not _cards_of(action):
        return action
    say = say_with(view, action)
    return action if say is None else {**action, "say": say}


def _turn_action(view: WireMap, legal: Sequence[WireMap], bot: BotFeatures) -> WireMap | None:
    """:func:`heuristic_choice` when no call is to be made."""
    turns = [a for a in legal if a.get("type") not in bot.calls]
    if not turns:
        return None
    if bot.strategy is not None:
        chosen = bot.strategy(view, turns)
        if chosen is not None and chosen in turns:
            return chosen
    if bot.bid and any(a.get("type") == bot.bid for a in turns):
        chosen = _bid(view, turns, bot)
        if chosen is not None:
            return chosen
    if bot.switch and any(a.get("type") == bot.switch for a in turns):
        return _switch(view, turns, bot)
    plays = [a for a in turns if _cards_of(a)]
    if plays:
        if bot.trick_order:
            return _trick_play(view, plays, bot)
        return _shed_play(view, plays, bot)
    passive = [a for a in turns if a.get("type") in bot.passive]
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
    """Dispatch on a bot kind: ``"random"`` (or ``"easy"``), else the heuristic. The hard
    level searches: :mod:`host.bots.ai.levels`."""
    if kind in ("random", "easy"):
        calls = features(view).calls
        non_repeat = [a for a in legal if not (a.get("type") in calls and a == last)]
        return random_choice(non_repeat, rng)
    return heuristic_choice(view, legal, last=last)
