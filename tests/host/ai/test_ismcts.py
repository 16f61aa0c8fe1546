"""The search: its budget, its answers, and that it finds a winning move."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import pytest

from host.bots.ai.ismcts import Budget, search
from host.bots.ai.paired import paired_search
from host.games import find_support, game_names
from host.games.support import by_hand_size

if TYPE_CHECKING:
    from collections.abc import Callable

    from host.bots.ai.ismcts import SearchResult
    from tests.host.ai.conftest import Turns

    Search = Callable[..., SearchResult | None]


def test_a_budget_needs_a_positive_limit() -> None:
    with pytest.raises(ValueError, match="needs"):
        Budget()
    with pytest.raises(ValueError, match="positive"):
        Budget(iterations=0)
    with pytest.raises(ValueError, match="positive"):
        Budget(seconds=-1.0)


@pytest.mark.parametrize("name", game_names())
def test_a_search_spends_its_iterations_on_legal_moves_and_replays(name: str, turns: Turns) -> None:
    support = find_support(name)
    budget = Budget(iterations=60)
    for engine, memory in turns(name, 2, 4):
        view = engine.view(0)
        first = search(view, memory, support, random.Random(2), budget)
        assert first is not None
        if first.iterations:  # not a choice of one (ONE: a hand worth no bid only passes)
            break
    again = search(view, memory, support, random.Random(2), budget)
    assert again is not None
    assert first.iterations == 60
    assert first.action == again.action
    assert first.action.to_wire() in view["legal"]
    assert sum(first.visits.values()) == 60


def test_the_search_takes_the_card_that_wins_the_game(turns: Turns) -> None:
    """At two seats, a One Card hand of one card that plays goes out and wins."""
    found = 0
    for seed in range(300):
        for engine, memory in turns("one-card", 2, seed):
            view = engine.view(0)
            outs = [a for a in view["legal"] if len(a.get("cards") or ()) == len(view["hand"])]
            if not outs:
                continue
            result = search(
                view, memory, find_support("one-card"), random.Random(1), Budget(iterations=150)
            )
            assert result is not None
            assert result.action.to_wire() in outs
            found += 1
        if found >= 3:
            break
    assert found


def test_no_rival_calls_before_the_root_action(turns: Turns) -> None:
    """A seat to act on its own last card with the call window still open goes out: the search
    lets no rival call "One Card!" before the seat's action (that penalty card would leave two
    cards, and a search of one iteration per action then chose to draw in about a quarter of
    these positions)."""
    support = find_support("one-card")
    tried = 0
    for seed in (1, 2, 22, 104, 118, 119):
        for engine, memory in turns("one-card", 2, seed):
            view = engine.view(0)
            outs = [a for a in view["legal"] if len(a.get("cards") or ()) == len(view["hand"])]
            if not outs or {"type": "call"} not in view["legal"]:
                continue
            actions = sum(a["type"] != "call" for a in view["legal"])
            for k in range(10):
                budget = Budget(iterations=actions)
                result = search(view, memory, support, random.Random(k), budget)
                assert result is not None
                assert result.action.to_wire() in outs
                tried += 1
    assert tried >= 30


def test_fewer_cards_mean_better_chances() -> None:
    chances = by_hand_size([1, 5, None, 3], 0.3)
    assert chances[2] == 0.0
    assert chances[0] > chances[3] > chances[1]
    assert sum(chances) == pytest.approx(1.0)


@pytest.mark.parametrize("name", game_names())
def test_a_default_the_search_has_no_evidence_against_stands(name: str, turns: Turns) -> None:
    """With one iteration the search tries a single root action and knows nothing of the rest:
    whichever of its turn actions it is handed as its default is the answer."""
    support = find_support(name)
    overruled = 0
    for engine, memory in turns(name, 2, 5):
        view = engine.view(0)
        alone = search(view, memory, support, random.Random(3), Budget(iterations=1))
        assert alone is not None
        if not alone.iterations:  # a choice of one
            continue
        world = memory.sample(view, random.Random(0))
        for action in support.turn_actions(world, 0):
            default = action.to_wire()
            result = search(
                view, memory, support, random.Random(3), Budget(iterations=1), default=default
            )
            assert result is not None
            assert result.action.to_wire() == default
            overruled += result.action != alone.action
        if overruled >= 5:
            break
    assert overruled >= 5


@pytest.mark.parametrize("find", [search, paired_search], ids=["tree", "common-worlds"])
def test_the_search_overrules_a_default_it_clearly_beats(find: Search, turns: Turns) -> None:
    """Handed the draw as its default, a One Card seat that can go out (and win, at two seats)
    still goes out: every world scores that play 1 (the tree search here, and the flat search
    of :mod:`host.bots.ai.paired` alike)."""
    support = find_support("one-card")
    found = 0
    for seed in range(300):
        for engine, memory in turns("one-card", 2, seed):
            view = engine.view(0)
            outs = [a for a in view["legal"] if len(a.get("cards") or ()) == len(view["hand"])]
            if not outs or {"type": "draw"} not in view["legal"]:
                continue
            draw = {"type": "draw"}
            budget = Budget(iterations=150)
            result = find(view, memory, support, random.Random(1), budget, default=draw)
            assert result is not None
            assert result.action.to_wire() in outs
            found += 1
        if found >= 3:
            break
    assert found >= 3


def test_a_default_that_is_not_legal_is_ignored(turns: Turns) -> None:
    support = find_support("one-card")
    engine, memory = next(turns("one-card", 2, 4))
    view = engine.view(0)
    budget = Budget(iterations=40)
    plain = search(view, memory, support, random.Random(2), budget)
    odd = search(view, memory, support, random.Random(2), budget, default={"type": "bid"})
    assert plain is not None and odd is not None
    assert plain.action == odd.action
