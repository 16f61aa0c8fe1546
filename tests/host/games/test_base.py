from __future__ import annotations

import pytest

from host.games import find_game, game_names
from host.games.base import OptionError, OptionSpec


def test_bool_option_accepts_cli_words() -> None:
    spec = OptionSpec("multi_play", False, "help")
    assert spec.validate("on") is True and spec.validate("off") is False
    assert spec.validate(True) is True
    with pytest.raises(OptionError, match="on/off"):
        spec.validate("maybe")


def test_int_option_checks_bounds() -> None:
    spec = OptionSpec("attack_cap", 0, "help", minimum=0, maximum=100)
    assert spec.validate("20") == 20
    with pytest.raises(OptionError, match="at least 0"):
        spec.validate(-1)
    with pytest.raises(OptionError, match="a number"):
        spec.validate(True)


def test_text_option_with_numeric_choices_accepts_numbers() -> None:
    spec = OptionSpec("decks", "auto", "help", ("auto", "1", "2"))
    assert spec.validate(2) == "2"
    assert spec.validate("auto") == "auto"
    with pytest.raises(OptionError, match="one of auto, 1, 2"):
        spec.validate(3)
    with pytest.raises(OptionError, match="takes text"):
        OptionSpec("name", "x", "help").validate(5)


def test_black_jack_decks_given_as_a_number() -> None:
    cls = find_game("black-jack")
    assert cls.validate_options({"decks": 2})["decks"] == "2"


def test_unknown_option_and_game_are_named() -> None:
    cls = find_game("one-card")
    with pytest.raises(OptionError, match="unknown option 'nope'"):
        cls.validate_options({"nope": 1})
    with pytest.raises(OptionError, match="unknown game"):
        find_game("poker")
    assert game_names() == ["one-card", "black-jack", "one"]
