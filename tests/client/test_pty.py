"""Human mode through a real pseudo-terminal (pexpect): whole games of every game against bots,
bad input, Ctrl-C, and ``onecard join`` through the lobby against a real host on loopback."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import trio

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty")


@pytest.mark.parametrize("game", ["one-card", "black-jack", "one"])
def test_play_a_whole_game_in_a_terminal(game: str, spawn_pty: Callable[..., Any]) -> None:
    short = ["--option", "attack_cap=2"] if game == "one-card" else []  # no endless attacks
    driver = spawn_pty(
        "play", "--game", game, "--bots", "1", "--delay", "0", "--name", "Alice", *short,
        color=True,
    )  # fmt: skip
    log: list[str] = []
    driver.child.logfile_read = _Collect(log)
    assert driver.run() == 0
    text = "".join(log)
    assert driver.moves > 0
    assert "Your hand:" in text and "Alice plays " in text
    assert "deal verified" in text and "Traceback" not in text
    assert "\x1b[31m" in text  # red hearts and diamonds on a colour terminal
    assert any(s in text for s in "♠♥♦♣")


def test_ascii_and_no_color(spawn_pty: Callable[..., Any]) -> None:
    driver = spawn_pty("play", "--game", "black-jack", "--delay", "0", "--ascii")
    log: list[str] = []
    driver.child.logfile_read = _Collect(log)
    assert driver.run() == 0
    text = "".join(log)
    assert not any(s in text for s in "♠♥♦♣") and "\x1b[31m" not in text
    assert "deal verified" in text


def test_bad_entries_are_explained_and_ctrl_c_exits_quietly(spawn_pty: Callable[..., Any]) -> None:
    import pexpect

    driver = spawn_pty("play", "--game", "one", "--delay", "0")
    child = driver.child
    child.expect("Your move: ")
    child.sendline("zz")
    child.expect("not understood: 'zz'")
    child.sendline("99")
    child.expect("there is no move 99")
    child.sendline("?")
    child.expect("Type the number of a move")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in (child.before or "")


async def test_join_through_the_lobby(
    start_host: Callable[..., Awaitable[Any]], spawn_pty: Callable[..., Any]
) -> None:
    info = await start_host()
    driver = spawn_pty("join", f"127.0.0.1:{info.port}", "--name", "Bea")

    async def add_bot_when_seated() -> None:
        while True:
            tables = info.host.lobby.table_summaries()
            if tables and any(tables[0]["seats"]):
                await info.host.add_bots(tables[0]["table"], 1)
                return
            await trio.sleep(0.05)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(add_bot_when_seated)
        log: list[str] = []
        driver.child.logfile_read = _Collect(log)
        status = await trio.to_thread.run_sync(lambda: driver.run(lobby=["c black-jack 2"]))
    text = "".join(log)
    assert status == 0, text[-2000:]
    assert "fingerprint " + info.fingerprint in text and "pinned" in text
    assert "Seated at table" in text and "deal verified" in text


class _Collect:
    def __init__(self, out: list[str]) -> None:
        self.out = out

    def write(self, data: str) -> None:
        self.out.append(data)

    def flush(self) -> None:
        pass
