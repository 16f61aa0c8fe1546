"""What the searching bot needs from each game, declared by the game next to its engine.

How it works: the searches (:mod:`host.bots.ai.ismcts`, :mod:`host.bots.ai.paired`) are written
once, over the engine interface of :mod:`host.games.base` (``to_act``, ``legal_actions``, ``apply``,
``clone``, chance answered from the bot's own random generator). What differs per game lives in the
game's package, in a ``worlds`` module whose ``SUPPORT`` is a :class:`GameSupport` (the games
implement it, the search uses it: the interface lives here, below both):

* :meth:`GameSupport.memory` makes a :class:`SeatMemory`, what one seat remembers of the game
  beyond its current view (cards a blunder showed, suits a player could not follow, the cards
  of the tricks already taken), fed the events that seat received, and able to
  :meth:`~SeatMemory.sample` a *world*: a full engine state consistent with the seat's view and
  memory, the hidden cards dealt at random (determinization). It never sees the engine the
  host runs: only a view and events, exactly what the seat's client gets;
* :meth:`GameSupport.turn_actions` lists a seat's turn actions, and
  :meth:`GameSupport.announce` makes the announcements a simulated table would race to make (a
  One Card call, a Black Jack declaration) between turns;
* :meth:`GameSupport.playout` picks a simulated seat's action quickly (a playout policy better
  than uniform, so that simulated games look like real ones);
* :meth:`GameSupport.returns` scores a simulated game: ``None`` while it goes on, else one
  value in ``[0, 1]`` per seat (1 for a win).

:func:`host.games.find_support` finds a game's ``SUPPORT`` through its registry entry.
"""

from __future__ import annotations

import abc
import math
import random
from collections.abc import Sequence

from host.games.base import Action, Outcome, State, WireMap

__all__ = ["GameSupport", "SeatMemory", "by_hand_size", "share_of_win"]


class SeatMemory(abc.ABC):
    """What one seat has seen of a game beyond its view; samples the worlds it may be in."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def observe(self, event: WireMap) -> None:  # noqa: B027 (a game may remember nothing)
        """Remember one event this seat received (public, or private to it), in order."""

    @abc.abstractmethod
    def sample(self, view: WireMap, rng: random.Random) -> State:
        """A world consistent with ``view`` (this seat's) and what was observed.

        Raises:
            ValueError: no world can be sampled now (not a position in which seats act).
        """


class GameSupport(abc.ABC):
    """What the search needs to know about one game (see the module docstring)."""

    @abc.abstractmethod
    def memory(self, seat: int) -> SeatMemory:
        """A fresh memory for ``seat`` at the start of a game."""

    def turn_actions(self, world: State, seat: int) -> list[Action]:
        """The actions ``seat`` may take for its turn (announcements left out)."""
        return world.legal_actions(seat)

    def announce(self, world: State, rng: random.Random) -> tuple[int, Action] | None:
        """An announcement some seat makes now in a simulated game, or ``None``."""
        return None

    @abc.abstractmethod
    def playout(self, world: State, seat: int, rng: random.Random) -> Action:
        """The turn action ``seat`` takes in a simulated game past the search tree (a game
        may find it without listing every legal action: that is the costly part)."""

    #: iterations a move that the hard bot's time at a table (0.6 s,
    #: :data:`host.bots.ai.ismcts.DEFAULT_BUDGET`) buys on one core, rounded down from the
    #: search speed docs/BOTS.md measures: what a tournament gives the hard bot by default, so
    #: that it measures the bot a person meets and still replays from its seed
    table_iterations: int = 1_000

    #: whether the hard bot compares its candidate actions in common worlds, one move ahead
    #: (:mod:`host.bots.ai.paired`), rather than grow a tree over different ones
    #: (:mod:`host.bots.ai.ismcts`)
    paired: bool = False

    #: simulated actions a playout makes past the tree before :meth:`evaluate` scores it
    #: (``None``: play every simulated game to its end)
    horizon: int | None = None

    def evaluate(self, world: State) -> list[float]:
        """Each seat's score in ``[0, 1]`` for an undecided simulated game cut at the horizon:
        by default an even share among the seats still to act."""
        live = world.to_act()
        return [1.0 / len(live) if s in live else 0.0 for s in range(world.seats)]

    def returns(self, world: State) -> list[float] | None:
        """Each seat's score in ``[0, 1]`` once the simulated game is decided, else ``None``."""
        outcome = world.outcome()
        return None if outcome is None else share_of_win(outcome, world.seats)


def share_of_win(outcome: Outcome, seats: int) -> list[float]:
    """1 shared among the winners, 0 for everyone else."""
    share = 1.0 / len(outcome.winners) if outcome.winners else 0.0
    return [share if s in outcome.winners else 0.0 for s in range(seats)]


def by_hand_size(cards: Sequence[float | None], weight: float) -> list[float]:
    """Chances of winning a shedding game from each seat's card count (``None``: out of play).

    Each seat in play gets ``exp(-weight * cards)``, normalised to 1 over the seats in play:
    the fewer cards, the likelier the win.
    """
    raw = [0.0 if n is None else math.exp(-weight * n) for n in cards]
    total = sum(raw)
    return [r / total for r in raw] if total else raw
