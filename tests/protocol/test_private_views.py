"""protocol.private_views: what a seat may send on a private table (PROTOCOL.md 10.13, 10.14),
checked against spec/vectors/legal_sets.json, an independent brute force, and properties."""

from __future__ import annotations

import importlib.util
import itertools
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.private_views import (
    Allowed,
    Position,
    ViewError,
    action_cards,
    allowed,
    default_move,
    first_met,
    hand_of,
    holds,
    is_private_view,
    unopened,
)

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "spec" / "vectors" / "legal_sets.json"
DATA: dict[str, Any] = json.loads(VECTORS.read_text())


def _opened(case: Mapping[str, Any]) -> dict[Position, str]:
    return {(s, p): c for s, p, c in case["opened"]}


def _brute_holds(
    cards: Sequence[str], held: Sequence[tuple[Position, str]], only: Sequence[Position] | None
) -> bool:
    """Whether some choice of distinct positions gives ``cards`` (every assignment tried)."""
    pool = [(w, c) for w, c in held if only is None or w in only]
    for chosen in itertools.permutations(range(len(pool)), len(cards)):
        if all(pool[i][1] == card for i, card in zip(chosen, cards, strict=True)):
            return True
    return False


def _brute_allowed(view: Mapping[str, Any], opened: Mapping[Position, str]) -> list[dict[str, Any]]:
    """10.13 read literally, with no shortcut: the actions a seat may send."""
    held = [((s, p), opened[s, p]) for s, p in view["positions"] if (s, p) in opened]
    for one in view["legal_sets"]:
        only = None if "positions" in one and one["positions"] is None else one.get("positions")
        only_t = None if only is None else [tuple(x) for x in only]
        plays = [
            a
            for a in one["actions"]
            if _brute_cards(a) and _brute_holds(_brute_cards(a), held, only_t)
        ]
        if plays:
            return [*plays, *view["legal"]]
    return [*view["legal"], *view["unless_met"]]


def _brute_cards(action: Mapping[str, Any]) -> list[str]:
    if "cards" in action:
        return list(action["cards"])
    return [action["card"]] if "card" in action else []


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["name"])
def test_each_vector_re_derives(case: dict[str, Any]) -> None:
    view, opened = case["view"], _opened(case)
    assert hand_of(view, opened) == case["hand"]
    met = first_met(view, opened)
    assert (None if met is None else met[0]) == case["met"]
    got = [[a.action, [list(p) for p in a.positions]] for a in allowed(view, opened)]
    assert got == case["allowed"]
    move = default_move(view, opened)
    assert (None if move is None else [move.action, [list(p) for p in move.positions]]) == case[
        "default"
    ]


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["name"])
def test_each_vector_agrees_with_a_brute_force_reading(case: dict[str, Any]) -> None:
    view, opened = case["view"], _opened(case)
    assert [a for a, _ in case["allowed"]] == _brute_allowed(view, opened)
    for action, used in case["allowed"]:
        cards = [opened[s, p] for s, p in used]
        assert cards == _brute_cards(action)
        assert len({tuple(u) for u in used}) == len(used)


