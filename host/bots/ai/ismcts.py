"""Information-set Monte Carlo tree search over any game's engine: the hard bot's thinking.

How it works (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012; OpenSpiel's
``ismcts.py`` read for its shape): the seat to decide cannot see the other hands, so every
iteration starts from a fresh *world*, the hidden cards dealt at random consistently with what
the seat has seen (:meth:`host.games.support.SeatMemory.sample`). One tree of actions is shared by
all the worlds: a node is an action sequence from the root, the seat that chose its last action
owns it, and its children are keyed by the actions (value objects) taken there. In a world,
only the actions legal in *that* world compete; each child counts how often it was available
and UCB weighs its visits against that count, so an action legal in few worlds is not starved.

One iteration: sample a world; walk down the tree choosing by UCB while every legal action has
been tried, add one untried action as a new node, then play the world out with the game's
playout policy (:meth:`~host.games.support.GameSupport.playout`) until
:meth:`~host.games.support.GameSupport.returns` scores it; each node on the path adds the score of
its owner. Between turns the simulated table makes its announcements (a One Card call race) and
chance is answered from the bot's own generator. A seat with one legal action is not a node.
The answer is the root action tried most often, unless the search was handed a *default* (the
hard bot hands it the normal bot's move): then the default stands unless the action tried most
often beats it by :data:`CONFIDENCE` standard errors of the difference of their mean scores. A
hundred iterations spread over several actions leave their means a few points apart at most,
mostly noise; a search free to act on that noise played a near-random pick among the plausible
moves and lost to the normal bot it overruled (docs/BOTS.md).

The search runs until its :class:`Budget` is spent: a number of iterations (reproducible: the
tournament uses it) and/or seconds of wall-clock time (a person waiting at the table).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from host.games.base import Action, State, WireMap
from host.games.playout import answer_chance
from host.games.support import GameSupport, SeatMemory

__all__ = [
    "CONFIDENCE",
    "DEFAULT_BUDGET",
    "EXPLORATION",
    "Budget",
    "SearchResult",
    "between_turns",
    "search",
]

#: UCB's exploration constant, for scores in [0, 1]
EXPLORATION = 0.7
#: simulated actions after which a playout with no horizon gives up (then it is evaluated)
MAX_PLAYOUT = 2_000


@dataclass(frozen=True, slots=True)
class Budget:
    """How long one decision may take: ``iterations``, ``seconds``, or whichever ends first."""

    seconds: float | None = None
    iterations: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is None and self.iterations is None:
            raise ValueError("a budget needs seconds or iterations")
        if (self.seconds is not None and self.seconds <= 0) or (
            self.iterations is not None and self.iterations < 1
        ):
            raise ValueError("a budget must be positive")


#: what the hard bot thinks at a table: well under a second a move on a two-core machine
DEFAULT_BUDGET = Budget(seconds=0.6, iterations=20_000)


@dataclass(slots=True)
class _Node:
    seat: int
    visits: int = 0
    total: float = 0.0
    squares: float = 0.0  #: the sum of the squared scores (for the spread of the mean)
    available: int = 0
    children: dict[Action, _Node] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The chosen action, with how often each root action was tried (``visits``)."""

    action: Action
    iterations: int
    visits: dict[Action, int]


