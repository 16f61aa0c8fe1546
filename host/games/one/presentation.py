"""How ONE presents itself: its help, its letters, how its events and actions read, and what
the host's bots know about bidding and tricks.

How it works: :data:`PRESENTATION` and :data:`BOT` are plain data (see
:mod:`host.games.presentation`); the engine class carries them and the host sends the first in
its ``games`` reply. Kinds ONE shares with other games are worded in :mod:`host.games.wording`;
the rest are here.
"""

from __future__ import annotations

from host.games.one.strategy import choose
from host.games.presentation import BotFeatures, Key, Presentation, has, is_, truthy, when
from host.games.wording import NO_LINE, PLAY_ACTION, TRICK_TABLE, endings, shared
from protocol.cards import Rank

__all__ = ["BOT", "PRESENTATION"]

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

BOT = BotFeatures(
    passive=frozenset({"pass"}),
    trick_order={
        Rank.NINE: 0,
        Rank.TEN: 1,
        Rank.JACK: 2,
        Rank.QUEEN: 3,
        Rank.KING: 4,
        Rank.ACE: 5,
        Rank.JOKER: 6,
    },
    # points held (K, Q, J one each, the joker three) plus the tricks high cards should win
    bid="bid",
    bid_strength={Rank.ACE: 0.5, Rank.KING: 1.5, Rank.QUEEN: 1.0, Rank.JACK: 1.0, Rank.JOKER: 4.0},
    # downtown (9 high) when the hand has more nines and tens than aces and kings
    switch="downtown",
    switch_for=frozenset({Rank.NINE, Rank.TEN}),
    stay_for=frozenset({Rank.ACE, Rank.KING}),
    strategy=choose,  # the normal level: :mod:`host.games.one.strategy`
)
