"""client/lobby.py: the lobby driven with a fake session and scripted input: typos, refusals,
create with options, JSON commands and the host closing meanwhile."""

from __future__ import annotations

import io
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import trio

import protocol.table_messages as tm
from client import lobby
from client.catalogue import Catalogue
from client.commands import Quit
from client.json_ui import JsonUI
from host.games import find_game, game_entries, game_names
from net.session import Disconnected, RequestError, open_session
from net.trust import open_stream
from protocol.errors import ErrorCode
from protocol.messages import Error, Message

TABLE = {"table": "t1", "game": "one", "phase": "waiting", "seats": [None, None]}


class _FakeSession:
    """Enough of a ClientSession for the lobby: a fixed table list, refusals for creates."""

    def __init__(self, tables: list[dict[str, Any]]) -> None:
        self.tables = tables
        self.closed = trio.Event()
        self.closed_reason = ""
        self.requests: list[Message] = []

    async def request(self, msg: Message) -> Message:
        self.requests.append(msg)
        if isinstance(msg, tm.ListTables):
            return tm.Tables(tables=tuple(self.tables))
        raise RequestError(Error(code=ErrorCode.BAD_FIELD, message="unknown game", fatal=False))


def _script(monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> None:
    queue = list(lines)

    async def readline() -> str | None:
        await trio.lowlevel.checkpoint()
        return queue.pop(0) if queue else None

    monkeypatch.setattr(lobby, "read_line", readline)


async def test_lobby_typos_are_reported_and_the_lobby_goes_on(
    monkeypatch: pytest.MonkeyPatch,
    human_ui: Callable[..., Any],
) -> None:
    session = _FakeSession([TABLE])
    ui, out = human_ui(width=400, color_system=None)
    _script(monkeypatch, ["c one-card 99", "5", "w 7", "zap", "c poker", "?", "q"])
    with pytest.raises(Quit):
        await lobby.run_lobby(session, {}, ui, name="Ann")  # type: ignore[arg-type]
    text = out.getvalue()
    assert "seats must be from 1 to 16, not 99" in text  # (the protocol's; each game's: the host)
    assert "no table 5: there is one table, number 1" in text
    assert "no table 7: there is one table, number 1" in text
    assert "not understood: 'zap' (? for help)" in text
    assert "the host refused: unknown game\n" in text  # (no internal code: bad_field)
    assert "bad_field" not in text
    assert text.count(lobby.lobby_help()) == 2  # at the start and on "?"
    lists = [m for m in session.requests if isinstance(m, tm.ListTables)]
    assert len(lists) == 2  # at the start and after the refusal, not after every typo


class _GamesSession(_FakeSession):
    """A fake session whose host answers ``list_games`` with the registry's games."""

    async def request(self, msg: Message) -> Message:
        if isinstance(msg, tm.ListGames):
            self.requests.append(msg)
            return tm.Games(games=tuple(game_entries()))
        return await super().request(msg)


async def test_lobby_help_names_the_games_the_host_runs(
    monkeypatch: pytest.MonkeyPatch, human_ui: Callable[..., Any]
) -> None:
    """Before, the lobby's help listed three games written into the client: a game the host
    added was missing from it, one it dropped was still offered."""
    monkeypatch.setattr(lobby, "CATALOGUE", Catalogue())
    session = _GamesSession([])
    ui, out = human_ui(width=400, color_system=None)
    _script(monkeypatch, ["q"])
    with pytest.raises(Quit):
        await lobby.run_lobby(session, {}, ui, name="Ann")  # type: ignore[arg-type]
    text = " ".join(out.getvalue().split())
    for name in game_names():
        cls = find_game(name)
        assert f"{name} {cls.min_seats}-{cls.max_seats} seats" in text
    assert "games: the host did not say" not in text
    assert [m for m in session.requests if isinstance(m, tm.ListGames)] == [tm.ListGames()]


async def test_watching_from_the_lobby_sends_the_name_chat_shows(
    monkeypatch: pytest.MonkeyPatch,
    human_ui: Callable[..., Any],
) -> None:
    """Before, ``watch`` carried no name and a spectator's chat read "spectator: hi"."""
    session = _FakeSession([TABLE])
    ui, _ = human_ui(width=400, color_system=None)
    _script(monkeypatch, ["w 1", "q"])
    with pytest.raises(Quit):
        await lobby.run_lobby(session, {}, ui, name="Sam")  # type: ignore[arg-type]
    assert [m for m in session.requests if isinstance(m, tm.Watch)] == [
        tm.Watch(table="t1", name="Sam")
    ]


async def test_lobby_create_takes_table_options_as_join_option_does(
    monkeypatch: pytest.MonkeyPatch,
    human_ui: Callable[..., Any],
) -> None:
    """Before, ``c black-jack 3 1 jokers=2`` was refused: SEATS and BOTS are numbers."""
    session = _FakeSession([])
    ui, out = human_ui(width=400, color_system=None)
    lines = [
        "c black-jack 3 1 jokers=2 decks=2",
        "c one jokers",
        "c one 3 =2",
        "c one-card x=1",
        "q",
    ]
    _script(monkeypatch, lines)
    with pytest.raises(Quit):
        await lobby.run_lobby(session, {}, ui, name="Ann")  # type: ignore[arg-type]
    creates = [m for m in session.requests if isinstance(m, tm.CreateTable)]
    assert creates == [
        tm.CreateTable(game="black-jack", seats=3, options={"jokers": "2", "decks": "2"}),
        tm.CreateTable(game="one-card", seats=2, options={"x": "1"}),
    ]
    text = out.getvalue()
    usage = "c GAME [SEATS] [BOTS] [private] [KEY=VALUE ...]"
    assert f"{usage}: SEATS and BOTS are numbers, then table options as KEY=VALUE" in text
    assert f"{usage}: '=2' is not KEY=VALUE" in text
    assert "KEY=VALUE sets a table option" in lobby.lobby_help()


async def test_lobby_json_commands_that_cannot_be_built_are_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = _FakeSession([])
    out = io.StringIO()
    lines = [
        json.dumps({"cmd": "join", "table": "bad id!"}),
        json.dumps({"cmd": "create", "game": "one", "seats": "x"}),
        json.dumps({"cmd": "quit"}),
    ]
    _script(monkeypatch, lines)
    with pytest.raises(Quit):
        await lobby.run_lobby(session, {}, JsonUI(out), name="Ann")  # type: ignore[arg-type]
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    errors = [e["message"] for e in events if e["type"] == "error"]
    assert len(errors) == 2 and "table" in errors[0]
    assert errors[1] == "seats must be a whole number from 1 to 16"
    assert [e["type"] for e in events].count("tables") == 3  # scripts get one per command


async def test_lobby_notices_the_host_closing_while_waiting_for_input(
    monkeypatch: pytest.MonkeyPatch,
    autojump_clock: trio.testing.MockClock,
    nursery: trio.Nursery,
    human_ui: Callable[..., Any],
) -> None:
    session = _FakeSession([])
    ui, _ = human_ui(width=400, color_system=None)

    async def never() -> str | None:
        await trio.sleep_forever()

    monkeypatch.setattr(lobby, "read_line", never)

    async def close_soon() -> None:
        await trio.sleep(1)
        session.closed_reason = "the host is shutting down"  # as ClientSession words it
        session.closed.set()

    nursery.start_soon(close_soon)
    with pytest.raises(Disconnected, match=r"^the host is shutting down$"):
        await lobby.run_lobby(session, {}, ui, name="Ann")  # type: ignore[arg-type]


def test_a_table_number_out_of_range_names_the_numbers_there_are() -> None:
    """Before: "no table 9 (tables are numbered 1-1)"."""
    two = [{"table": "t1"}, {"table": "t2"}]
    with pytest.raises(ValueError, match=r"^no table 9: type a number from 1 to 2$"):
        lobby.parse_lobby("9", two, json_mode=False)


async def test_the_games_seat_range_is_the_hosts_to_say(
    start_host: Callable[..., Awaitable[Any]],
    monkeypatch: pytest.MonkeyPatch,
    human_ui: Callable[..., Any],
) -> None:
    """Before, ``c one 11`` answered "seats must be from 2 to 10" though ONE seats 2-4."""
    info = await start_host()
    connected = await open_stream("127.0.0.1", info.port, expect=info.fingerprint, remember=False)
    ui, out = human_ui(width=400, color_system=None)
    _script(monkeypatch, ["c one 11", "q"])
    async with open_session(connected.stream) as session:
        with pytest.raises(Quit):
            await lobby.run_lobby(session, {}, ui, name="Ann")
    assert "the host refused: ONE takes 2-4 players, not 11\n" in out.getvalue()