def test_the_stored_vectors_are_what_the_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location(
        "legal_sets_generate", ROOT / "tools" / "generate_legal_sets_vectors.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.build() == DATA


def test_the_vectors_cover_each_branch() -> None:
    names = {c["name"]: c for c in DATA["cases"]}
    assert names["one_follow_suit_holds_hearts"]["met"] == 0
    assert names["one_no_hearts_plays_anything"]["met"] == 1
    assert names["must_play_if_able_none_met_draws"]["allowed"] == [[{"type": "draw"}, []]]
    assert names["not_our_turn_nothing_to_send"]["default"] is None
    twice = names["two_packs_a_card_twice_needs_two_copies"]["allowed"]
    assert [{"type": "play", "cards": ["7D", "7D"]}, [[0, 20]]] not in twice
    assert twice[0][1] == [[0, 10], [0, 30]]


# ---------------------------------------------------------------- properties

CARDS = ["AS", "2S", "7H", "7D", "KC", "JR"]
position = st.tuples(st.integers(0, 2), st.integers(0, 20))


@st.composite
def views(draw: st.DrawFn) -> tuple[dict[str, Any], dict[Position, str]]:
    positions = draw(st.lists(position, max_size=7, unique=True))
    opened = {p: draw(st.sampled_from(CARDS)) for p in positions if draw(st.booleans())}
    play = st.one_of(
        st.builds(lambda c: {"type": "play", "card": c}, st.sampled_from(CARDS)),
        st.builds(
            lambda cs: {"type": "play", "cards": cs},
            st.lists(st.sampled_from(CARDS), min_size=1, max_size=3),
        ),
    )
    sets = []
    for _ in range(draw(st.integers(0, 3))):
        one: dict[str, Any] = {"actions": draw(st.lists(play, min_size=1, max_size=5))}
        limited: bool = bool(positions) and draw(st.booleans())
        if limited:
            one["positions"] = [list(p) for p in draw(st.lists(st.sampled_from(positions)))]
        sets.append(one)
    legal = draw(st.lists(st.sampled_from([{"type": "draw"}, {"type": "pass"}]), max_size=2))
    unless = draw(st.lists(st.just({"type": "draw"}), max_size=1))
    view = {
        "hand": None,
        "positions": [list(p) for p in positions],
        "legal_sets": sets,
        "legal": legal,
        "unless_met": unless,
    }
    return view, opened


@settings(max_examples=300, deadline=None)
@given(views())
def test_allowed_is_10_13_read_literally(case: tuple[dict[str, Any], dict[Position, str]]) -> None:
    view, opened = case
    got = allowed(view, opened)
    assert [a.action for a in got] == _brute_allowed(view, opened)
    mine = set(map(tuple, view["positions"]))
    for a in got:
        if not a.positions:
            assert not action_cards(a.action)
            continue
        assert len(set(a.positions)) == len(a.positions)
        assert set(a.positions) <= mine
        assert [opened[p] for p in a.positions] == action_cards(a.action)


@settings(max_examples=300, deadline=None)
@given(views())
def test_plays_come_from_the_first_set_met_and_keep_its_positions(
    case: tuple[dict[str, Any], dict[Position, str]],
) -> None:
    view, opened = case
    met = first_met(view, opened)
    held = [(tuple(p), opened[tuple(p)]) for p in view["positions"] if tuple(p) in opened]
    if met is None:
        for one in view["legal_sets"]:
            only = one.get("positions")
            limit = None if only is None else [tuple(p) for p in only]
            assert all(holds(a, held, limit) is None for a in one["actions"])
        return
    i, plays = met
    for earlier in view["legal_sets"][:i]:
        only = earlier.get("positions")
        limit = None if only is None else [tuple(p) for p in only]
        assert all(holds(a, held, limit) is None for a in earlier["actions"])
    only = view["legal_sets"][i].get("positions")
    for play in plays:
        assert play.action in view["legal_sets"][i]["actions"]
        if only is not None:
            assert set(play.positions) <= {tuple(p) for p in only}


@settings(max_examples=300, deadline=None)
@given(views())
def test_the_default_move_is_the_first_allowed_play_else_unless_met_else_legal(
    case: tuple[dict[str, Any], dict[Position, str]],
) -> None:
    view, opened = case
    move = default_move(view, opened)
    got = allowed(view, opened)
    if first_met(view, opened) is not None:
        assert move == got[0]
    elif view["unless_met"] or view["legal"]:
        assert move == Allowed([*view["unless_met"], *view["legal"]][0])
        assert move in got
    else:
        assert move is None and got == []


@settings(max_examples=200, deadline=None)
@given(views())
def test_the_hand_is_the_opened_cards_in_position_order(
    case: tuple[dict[str, Any], dict[Position, str]],
) -> None:
    view, opened = case
    order = [tuple(p) for p in view["positions"]]
    assert hand_of(view, opened) == [opened[p] for p in order if p in opened]
    assert unopened(view, opened) == [p for p in order if p not in opened]
    assert Counter(hand_of(view, opened)) == Counter(opened.values())


@pytest.mark.parametrize(
    "view",
    [
        {"hand": None, "positions": [[0]], "legal_sets": []},
        {"hand": None, "positions": [[0, -1]], "legal_sets": []},
        {"hand": None, "positions": [[0, True]], "legal_sets": []},
        {"hand": None, "positions": [], "legal_sets": {"actions": []}},
        {"hand": None, "positions": [], "legal_sets": [[]]},
        {"hand": None, "positions": [], "legal_sets": [{"actions": [{"card": "AS"}]}]},
        {"hand": None, "positions": [], "legal_sets": [{"actions": None}]},
        {"hand": None, "positions": [], "legal_sets": [], "legal": [{"type": 3}]},
        {"hand": None, "positions": [], "legal_sets": [], "unless_met": "draw"},
        {
            "hand": None,
            "positions": [[0, 0]],
            "legal_sets": [{"actions": [{"type": "play", "cards": "AS"}]}],
        },
        {
            "hand": None,
            "positions": [[0, 0]],
            "legal_sets": [{"actions": [{"type": "play", "card": 5}]}],
        },
    ],
)
def test_a_malformed_view_is_a_view_error(view: dict[str, Any]) -> None:
    with pytest.raises(ViewError):
        allowed(view, {(0, 0): "AS"})


def test_a_private_view_is_told_from_a_normal_one() -> None:
    assert is_private_view({"hand": None, "legal_sets": []})
    assert not is_private_view({"hand": ["AS"], "legal": []})
    assert not is_private_view({"hand": None})
