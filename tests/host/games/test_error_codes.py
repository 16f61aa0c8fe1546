"""The wire codes of refused actions, for all three games (spec/PROTOCOL.md 4.2).

An unparsable card code is ``bad_card``; a mistyped field and a card that parses but is not in
the hand are ``bad_field``."""

from __future__ import annotations

from typing import Any

import pytest

from host.games import find_game
from host.games.base import Game, InvalidAction, InvalidCard
from protocol.errors import ErrorCode

#: a play carrying the card code ``code``, in each game's wire form
PLAYS: dict[str, Any] = {
    "one-card": lambda code: {"type": "play", "cards": [code]},
    "black-jack": lambda code: {"type": "play", "cards": [code]},
    "one": lambda code: {"type": "play", "card": code},
}


def _dealt(name: str) -> Game:
    game = find_game(name)(seats=2, dealer=0)
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
