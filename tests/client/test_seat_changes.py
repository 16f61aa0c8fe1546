"""How players hear of seats changing around them: a player who left after a no to the rematch,
a host bot seated in an empty seat between games (``b``, ``add_bot`` in --json), and who
dropped or came back, kept quiet after our own reconnect. (Found at a LAN game night: three
players, a spectator and a host restart.)"""

from __future__ import annotations

import functools
import io
import json
import os
import queue
import sys
from collections.abc import Callable
from typing import Any, cast

import pytest
import trio
import trio.testing
from rich.console import Console

import protocol.table_messages as tm
from client import table_loop
from client.human_ui import HumanUI
from client.intents import AddBotIntent, Intent, RematchIntent, rematch_answer
from client.json_ui import JsonUI
from client.screen import Screen
from client.table_client import TableClient
from client.table_loop import run_table
from net.fairplay import DealChecker, FairNotice
from net.retry import Backoff
from net.session import RequestError
from protocol.errors import ErrorCode
from protocol.messages import Error, Message

OUTCOME = {"termination": "target", "winners": [0], "ranking": [0, 1, 2], "scores": [0, 3, 5]}


#: the seated players of these tests' table
SEATED = ("Ann", "Bob", "Cat")


def _seat(i: int, name: str, *, ready: bool = False, connected: bool = True) -> dict[str, Any]:
    return {
        "seat": i,
        "name": name,
        "bot": None,
        "ready": ready,
        "connected": connected,
        "substitute": False,
    }


def _info(*seats: dict[str, Any] | None, phase: str = "finished") -> tm.TableInfo:
    return tm.TableInfo(
        table="t1",
        name="t1",
        game="one-card",
        options={},
        seats=seats,
        phase=phase,
        game_no=1,
        spectators=0,
        turn_timer=None,
        voids=0,
    )


def test_a_seat_freed_after_a_no_says_who_left(
    human_ui: Callable[..., Any], table_client: Callable[..., Any]
) -> None:
    """Before, Ann and Bob saw only "Waiting for seat 2 (empty)": nobody said Cat left."""
    ui, out = human_ui()
    tc = table_client(0, name="Ann", names=SEATED)
    ann, bob = _seat(0, "Ann", ready=True), _seat(1, "Bob", ready=True)
    ui.on_push(tc, _info(ann, bob, _seat(2, "Cat")), [])
    ui.on_push(tc, _info(ann, bob, None), [])
    assert "Cat left the table" in out.getvalue().splitlines()
    stream = io.StringIO()
    jui = JsonUI(stream)
    jui.on_push(tc, _info(ann, bob, _seat(2, "Cat")), [])
    jui.on_push(tc, _info(ann, bob, None), [])
    presence = [json.loads(x) for x in stream.getvalue().splitlines() if '"presence"' in x]
    assert presence == [
        {
            "type": "presence",
            "seat": 2,
            "name": "Cat",
            "connected": False,
            "left": True,
            "message": "Cat left the table",
        }
    ]


def test_b_and_add_bot_ask_for_a_bot_between_games(
    human_ui: Callable[..., Any], table_client: Callable[..., Any]
) -> None:
    tc = table_client(0, name="Ann", names=SEATED)
    ui, _ = human_ui()
    assert ui.on_line(tc, "b") != AddBotIntent()  # during a game "b" is no bot
    tc.outcome = dict(OUTCOME)
    assert ui.on_line(tc, "b") == AddBotIntent()
    assert JsonUI(io.StringIO()).on_line(tc, '{"cmd": "add_bot"}') == AddBotIntent()
    assert ui.on_line(tc, "b hard") == AddBotIntent("hard")
    json_hard = '{"cmd": "add_bot", "level": "hard"}'
    assert JsonUI(io.StringIO()).on_line(tc, json_hard) == AddBotIntent("hard")
    assert rematch_answer("b easy") is None  # asked at "Play again?": the question stays


