"""How ONE presents itself: its help, its letters, how its events and actions read.

How it works: :data:`PRESENTATION` is plain data (see :mod:`host.games.presentation`), wording
only; the registry (:mod:`host.games`) names it and the host sends it in its ``games`` reply.
Kinds ONE shares with other games are worded in :mod:`host.games.wording`; the rest are here.
What the host's bots know of the game is in its ``strategy`` module.
"""

from __future__ import annotations

from host.games.presentation import Key, Presentation, has, is_, truthy, when
from host.games.wording import NO_LINE, PLAY_ACTION, TRICK_TABLE, endings, shared

__all__ = ["PRESENTATION"]

PRESENTATION = Presentation(
    help=(
        "ONE: in the auction type your bid (the number is the bid) or p to pass; the winner's "
        "first lead sets trump (not with the joker); in the tricks follow suit if you can"
    ),
    layout="tricks",
    keys={"pass": Key("p", "you cannot pass now")},
    absent_keys={
        "c": "ONE has no calls to make",
        "l": "ONE has no declarations to make",
        "d": "ONE has no drawing: every card is dealt, play one of yours",
    },
    events={
        **shared("deal", "play"),
        "hand": "{me:name} is dealt {cards:cards}",
        "bid": "{seat:name} bids {value}",
        "pass": "{seat:name} passes",
        "auction_end": when(
            truthy("no_trump"),
            "Everyone passed: no trump; {leader:name} leads",
            "{bidder:name} wins the auction with {bid}",
        ),
        "trump": "Trump is {suit:suit_name}",
        "trick": [
            "{winner:name} takes the trick (",
            when(is_(points=1), "1 pt", "{points} pts"),
            ")",
        ],
        "downtown_offer": "{seat:name} may switch the ranking to downtown",
        "downtown": when(
            truthy("switch"), "{seat:name} switches to downtown", "{seat:name} stays uptown"
        ),
        "centre": "The centre card {card:cards} goes to {seat:name}",
        "hand_end": [
            "Hand over",
            when(
                has("bidder"),
                [": {bidder:name} ", when(truthy("made"), "made", "missed"), " the bid of {bid}"],
                ": no one bid",
            ),
            when(has("points"), ". Points taken: {points:by_seat}"),
            when(has("scores"), ". Scores: {scores:by_seat}"),
        ],
        "match_end": NO_LINE,
        **shared("audit"),
    },
    actions={
        "play": PLAY_ACTION,
        "bid": "bid {value}",
        "pass": "pass",
        "downtown": when(truthy("switch"), "switch to downtown (9 high)", "stay uptown"),
    },
    endings=endings("target"),
    guide=(
        "Points: K, Q and J are worth 1 each, the joker 3, A, 10 and 9 nothing: 15 points in "
        "the deck, the centre card's included (the last trick takes it).",
        "Scoring: everyone scores the points they took, but a bidder who takes fewer than the "
        "bid scores 0 for the hand. First to {target} points wins the match.",
        when(
            is_(phase="auction"),
            "The auction: bid the points you expect to take (the number is the bid) or p to "
            "pass, for good. The high bidder leads first and that card's suit is trump. If "
            "everyone passes the hand has no trump.",
            "The tricks: follow the suit led if you can (a trump lead asks for trump); if you "
            "cannot, play anything. The highest trump wins, else the highest card of the suit "
            "led. The joker plays only to lead or when you cannot follow: with trump it is the "
            "lowest trump, with no trump it wins the trick.",
        ),
        "Keys: in the auction type your bid (a number) or p to pass; in the tricks the number "
        "of a card.",
    ),
    table=TRICK_TABLE,
    seat_columns=(when(has("scores.row"), "  {scores.row:points}"),),
)
