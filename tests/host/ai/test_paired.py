"""The flat search with common worlds: its budget, its default, and why the worlds are shared."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from host.bots.ai.ismcts import Budget, search
from host.bots.ai.paired import paired_search
from host.games import find_support, game_names

if TYPE_CHECKING:
    from tests.host.ai.conftest import Turns


@pytest.mark.parametrize("name", game_names())
def test_it_spends_its_budget_on_each_candidate_and_replays(name: str, turns: Turns) -> None:
    support = find_support(name)
    budget = Budget(iterations=60)
    for engine, memory in turns(name, 4, 4):
        view = engine.view(0)
        first = paired_search(view, memory, support, random.Random(2), budget)
        assert first is not None
        if first.iterations:  # not a choice of one
            break
    again = paired_search(view, memory, support, random.Random(2), budget)
    assert again is not None
    assert first.action == again.action
    assert first.action.to_wire() in view["legal"]
    candidates = len(first.visits)
    assert candidates >= 2
    # whole rounds: each candidate once a world, until the budget is spent
    assert 60 <= first.iterations < 60 + candidates
    assert set(first.visits.values()) == {first.iterations // candidates}


@pytest.mark.parametrize("name", game_names())
def test_without_two_worlds_of_evidence_the_default_stands(name: str, turns: Turns) -> None:
    support = find_support(name)
    tried = 0
    for engine, memory in turns(name, 2, 5):
        view = engine.view(0)
        world = memory.sample(view, random.Random(0))
        actions = support.turn_actions(world, 0)
        if len(actions) < 2:
            continue
        for action in actions:
            result = paired_search(
                view,
                memory,
                support,
                random.Random(3),
                Budget(iterations=1),  # one world: one score per candidate, no spread
                default=action.to_wire(),
            )
            assert result is not None
            assert result.action == action
            tried += 1
        if tried >= 6:
            break
    assert tried >= 6


# --- why the worlds are shared: a game whose deal outweighs the move


@dataclass(frozen=True)
class Move:
    gain: float

    def to_wire(self) -> dict[str, Any]:
        return {"type": "move", "gain": self.gain}


class Luck:
    """A one-move game: the seat's score is the luck of the world plus the gain of its move."""

    seats = 1
    moves = (Move(0.0), Move(0.02))  # the better move is worth 0.02, the deal up to 0.9

    def __init__(self, luck: float) -> None:
        self.luck = luck
        self.score: float | None = None

    def to_act(self) -> list[int]:
        return [] if self.score is not None else [0]

    def legal_actions(self, seat: int) -> list[Move]:
        return list(self.moves)

    def clone(self) -> Luck:
        return Luck(self.luck)

    def apply(self, seat: int, action: Move) -> None:
        self.score = self.luck + action.gain

    def chance_request(self) -> None:
        return None


class LuckMemory:
    seat = 0

    def sample(self, view: Any, rng: random.Random) -> Luck:
        return Luck(0.9 * rng.random())


class LuckSupport:
    horizon = None
    paired = True

    def turn_actions(self, world: Luck, seat: int) -> list[Move]:
        return world.legal_actions(seat)

    def returns(self, world: Luck) -> list[float] | None:
        return None if world.score is None else [world.score]

    def announce(self, world: Luck, rng: random.Random) -> None:
        return None

    def playout(self, world: Luck, seat: int, rng: random.Random) -> Move:
        raise AssertionError("a one-move game has no playout")


def test_a_small_gain_shows_in_common_worlds_that_different_ones_would_hide() -> None:
    """Two moves 0.02 apart, in worlds whose luck spreads over 0.9: the tree search compares
    means over different worlds, whose noise (a standard error of some 0.04 over 100 worlds
    each) hides the gain, so its default mostly stands; in common worlds every difference is
    the gain itself, so the flat search takes the better move every time, and never leaves the
    better move for the worse."""
    view = {"seat": 0}
    memory: Any = LuckMemory()
    support: Any = LuckSupport()
    budget = Budget(iterations=200)
    worse, better = (m.to_wire() for m in Luck.moves)
    paired = [
        paired_search(view, memory, support, random.Random(k), budget, default=worse)
        for k in range(20)
    ]
    assert all(r is not None and r.action == Move(0.02) for r in paired)
    kept = [
        paired_search(view, memory, support, random.Random(k), budget, default=better)
        for k in range(20)
    ]
    assert all(r is not None and r.action == Move(0.02) for r in kept)
    tree = [
        search(view, memory, support, random.Random(k), budget, default=worse) for k in range(20)
    ]
    assert sum(r is not None and r.action == Move(0.02) for r in tree) <= 10


def test_a_budget_in_seconds_ends_the_search_after_its_round() -> None:
    """At a table the budget is wall-clock time: the search stops once it is spent, after the
    round of candidates under way (a world's comparison is never left half made)."""
    support: Any = LuckSupport()
    ticks = iter(range(1_000))
    result = paired_search(
        {"seat": 0},
        LuckMemory(),  # type: ignore[arg-type]
        support,
        random.Random(1),
        Budget(seconds=2.5),
        clock=lambda: float(next(ticks)),  # a second a look: the deadline (2.5) at the fourth
    )
    assert result is not None
    # the first round always runs; the looks after it, at 1 and 2 s, let two more run
    assert result.iterations == 3 * len(Luck.moves)
    assert set(result.visits.values()) == {3}


class Narrow(LuckSupport):
    """Luck whose candidates leave the better move out, as a game's short list may leave out
    the normal bot's move."""

    def turn_actions(self, world: Luck, seat: int) -> list[Move]:
        return [Move(0.0)]


def test_a_default_the_candidates_leave_out_is_still_weighed() -> None:
    support: Any = Narrow()
    better = Move(0.02).to_wire()
    result = paired_search(
        {"seat": 0}, LuckMemory(), support, random.Random(1), Budget(iterations=20), default=better
    )  # type: ignore[arg-type]
    assert result is not None
    assert result.action == Move(0.02)  # not the lone candidate, handed back untried
    assert result.visits == {Move(0.02): 10, Move(0.0): 10}


class Shifting(Luck):
    """A world after the first offers moves the first did not."""

    moves = (Move(0.5),)


class ShiftingMemory(LuckMemory):
    def __init__(self) -> None:
        self.worlds = 0

    def sample(self, view: Any, rng: random.Random) -> Luck:
        self.worlds += 1
        return Luck(0.5) if self.worlds == 1 else Shifting(0.5)


def test_worlds_where_no_candidate_is_legal_still_spend_the_budget() -> None:
    """The candidates come from the first world; a later world where none of them is legal
    counts as one iteration, so a search counted in iterations ends."""
    memory = ShiftingMemory()
    support: Any = LuckSupport()
    result = paired_search({"seat": 0}, memory, support, random.Random(1), Budget(iterations=12))  # type: ignore[arg-type]
    assert result is not None
    assert result.iterations == 12
    assert memory.worlds == 1 + 10  # the first round tried both moves, then ten empty rounds
    assert result.visits == {Move(0.0): 1, Move(0.02): 1}
