"""Human mode through a real pseudo-terminal (pexpect): whole games of every game against bots,
bad input, Ctrl-C, and ``onecard join`` through the lobby against a real host on loopback."""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import trio

from host.games import game_names

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty")
pexpect = pytest.importorskip("pexpect")


@pytest.mark.parametrize("game", game_names())
def test_play_a_whole_game_in_a_terminal(game: str, spawn_pty: Callable[..., Any]) -> None:
    short = ["--option", "attack_cap=2"] if game == "one-card" else []  # no endless attacks
    driver = spawn_pty(
        "play",
        "--game",
        game,
        "--bots",
        "1",
        "--delay",
        "0",
        "--name",
        "Alice",
        *short,
        color=True,
    )
    log: list[str] = []
    driver.child.logfile_read = _Collect(log)
    assert driver.run() == 0
    text = "".join(log)
    assert driver.moves > 0 and "Your hand:" in text
    # our own moves are logged: a play when we chose a card (a hand that never could, about
    # one Black Jack deal in 1,200, only drew, and its draws name the cards)
    assert ("Alice plays " if driver.plays else "Alice draws ") in text
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


def test_rematch_at_the_same_table(spawn_pty: Callable[..., Any]) -> None:
    driver = spawn_pty("play", "--game", "black-jack", "--bots", "1", "--delay", "0", "--ascii")
    log: list[str] = []
    driver.child.logfile_read = _Collect(log)
    assert driver.run(again=["y"]) == 0  # "y" after the first game, "n" after the second
    text = "".join(log)
    assert text.count("Play again? [y/N]") == 2 and "Traceback" not in text
    first, _, second = text.partition("Game 2 starts")
    assert "Game 1 starts" in first and "deal verified" in first
    assert second and "deal verified" in second and "Game 3" not in second


def test_bad_entries_are_explained_and_ctrl_c_exits_quietly(spawn_pty: Callable[..., Any]) -> None:
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
    said = re.sub(r" *\r\n", " ", re.sub(r"\x1b\[[0-9;]*m", "", text))  # as one line
    assert re.sub(r"\s", "", info.fingerprint) in re.sub(r"\s", "", said)  # broken to fit
    assert "fingerprint" in said and "pinned" in said
    assert "Seated at table" in text and "deal verified" in text


class _Collect:
    def __init__(self, out: list[str]) -> None:
        self.out = out

    def write(self, data: str) -> None:
        self.out.append(data)

    def flush(self) -> None:
        pass


