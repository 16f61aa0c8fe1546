"""The normal bot's One Card: attack and defence from what the seat's view shows.

How it works: :func:`choose` scores each legal turn action (the host's policy,
:mod:`host.bots.policy`, has already made any "One Card!" call) and returns the best; it reads only
the seat's ``view`` and the legal actions in wire form. A play that goes out wins outright.
Otherwise a play is worth the cards it sheds, and:

* an attack card (2, ace, jokers) is kept for defence: the player holding the last answer to
  an attack chain makes the other draw it all, and bankruptcy ends most games. On its own
  initiative the bot attacks only when nothing else plays (a seven mostly goes first), or
  when the damage now pending would bankrupt the next player (``bankrupt_at``); against an
  attack, the defence that passes on the most damage is best;
* a seven is kept for when nothing else plays, and names the suit the rest of the hand holds
  most of;
* a king (another turn) and, with two players, a jack or queen (the opponent is skipped) are
  worth playing early: the turn comes straight back.

A draw is the last resort. The game's declaration for bots (:data:`~host.games.one_card.
presentation.BOT`) names this function as its strategy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from host.games.one_card import rules
from host.games.one_card.rules import ATTACKERS, DAMAGE
from host.games.presentation import BotFeatures
from protocol.cards import DECK_54, Rank, cards_in

__all__ = ["BOT", "choose"]

WireMap = dict[str, Any]

#: what one card shed is worth, and the bonuses and costs on top; ``ATTACK`` is negative: an
#: attack card played on the bot's own initiative is a defence given away (playing them early,
#: at +3, lost to a greedy baseline that keeps its jokers: see docs/BOTS.md)
SHED, ATTACK, KILL, PER_DAMAGE, SEVEN, AGAIN = 2.0, -4.0, 20.0, 0.2, -2.5, 1.5


def _next_hand(view: WireMap) -> int:
    """How many cards the next player in the direction of play holds (0 if unknown)."""
    seat, counts = view.get("seat"), view.get("hand_counts")
    if not isinstance(seat, int) or not isinstance(counts, list):
        return 0
    gone = {*(view.get("finished") or ()), *(view.get("bankrupt") or ())}
    step = 1 if view.get("direction") == "clockwise" else -1
    other = (seat + step) % len(counts)
    while other != seat and other in gone:
        other = (other + step) % len(counts)
    return int(counts[other]) if other != seat else 0


def choose(view: WireMap, legal: Sequence[WireMap]) -> WireMap | None:
    """The best of the legal turn actions ``legal`` for the seat of ``view``."""
    plays = [a for a in legal if a.get("type") == "play"]
    if not plays:
        return next((a for a in legal if a.get("type") == "draw"), None)
    hand = cards_in(view.get("hand"))
    active = len(view.get("hand_counts") or ()) - len(view.get("finished") or ())
    active -= len(view.get("bankrupt") or ())
    faced = view.get("target") in (None, view.get("seat"))  # our own attack is not faced
    pending = int(view.get("damage") or 0) if faced else 0
    options = view.get("options") or {}
    limit = int(options.get("bankrupt_at") or 0)
    victim = _next_hand(view)

    def score(action: WireMap) -> float:
        cards = cards_in(action.get("cards"))
        if not cards:
            return -1.0
        if len(cards) >= len(hand):
            return 1000.0  # going out wins
        value = SHED * len(cards)
        damage = sum(DAMAGE.get(c, 0) for c in cards)
        if damage:
            value += ATTACK + PER_DAMAGE * (pending + damage)
            if limit and victim + pending + damage >= limit:
                value += KILL
        last = cards[-1]
        if last.rank is Rank.SEVEN:
            rest = Counter(c.suit.value for c in hand if c not in cards and c.suit is not None)
            value += SEVEN + 0.5 * rest.get(str(action.get("suit")), 0)
        elif last.rank is Rank.KING or (active == 2 and last.rank in (Rank.JACK, Rank.QUEEN)):
            value += AGAIN
        return value

    return max(plays, key=score)


BOT = BotFeatures(
    calls=frozenset({"call"}),
    passive=frozenset({"draw"}),
    attack=ATTACKERS,  # twos, aces and jokers
    attack_early=True,  # a race to shed under fire: attacks shed a card and grow a rival's hand
    wild=frozenset(c for c in DECK_54 if c.rank is rules.WILD),
    extra_turn=frozenset(c for c in DECK_54 if c.rank is rules.AGAIN),
    strategy=choose,  # the normal level, above
)
