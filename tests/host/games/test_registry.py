"""The game registry: one entry per game names its engine, presentation, bot and search support,
and loading an engine loads none of the bot's modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import host.games
from host.games import (
    GAMES,
    find_blind,
    find_bot,
    find_game,
    find_presentation,
    find_support,
    game_names,
)
from host.games.base import Game, OptionError, State
from host.games.presentation import BotFeatures, Presentation
from host.games.support import GameSupport


@pytest.mark.parametrize("name", list(GAMES))
def test_every_entry_names_the_four_parts_of_its_game(name: str) -> None:
    entry = GAMES[name]
    game = find_game(name)
    assert isinstance(game, Game) and game.name == name
    assert issubclass(game.state, State) and game.state.game is game
    package = game.state.__module__.rpartition(".")[0]
    assert entry.engine == f"{package}.engine:GAME"
    assert isinstance(find_presentation(name), Presentation)
    assert isinstance(find_bot(name), BotFeatures)
    assert isinstance(find_support(name), GameSupport)
    for target in (entry.presentation, entry.bot, entry.support):
        assert target.startswith(f"{package}.")
    if entry.blind is not None:
        assert entry.blind.startswith(f"{package}.private:")
        blind = find_blind(name)
        assert issubclass(blind, game.state) and blind.game is game


def test_every_game_package_has_the_same_modules() -> None:
    """One shape per game (docs/ADDING-A-GAME.md): the same module names in every package."""
    packages = {
        name: Path(find_game(name).state.__module__.replace(".", "/")).parent.name for name in GAMES
    }
    root = Path(host.games.__file__).parent
    shapes = {
        name: sorted(p.name for p in (root / package).glob("*.py"))
        for name, package in packages.items()
    }
    expected = [
        "__init__.py",
        "engine.py",
        "explain.py",
        "moves.py",
        "presentation.py",
        "private.py",
        "rules.py",
        "strategy.py",
        "worlds.py",
    ]
    assert shapes == dict.fromkeys(GAMES, expected)


@pytest.mark.parametrize("name", list(GAMES))
def test_loading_an_engine_loads_no_bot(name: str) -> None:
    """Before, every engine imported its presentation, which imported its normal bot."""
    module = GAMES[name].engine.partition(":")[0]
    package = module.rpartition(".")[0]
    probe = (
        f"import sys, {module}\n"
        f"bots = ('{package}.strategy', '{package}.worlds', 'host.bots.ai',"
        " 'host.bots.policy')\n"
        "print(sorted(m for m in sys.modules if m.startswith(bots)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_an_unknown_game_is_a_clear_error_for_every_part() -> None:
    for find in (find_game, find_presentation, find_bot, find_support):
        with pytest.raises(OptionError, match="unknown game 'no-such-game'"):
            find("no-such-game")
    assert game_names() == list(GAMES)
