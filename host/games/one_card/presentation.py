"""How One Card presents itself: its help, its letters, how its events and actions read.

How it works: :data:`PRESENTATION` is plain data (see :mod:`host.games.presentation`), wording
only; the registry (:mod:`host.games`) names it and the host sends it in its ``games`` reply.
Kinds One Card shares with other games are worded in :mod:`host.games.wording`; the rest are here.
What the host's bots know of the game is in its ``strategy`` module.
"""

from __future__ import annotations

from host.games.presentation import (
    Key,
    Presentation,
    cases,
    in_,
    is_,
    same,
    strong,
    truthy,
    when,
)
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
        **shared("skip", "reverse", "extra_turn", "turn", "game_over", "audit"),
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
    words={"drawn": "only a card just drawn"},  # a ``follow`` limited to them (``only``)
    endings=endings("went_out", "ranked", "exhausted", "turn_limit", "last_standing"),
    guide=(
        [
            "Goal: be the first out of cards (no points are scored: there is a winner",
            when(truthy("ranking"), ", then a finishing order as play goes on"),
            ").",
        ],
        "Play a card of the suit to match or of the top card's rank (the table shows what may "
        "follow). 7 is wild: you name the next suit. K: you play again. Q: play reverses "
        "direction (with two players it skips). J: the next player misses a turn. A joker plays "
        "on cards of its colour, and they on it.",
        [
            "Attacks: 2 = 2 cards, A = 3, A♠ = 5, black joker = 10, red joker = 13; they add up",
            when(truthy("attack_cap"), " (at most {attack_cap})"),
            ". Answer with ",
            cases(
                "defence",
                {
                    "any": "any attack card",
                    "escalate": "any attack card (a weaker one costs you a penalty card)",
                },
                "an attack card that matches the top card",
            ),
            ", or d takes the whole attack",
            when(truthy("play_after_attack"), "; then you may play one of the cards drawn"),
            ".",
        ],
        "One Card!: when a player is down to one card, the first c counts. Calling it on "
        "yourself makes the next player draw a penalty card; calling it on someone else makes "
        "them draw one.",
        when(
            truthy("bankrupt_at"),
            "Bankrupt: holding {bankrupt_at} cards or more after taking cards, or owing more "
            "than the stock can pay, puts you out of the game.",
        ),
        'Keys: the number of a card (a seven then asks for the suit), d draw, c "One Card!".',
    ),
    table=(
        shedding_top(named_suit=False),
        shedding_turn(extra_turns=True),
        SHEDDING_FOLLOW,
        strong(
            when(
                truthy("damage"),
                when(
                    {"has": "target"},
                    when(
                        same("target", "turn"),
                        "Pending attack: {damage} cards to pick up unless answered",
                        "Pending attack: {damage} cards, aimed at {target:name}",
                    ),
                    "Pending attack: {damage} cards to pick up unless answered",
                ),
            )
        ),
    ),
    seat_tags=(
        out_place("finished"),
        when(in_("row", "bankrupt"), "bankrupt"),
        when(same("call_window.holder", "row"), "ONE CARD!"),
    ),
)
