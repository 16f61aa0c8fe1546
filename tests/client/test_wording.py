"""Events and actions worded from the host's templates: conditions, formats, the generic
wording an older host gets, and templates from a hostile host. (Every line of the three games
is pinned by the golden snapshots of ``test_render.py``.)"""

from __future__ import annotations

from typing import Any

import pytest

from client.catalogue import CATALOGUE, Catalogue
from client.choices import build_menu
from client.table_view import render_table
from client.wording import describe_action, describe_event
from protocol.text import safe_text

NAMES = ["Ann", "Bob", "Cy"]


def _name(seat: object) -> str:
    return NAMES[seat] if isinstance(seat, int) and 0 <= seat < len(NAMES) else f"seat {seat}"


def _say(template: Any, event: dict[str, Any], **kw: Any) -> str | None:
    house = Catalogue(
        [
            {
                "name": "g",
                "events": {"e": template},
                "words": {"w_1": "word one"},
                "actions": {
                    "draw": ["draw", {"if": {"true": "view.damage"}, "then": " {view.damage}"}]
                },
            }
        ]
    )
    line = describe_event({"kind": "e", **event}, _name, catalogue=house, **kw)
    return None if line is None else line.plain


@pytest.mark.parametrize(
    ("condition", "event", "holds"),
    [
        ({"has": "x"}, {"x": 0}, True),
        ({"has": "x"}, {"x": None}, False),
        ({"has": "x"}, {}, False),
        ({"true": "x"}, {"x": 0}, False),
        ({"true": "x"}, {"x": [1]}, True),
        ({"false": "x"}, {}, True),
        ({"is": {"x": 1}}, {"x": 1}, True),
        ({"is": {"x": [1, None]}}, {}, True),
        ({"is": {"x": 1, "y": "a"}}, {"x": 1, "y": "b"}, False),
        ({"same": ["x", "y"]}, {"x": 2, "y": 2}, True),
        ({"mine": "x"}, {"x": 1}, True),
        ({"mine": "x"}, {"x": 0}, False),
        ({"has": "x", "true": "y"}, {"x": 1, "y": 0}, False),
        ({"unknown": "x"}, {"x": 1}, False),
        ({}, {"x": 1}, False),
        ("not a map", {"x": 1}, False),
    ],
)
def test_conditions(condition: Any, event: dict[str, Any], holds: bool) -> None:
    line = _say({"if": condition, "then": "yes", "else": "no"}, event, me=1)
    assert line == ("yes" if holds else "no")


@pytest.mark.parametrize(
    ("template", "event", "text"),
    [
        ("{seat:name} and {me:name}", {"seat": 2}, "Cy and Bob"),
        ("{x:cards}|{y:cards}", {"x": ["7S", "10H"], "y": "JR"}, "7S 10H|JR"),
        ("{x:card_list}", {"x": ["4D", "5D"]}, "4D, 5D"),
        ("{x:played}", {"x": ["JR", "5D", "JB"], "declare": ["4D"]}, "JR (as 4D) 5D JB"),
        ("{x:suit}/{x:suit_name}", {"x": "H"}, "H/H hearts"),
        ("{x:word} {y:word}", {"x": "w_1", "y": "w_2"}, "word one w_2"),
        ("{x:seats}", {"x": "it is seat 2's turn, not seat 1's"}, "it is Cy's turn, not yours"),
        ("{x:by_seat}", {"x": [5, 6]}, "Ann 5, Bob 6"),
        ("{x:by_seat}", {"x": 5}, ""),
        ("{x:hand}", {"x": 3}, "Game 2, hand 3"),
        ("{x:action}", {"x": {"type": "draw"}}, "draw"),
        ("{x:action}", {"x": "draw"}, ""),
        ("{x} {x:unknown} {missing}", {"x": 7}, "7 7 None"),
        ("{{literal}} {x}", {"x": 1}, "{literal} 1"),
        (["a", None, "b"], {}, None),
        (None, {}, None),
        ({"if": {"has": "x"}, "then": None}, {}, ""),
        (3, {}, "3"),
    ],
)
def test_formats(template: Any, event: dict[str, Any], text: str | None) -> None:
    assert _say(template, event, me=1, ascii_only=True, game_no=2) == text


