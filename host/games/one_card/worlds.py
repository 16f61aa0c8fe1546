"""What the searching bot (:mod:`host.bots.ai`) needs to know about One Card.

How it works: One Card shows every card that leaves a hand (plays, and a bankrupt hand under
the top discard), and nothing of what goes into one, so a seat's view is all it can know: its
memory keeps nothing. A world deals the cards the seat has not seen (the 54 less its hand and
the discards) at random into the other hands, by their counts, and the stock
(:meth:`~host.games.one_card.engine.OneCard.from_view`). Simulated tables race to call "One
Card!" as bots do: whenever a call window is open a seat picked at random calls. The playout
policy sheds greedily: a card rather than a draw, an attack card half of the time when there is
one, a seven (naming a random suit) only when nothing else plays. Simulated games are played to
their end: a win scores 1.
"""

from __future__ import annotations

import random

from host.games.base import Action, State, WireMap
from host.games.deal import WorldTemplate, deal_hidden
from host.games.one_card.engine import OneCard
from host.games.one_card.moves import CALL, DRAW, Play
from host.games.one_card.rules import ATTACKERS
from host.games.support import GameSupport, SeatMemory, by_hand_size
from protocol.cards import DECK_54, Rank

__all__ = ["CARD_WEIGHT", "HORIZON", "SUPPORT", "OneCardMemory", "OneCardSupport"]

#: simulated actions past the search tree before a position is scored by its hand sizes
HORIZON = 12
#: how much each card held lowers a seat's chances (see :func:`host.games.support.by_hand_size`)
CARD_WEIGHT = 0.3


class OneCardMemory(SeatMemory):
    """A One Card seat's memory: nothing beyond its view (see the module docstring).

    A search samples hundreds of worlds from one view: the first builds a *template* from it
    (:meth:`~host.games.one_card.engine.OneCard.from_view`) and keeps what it read (the
    hidden cards, the places' sizes); each world after is a copy of the template with the
    hidden cards dealt afresh, the same world ``from_view`` would build, made without reading
    the view again (reading it was a third of a two-seat search's time)."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self._template: WorldTemplate[OneCard] | None = None

    def __getstate__(self) -> dict[str, object]:
        return {"seat": self.seat, "_template": None}  # a search job carries no template

    def template(self, view: WireMap) -> WorldTemplate[OneCard]:
        """The template of ``view``: built at its first world, kept for the next ones."""
        template = self._template
        if template is None or template.view is not view:
            template = self._template = WorldTemplate(view, self.seat, OneCard, DECK_54)
        return template

    def sample(self, view: WireMap, rng: random.Random) -> State:
        template = self.template(view)
        places = deal_hidden(template.pool, template.sizes, rng)
        return template.world(places)


class OneCardSupport(GameSupport):
    """One Card for the search (see the module docstring)."""

    table_iterations = 2_500  #: 4,300-5,000 iterations a CPU second (docs/BOTS.md)

    def memory(self, seat: int) -> SeatMemory:
        return OneCardMemory(seat)

    def turn_actions(self, world: State, seat: int) -> list[Action]:
        return [a for a in world.legal_actions(seat) if a is not CALL]

    def announce(self, world: State, rng: random.Random) -> tuple[int, Action] | None:
        to_act = world.to_act()
        if not to_act:
            return None
        other = (to_act[0] + 1) % world.seats  # a seat's legal list is cheap off its turn
        if CALL not in world.legal_actions(other):
            return None
        return rng.randrange(world.seats), CALL

    horizon = HORIZON

    def evaluate(self, world: State) -> list[float]:
        assert isinstance(world, OneCard)
        return by_hand_size(world.standing(), CARD_WEIGHT)

    def playout(self, world: State, seat: int, rng: random.Random) -> Action:
        legal = world.legal_actions(seat)
        plays = [a for a in legal if isinstance(a, Play)]
        if not plays:
            return legal[0] if legal else DRAW
        plain = [a for a in plays if a.cards[0].rank is not Rank.SEVEN]
        if not plain:
            return plays[rng.randrange(len(plays))]
        attacks = [a for a in plain if a.cards[-1] in ATTACKERS]
        if attacks and rng.random() < 0.5:
            return attacks[rng.randrange(len(attacks))]
        return plain[rng.randrange(len(plain))]


SUPPORT = OneCardSupport()
