"""How Black Jack presents itself: its help, its letters, how its events and actions read.

How it works: :data:`PRESENTATION` is plain data (see :mod:`host.games.presentation`), wording
only; the registry (:mod:`host.games`) names it and the host sends it in its ``games`` reply.
Kinds Black Jack shares with other games are worded in :mod:`host.games.wording`; the rest are here.
What the host's bots know of the game is in its ``strategy`` module.
"""

from __future__ import annotations

from host.games.black_jack.moves import Declaration
from host.games.presentation import Key, Presentation, has, strong, truthy, when
from host.games.wording import (
    DRAW_ACTION,
    PLAY_ACTION,
    SHEDDING_FOLLOW,
    endings,
    out_place,
    shared,
    shedding_top,
    shedding_turn,
)

__all__ = ["PRESENTATION"]

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
        **shared("skip", "reverse"),
        **shared("turn", "game_over", "audit"),
        "declare": '{seat:name} declares "{what:word}"',
        "undeclared": [
            "{seat:name} went out without declaring: picks up ",
            when(has("penalty"), "{penalty}", "2"),
        ],
        "cover": "{seat:name} must cover the queen",
        "blunder": "{seat:name} blunders with {cards:cards}: {reason:seats}",
    },
    actions={"play": PLAY_ACTION, "draw": DRAW_ACTION, "declare": 'declare "{what:word}"'},
    words={Declaration.LAST_CARD.value: "last card"},
    guide=(
        [
            "Goal: be the first out of cards (no points are scored",
            when(truthy("ranking"), "; play goes on to find the loser"),
            ").",
        ],
        "Play a card of the top card's suit or rank (the table shows what may follow), or a "
        "run in one suit (6♦ 7♦ 8♦) whose first card matches: only its last card's magic "
        "counts, but every 2 and black jack in it adds to the pick-up.",
        [
            "Magic cards: A names the next suit",
            when(truthy("aces_anytime"), " (and plays on anything)"),
            "; 2: the next player picks up 2, a black jack {black_jack_pickup}, unless they play "
            "a 2 or a black jack (a red jack cancels the pick-up); 8: the next player misses a "
            "turn; K: play reverses; Q: cover it at once with any other card, or pick up one.",
        ],
        'Last card: end a turn able to finish next turn and you must say "last card" (one '
        'card left) or "cards" (more). A play that leaves you so says it for you: the move '
        'reads "and say last card". Going out without having said it costs two cards.',
        when(
            truthy("blunders"),
            "Blunders: a card you hold but may not play is explained, and can be played anyway "
            "as a blunder: it comes back and you pick up two.",
        ),
        "Keys: the number of a card (a run, an ace or a joker then asks how), d draw or take "
        'the pick-up, l say "last card" after your turn.',
    ),
    endings=endings("went_out", "ranked", "exhausted", "turn_limit"),
    table=(
        shedding_top(named_suit=True),
        shedding_turn(extra_turns=False),
        SHEDDING_FOLLOW,
        strong(when(truthy("pending"), "Pick-up: {pending} cards to pick up unless countered")),
        strong(when(truthy("cover"), "The queen must be covered")),
    ),
    seat_tags=(out_place("out"), when(truthy("declared.row"), "declared")),
)
