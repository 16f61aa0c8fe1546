"""``onecard play`` through click's CliRunner: --watch games end by themselves with exit 0,
errors are one line, every command and option has help."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner

from client import table_loop
from client.cli import cli
from client.commands import parse_options
from client.play_cmd import play_command
from host.games import find_game, game_names
from host.server.server import HostConfig
from host.table.cheats import CheatKind
from host.tools import embedded
from protocol.exit_codes import ExitCode

GAMES = game_names()


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("ONECARD_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ONECARD_KNOWN_HOSTS", str(tmp_path / "known_hosts"))
    return CliRunner()


@pytest.mark.parametrize("game", GAMES)
def test_watch_plays_a_whole_game_and_exits_0(game: str, runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["play", "--watch", "--game", game, "--delay", "0"])
    assert result.exit_code == 0, result.output
    proofs = tmp_path / "state" / "proofs"  # bots at every seat: no proofs (before, each deal's)
    assert not proofs.exists() or not any(p.is_file() for p in proofs.rglob("*"))
    assert "Watching 3 bots play" in result.output
    assert "deal verified" in result.output
    assert " plays " in result.output
    assert "win" in result.output.splitlines()[-1] or "Scores:" in result.output
    assert "\x1b[" not in result.output  # not a terminal: no colour codes


def test_watch_json_ends_with_the_outcome(runner: CliRunner) -> None:
    result = runner.invoke(
        cli, ["play", "--watch", "--game", "black-jack", "--delay", "0", "--json"]
    )
    assert result.exit_code == 0, result.output

    lines = [json.loads(line) for line in result.output.splitlines()]
    assert lines[-1]["type"] == "end" and lines[-1]["outcome"]["winners"]
    assert any(line["type"] == "fairness" and line["status"] == "verified" for line in lines)
    (watching,) = [line for line in lines if line["type"] == "watching"]
    assert watching["table"]  # as spec/CLIENT-JSON.md promises (it was missing)


@pytest.mark.parametrize(
    ("args", "message", "status"),
    [
        (
            ["play", "--option", "nosuch=1", "--delay", "0"],
            "unknown option 'nosuch'",
            ExitCode.USAGE,
        ),
        (
            ["play", "--game", "one", "--bots", "5", "--delay", "0"],
            "ONE takes 2-4 players",
            ExitCode.USAGE,
        ),
        (["play", "--option", "novalue"], "is not KEY=VALUE", ExitCode.USAGE),
        (["play", "--watch", "--lan"], "do not go together", ExitCode.USAGE),
        (
            ["join", "127.0.0.1:1", "--insecure", "--table", "x"],
            "cannot connect to 127.0.0.1:1",
            ExitCode.UNAVAILABLE,
        ),
        (["join", "host:notaport"], "bad port", ExitCode.USAGE),
    ],
)
def test_errors_are_one_clear_line(
    args: list[str], message: str, status: int, runner: CliRunner
) -> None:
    """One line, and the status says what kind of failure it was (protocol/exit_codes.py)."""
    result = runner.invoke(cli, args)
    assert result.exit_code == status, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("command", ["play", "join", "discover", "records"])
def test_every_option_has_help(command: str, runner: CliRunner) -> None:
    result = runner.invoke(cli, [command, "--help"])
    assert result.exit_code == 0
    group = cli.get_command(None, command)  # type: ignore[arg-type]
    assert group is not None and group.help
    for param in group.params:
        if param.param_type_name == "option":
            assert getattr(param, "help", None), f"{command} {param.name} has no help"
            assert param.opts[0] in result.output


def test_play_offers_the_games_of_the_registry_and_defaults_to_its_first(
    runner: CliRunner,
) -> None:
    """Before, play's --game choices were three names written into the client."""
    game = next(p for p in play_command.params if p.name == "game")
    assert list(game.type.choices) == game_names()  # type: ignore[attr-defined]
    assert game.default == game_names()[0]
    refused = runner.invoke(cli, ["play", "--game", "snap"])
    assert refused.exit_code == 2 and all(repr(g) in refused.output for g in game_names())


