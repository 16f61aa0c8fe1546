"""client/table_view.py: the table drawn from the view fields each game declares in the host's
``games`` reply, never from view keys the client knows by name."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client.catalogue import Catalogue
from client.table_view import CORE_KEYS, render_table
from host.games import find_game, game_entries, game_names
from host.games.playout import playout

CLIENT = Path(__file__).resolve().parents[2] / "client"
NAMES = ["Ann", "Bob", "Cy"]

#: a game no client was written for: its own view fields, its own table and seat tags
TOY = {
    "name": "snap",
    "title": "Snap",
    "table": [
        "Pile: {pile:cards}   {pot} chips in the pot",
        {"strong": {"if": {"true": "snap_now"}, "then": "SNAP is on!"}},
        {"if": {"some": "chips"}, "then": "Chips: {chips:by_seat}"},
        {"if": {"true": "nothing"}, "then": "never shown"},
    ],
    "seat_columns": [{"if": {"has": "chips.row"}, "then": "  {chips.row:points}"}],
    "seat_tags": [
        {"if": {"in": ["row", "snapped"]}, "then": "snapped #{snapped:place}"},
        {"if": {"same": ["row", "caller.seat"]}, "then": "calls"},
    ],
}


def _toy_view(**more: Any) -> dict[str, Any]:
    return {
        "game": "snap",
        "seat": 0,
        "dealer": 2,
        "to_act": [1],
        "hand_counts": [5, 4, 0],
        "pile": ["7S", "7H"],
        "pot": 6,
        "snap_now": True,
        "chips": [1, 0, 12],
        "snapped": [2],
        "caller": {"seat": 1},
        **more,
    }


def test_a_game_the_client_never_heard_of_is_drawn_from_its_declarations() -> None:
    """Before, render.py drew only the fields of three games by name (top, trick, auction,
    call_window, ...): a fourth game's table was blank but for its seats."""
    text = render_table(_toy_view(), NAMES, me=0, ascii_only=True, catalogue=Catalogue([TOY]))
    assert text.plain.splitlines() == [
        "-- Snap ------------------------------------",
        "Pile: 7S 7H   6 chips in the pot",
        "SNAP is on!",
        "Chips: Ann 1, Bob 0, Cy 12",
        "   Ann   5 cards    1 pt   (you)",
        " > Bob   4 cards    0 pts  (calls)",
        "   Cy    0 cards   12 pts  (dealer, snapped #1)",
    ]
    stressed = text.plain.index("SNAP is on!")
    assert any(
        span.start <= stressed < span.end and "bold" in str(span.style) for span in text.spans
    )


def test_a_line_or_tag_whose_fields_are_empty_is_left_out() -> None:
    view = _toy_view(snap_now=False, chips=[0, 0, 0], snapped=[], caller=None)
    text = render_table(view, NAMES, me=None, ascii_only=True, catalogue=Catalogue([TOY])).plain
    assert "SNAP" not in text and "Chips:" not in text and "never shown" not in text
    assert "snapped" not in text and "calls" not in text
    assert "   Cy    0 cards    0 pts  (dealer)" in text


def test_a_host_that_declares_no_table_gets_the_view_fields_shown_as_they_are() -> None:
    """An older host (or another implementation) that sends no ``table``: nothing is lost."""
    plain = Catalogue([{"name": "snap", "title": "Snap"}])
    text = render_table(_toy_view(), NAMES, me=0, ascii_only=True, catalogue=plain).plain
    assert "pile: ['7S', '7H']\n" in text and "pot: 6\n" in text and "caller: {'seat': 1}" in text
    assert "hand_counts" not in text and "to_act" not in text  # the core keys are drawn
    assert "   Ann   5 cards  (you)" in text


def test_host_text_in_declarations_and_views_is_made_safe() -> None:
    evil = {**TOY, "table": ["Pile\x1b[2J: {pile:cards} {pot}"]}
    text = render_table(
        _toy_view(pot="\x1b]0;pwned\x07"), NAMES, me=0, catalogue=Catalogue([evil])
    ).plain
    assert "\x1b" not in text and "\\x1b[2J" in text and "\\x1b]0;pwned\\x07" in text


def _views(name: str) -> list[dict[str, Any]]:
    views: list[dict[str, Any]] = []
    playout(
        find_game(name).state,
        seats=3,
        rng=random.Random(7),
        max_steps=200,
        on_step=lambda game, *_: views.append(game.view(0)),
    )
    return views


@pytest.mark.parametrize("name", game_names())
def test_every_view_key_a_game_declares_for_its_table_is_one_its_view_has(name: str) -> None:
    """A declaration naming a field the view never has would draw nothing: the game's table
    reads its own view's fields."""
    entry = next(e for e in game_entries() if e["name"] == name)
    assert entry["table"], f"{name} declares no table"
    keys = set().union(*(v.keys() for v in _views(name)))
    named = _fields([entry["table"], entry["seat_columns"], entry["seat_tags"]])
    assert named - keys - {"me", "row"} == set()


