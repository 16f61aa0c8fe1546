"""Adding a game is its package, one registry entry and one deck row (docs/ADDING-A-GAME.md).

Race Out (this folder) is registered for the test alone: ``monkeypatch`` adds its entry to
:data:`host.games.GAMES` and its row to :data:`protocol.decks.DECKS`, and puts this folder on
``sys.path`` so the registry's ``"module:attribute"`` strings import it. Nothing else changes.
A real host on loopback then runs it: a person's seat, driven through the client's own table
loop (:func:`client.table_loop.run_table` with the JSON front end, a script typing its
commands), plays a host bot at each bot level to the end, and the client's live deal checker
verifies the deal. The client learns the game from the host's ``games`` reply alone and draws
its table from the view fields the game declares.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio

import host.games
import protocol.decks
import protocol.lobby_messages as lm
from client.catalogue import CATALOGUE
from client.json_ui import JsonUI
from client.table_client import TableClient
from client.table_loop import run_table
from client.table_view import render_table
from host.games import GameEntry, find_game, make_blind, private_refusal
from host.games.base import OptionError
from host.server.server import HostInfo
from net.session import expect_reply, open_session
from net.trust import open_stream
from protocol.decks import DeckRule

HERE = Path(__file__).parent
NAME = "race-out"


class ScriptedJson(JsonUI):
    """The JSON front end with a script at its input: on each of our turns it types
    ``{"cmd": "act", "index": 0}``, as a program driving ``onecard join --json`` would."""

    def __init__(self) -> None:
        super().__init__(out=None)
        self.lines: list[dict[str, Any]] = []
        self._typed, self._typing = trio.open_memory_channel[str | None](64)

    def emit(self, obj: dict[str, Any]) -> None:
        self.lines.append(obj)
        if obj.get("type") == "state" and obj.get("my_turn"):
            self._typed.send_nowait(json.dumps({"cmd": "act", "index": 0}))

    async def read_lines(self, deliver: Callable[[str | None], Awaitable[None]]) -> None:
        async for line in self._typing:
            await deliver(line)


@pytest.fixture
def race_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """Race Out registered: its package importable, one registry entry, one deck row."""
    monkeypatch.syspath_prepend(str(HERE.parent))
    from toy_game.engine import DECK

    entry = GameEntry(
        engine="toy_game.engine:GAME",
        presentation="toy_game.presentation:PRESENTATION",
        bot="toy_game.strategy:BOT",
        support="toy_game.strategy:SUPPORT",  # None: a hard bot plays it as the normal one
    )
    row: DeckRule = lambda opts, seats: DECK  # noqa: E731
    monkeypatch.setitem(host.games.GAMES, NAME, entry)
    monkeypatch.setitem(protocol.decks.DECKS, NAME, row)
    CATALOGUE.forget()  # the client knows only what this host's `games` reply says


async def _play(info: HostInfo, level: str) -> tuple[ScriptedJson, TableClient, dict[str, Any]]:
    connected = await open_stream("127.0.0.1", info.port, expect=info.fingerprint, remember=False)
    async with open_session(connected.stream) as session:
        games = expect_reply(await session.request(lm.ListGames()), lm.Games)
        listed = {g["name"]: g for g in games.games}
        created = expect_reply(
            await session.request(lm.CreateTable(game=NAME, seats=2)), lm.TableCreated
        )
        tc = TableClient(session, table_id=created.table)
        await tc.join("Ann")
        await tc.add_bot(level)
        await tc.ready()
        ui = ScriptedJson()
        with trio.fail_after(60):
            outcome = await run_table(tc, ui)
    assert outcome is not None
    return ui, tc, listed


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
async def test_a_toy_game_plays_through_host_and_client(
    level: str, race_out: None, start_host: Callable[..., Awaitable[HostInfo]]
) -> None:
    assert find_game(NAME).title == "Race Out"
    info = await start_host()
    ui, tc, listed = await _play(info, level)

    # the host's `games` reply lists it, with its presentation
    assert listed[NAME]["title"] == "Race Out"
    assert listed[NAME]["table"] == ["Race pile: {pile:cards}"]
    assert (listed[NAME]["min_seats"], listed[NAME]["max_seats"]) == (2, 4)

    # the whole game was played: every card of ours went on the pile, and someone went out
    kinds = [line["type"] for line in ui.lines]
    assert kinds.count("game_over") == 1
    end = next(line for line in ui.lines if line["type"] == "game_over")
    assert end["outcome"]["termination"] == "went_out"
    plays = [
        line["event"]
        for line in ui.lines
        if line["type"] == "event" and line["event"]["kind"] == "play"
    ]
    assert {p["seat"] for p in plays} == {0, 1}
    assert sum(p["seat"] == tc.seat for p in plays) >= 2
    # the client worded the events from the game's declared presentation
    texts = [line.get("text") for line in ui.lines if line["type"] == "event"]
    assert any(t and "races" in t for t in texts), texts

    # the deal was verified by the client's live checker, and nothing failed
    verdicts = [line for line in ui.lines if line["type"] == "fairness"]
    assert [v["status"] for v in verdicts] == ["verified"], verdicts
    assert verdicts[0]["cards_checked"] >= 3  # our three cards, each a signed CARD

    # the client drew the table from the view fields the game declares
    assert tc.state is not None
    drawn = render_table(tc.state.view, tc.names, me=tc.seat, ascii_only=True).plain
    pile = " ".join(tc.state.view["pile"])
    assert f"Race pile: {pile}" in drawn, drawn
    # (the last state is from before the winning play: none follows the game's end)
    assert tc.state.view["pile"] == [p["card"] for p in plays][: len(plays) - 1]


def test_only_the_toy_package_names_the_toy_game() -> None:
    """No file of the project outside this folder names Race Out: its package, its registry
    entry and its deck row (both added by the ``race_out`` fixture) are all it takes."""
    root = HERE.parent.parent
    naming = []
    for top in ("protocol", "net", "host", "client", "onecard", "spec", "tests"):
        for path in (root / top).rglob("*"):
            if (
                path.is_file()
                and path.suffix in (".py", ".md", ".json")
                and HERE not in path.parents
            ):
                text = path.read_text(encoding="utf-8", errors="replace")
                if NAME in text or "toy_game" in text or "RaceOut" in text:
                    naming.append(path.relative_to(root))
    assert naming == []
    assert NAME not in host.games.GAMES and NAME not in protocol.decks.DECKS


def test_a_game_without_a_blind_engine_is_refused_on_private_tables(race_out: None) -> None:
    """Its registry entry names no ``blind`` engine, so a private table of it is refused by
    name, and so is an engine of it made private."""
    assert private_refusal(NAME, {}) == f"{NAME} cannot be played on a private table yet"
    with pytest.raises(OptionError, match="cannot be played on a private table yet"):
        make_blind(find_game(NAME).new_initial_state(seats=2))