def test_parse_options() -> None:
    assert parse_options(("jokers=2", " ranking = on")) == {"jokers": "2", "ranking": "on"}


def test_the_option_example_in_play_help_is_valid_for_its_game() -> None:
    option = next(p for p in play_command.params if p.name == "option_pairs")
    help_text = getattr(option, "help", "") or ""
    example = re.search(r"e\.g\. (?:--game (\S+) )?--option (\w+)=(\w+)", help_text)
    assert example is not None, help_text
    game = example.group(1) or "one-card"
    find_game(game).validate_options({example.group(2): example.group(3)})  # raises if not


async def _until(client: Any, kind: str) -> dict[str, Any]:
    with trio.fail_after(60):
        while (line := await client.next()) is not None:
            if line["type"] == kind:
                return dict(line)
    raise AssertionError(f"no {kind} in {client.types()}")


async def test_lan_host_and_friend_play_again_at_the_same_table(
    json_client: Callable[..., Awaitable[Any]], tmp_path: Path
) -> None:
    """Before, play --lan (and the friends' join) printed the winner and exited: a human table
    could not play a second game. (--json asks only with --rematch; people always.)"""
    # attack_cap: no endless attacks (a game run to the 1,000-turn limit took 25 s of the 60 s
    # bound: two people's acts meet the host's rate limit)
    host = await json_client(
        "play",
        "--lan",
        "--port",
        "0",
        "--bots",
        "1",
        "--delay",
        "0",
        "--name",
        "Ann",
        "--data-dir",
        str(tmp_path / "lan-host"),
        "--rematch",
        "--option",
        "attack_cap=2",
    )
    hosting = await _until(host, "hosting")
    friend = await json_client(
        "join",
        f"127.0.0.1:{hosting['port']}",
        "--table",
        hosting["table"],
        "--name",
        "Bea",
        "--rematch",
    )
    await _until(friend, "seated")
    await host.send({"start": True})
    async with trio.open_nursery() as nursery:
        nursery.start_soon(host.play_to_end)
        nursery.start_soon(friend.play_to_end)
    for client in (host, friend):
        await _until(client, "rematch")
        await client.send({"cmd": "rematch"})
    for client in (host, friend):
        assert (await _until(client, "game_start"))["game_no"] == 2
    # the friend leaves before the host ends: a host gone first sends the friend reconnecting
    # (for about 30 s) if its quit was not read yet
    await friend.send({"cmd": "quit"})
    with trio.fail_after(60):
        assert await friend.process.wait() == 0
    await host.send({"cmd": "quit"})
    with trio.fail_after(60):
        assert await host.process.wait() == 0


async def test_the_lan_host_player_declining_a_rematch_stops_the_host_for_ready_friends(
    json_client: Callable[..., Awaitable[Any]], tmp_path: Path
) -> None:
    """Before, friends who had said they would play again waited 30 s, told nothing, for a
    host player who had said no: now the host player's seat empties at once and the host stops
    without lingering, telling the friends why."""
    host = await json_client(
        *("play", "--lan", "--port", "0", "--bots", "1", "--delay", "0", "--name", "Ann"),
        *("--data-dir", str(tmp_path / "lan-host"), "--rematch", "--option", "attack_cap=2"),
    )
    hosting = await _until(host, "hosting")
    friend = await json_client(
        *("join", f"127.0.0.1:{hosting['port']}", "--table", hosting["table"]),
        *("--name", "Bea", "--rematch"),
    )
    await _until(friend, "seated")
    await host.send({"start": True})
    async with trio.open_nursery() as nursery:
        nursery.start_soon(host.play_to_end)
        nursery.start_soon(friend.play_to_end)
    await _until(friend, "rematch")
    await friend.send({"cmd": "rematch"})
    assert "Ann" in (await _until(friend, "waiting"))["waiting_for"]  # Bea is ready
    await _until(host, "rematch")
    await host.send({"cmd": "quit"})
    with trio.fail_after(60):
        assert await host.process.wait() == 0
        while await host.next() is not None:
            pass  # all it printed after its rematch line: a "lingering" would be there
        while await friend.next() is not None:
            pass
        assert await friend.process.wait() == 0
    assert "lingering" not in host.types(), host.types()
    waits = [line["waiting_for"] for line in friend.lines if line["type"] == "waiting"]
    assert any("Ann" not in names for names in waits), waits  # the host player's seat emptied
    ended = [line for line in friend.lines if line["type"] in ("disconnected", "end")]
    assert any("stopped the game" in str(line) for line in ended), friend.types()