def _fields(template: Any) -> set[str]:
    """The first part of every field a template names, in placeholders and conditions."""
    found: set[str] = set()
    if isinstance(template, str):
        for match in re.finditer(r"\{([^{}:]+)(?::[^{}]*)?\}", template):
            found.add(match.group(1).split(".")[0])
    elif isinstance(template, list):
        for part in template:
            found |= _fields(part)
    elif isinstance(template, dict):
        for key, value in template.items():
            if key == "if":
                for test, arg in value.items():
                    names = arg.keys() if test == "is" else arg if isinstance(arg, list) else [arg]
                    found |= {str(n).split(".")[0] for n in names}
            else:
                found |= _fields(value)
    return found


@pytest.mark.parametrize("name", game_names())
def test_every_game_is_drawn_from_its_declarations_alone(name: str) -> None:
    """The client's own knowledge is the core keys: each game's table lines come from its
    ``games`` entry (drawn with a catalogue that lacks them, they are gone)."""
    catalogue = Catalogue(game_entries())
    bare = Catalogue(
        [{"name": e["name"], "title": e["title"], "table": []} for e in game_entries()]
    )
    for view in _views(name)[5:40:5]:
        full = render_table(view, NAMES, me=0, catalogue=catalogue).plain.splitlines()
        seats = render_table(view, NAMES, me=0, catalogue=bare).plain.splitlines()
        assert len(full) > len(seats) == 1 + len(view["hand_counts"])


def test_the_table_view_reads_no_game_view_key_by_name() -> None:
    """render.py and table_view.py name only the core keys of a view: every other field a
    game's view has (top, trick, auction, call_window, ...) reaches the screen through the
    game's declarations."""
    from tests.client.test_catalogue import _strings

    game_keys = set().union(*(v.keys() for n in game_names() for v in _views(n))) - CORE_KEYS
    assert _strings(CLIENT / "table_view.py") & game_keys == set()
    # render.py words a game_over outcome (3.2: its keys ranking and scores; a negative count
    # of cards left reads "bankrupt"), never a view
    assert _strings(CLIENT / "render.py") & game_keys == {"ranking", "scores", "bankrupt"}


SNAP = Catalogue([{"name": "snap", "table": ["Pile: {pile:cards}"]}])


@pytest.mark.parametrize(
    "view",
    [
        {"game": "snap", "hand_counts": [None, 3], "to_act": []},
        {"game": "snap", "hand_counts": [{"x": 1}, "2", True], "to_act": 5},
        {"game": "snap", "hand_counts": "lots", "to_act": [None, "0", 1]},
    ],
)
def test_a_view_of_the_wrong_shape_is_drawn_not_fatal(view: dict[str, Any]) -> None:
    """Before, a host's ``hand_counts`` with a null in it, or a ``to_act`` that was a number,
    ended the terminal client with a TypeError (a view is only "some map" on the wire)."""
    drawn = render_table(view, ["Ann", "Bob", "Cy"], me=0, catalogue=SNAP).plain
    assert drawn.startswith("── snap")


_ANY = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**12) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
_TEMPLATE = st.recursive(
    st.text(max_size=20).map(lambda t: t.replace("{", "{{") if "}" not in t else t)
    | st.sampled_from(["{pile:cards}", "{row}", "{scores.row:points}", "{a.b.c}", "{x:follow}"]),
    lambda inner: st.dictionaries(
        st.sampled_from(["if", "then", "else", "strong", "in", "some", "has", "is"]),
        inner | _ANY,
        max_size=3,
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    view=st.dictionaries(
        st.sampled_from(["game", "hand_counts", "to_act", "dealer", "pile", "scores", "row", "a"]),
        _ANY,
    ),
    table=st.lists(_TEMPLATE | _ANY, max_size=3),
    columns=st.lists(_TEMPLATE | _ANY, max_size=2),
    tags=st.lists(_TEMPLATE | _ANY, max_size=2),
)
def test_no_view_or_declared_table_from_a_host_ends_the_client(
    view: dict[str, Any], table: list[Any], columns: list[Any], tags: list[Any]
) -> None:
    """A hostile or broken host's views and ``games`` declarations, whatever their shapes, are
    drawn or left out: render_table never raises."""
    house = Catalogue(
        [{"name": "snap", "table": table, "seat_columns": columns, "seat_tags": tags}]
    )
    view = {**view, "game": "snap"}
    drawn = render_table(view, ["Ann", "Bob"], me=0, catalogue=house)
    assert drawn.plain.startswith("── snap")