class _Stdin:
    def __init__(self) -> None:
        self.lines: queue.Queue[str] = queue.Queue()

    def readline(self) -> str:
        return self.lines.get()

    def type(self, line: str) -> None:
        self.lines.put(line + "\n" if line else "")


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Any:
    fake = _Stdin()
    monkeypatch.setattr(sys, "stdin", fake)
    yield fake
    fake.type("")  # free a reader thread left waiting


class _Session:
    def __init__(self) -> None:
        self.push_send, self.pushes = trio.open_memory_channel[Message](8)
        self.closed = trio.Event()
        self.closed_reason = ""

    async def request(self, msg: Message, **_: Any) -> Message:
        return tm.Ok()


class _Table:
    """The parts of TableClient the loop uses; ``add_bot`` is refused once, then seats Bot."""

    chat_n = 0
    new_chat = TableClient.new_chat

    def __init__(self) -> None:
        self.session = _Session()
        self.table_id = "t1"
        self.seat: int | None = 0
        self.outcome: dict[str, Any] | None = None
        self.bots = 0
        self.readied = trio.Event()

    async def handle(self, push: Message) -> list[FairNotice]:
        if isinstance(push, tm.GameOver):
            self.outcome = push.outcome
        return []

    async def ready(self, ready: bool = True) -> None:
        self.readied.set()

    async def add_bot(self, level: str = "normal") -> tm.BotAdded:
        self.bots += 1
        if self.bots == 1:
            raise RequestError(Error(code=ErrorCode.FULL, message="no empty seat", fatal=False))
        return tm.BotAdded(table="t1", seat=2, name="Bot")


class _UI:
    def __init__(self) -> None:
        self.said: list[str] = []
        self.seen = trio.Event()

    def on_push(self, tc: object, push: Message, notices: list[FairNotice]) -> None:
        pass

    def on_line(self, tc: object, line: str, *, rematch_asked: bool = False) -> Intent | None:
        answer = rematch_answer(line) if rematch_asked else None
        if answer is not None:
            return RematchIntent(answer)
        return AddBotIntent() if line == "b" else None

    def info(self, text: str, **fields: Any) -> None:
        self.said.append(text)
        self.seen.set()

    def end(self, tc: object, reason: str) -> None:
        self.said.append(f"end {reason}")


async def _said(ui: _UI, text: str) -> None:
    while not any(text in s for s in ui.said):
        ui.seen = trio.Event()
        await ui.seen.wait()


async def test_b_while_waiting_for_a_rematch_seats_a_bot_and_says_so(stdin: _Stdin) -> None:
    table, ui = _Table(), _UI()
    result: list[Any] = []

    async def loop() -> None:
        result.append(await run_table(cast(TableClient, table), ui, offer_rematch=True))  # type: ignore[arg-type]

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(loop)
            over = tm.GameOver(table="t1", seq=1, game_no=1, outcome=OUTCOME)
            await table.session.push_send.send(over)
            await _said(ui, "Play again?")
            stdin.type("y")
            await table.readied.wait()
            ann, bob = _seat(0, "Ann", ready=True), _seat(1, "Bob", ready=True)
            await table.session.push_send.send(_info(ann, bob, None))
            await _said(ui, "Waiting for")
            stdin.type("b")
            await _said(ui, "no bot seated")
            stdin.type("b")
            await _said(ui, "takes seat")
            stdin.type("")
    assert result == [OUTCOME]
    assert [s for s in ui.said if "Waiting" in s or "bot" in s] == [
        "Waiting for seat 2 (empty) to play again (b + Enter seats a bot, q leaves)",
        "no bot seated: no empty seat (full)",
        "Bot (a bot) takes seat 2",
    ]


class _Resumable(_Table):
    """A seated table client whose connection can drop and be resumed."""

    def __init__(self) -> None:
        super().__init__()
        self.token, self.watching, self.name = "k" * 43, False, "Ann"
        self.checker = DealChecker(table_id="t1", pid=None)
        self.game_no = 1
        self.session.ended_by_host, self.session.retry_after = False, None  # type: ignore[attr-defined]

    async def resume(self, token: str) -> None:
        pass