def test_cards_and_suits_keep_their_colour() -> None:
    house = Catalogue([{"name": "g", "events": {"e": "{c:cards} {s:suit}"}}])
    line = describe_event({"kind": "e", "c": ["7H", "7S"], "s": "D"}, _name, catalogue=house)
    assert line is not None and line.plain == "7♥ 7♠ ♦"
    assert [(s.start, s.end, str(s.style)) for s in line.spans] == [(0, 2, "red"), (6, 7, "red")]


def test_a_move_on_offer_is_worded_with_the_seats_view() -> None:
    house = Catalogue(
        [
            {
                "name": "g",
                "actions": {
                    "draw": [
                        "draw",
                        {"if": {"true": "view.damage"}, "then": " {view.damage} (take the attack)"},
                    ]
                },
            }
        ]
    )
    assert describe_action({"type": "draw"}, catalogue=house).plain == "draw"
    offered = describe_action({"type": "draw"}, view={"damage": 3}, catalogue=house)
    assert offered.plain == "draw 3 (take the attack)"


def test_the_tables_game_is_worded_first() -> None:
    house = Catalogue(
        [{"name": "a", "events": {"e": "as a"}}, {"name": "b", "events": {"e": "as b"}}]
    )
    event = {"kind": "e"}
    assert [describe_event(event, _name, game=g, catalogue=house).plain for g in ("b", None)] == [
        "as b",
        "as a",
    ]


def test_an_older_host_gets_every_event_and_move_worded_generically() -> None:
    """A host that sends no wording (or a game it does not describe): nothing is lost."""
    CATALOGUE.forget()
    event = {"kind": "play", "seat": 1, "cards": ["7S"], "suit": "H", "to": 1}
    assert describe_event(event, _name).plain == "play: seat=1 cards=['7S'] suit=H"
    assert describe_action({"type": "play", "cards": ["7S", "7H"], "suit": "H"}).plain == (
        "play cards=7S,7H suit=H"
    )
    view = {"game": "one-card", "hand": ["7S", "9H"], "top": "7D", "hand_counts": [2, 3]}
    menu = build_menu(view, [{"type": "play", "cards": ["7S"]}, {"type": "draw"}])
    assert [(c.key, c.label.plain) for c in menu.choices] == [("1", "7♠"), ("2", "draw")]
    assert (
        menu.resolve("d")
        == "not understood: 'd'; type a number, a card code like 7S, or a letter shown"
    )
    assert render_table(view, NAMES, me=0).plain.startswith("── one-card ──")


def test_a_hostile_hosts_templates_are_shown_escaped() -> None:
    evil = "\x1b]0;pwned\x07\x1b[2J\u202e"
    house = Catalogue(
        [
            {
                "name": "g",
                "title": evil,
                "help": evil,
                "events": {"e": [evil, "{x}", {"if": {"has": "x"}, "then": evil}]},
                "actions": {"draw": evil},
                "keys": {"draw": {"key": "d", "none": evil}},
            }
        ]
    )
    line = describe_event({"kind": "e", "x": evil}, _name, catalogue=house)
    assert line is not None and line.plain == safe_text(evil) * 3
    assert describe_action({"type": "draw"}, catalogue=house).plain == safe_text(evil)
    assert house.title("g") == house.help("g") == house.refusal("g", "d") == safe_text(evil)


def test_a_hand_going_face_up_is_worded_for_its_holder_and_for_the_others() -> None:
    """Before, a bankrupt player read "Ann's hand goes face up: waiting for their keys" of
    their own hand, whose keys their own client sends."""
    event = {"kind": "show_hand", "hand_no": 3, "seat": 0, "positions": [], "reason": "limit"}
    own = describe_event(event, _name, me=0, game="one-card")
    other = describe_event(event, _name, me=1, game="one-card")
    assert own is not None and own.plain == "Your hand goes face up: your keys go out"
    assert other is not None and other.plain == "Ann's hand goes face up: waiting for their keys"