async def test_wild_suit_and_one_card_call_through_a_terminal(  # noqa: PLR0915
    nursery: trio.Nursery, spawn_pty: Callable[..., Any]
) -> None:
    """A scripted host (the real protocol, fixed states) offers a seven and then a call window:
    the terminal asks for the suit as numbered options and offers the call as one key."""
    import protocol.table_messages as tm
    from host.games import game_entries
    from protocol.connection import Connection, Role
    from protocol.framing import NEED_DATA
    from protocol.messages import Message, Welcome

    acted: list[dict[str, Any]] = []
    view = {
        "game": "one-card",
        "hand": ["7S", "9H"],
        "top": "7D",
        "suit": "D",
        "hand_counts": [4, 2, 5],
        "direction": "counter-clockwise",
        "stock": 30,
    }
    sevens = [{"type": "play", "cards": ["7S"], "suit": s} for s in "SHDC"]

    async def handler(stream: trio.SocketStream) -> None:
        conn = Connection(role=Role.HOST)

        async def recv() -> Message:
            while (msg := conn.next_message()) is NEED_DATA:
                conn.receive_data(await stream.receive_some(65536))
            assert isinstance(msg, Message)
            return msg

        async def send(*msgs: Message) -> None:
            for msg in msgs:
                await stream.send_all(conn.send(msg))

        def state(legal: list[dict[str, Any]], to_act: int, **extra: Any) -> tm.StatePush:
            return tm.StatePush(
                table="t1",
                seq=3,
                game_no=1,
                phase="playing",
                seat=1,
                view={**view, **extra},
                legal=tuple(legal),
                to_act=(to_act,),
                turn_ms=None,
            )

        hello = await recv()
        await send(
            Welcome(
                re=hello.id,
                version=1,
                host_name="scripted",
                software="test/1",
                fingerprint="sha256:" + "0" * 64,
                limits={},
            )
        )
        join = await recv()
        await send(tm.Joined(re=join.id, table="t1", seat=1, token="t" * 20))
        asked = await recv()  # the client asks how the host's games read, once
        assert isinstance(asked, tm.ListGames)
        await send(tm.Games(re=asked.id, games=tuple(game_entries())))
        ready = await recv()
        await send(tm.Ok(re=ready.id))
        await send(
            tm.GameStart(table="t1", seq=1, game_no=1, game="one-card", names=("Ann", "Bob", "Cy")),
            state([*sevens, {"type": "draw"}], 1),
        )
        act = await recv()
        assert isinstance(act, tm.Act)
        acted.append(dict(act.action))
        window = {"holder": 2, "target": 0}
        await send(
            tm.Ack(re=act.id, table="t1", seq=act.seq, duplicate=False),
            tm.EventPush(table="t1", seq=2, event={"kind": "call_window", "holder": 2}),
            state([{"type": "call"}], 0, call_window=window),
        )
        act = await recv()
        assert isinstance(act, tm.Act)
        acted.append(dict(act.action))
        await send(
            tm.Ack(re=act.id, table="t1", seq=act.seq, duplicate=False),
            tm.GameOver(
                table="t1", seq=4, game_no=1, outcome={"termination": "went_out", "winners": [1]}
            ),
        )
        await trio.sleep(1)

    listeners = await nursery.start(functools.partial(trio.serve_tcp, handler, 0, host="127.0.0.1"))
    port = listeners[0].socket.getsockname()[1]
    driver = spawn_pty("join", f"127.0.0.1:{port}", "--insecure", "--table", "t1", "--name", "Bob")
    log: list[str] = []
    driver.child.logfile_read = _Collect(log)

    def answer() -> int:
        child = driver.child
        child.expect("Your move: ")
        child.sendline("7s")
        child.expect(r"Option 1-4 \(x to cancel\): ")
        child.sendline("2")
        child.expect(r"Press c \+ Enter to call \"One Card!\"")
        child.sendline("c")
        child.expect(r"Play again\? \[y/N\]")  # join offers the table's rematch
        child.sendline("n")
        child.expect(pexpect.EOF)
        child.close()
        return int(child.exitstatus)

    assert await trio.to_thread.run_sync(answer) == 0
    text = "".join(log)
    assert "1) play 7♠ naming ♠ spades" in text and "Cy has one card left!" in text
    assert acted == [{"type": "play", "cards": ["7S"], "suit": "H"}, {"type": "call"}]
    assert "Bob wins!" in text


async def test_a_changed_fingerprint_is_refused_in_the_terminal(
    start_host: Callable[..., Awaitable[Any]], spawn_pty: Callable[..., Any], tmp_path: Any
) -> None:
    info = await start_host()
    wrong = "SHA256:" + ":".join(["00"] * 32)
    (tmp_path / "known_hosts").write_text(f"127.0.0.1:{info.port} {wrong}\n")
    driver = spawn_pty("join", f"127.0.0.1:{info.port}", "--name", "Eve")

    def run() -> tuple[int, str]:
        driver.child.expect(pexpect.EOF)
        driver.child.close()
        return int(driver.child.exitstatus), driver.child.before or ""

    status, text = await trio.to_thread.run_sync(run)
    assert status == 1
    assert "HOST IDENTIFICATION OF 127.0.0.1" in text and "HAS CHANGED" in text
    assert info.fingerprint in text and "Traceback" not in text