def search(
    view: WireMap,
    memory: SeatMemory,
    support: GameSupport,
    rng: random.Random,
    budget: Budget = DEFAULT_BUDGET,
    *,
    default: WireMap | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> SearchResult | None:
    """The action the seat of ``view`` should take now, or ``None`` if it has no turn action;
    ``default`` (in wire form) stands unless the search finds better by a margin (see the
    module docstring).

    Raises:
        ValueError: ``memory`` cannot sample a world for ``view``.
    """
    seat = int(view["seat"])
    first = memory.sample(view, rng)
    legal = support.turn_actions(first, seat) if seat in first.to_act() else []
    if len(legal) <= 1:
        return SearchResult(legal[0], 0, {legal[0]: 0}) if legal else None
    root = _Node(seat)
    deadline = None if budget.seconds is None else clock() + budget.seconds
    done = 0
    world: State | None = first
    while budget.iterations is None or done < budget.iterations:
        if deadline is not None and done and clock() >= deadline:
            break
        _iterate(world or memory.sample(view, rng), root, support, rng)
        world = None
        done += 1
    visits = {a: root.children[a].visits for a in legal if a in root.children}
    best = max(legal, key=lambda a: (visits.get(a, 0), _mean(root.children.get(a))))
    if default is not None:
        kept = next((a for a in legal if a.to_wire() == default), None)
        if (
            kept is not None
            and kept is not best
            and not _beats(root.children.get(best), root.children.get(kept))
        ):
            best = kept
    return SearchResult(best, done, visits)


#: standard errors by which the search's pick must beat the default (the normal bot's move)
CONFIDENCE = 1.0


def _beats(node: _Node | None, other: _Node | None) -> bool:
    """Whether ``node``'s mean score beats ``other``'s by :data:`CONFIDENCE` standard errors of
    their difference (each node's spread from its own scores; a floor keeps a node whose scores
    all agree from counting as certain). Without a visit to each there is no evidence: no."""
    if node is None or other is None or not node.visits or not other.visits:
        return False
    spread = 0.0
    for n in (node, other):
        mean = n.total / n.visits
        spread += max(n.squares / n.visits - mean * mean, 1e-4) / n.visits
    return _mean(node) - _mean(other) > CONFIDENCE * math.sqrt(spread)


def _mean(node: _Node | None) -> float:
    return node.total / node.visits if node is not None and node.visits else 0.0


def _iterate(world: State, root: _Node, support: GameSupport, rng: random.Random) -> None:
    """One iteration from ``world``: select, expand one node, play out, back up the scores."""
    node: _Node | None = root
    path: list[_Node] = []
    scores: list[float] | None = None
    left = MAX_PLAYOUT if support.horizon is None else support.horizon
    while left > 0:
        # no announcement before the root's action: the seat acts now, on the position it sees
        # (its own call, if any, came first); another seat's call there would change the hand
        # the root's actions were listed for (a rival's "One Card!" on our last card)
        scores = between_turns(world, support, rng, announce=node is not root)
        if scores is not None:
            break
        seat = world.to_act()[0]
        if node is None:
            action = support.playout(world, seat, rng)
            left -= 1
        else:
            legal = support.turn_actions(world, seat)
            if len(legal) == 1:
                action = legal[0]
            else:
                action, node = _select(node, seat, legal, rng)
                path.append(node)
                if not node.visits:
                    node = None  # a new node: play out from here
        world.apply(seat, action)
    if scores is None:
        scores = support.returns(world) or support.evaluate(world)
    for visited in path:
        score = scores[visited.seat]
        visited.visits += 1
        visited.total += score
        visited.squares += score * score


def between_turns(
    world: State, support: GameSupport, rng: random.Random, *, announce: bool = True
) -> list[float] | None:
    """Answer chance and make announcements (with ``announce``) until a seat must act; the
    scores if it is over."""
    while True:
        scores = support.returns(world)
        if scores is not None:
            return scores
        if world.chance_request() is not None:
            answer_chance(world, rng)
            continue
        said = support.announce(world, rng) if announce else None
        if said is None:
            return None
        world.apply(*said)


def _select(
    node: _Node, seat: int, legal: Sequence[Action], rng: random.Random
) -> tuple[Action, _Node]:
    """The child to follow: an untried legal action if any, else the best by UCB."""
    children = node.children
    untried = []
    for a in legal:
        child = children.get(a)
        if child is None:
            untried.append(a)
        else:
            child.available += 1
    if untried:
        action = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
        child = children[action] = _Node(seat, available=1)
        return action, child
    best, best_value = legal[0], -math.inf
    for a in legal:
        child = children[a]
        value = child.total / child.visits + EXPLORATION * math.sqrt(
            math.log(child.available) / child.visits
        )
        if value > best_value:
            best, best_value = a, value
    return best, children[best]
