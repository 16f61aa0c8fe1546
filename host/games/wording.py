"""Wording shared by several games, and the wording of the host's own event kinds.

How it works: an event kind or action type that several games have (``play``, ``draw``,
``deal``, ``turn_up``, ...) is worded once here and each game's presentation picks what it uses,
so a kind reads the same in every game of this host: a client that does not know which game an
event came from may word it from any game's entry (``spec/PROTOCOL.md`` section 3.5; a test
checks it). The kinds the host itself pushes during a game (``timeout``, ``substitute``,
``left``, ``stood_up``: :data:`HOST_EVENTS`) are added to every game's entry by
:func:`host.games.game_entry`. Templates are built with the helpers of
:mod:`host.games.presentation`.
"""

from __future__ import annotations

from host.games.presentation import (
    Template,
    cases,
    has,
    in_,
    is_,
    mine,
    truthy,
    when,
)

__all__ = [
    "DRAW_ACTION",
    "ENDINGS",
    "EVENTS",
    "HOST_EVENTS",
    "NO_LINE",
    "PLAY_ACTION",
    "SAY",
    "SHEDDING_FOLLOW",
    "TRICK_TABLE",
    "endings",
    "out_place",
    "shared",
    "shedding_top",
    "shedding_turn",
]

NO_LINE: Template = None
"""An event the table display already shows (``turn``, ``game_over``): no log line."""

#: why cards were drawn, after the count: "(the attack)"; nothing for a plain draw or the deal
_REASON = when(
    is_(reason=[None, "draw", "deal"]),
    "",
    cases(
        "reason",
        {"attack": " (the attack)", "pickup": " (the pick-up)", "call": " (penalty)"},
        " ({reason})",
    ),
)
_DRAW_VERB = when(is_(reason="deal"), " is dealt ", " draws ")
_EMPTY_STOCK = ": the stock is empty and no discards are left to shuffle"

SAY: Template = when(truthy("say"), ' and say "{say:word}"')
"""A declaration made with a play or a draw (Black Jack's ``say``)."""


def shedding_top(*, named_suit: bool) -> Template:
    """A shedding table's first line: the card to match, the suit and the stock; with
    ``named_suit`` (a view field saying a card named the suit) it tells a named suit apart."""
    label: Template = "   suit to match: "
    if named_suit:
        label = when(has("named_suit"), "   named suit: ", label)
    return [
        "Top card: ",
        when(has("top"), "{top:cards}", "none"),
        when(has("suit"), [label, "{suit:suit_name}"]),
        "   stock: {stock}",
    ]


def shedding_turn(*, extra_turns: bool) -> Template:
    """The direction of play, and (``extra_turns``: a view field) the extra turns owed."""
    if not extra_turns:
        return "Direction: {direction}"
    return [
        "Direction: {direction}",
        when(truthy("extra_turns"), "   extra turns owed: {extra_turns}"),
    ]


#: what may be played on the top card (the view's ``follow``)
SHEDDING_FOLLOW: Template = when(has("follow"), "May follow: {follow:follow}")


def out_place(field: str) -> Template:
    """The seat tag of a player who went out, by the view's array of seats in finishing order."""
    return when(in_("row", field), f"out #{{{field}:place}}")


#: a trick-taking table: the hand and the target, trump (and who sets it), the auction, the
#: points taken and the trick on the table
TRICK_TABLE: tuple[Template, ...] = (
    "{hand_no:hand}   target {target}   phase: {phase}   ranking: {ranking}",
    [
        "Trump: ",
        when(has("trump"), "{trump:suit_name}", when(truthy("no_trump"), "no trump", "not yet")),
        when(
            {"false": "trump", "is": {"phase": "play"}, "in": ["me", "to_act"]},
            when(
                {"false": "no_trump", "mine": "auction.bidder"},
                " (you won the auction: the suit of the card you lead now is trump)",
            ),
        ),
        when(
            {"has": "auction.high", "true": "auction"},
            when(has("auction.bidder"), "   bid: {auction.high} by {auction.bidder:name}"),
            when(
                {"is": {"phase": "auction"}, "true": "auction"},
                "   no bid yet (minimum {auction.min})",
            ),
        ),
    ],
    when({"some": "points_taken"}, "Points taken this hand: {points_taken:by_seat}"),
    when(truthy("trick.cards"), "Trick: {trick.cards:seat_cards}"),
)

