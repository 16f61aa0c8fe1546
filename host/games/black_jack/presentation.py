"""How Black Jack presents itself: its help, its letters, how its events and actions read, and
what the host's bots know about its cards.

How it works: :data:`PRESENTATION` and :data:`BOT` are plain data (see
:mod:`host.games.presentation`); the engine class carries them and the host sends the first in
its ``games`` reply. Kinds Black Jack shares with other games are worded in
:mod:`host.games.wording`; the rest are here.
"""

from __future__ import annotations

from host.games.black_jack.moves import Declaration
from host.games.black_jack.strategy import choose
from host.games.presentation import BotFeatures, Key, Presentation, has, when
from host.games.wording import DRAW_ACTION, PLAY_ACTION, shared
from protocol.cards import ALL_CARDS, Color, Rank

__all__ = ["BOT", "PRESENTATION"]

PRESENTATION = Presentation(
    help=(
        "Black Jack: play a card of the top card's suit or rank; a card that can start a run "
        "(6D 7D 8D) asks how far to go, a joker what it stands for, an ace which suit to name; "
        'd draws (or takes the pick-up); say "last card" when you could finish next turn: '
        "pick the play marked so, or l after your turn (going out undeclared costs two cards)"
    ),
    layout="shedding",
    keys={
        "draw": Key("d", "you cannot draw now"),
        "declare": Key("l", 'no "last card" to declare now'),
    },
    absent_keys={
        "c": 'Black Jack has no "One Card!" call: its declaration is "last card", made by '
        'picking a play marked "and say last card", or with l after your turn',
    },
    calls=frozenset({"declare"}),
    events={
        **shared("deal", "turn_up", "play", "draw", "reshuffle", "forgiven", "out"),
        **shared("turn", "game_over"),
        "declare": '{seat:name} declares "{what:word}"',
        "undeclared": [
            "{seat:name} went out without declaring: picks up ",
            when(has("penalty"), "{penalty}", "2"),
        ],
        "cover": "{seat:name} must cover the queen",
        "reverse": "Play now goes {direction}",
        "skip": "{seat:name} misses a turn",
        "blunder": "{seat:name} blunders with {cards:cards}: {reason:seats}",
    },
    actions={"play": PLAY_ACTION, "draw": DRAW_ACTION, "declare": 'declare "{what:word}"'},
    words={Declaration.LAST_CARD.value: "last card"},
)

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
    strategy=choose,  # the normal level: :mod:`host.games.black_jack.strategy`
)