async def test_a_dropped_connection_resumes_in_the_terminal(
    start_host: Callable[..., Awaitable[Any]], spawn_pty: Callable[..., Any]
) -> None:
    info = await start_host()
    table = await info.host.create_table("one", seats=2)
    driver = spawn_pty("join", f"127.0.0.1:{info.port}", "--table", table, "--name", "Bea")

    async def host_side() -> None:
        while not any(info.host.lobby.table(table).seats):
            await trio.sleep(0.05)
        await info.host.add_bots(table, 1)
        while driver.moves < 2:
            await trio.sleep(0.05)
        for session in list(info.host.connections):
            if session.peer != "in-process bot":
                session._cancel.cancel()  # the host drops the player's connection

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host_side)
        log: list[str] = []
        driver.child.logfile_read = _Collect(log)
        status = await trio.to_thread.run_sync(driver.run)
    text = "".join(log)
    assert status == 0, text[-2000:]
    assert "connection lost" in text and "reconnected: seat 0 resumed as Bea" in text
    assert "deal verified" in text and "deal NOT verified" not in text


async def test_the_hosts_shutdown_reaches_every_terminal_at_once(
    start_host: Callable[..., Awaitable[Any]], spawn_pty: Callable[..., Any]
) -> None:
    """Before, a client kept drawing "▶ Your turn (91 s left)" while it retried the host for
    40 s, as if the line had dropped. Now the host's goodbye reaches the player waiting for
    input and the idle one within 2 s, and the table's block says the connection is down."""
    info = await start_host()
    table = await info.host.create_table("one-card", seats=2)
    ann = spawn_pty("join", f"127.0.0.1:{info.port}", "--table", table, "--name", "Ann", color=True)
    await trio.to_thread.run_sync(lambda: ann.child.expect("Seated at table"))
    bob = spawn_pty("join", f"127.0.0.1:{info.port}", "--table", table, "--name", "Bob", color=True)

    def started(driver: Any) -> None:
        driver.child.expect("Game 1 starts")
        driver.child.expect(r"turn")  # the block names whose turn it is

    for driver in (ann, bob):
        await trio.to_thread.run_sync(started, driver)
    await info.host.shutdown()

    def told(driver: Any) -> str:
        driver.child.expect("the host is shutting down", timeout=2)
        driver.child.expect("Disconnected: ", timeout=2)  # the block, instead of whose turn
        text = str(driver.child.before) + str(driver.child.after)
        driver.child.terminate(force=True)
        return text

    for driver in (ann, bob):
        text = await trio.to_thread.run_sync(told, driver)
        assert "Traceback" not in text


async def test_leaving_a_table_before_its_game_goes_back_to_the_lobby(
    start_host: Callable[..., Awaitable[Any]], spawn_pty: Callable[..., Any]
) -> None:
    """Before, ``q`` at a table picked in the lobby ended the program (and the seat stayed
    taken until the grace period ran out). The lobby's ``q`` after it is read too: a read of
    stdin the table loop gave up no longer takes the next line."""
    info = await start_host()
    driver = spawn_pty("join", f"127.0.0.1:{info.port}", "--name", "Bea")

    def run() -> tuple[int, str]:
        child = driver.child
        child.expect("Lobby> ")
        child.sendline("c one-card 2")
        child.expect("Seated at table")
        child.expect(r"Bea, \(empty\)")
        child.sendline("q")  # (before, an abandoned read of stdin sometimes took this line)
        child.expect("Back in the lobby")
        child.expect(r"1/2 seats|0/2 seats")
        listed = str(child.after)
        child.expect("Lobby> ")
        child.sendline("q")
        child.expect(pexpect.EOF)
        child.close()
        return int(child.exitstatus), listed

    status, listed = await trio.to_thread.run_sync(run)
    assert status == 0 and listed == "0/2 seats"  # the seat was given up at once
