"""How One Card presents itself: its help, its letters, how its events and actions read, and
what the host's bots know about its cards.

How it works: :data:`PRESENTATION` and :data:`BOT` are plain data (see
:mod:`host.games.presentation`); the engine class carries them and the host sends the first in
its ``games`` reply. Kinds One Card shares with other games are worded in
:mod:`host.games.wording`; the rest are here.
"""

from __future__ import annotations

from host.games.one_card.moves import ATTACKERS
from host.games.one_card.strategy import choose
from host.games.presentation import BotFeatures, Key, Presentation, is_, same, truthy, when
from host.games.wording import DRAW_ACTION, PLAY_ACTION, shared
from protocol.cards import DECK_54, Rank

__all__ = ["BOT", "PRESENTATION"]

PRESENTATION = Presentation(
    help=(
        "One Card: play a card of the top card's suit or rank; a seven asks which suit to name; "
        "d draws (against an attack: the whole attack, unless you answer with an attack card); "
        'c calls "One Card!" when a player is down to one card (the first call counts)'
    ),
    layout="shedding",
    keys={
        "draw": Key("d", "you cannot draw now"),
        "call": Key("c", "no One Card call to make now"),
    },
    absent_keys={"l": 'One Card has no "last card" declaration: c calls "One Card!"'},
    calls=frozenset({"call"}),
    events={
        **shared("deal", "turn_up", "play", "draw", "drawn", "reshuffle", "forgiven", "out"),
        **shared("turn", "game_over"),
        "dealt": "{me:name} is dealt {cards:cards}",
        "start": "{first:name} starts; play goes {direction}",
        "call_window": "{holder:name} has one card left!",
        "call": when(
            same("seat", "holder"),
            '{seat:name} calls "One Card!"; {penalized:name} draws a penalty card',
            '{seat:name} catches {holder:name} with one card: "One Card!"; '
            "{penalized:name} draws a penalty card",
        ),
        # the hand goes under the top discard, face up
        "bankrupt": [
            "{seat:name} is bankrupt with ",
            when(is_(count=1), "1 card", "{count} cards"),
            when(is_(reason="cannot_pay"), " and cannot pay"),
            when(truthy("place"), " (place {place})"),
            ": out of the game, the cards go under the top discard",
        ],
    },
    actions={"play": PLAY_ACTION, "draw": DRAW_ACTION, "call": 'call "One Card!"'},
)

BOT = BotFeatures(
    calls=frozenset({"call"}),
    passive=frozenset({"draw"}),
    attack=ATTACKERS,  # twos, aces and jokers
    attack_early=True,  # a race to shed under fire: attacks shed a card and grow a rival's hand
    wild=frozenset(c for c in DECK_54 if c.rank is Rank.SEVEN),
    extra_turn=frozenset(c for c in DECK_54 if c.rank is Rank.KING),
    strategy=choose,  # the normal level: :mod:`host.games.one_card.strategy`
)
