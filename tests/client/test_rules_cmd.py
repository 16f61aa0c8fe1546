"""``onecard rules GAME``: a game's rules for players, from its section of spec/RULES.md."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from client.cli import cli
from client.rules_cmd import NOTES_HEADING, rules_file, rules_games
from host.games import game_names

GAMES = game_names()

#: what only implementers read: Markdown marks, file paths, wire and test words, measurements
IMPLEMENTERS_WORDS = re.compile(
    r"##|\*\*|`|\.txt|\.py|\.json|host/|tests/|spec/|bench|RESHUFFLE|TURN_LIMIT|parse_action"
    r"|illegal_action|bad_field|not_your_turn|golden scenario|chance request|wire|\bseed"
)

#: a few rules each game's players must still read (one per subsection or so)
KEY_RULES = {
    "one-card": [
        "Deck 54: the 52 cards and both jokers",
        "Seven is wild",
        "Attack cards and damage: 2 = 2, A = 3, A of spades = 5, black joker = 10, red",
        'The "One Card" call',
        "the first call the host receives wins",
        "When a draw finds the stock empty",
        "Option bankrupt_at (default 20; 0 = off)",
        "Going out on any card wins",
        "must_play_if_able",
    ],
    "black-jack": [
        "Players 2-10",
        "A joker turned up cannot be matched",  # once only in a Reason, which players miss
        "Runs: instead of one card a player may play a run of consecutive ranks in one suit",
        "Queen: its player must cover it in the same turn",
        "Black jack (JS, JC): the next player picks up five",
        'Declaring "last card"',
        "An illegal play, or a play out of turn, is a blunder",
        "The first player out wins.",
        "black_jack_pickup",
    ],
    "one": [
        "Deck: 9 10 J Q K A in the four suits plus one joker (25 cards)",
        "The centre card is hidden from everyone",
        "The high bidder leads the first trick, and the suit of that first card is trump",
        "Follow suit if you can",
        "Downtown.",
        "K, Q and J are worth 1 point each, the joker 3",
        "First to 30 wins",
        "downtown",
    ],
}


def rules(*args: str) -> str:
    result = CliRunner().invoke(cli, ["rules", *args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def flat(text: str) -> str:
    """The text with its wrapping undone (rich wraps to the width)."""
    return " ".join(text.split())


@pytest.mark.parametrize("game", GAMES)
def test_rules_are_rendered_for_players_with_no_implementers_notes(game: str) -> None:
    """Before, the rules came out as raw Markdown with the sources, golden scenarios, chance
    requests and bench figures of spec/RULES.md, and a stray ``-`` where a reason stood alone."""
    said = rules(game)
    assert not IMPLEMENTERS_WORDS.findall(said), IMPLEMENTERS_WORDS.findall(said)
    assert "Reason" not in said and "Notes for implementers" not in said
    assert "measured" not in said.lower() and "percentile" not in said  # bench figures
    assert not [line for line in said.splitlines() if line.strip() in {"-", "•"}]
    assert said == "\n".join(line.rstrip() for line in said.splitlines()) + "\n"
    for rule in KEY_RULES[game]:
        assert rule in flat(said), rule
    assert "Scenario files" not in said  # only this game's section
    assert [other for other in GAMES if f"({other})" in said] == [game]


@pytest.mark.parametrize("game", GAMES)
def test_rules_with_reasons_keep_every_reason_and_still_no_notes(game: str) -> None:
    source = rules_file().read_text(encoding="utf-8")
    section = source.split(f"(`{game}`)", 1)[1].split("\n## ", 1)[0]
    players = section.split(NOTES_HEADING, 1)[0]
    said = flat(rules(game, "--reasons"))
    assert said.count("Reason:") == players.count("*Reason*:") > 3
    assert not IMPLEMENTERS_WORDS.findall(said), IMPLEMENTERS_WORDS.findall(said)


def test_every_game_section_has_its_notes_for_implementers() -> None:
    source = rules_file().read_text(encoding="utf-8")
    sections = re.split(r"(?m)^(?=## )", source)
    for game in GAMES:
        (section,) = [s for s in sections if s.startswith("## ") and f"(`{game}`)" in s]
        assert section.count(f"\n{NOTES_HEADING}\n") == 1, game
        players = section.split(NOTES_HEADING)[0]
        assert "#### " not in players and "### " in players


def test_the_rules_file_has_a_section_for_every_game_of_the_registry_and_no_other() -> None:
    """The client lists no games: ``onecard rules`` offers the sections of the rules file, so
    that file must describe exactly the games the host runs, in the registry's order."""
    assert rules_games(rules_file().read_text(encoding="utf-8")) == game_names()


def test_rules_of_an_unknown_game_is_a_usage_error_naming_the_games() -> None:
    result = CliRunner().invoke(cli, ["rules", "snap"])
    assert result.exit_code == 2 and "'snap' is not one of" in result.output
    assert all(repr(game) in result.output for game in GAMES)
