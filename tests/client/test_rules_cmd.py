"""``onecard rules GAME``: a game's rules for players, from its section of spec/RULES.md."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from client.cli import cli


@pytest.mark.parametrize(
    ("game", "said"),
    [
        ("one", "K, Q and J are worth 1 point each, the joker 3"),
        ("one-card", 'The "One Card" call'),
        ("black-jack", 'Declaring "last card"'),
    ],
)
def test_rules_prints_the_game_section_without_the_implementers_notes(game: str, said: str) -> None:
    """Before, the rules were only in spec/RULES.md, between the wire forms and the reasons."""
    result = CliRunner().invoke(cli, ["rules", game])
    assert result.exit_code == 0, result.output
    assert said in result.output
    assert "*Reason*" not in result.output and "Wire forms" not in result.output
    assert "## Scenario files" not in result.output  # only this game's section
    assert "*Reason*" in CliRunner().invoke(cli, ["rules", game, "--reasons"]).output


def test_rules_of_an_unknown_game_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["rules", "snap"])
    assert result.exit_code == 2 and "one-card" in result.output
