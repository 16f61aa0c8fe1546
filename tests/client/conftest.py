"""Fixtures for client tests: a real host on loopback, and client processes to drive.

Test files cannot import each other (``--import-mode=importlib``), so helpers are handed out by
fixtures. ``start_host`` runs :func:`host.server.server.serve_host` in the test's trio nursery (port
0, 127.0.0.1, a temporary data directory, bots with no thinking time); ``client_env`` is an
environment for client subprocesses whose known_hosts file and state directory live under
``tmp_path``, so no test touches the user's real files; ``json_client`` starts ``onecard ...
--json`` as a subprocess and reads its NDJSON output line by line.

For tests of what a client shows, without a host: ``table_client(seat)`` is a
:class:`client.table_client.TableClient` with no session, seated at table ``t1`` among Ann, Bob
and Cy; ``push_state(tc, view, legal, to_act)`` gives it a ``state`` push as the host would;
``human_ui()`` is a :class:`client.human_ui.HumanUI` writing to a ``StringIO`` (pass console
options, e.g. ``width=40``, for a plain console of that size).
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
from rich.console import Console

import protocol.table_messages as tm
from client.human_ui import HumanUI
from client.render import make_console
from client.table_client import TableClient
from host.server.server import HostInfo
from net.session import open_session
from net.trust import open_stream

ONECARD = [sys.executable, "-m", "client"]

#: seconds a whole scripted game may take before the test fails (instead of hanging)
GAME_TIMEOUT = 60

StartHost = Callable[..., Awaitable[HostInfo]]


def _table_client(
    seat: int | None = 1, *, name: str = "Bob", names: Sequence[str] = ("Ann", "Bob", "Cy")
) -> TableClient:
    tc = TableClient(None, table_id="t1", name=name)  # type: ignore[arg-type]
    tc.seat, tc.names = seat, list(names)
    return tc


def _push_state(
    tc: TableClient, view: dict[str, Any], legal: list[dict[str, Any]], to_act: Sequence[int]
) -> tm.StatePush:
    state = tm.StatePush(
        table="t1",
        seq=5,
        game_no=1,
        phase="playing",
        seat=tc.seat,
        view=view,
        legal=tuple(legal),
        to_act=tuple(to_act),
        turn_ms=None,
    )
    tc.state = state
    return state


def _human_ui(command: str = "join", **console: Any) -> tuple[HumanUI, io.StringIO]:
    out = io.StringIO()
    if console:
        con = Console(file=out, highlight=False, markup=False, emoji=False, **console)
        return HumanUI(con, command=command), out
    return HumanUI(make_console(file=out), command=command), out


@pytest.fixture
def table_client() -> Callable[..., TableClient]:
    """``table_client(seat=1, name="Bob", names=("Ann", "Bob", "Cy"))``: see the module doc."""
    return _table_client


@pytest.fixture
def push_state() -> Callable[..., tm.StatePush]:
    """``push_state(tc, view, legal, to_act)``: set and return ``tc.state``."""
    return _push_state


@pytest.fixture
def human_ui() -> Callable[..., tuple[HumanUI, io.StringIO]]:
    """``human_ui(command="join", **console)``: a HumanUI and what it wrote."""
    return _human_ui


@pytest.fixture
def client_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["ONECARD_KNOWN_HOSTS"] = str(tmp_path / "known_hosts")
    env["ONECARD_STATE_DIR"] = str(tmp_path / "state")
    env["NO_COLOR"] = "1"
    env["PYTHONUTF8"] = "1"
    env.pop("FORCE_COLOR", None)
    return env


class JsonClient:
    """A ``onecard ... --json`` subprocess: read events, send commands."""

    def __init__(self, process: trio.Process) -> None:
        self.process = process
        self.lines: list[dict[str, Any]] = []
        self._buffer = b""

    async def next(self) -> dict[str, Any] | None:
        """The next JSON object printed, or None at EOF."""
        assert self.process.stdout is not None
        while b"\n" not in self._buffer:
            chunk = await self.process.stdout.receive_some(65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        obj: dict[str, Any] = json.loads(line)
        self.lines.append(obj)
        return obj

    async def send(self, obj: dict[str, Any]) -> None:
        """Write one command; nothing if the client has exited (killed by a test that has
        seen what it waited for, with lines still buffered): the next read then finds EOF."""
        assert self.process.stdin is not None
        try:
            await self.process.stdin.send_all((json.dumps(obj) + "\n").encode())
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            with trio.move_on_after(5):  # a closed pipe comes just before the exit is seen
                await self.process.wait()
            if self.process.returncode is None:
                raise  # still running with its input closed: a real fault

    async def play_to_end(
        self, on_line: Callable[[dict[str, Any]], Awaitable[None]] | None = None
    ) -> dict[str, Any] | None:
        """Answer every turn with the first legal action; return the ``end`` line.

        A refused or dropped action (the state moved on meanwhile: a bot's call) asks for the
        current state again, which answers with a fresh turn if it is still ours.
        """
        with trio.fail_after(GAME_TIMEOUT):
            while True:
                obj = await self.next()
                if obj is None:
                    return None
                if on_line is not None:
                    await on_line(obj)
                if obj["type"] == "state" and obj.get("my_turn"):
                    await self.send({"cmd": "act", "index": 0})
                if obj["type"] in ("refused", "busy"):
                    await self.send({"cmd": "state"})
                if obj["type"] == "end":
                    return obj

    def types(self) -> list[str]:
        return [line["type"] for line in self.lines]


@pytest.fixture
def json_client(
    nursery: trio.Nursery, client_env: dict[str, str]
) -> Callable[..., Awaitable[JsonClient]]:
    async def spawn(*args: str) -> JsonClient:
        process: trio.Process = await nursery.start(
            lambda task_status: trio.run_process(
                [*ONECARD, *args, "--json"],
                stdin=-1,
                stdout=-1,
                env=client_env,
                check=False,
                task_status=task_status,
            )
        )
        return JsonClient(process)

    return spawn


class PtyDriver:
    """Plays whatever a human-mode client asks, through a real pseudo-terminal (pexpect).

    At "Your move:" it picks the first numbered card, else draws or passes, else option 1; it
    answers follow-up questions with option 1 and presses the letter of any out-of-turn call
    it is offered. It counts what it did so tests can say what was exercised.

    It answers a screen once, as a person does: the client draws the table again at every key
    typed and every line refused while a move is in flight, and answering each of those drawings
    fed a loop of refusals and redraws (thousands of lines in a long game, most of its CPU) until
    the host's answer came. The same table asked again is answered again only if nothing else
    came for :attr:`REPEAT_AFTER` seconds (a move the host refused leaves the table as it was).
    """

    PROMPTS = (
        r"Your move[^:\n]*: ",
        r"Option 1-\d+ \(x to cancel\): ",
        r"Press (\w) \+ Enter",
        r"Lobby> ",
        r"Play again\? \[y/N\]",
    )
    REPEAT_AFTER = 1.0

    def __init__(self, child: Any) -> None:
        self.child = child
        self.moves = 0
        self.plays = 0  #: moves that chose a card (the others drew or passed)
        self.options = 0
        self.calls = 0
        self.lobby: list[str] = []
        self.again: list[str] = []

    def run(self, *, lobby: list[str] | None = None, again: list[str] | None = None) -> int:
        import re

        import pexpect

        self.lobby = list(lobby or [])
        self.again = list(again or [])  # answers to "Play again?" (then "n")
        child = self.child
        last: tuple[str, str] | None = None  # the table last answered and the line sent
        waited = 0.0
        while True:
            timeout = self.REPEAT_AFTER if last is not None else child.timeout
            i = child.expect([*self.PROMPTS, pexpect.EOF, pexpect.TIMEOUT], timeout=timeout)
            if i == len(self.PROMPTS) + 1:  # nothing new came
                waited += timeout
                if last is None or waited >= child.timeout:
                    raise pexpect.TIMEOUT(f"no prompt for {waited:.0f} s")
                child.sendline(last[1])
                continue
            waited = 0.0
            before = re.sub(r"\x1b\[[0-9;]*m", "", child.before or "")
            table = before[before.rfind("Your hand:") :] if i in (0, 1) else ""
            if i in (0, 1) and last is not None and last[0] == table:
                continue  # drawn again, not changed: our line is being answered
            last = None
            if i == 0:
                self.moves += 1
                hand = before.rpartition("Your hand:")[2]
                numbers = re.findall(r"(\d+)\)", hand.partition("Moves:")[0])
                letters = re.findall(r"\b([dp])\) ", hand)
                line = numbers[0] if numbers else (letters[0] if letters else "1")
                self.plays += bool(numbers)
                child.sendline(line)
                last = (table, line)
            elif i == 1:
                self.options += 1
                child.sendline("1")
                last = (table, "1")
            elif i == 2:
                self.calls += 1
                child.sendline(child.match.group(1))
            elif i == 3:
                child.sendline(self.lobby.pop(0) if self.lobby else "q")
            elif i == 4:
                child.sendline(self.again.pop(0) if self.again else "n")
            else:
                break
        child.close()
        status: int = child.exitstatus if child.exitstatus is not None else -1
        return status


@pytest.fixture
def spawn_pty(client_env: dict[str, str]) -> Callable[..., Any]:
    pexpect = pytest.importorskip("pexpect")

    def spawn(*args: str, color: bool = False, timeout: float = 30) -> PtyDriver:
        env = dict(client_env)
        if color:
            env.pop("NO_COLOR", None)
        env["TERM"] = "xterm-256color"
        child = pexpect.spawn(
            sys.executable,
            ["-m", "client", *args],
            env=env,
            encoding="utf-8",
            timeout=timeout,
            dimensions=(60, 100),
        )
        child.delaybeforesend = None  # the 50 ms default per line adds up over a long game
        return PtyDriver(child)

    return spawn


async def bots_play_a_game(info: HostInfo) -> str:
    """Bots play a whole Black Jack game at a new table of ``info``; its id once it is over."""
    table = await info.host.create_table("black-jack", seats=2)
    connected = await open_stream(
        "127.0.0.1", info.port, insecure=not info.tls, expect=info.fingerprint
    )
    async with open_session(connected.stream) as session:
        await session.request(tm.Watch(table=table))
        await info.host.add_bots(table, 2)
        with trio.fail_after(60):
            async for push in session.pushes:
                if isinstance(push, tm.GameOver):
                    break
    return table


@pytest.fixture
def play_a_game() -> Callable[[HostInfo], Awaitable[str]]:
    """``await play_a_game(info)``: bots play a whole game at a new table; its id."""
    return bots_play_a_game


@pytest.fixture
async def played(start_host: Callable[..., Awaitable[HostInfo]]) -> tuple[HostInfo, str]:
    """A host (TLS) and a table at which bots played a whole game."""
    info = await start_host()
    return info, await bots_play_a_game(info)


#: a TLS connection handler for :func:`serve_tls`
TlsHandler = Callable[[trio.SSLStream[trio.SocketStream]], Awaitable[None]]


@pytest.fixture
async def tls_http_server(serve_tls: Callable[[TlsHandler], Awaitable[int]]) -> int:
    """The port of a TLS server that is no onecard host: it answers anything with an HTTP
    error (a client must not pin it)."""

    async def handler(stream: trio.SSLStream[trio.SocketStream]) -> None:
        try:
            await stream.receive_some(4096)
            await stream.send_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            await stream.aclose()
        except trio.BrokenResourceError:
            pass

    return await serve_tls(handler)
