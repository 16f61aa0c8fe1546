"""How Race Out reads to people: wording only, sent in the host's ``games`` reply."""

from __future__ import annotations

from host.games.presentation import Key, Presentation
from host.games.wording import endings

__all__ = ["PRESENTATION"]

PRESENTATION = Presentation(
    help="Race Out: play any card of yours in turn; the first out of cards wins",
    layout="shedding",
    keys={"play": Key("p", "you cannot play now")},
    events={
        "deal": "{dealer:name} deals",
        "hand": "{me:name} is dealt {cards:cards}",
        "play": "{seat:name} races {card:cards}",
    },
    actions={"play": "race {card:cards}"},
    endings=endings("went_out"),
    guide=("Play one card a turn, any card: the first with an empty hand wins.",),
    table=("Race pile: {pile:cards}",),
)