async def test_after_our_own_reconnect_nobody_is_said_to_drop_and_come_back(
    monkeypatch: pytest.MonkeyPatch,
    human_ui: Callable[..., Any],
) -> None:
    """Before, after a host restart every client said "Bob dropped ..." then "Bob is back" for
    every other player, though only the host had gone."""
    monkeypatch.setattr(table_loop, "KEEP_SEAT", Backoff(0.0, 1.0, 0.0, 1))
    fresh = _Session()
    fresh.ended_by_host, fresh.retry_after = False, None  # type: ignore[attr-defined]

    async def hold(stream: object, *, task_status: Any) -> None:
        task_status.started(fresh)
        await trio.sleep_forever()

    monkeypatch.setattr(table_loop, "_hold_session", hold)
    table, (ui, out) = _Resumable(), human_ui()
    ann, bob, cat = _seat(0, "Ann"), _seat(1, "Bob"), _seat(2, "Cat")
    bob_gone, cat_gone = _seat(1, "Bob", connected=False), _seat(2, "Cat", connected=False)

    async def reconnect() -> trio.abc.Stream:
        return cast(trio.abc.Stream, None)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            loop = functools.partial(run_table, read_input=False, reconnect=reconnect)
            nursery.start_soon(loop, cast(TableClient, table), ui)
            for info in (
                _info(ann, bob, cat, phase="playing"),
                _info(ann, bob, cat_gone, phase="playing"),
            ):
                await table.session.push_send.send(info)
            await trio.testing.wait_all_tasks_blocked()
            await table.session.push_send.aclose()  # the host restarts
            while table.session is not fresh:
                await trio.sleep(0)
            for info in (
                _info(ann, bob_gone, cat_gone, phase="playing"),  # the new baseline: quiet
                _info(ann, bob, cat_gone, phase="playing"),  # Bob was never said to drop
                _info(ann, bob, cat, phase="playing"),  # Cat was
                _info(ann, bob_gone, cat, phase="playing"),  # a drop after the baseline
            ):
                await fresh.push_send.send(info)
            await trio.testing.wait_all_tasks_blocked()
            nursery.cancel_scope.cancel()
    told = [line for line in out.getvalue().splitlines() if "dropped" in line or "back" in line]
    assert told == [
        "Cat dropped (the host plays for Cat after the grace period)",
        "Cat is back",
        "Bob dropped (the host plays for Bob after the grace period)",
    ]


def test_the_table_screen_shows_the_seats_in_its_block_not_as_log_lines(
    human_ui: Callable[..., Any], table_client: Callable[..., Any]
) -> None:
    """Before, each seat change before a game was a "Seats at ..." log line, above a block
    that said the same (and plain lines still say each change once)."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80, color_system="standard")
    ui = HumanUI(console)
    read, write = os.pipe()
    ui.screen = Screen(console, ui._status, fd=read)
    logged: list[str] = []
    ui.screen.log = lambda *items: logged.extend(str(i) for i in items)  # type: ignore[method-assign]
    ui.screen.is_open = True
    tc = table_client(0, name="Ann", names=SEATED)
    ann, bob = _seat(0, "Ann", ready=True), _seat(1, "Bob")
    for info in (_info(ann, None, phase="waiting"), _info(ann, bob, phase="waiting")):
        tc.info = info  # (as TableClient.handle keeps it)
        ui.on_push(tc, info, [])
    assert not [line for line in logged if "Seats at" in line]
    block = ui._status()
    assert block is not None and "Seats at t1: Ann, Bob (not ready)" in block.plain
    plain, said = human_ui()
    plain.on_push(tc, _info(ann, None, phase="waiting"), [])
    plain.on_push(tc, _info(ann, None, phase="waiting"), [])
    plain.on_push(tc, _info(ann, bob, phase="waiting"), [])
    seats = [line for line in said.getvalue().splitlines() if "Seats at" in line]
    assert seats == ["Seats at t1: Ann, (empty)", "Seats at t1: Ann, Bob (not ready)"]
    os.close(read)
    os.close(write)
