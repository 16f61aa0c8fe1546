"""A flat search with common worlds: each of the seat's candidate actions is tried in the same
imagined worlds, and the candidates are compared world by world.

How it works: the seat cannot see the other hands, so each round samples a *world* consistent
with what it has seen (:meth:`host.games.support.SeatMemory.sample`), as the tree search does;
then every candidate action (:meth:`~host.games.support.GameSupport.turn_actions`) legal in
that world is taken in a copy of it, and the copy is played on by the game's playout policy for
every seat, with the same generator state for every candidate, until it ends or its horizon
(then :meth:`~host.games.support.GameSupport.evaluate` scores it). A round costs one iteration
of the budget per candidate it tried (one if none was legal in its world).

Why: in a shedding game at four seats the deal decides far more than the move, so a move's
score over random worlds has a spread of some 0.4 while two sensible moves differ by a few
hundredths; the tree search compares each action's mean over *different* worlds, and at the
budgets tried (up to 1,000 iterations) could not tell them apart (docs/BOTS.md). Compared in
the same worlds the deal cancels: what is left is the effect of the move itself, whose spread
is a fraction of that. The answer is the candidate whose mean difference from the *default*
(the normal bot's move) is largest, when that difference is more than
:data:`~host.bots.ai.ismcts.CONFIDENCE` standard errors of the differences above zero (the tree
search's margin, one knob for both); otherwise the default stands. It looks one
move ahead (every later move is the playout policy's), so it is a one-step improvement on the
normal bot, not a deeper plan: a game that needs plans keeps the tree search (see each game's
:attr:`~host.games.support.GameSupport.paired`).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable

from host.bots.ai.ismcts import CONFIDENCE, MAX_PLAYOUT, Budget, SearchResult, between_turns
from host.games.base import Action, State, WireMap
from host.games.support import GameSupport, SeatMemory

__all__ = ["paired_search"]


def paired_search(
    view: WireMap,
    memory: SeatMemory,
    support: GameSupport,
    rng: random.Random,
    budget: Budget,
    *,
    default: WireMap | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> SearchResult | None:
    """The action the seat of ``view`` should take now, or ``None`` if it has no turn action.

    Raises:
        ValueError: ``memory`` cannot sample a world for ``view``.
    """
    seat = int(view["seat"])
    sampled = memory.sample(view, rng)
    if seat not in sampled.to_act():
        return None
    legal = support.turn_actions(sampled, seat)
    # the default is weighed even where the game's candidates leave it out
    kept = None
    if default is not None:
        kept = next((a for a in sampled.legal_actions(seat) if a.to_wire() == default), None)
        if kept is not None and kept not in legal:
            legal = [kept, *legal]
    if len(legal) <= 1:
        return SearchResult(legal[0], 0, {legal[0]: 0}) if legal else None
    if kept is None:
        kept = legal[0]
    tried = dict.fromkeys(legal, 0)  #: worlds each candidate was tried in
    #: per candidate, its score less the default's in the same world (both legal there)
    differences: dict[Action, list[float]] = {a: [] for a in legal if a != kept}
    deadline = None if budget.seconds is None else clock() + budget.seconds
    done = rounds = 0
    while budget.iterations is None or done < budget.iterations:
        if deadline is not None and rounds and clock() >= deadline:
            break
        world = sampled if not rounds else memory.sample(view, rng)
        rounds += 1
        here = set(world.legal_actions(seat))
        seed = rng.getrandbits(64)
        round_scores: dict[Action, float] = {}
        for action in legal:
            if action not in here:
                continue
            trial = world.clone()
            trial.apply(seat, action)
            round_scores[action] = _play_out(trial, support, random.Random(seed))[seat]
        done += max(1, len(round_scores))  # a world where none is legal still spends the budget
        for action, score in round_scores.items():
            tried[action] += 1
            if action != kept and kept in round_scores:
                differences[action].append(score - round_scores[kept])
    best = kept
    best_gain = 0.0
    for action, diffs in differences.items():
        if len(diffs) < 2:
            continue
        gain = statistics.fmean(diffs)
        error = max(statistics.stdev(diffs), 1e-2) / math.sqrt(len(diffs))
        if gain > CONFIDENCE * error and gain > best_gain:
            best, best_gain = action, gain
    return SearchResult(best, done, tried)


def _play_out(world: State, support: GameSupport, rng: random.Random) -> list[float]:
    """Every seat's score once ``world`` is played on by the playout policy to its end or the
    game's horizon."""
    left = MAX_PLAYOUT if support.horizon is None else support.horizon
    while left > 0:
        scores = between_turns(world, support, rng)
        if scores is not None:
            return scores
        seat = world.to_act()[0]
        world.apply(seat, support.playout(world, seat, rng))
        left -= 1
    return support.returns(world) or support.evaluate(world)