def test_a_taken_port_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, ``onecard play --port`` on a taken port said only "network error: Address
    already in use"."""
    import socket

    monkeypatch.setenv("ONECARD_STATE_DIR", str(tmp_path / "state"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["play", "--port", str(port)], input="")
    assert result.exit_code == 1, result.output
    assert f"cannot start the host on 127.0.0.1:{port}: " in result.output


def test_q_stops_watching_and_the_banner_names_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, --watch read no input: only Ctrl-C stopped it, and nothing said so."""
    monkeypatch.setenv("ONECARD_STATE_DIR", str(tmp_path / "state"))
    result = CliRunner().invoke(
        cli, ["play", "--watch", "--game", "one", "--delay", "1"], input="q\n"
    )
    assert result.exit_code == 0, result.output
    assert "Watching 3 bots play ONE (table" in result.output
    assert "q + Enter to stop watching" in result.output
    assert re.search(r"You stopped watching table t\w+$", result.output.rstrip())


async def _stdin_stays_open(send: Any, ui: Any) -> None:
    """A player who types nothing (the test's stdin would end at once, and a seated player
    leaves at the end of input)."""
    await trio.sleep_forever()


#: (game, its deck with the cheat's cards taken out): 2s and 3s, or ONE's 9s
_SHORT_DECKS = {"one-card": 46, "one": 21, "black-jack": 44}


@pytest.mark.parametrize(
    ("game", "json_mode"),
    [("one-card", False), ("one-card", True), ("one", True), ("black-jack", False)],
    ids=["one-card-text", "one-card-json", "one-json", "black-jack-text"],
)
@pytest.mark.parametrize("kind", [CheatKind.SHORT_DECK, CheatKind.CHANGED_OPTIONS])
def test_play_catches_its_own_host_cheating_leaves_and_exits_1(
    kind: CheatKind,
    game: str,
    json_mode: bool,
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``play``'s own path (its embedded host, here made to cheat: no option of ``play`` can)
    fails the first deal check, says so with the proof, leaves and exits 1, in every game."""
    monkeypatch.setattr(embedded, "HostConfig", functools.partial(HostConfig, cheat=kind))
    monkeypatch.setattr(table_loop, "read_lines", _stdin_stays_open)
    args = ["play", "--game", game, "--bots", "1", "--delay", "0", "--name", "Ann"]
    result = runner.invoke(cli, [*args, "--json"] if json_mode else args)
    assert result.exit_code == ExitCode.FAILED, result.output
    if kind is CheatKind.SHORT_DECK:
        caught = f"HAND_COMMIT deals {_SHORT_DECKS[game]} cards"
    else:
        caught = "HAND_COMMIT ruleset"
    error = result.output.splitlines()[-1]  # the one error line (stderr: mixed in by CliRunner)
    assert error.startswith("Error: left table ") and caught in error, result.output
    assert "in table hand 1" in error
    if json_mode:
        lines = [json.loads(line) for line in result.output.splitlines()[:-1]]
        types = [line["type"] for line in lines]
        failed = types.index("fairness")
        assert lines[failed]["status"] == "failed" and caught in lines[failed]["message"]
        assert types[failed + 1 :] == ["distrust", "end"], types
        assert lines[-1]["reason"] == "left the table: a deal check failed"
        assert Path(lines[failed + 1]["proof"]).is_file()
    else:
        assert caught in result.output
        assert "its host failed a deal check in table hand 1" in result.output
        assert "onecard verify" in result.output
    assert "Traceback" not in result.output