#: the wording of every event kind several games share
EVENTS: dict[str, Template] = {
    "deal": [when(has("hand_no"), "{hand_no:hand}: "), "{dealer:name} deals"],
    "turn_up": ["Turned up: ", when(has("cards"), "{cards:cards}", "{card:cards}")],
    "play": [
        "{seat:name} plays ",
        when(has("cards"), "{cards:played}", "{card:played}"),
        when(has("suit"), " and names {suit:suit}"),
        when(
            truthy("damage"),
            [" (attack now {damage} cards", when(has("target"), " on {target:name}"), ")"],
        ),
        when(truthy("pending"), " (pick-up now {pending})"),
        when(truthy("cancelled"), " (the pick-up is cancelled)"),
        when(truthy("penalty"), " (a weaker answer: one penalty card)"),
    ],
    # a draw with its cards (our own) names them; another seat's names the count, and our own
    # public draw says nothing (the private one with the cards follows)
    "draw": when(
        has("cards"),
        [when(has("seat"), "{seat:name}", "{me:name}"), _DRAW_VERB, "{cards:cards}", _REASON],
        when(
            mine("seat"),
            None,
            [
                "{seat:name}",
                _DRAW_VERB,
                when(is_(count=[1, None]), "1 card", "{count} cards"),
                _REASON,
            ],
        ),
    ),
    # all discards but the top card become the new stock
    "reshuffle": when(
        is_(count=1),
        "1 discarded card is shuffled into a new stock",
        "{count} discarded cards are shuffled into a new stock",
    ),
    # owed cards that neither the stock nor the discards can supply
    "forgiven": when(
        is_(count=1, reason=["draw", None]),
        ["{seat:name} draws nothing", _EMPTY_STOCK],
        [
            "{seat:name} is let off ",
            when(is_(count=1), "1 card", "{count} cards"),
            _REASON,
            _EMPTY_STOCK,
        ],
    ),
    "out": "{seat:name} is out (place {place})",
    # what a played card does to the turns (One Card's J, Q and K; Black Jack's 8 and K)
    "skip": "{seat:name} misses a turn",
    "reverse": "Play now goes {direction}",
    "extra_turn": when(
        is_(count=[1, None]), "{seat:name} plays again", "{seat:name} plays {count} more turns"
    ),
    "turn": NO_LINE,
    "game_over": NO_LINE,
    # a private table's end-of-hand audit (spec/PROTOCOL.md 10.13): all legal, or the proof
    "audit": when(
        has("violation"),
        [
            'Audit: {violation.seat:name}\'s move "{violation.action:action}" broke a rule',
            " ({violation.reason}): {violation.seat:name} forfeits the hand",
        ],
        "Audit: every move of the hand was legal",
    ),
}
EVENTS["drawn"] = EVENTS["draw"]  # One Card's private draw: the cards, without a seat

PLAY_ACTION: Template = [
    "play ",
    when(has("cards"), "{cards:cards}", "{card:cards}"),
    when(truthy("declare"), " with the joker as {declare:card_list}"),
    when(has("suit"), [when(has("card"), " leading ", " naming "), "{suit:suit_name}"]),
    SAY,
]
"""A play: its cards, each joker's identity, the suit it names or leads, a declaration."""

DRAW_ACTION: Template = when(
    truthy("view.damage"),
    "draw {view.damage} (take the attack)",
    when(
        truthy("view.cover"),
        ["draw 1 (instead of covering the queen)", SAY],
        when(truthy("view.pending"), "draw {view.pending} (take the pick-up)", ["draw", SAY]),
    ),
)
"""A draw; as a move on offer it says what it takes when an attack or a pick-up is pending (a
Black Jack seat covering its own queen draws one: the pick-up waits for the next seat)."""

#: the kinds the host pushes itself during any game (spec/PROTOCOL.md sections 4 and 5)
HOST_EVENTS: dict[str, Template] = {
    "timeout": "{seat:name} ran out of time; the host plays: {action:action}",
    # the host's bot plays an away seat: its move is the next event, and the table marks the
    # seat (a line for each move said it twice, "is away" even of a seat whose player left)
    "substitute": NO_LINE,
    # a player left mid-game: the host's bot plays the seat to the end
    "left": "{seat:name} left; a bot plays {seat:name} to the end of the game",
    "stood_up": [
        "{seat:name} missed",
        when(has("misses"), " {misses} deal rounds in a row", " deal rounds"),
        " and is stood up: the host plays the seat to the end",
    ],
    # a private table's hand is over: every seat reveals its masking secret (PROTOCOL.md 10.11)
    "hand_over": NO_LINE,
    # a private table: the host asks a seat for the keys of its bankrupt hand (10.11 step 7)
    "show_hand": when(
        mine("seat"),
        "Your hand goes face up: your keys go out",
        "{seat:name}'s hand goes face up: waiting for their keys",
    ),
}


def shared(*kinds: str) -> dict[str, Template]:
    """The shared wording of these event kinds (a game lists the ones its engine emits)."""
    return {kind: EVENTS[kind] for kind in kinds}


#: why a game ended, by the outcome's ``termination``: said after the winner ("Bob wins! (...)")
ENDINGS: dict[str, str] = {
    "went_out": "first out of cards",
    "ranked": "played on to a finishing order",
    "target": "reached the target score",
    "exhausted": "nothing left to play or draw: fewest cards",
    "turn_limit": "stopped at the turn limit, a safety stop: fewest cards",
    "last_standing": "last player standing: everyone else went bankrupt",
}


def endings(*terminations: str) -> dict[str, str]:
    """The shared words for these ways a game ends (a game lists the ones it has)."""
    return {termination: ENDINGS[termination] for termination in terminations}
