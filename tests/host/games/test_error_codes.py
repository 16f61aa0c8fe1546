"""The wire codes of refused actions and options, for all three games (spec/PROTOCOL.md 4.2).

An unparsable card code is ``bad_card``; a mistyped field and a card that parses but is not in
the hand are ``bad_field``; every integer option has a documented range within the integers a
JSON client holds exactly."""

from __future__ import annotations

from typing import Any

import pytest

from host.games import GAMES, find_game
from host.games.base import InvalidAction, InvalidCard, OptionError, State
from protocol.errors import ErrorCode

#: a play carrying the card code ``code``, in each game's wire form
PLAYS: dict[str, Any] = {
    "one-card": lambda code: {"type": "play", "cards": [code]},
    "black-jack": lambda code: {"type": "play", "cards": [code]},
    "one": lambda code: {"type": "play", "card": code},
}

#: 2**53 - 1: the largest integer every JSON implementation holds exactly
MAX_SAFE_INT = 2**53 - 1


def _dealt(name: str) -> State:
    game = find_game(name).new_initial_state(seats=2, dealer=0)
    while (request := game.chance_request()) is not None:
        game.apply_chance(list(request.cards))
    return game


@pytest.mark.parametrize("name", sorted(PLAYS))
@pytest.mark.parametrize("code", ["ZZ", "", "11H", "7X", "JJ"])
def test_an_unparsable_card_code_is_bad_card(name: str, code: str) -> None:
    game = _dealt(name)
    with pytest.raises(InvalidCard) as refused:
        game.parse_action(PLAYS[name](code))
    assert refused.value.code is ErrorCode.BAD_CARD
    assert isinstance(refused.value, InvalidAction)  # ``except InvalidAction`` still catches it


@pytest.mark.parametrize("name", sorted(PLAYS))
@pytest.mark.parametrize("code", [7, None, ["7S"], True])
def test_a_card_code_that_is_not_a_string_is_bad_field(name: str, code: object) -> None:
    with pytest.raises(InvalidAction) as refused:
        _dealt(name).parse_action(PLAYS[name](code))
    assert refused.value.code is ErrorCode.BAD_FIELD


def test_black_jack_declarations_are_card_codes_too() -> None:
    game = _dealt("black-jack")
    with pytest.raises(InvalidCard):
        game.parse_action({"type": "play", "cards": ["JR"], "declare": ["QQ"]})


@pytest.mark.parametrize("name", ["one-card", "black-jack"])
def test_a_card_that_parses_but_is_not_held_is_bad_field(name: str) -> None:
    game = _dealt(name)
    (seat,) = game.to_act()
    held = set(game.view(seat)["hand"])
    code = next(c for c in ("8H", "9H", "10H", "8C", "9C", "10C") if c not in held)
    with pytest.raises(InvalidAction) as refused:
        game.check(seat, game.parse_action(PLAYS[name](code)))
    assert not isinstance(refused.value, InvalidCard)
    assert refused.value.code is ErrorCode.BAD_FIELD


@pytest.mark.parametrize("name", ["one-card", "black-jack"])
def test_a_bad_suit_letter_is_bad_field(name: str) -> None:
    """A suit is a field of its own, not a card code."""
    game = _dealt(name)
    wire = {"type": "play", "cards": ["7S" if name == "one-card" else "AS"], "suit": "X"}
    with pytest.raises(InvalidAction) as refused:
        game.parse_action(wire)
    assert refused.value.code is ErrorCode.BAD_FIELD


def test_every_integer_option_has_a_range_a_json_client_can_hold() -> None:
    for name in GAMES:
        for spec in find_game(name).option_specs:
            if type(spec.default) is not int or spec.choices is not None:
                continue
            assert spec.minimum is not None and spec.maximum is not None, (name, spec.name)
            assert 0 <= spec.minimum <= spec.default <= spec.maximum <= MAX_SAFE_INT
            wire = spec.to_wire()
            assert (wire["min"], wire["max"]) == (spec.minimum, spec.maximum)


@pytest.mark.parametrize(
    ("name", "option", "text", "top"),
    [
        ("one-card", "attack_cap", "0-54", 54),
        ("black-jack", "black_jack_pickup", "1-20", 20),
        ("one", "target", "1-1000", 1000),
    ],
)
def test_an_integer_option_above_its_range_is_refused_naming_the_range(
    name: str, option: str, text: str, top: int
) -> None:
    cls = find_game(name)
    assert cls.validate_options({option: top})[option] == top
    for bad in (top + 1, 2**64 - 1, str(2**64 - 1), -1):
        with pytest.raises(OptionError) as refused:
            cls.validate_options({option: bad})
        assert refused.value.code is ErrorCode.BAD_FIELD
        assert refused.value.message == f"option {option} must be {text}"
