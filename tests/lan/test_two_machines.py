"""A LAN of two machines, for real: two network namespaces joined by a veth pair.

The host machine is 10.77.0.1 and the player's 10.77.0.2, on one /24 and with **no default
route** on either side (a switch or a hotspot at a game night), so the only way between them is
the veth link. In the host namespace runs ``onecard host`` (or ``onecard play --lan``); in the
player's, the commands a friend types: ``discover``, ``join`` (through ``--json``, answering
every turn with the first legal move) and ``bot``. Every game is played to its end and every
deal verdict and hand record must check. Mid-hand the host's side of the link goes down for a
moment and the host's connections to the player are killed (``ss -K``: a TCP connection
would otherwise survive a short outage untouched); the player's client must reconnect when the
link is back, resume its seat, and play the game to its end.

Needs root and iproute2 (as the CI machine has); elsewhere every test is skipped with the
reason. All traffic stays inside the two namespaces (``lan_of``, tests/lan/conftest.py), which
are removed afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

from host.games import game_names

HOST_IP, PLAYER_IP = "10.77.0.1", "10.77.0.2"
PORT = 7531
#: seconds one whole game may take here before the test fails instead of hanging
GAME_TIMEOUT = 120
#: seconds the host's side of the link stays down mid-hand: any outage will do, since the
#: client learns of the killed connection only when it next hears from the host
LINK_DOWN_S = 0.3
#: seconds ``discover`` listens each try (three tries): a host on the link answers at once
#: (``join`` without an address listens its default 2 s, and once)
DISCOVER_S = 1.0
#: One Card without endless attacks: an uncapped game can run to the 1,000-turn limit
SHORT = ("--option", "attack_cap=2")


@pytest.fixture(scope="module")
def lan(lan_of: Callable[..., AbstractContextManager[Any]]) -> Iterator[Any]:
    with lan_of(host=[HOST_IP], other=[PLAYER_IP]) as net:
        yield net


def test_neither_machine_has_a_default_route(lan: Any) -> None:
    for ns in (lan.host_ns, lan.other_ns):
        routes = subprocess.run(
            ["ip", "-n", ns, "route", "show", "default"], capture_output=True, check=True
        )
        assert routes.stdout.strip() == b""


@dataclass
class Proc:
    """A onecard command running in one namespace, its stdout read line by line."""

    process: trio.Process
    lines: list[str] = field(default_factory=list)
    buffer: bytes = b""

    async def line(self) -> str | None:
        assert self.process.stdout is not None
        while b"\n" not in self.buffer:
            chunk = await self.process.stdout.receive_some(65536)
            if not chunk:
                return None
            self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\n")
        text = raw.decode(errors="replace")
        self.lines.append(text)
        return text

    async def obj(self) -> dict[str, Any] | None:
        text = await self.line()
        return None if text is None else dict(json.loads(text))

    async def send(self, text: str) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send_all((text + "\n").encode())

    async def until(self, marker: str) -> str:
        while True:
            text = await self.line()
            if text is None:
                raise AssertionError(f"ended before {marker!r}: {self.lines[-5:]}")
            if marker in text:
                return text


@dataclass
class Machines:
    lan: Any
    root: Path
    nursery: trio.Nursery

    def env(self, who: str) -> dict[str, str]:
        env = dict(os.environ)
        env["ONECARD_KNOWN_HOSTS"] = str(self.root / who / "known_hosts")
        env["ONECARD_STATE_DIR"] = str(self.root / who / "state")
        env["NO_COLOR"] = "1"
        env["PYTHONUTF8"] = "1"
        return env

    async def run(self, ns: str, who: str, *args: str) -> Proc:
        """Start a onecard command in namespace ``ns``; its stderr goes to ``<who>.log``."""
        cmd = ["ip", "netns", "exec", ns, sys.executable, "-m", "client", *args]
        log = (self.root / f"{who}.log").open("ab")
        process: trio.Process = await self.nursery.start(
            lambda task_status: trio.run_process(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                env=self.env(who),
                check=False,
                task_status=task_status,
            )
        )
        log.close()  # the child holds its own copy
        return Proc(process)

    def log(self, who: str) -> str:
        return (self.root / f"{who}.log").read_text(errors="replace")

    async def output(self, ns: str, who: str, *args: str) -> str:
        cmd = ["ip", "netns", "exec", ns, sys.executable, "-m", "client", *args]
        done = await trio.run_process(cmd, capture_stdout=True, env=self.env(who), check=True)
        return done.stdout.decode()


@pytest.fixture
async def machines(lan: Any, tmp_path: Path) -> AsyncIterator[Machines]:
    async with trio.open_nursery() as nursery:
        yield Machines(lan, tmp_path, nursery)
        nursery.cancel_scope.cancel()


async def start_host(m: Machines) -> Proc:
    host = await m.run(
        m.lan.host_ns,
        "host",
        "host",
        "--data-dir",
        str(m.root / "host-data"),
        "--port",
        str(PORT),
        "--name",
        "Den",
        "--bot-think",
        "0.01",
        "-v",
    )
    with trio.fail_after(30):
        await host.until("data directory:")
    return host


async def stop(proc: Proc) -> None:
    proc.process.terminate()
    with trio.fail_after(15):
        await proc.process.wait()


async def discovered(m: Machines) -> dict[str, Any]:
    """``onecard discover --json`` on the player's machine: the one host it hears."""
    for _ in range(3):  # an mDNS answer can be missed; the command itself says so
        out = await m.output(
            m.lan.other_ns, "bea", "discover", "--json", "--timeout", str(DISCOVER_S)
        )
        rows = [json.loads(line) for line in out.splitlines() if line.strip()]
        if rows:
            assert len(rows) == 1, rows
            return dict(rows[0])
    raise AssertionError("the host was never discovered from the other machine")


@dataclass
class Outage:
    """The host's side of the link goes down once, when each of ``clients`` players has come
    to its first turn (mid-hand, whatever the hand's length): the last to come cuts it (the
    host's connections to the player's machine killed, every player's at once), brings it
    back after LINK_DOWN_S, and then every player waiting makes its move."""

    lan: Any
    clients: int
    arrived: int = 0
    over: trio.Event = field(default_factory=trio.Event)

    async def first_turn(self) -> None:
        self.arrived += 1
        if self.arrived == self.clients:
            self.lan.cut(PLAYER_IP)
            await trio.sleep(LINK_DOWN_S)
            self.lan.link(up=True)
            self.over.set()
        await self.over.wait()


async def play_json(client: Proc, outage: Outage | None = None) -> list[dict[str, Any]]:
    """Answer every turn with the first legal move until ``end``; with an ``outage``, take
    part in it at our first turn. Returns every object printed."""
    seen: list[dict[str, Any]] = []
    moves = 0
    with trio.fail_after(GAME_TIMEOUT):
        while True:
            obj = await client.obj()
            if obj is None:
                raise AssertionError(f"the client ended without an end object: {seen[-5:]}")
            seen.append(obj)
            if obj["type"] == "state" and obj.get("my_turn"):
                if outage is not None and moves == 0:
                    await outage.first_turn()
                await client.send(json.dumps({"cmd": "act", "index": 0}))
                moves += 1
            elif obj["type"] in ("refused", "busy"):
                await client.send(json.dumps({"cmd": "state"}))
            elif obj["type"] == "end":
                return seen


def check_game(seen: list[dict[str, Any]], *, dropped: bool = False) -> None:
    """The game ended as a game, and every hand's deal and record checked; after a cut link
    (``dropped``) the client reconnected and resumed its seat."""
    end = seen[-1]
    assert end["reason"] == "game over" and end["outcome"] is not None, end
    fairness = [o for o in seen if o["type"] == "fairness"]
    records = [o for o in seen if o["type"] == "record"]
    assert fairness and all(o["status"] == "verified" for o in fairness), fairness
    assert records and all(o["ok"] and o["status"] == "valid" for o in records), records
    kinds = [o["type"] for o in seen]
    if dropped:
        assert "disconnected" in kinds, kinds
        assert "reconnected" in kinds[kinds.index("disconnected") :], kinds


async def test_friends_discover_the_host_join_and_play_every_game_through_an_outage(
    machines: Machines,
) -> None:
    """A friend per game, each with a machine state of its own, all on the player's machine
    and at once: each discovers the host through ``join`` and creates its table; the link goes
    down once every game is under way, and every friend reconnects and plays to the end. (At
    once, since each game mostly waits: for discovery, the outage and the bots.)"""
    host = await start_host(machines)
    ad = await discovered(machines)
    assert HOST_IP in ad["addresses"], ad
    assert not any(a.startswith("127.") or a == "::1" for a in ad["addresses"]), ad
    assert ad["target"] == f"{HOST_IP}:{PORT}"
    games = game_names()
    outage = Outage(machines.lan, len(games))
    results: dict[str, list[dict[str, Any]]] = {}
    async with trio.open_nursery() as nursery:
        for number, game in enumerate(games):
            client = await machines.run(
                machines.lan.other_ns,
                f"friend-{number}",
                "join",
                "--json",
                "--name",
                f"Friend {number}",
                "--create",
                game,
                "--seats",
                "2",
                "--bots",
                "1",
                *(SHORT if game == "one-card" else ()),
            )

            async def play(game: str, client: Proc) -> None:
                results[game] = await play_json(client, outage)

            nursery.start_soon(play, game, client)
    for game in games:
        seen = results[game]
        check_game(seen, dropped=True)
        connected = next(o for o in seen if o["type"] == "connected")
        assert f"{HOST_IP}:{PORT}" in connected["message"], (game, connected)
        assert connected["first_use"] is True, (game, connected)
        started = next(o for o in seen if o["type"] == "game_start")
        assert started["game"] == game, started
    await stop(host)
    advertised = [line for line in machines.log("host").splitlines() if "advertising" in line]
    assert advertised and HOST_IP in advertised[0] and "127.0.0.1" not in advertised[0]


async def test_bots_from_the_other_machine_play_to_the_end(machines: Machines) -> None:
    host = await start_host(machines)
    out = await machines.output(
        machines.lan.other_ns,
        "bots",
        "bot",
        HOST_IP,
        "--create",
        "black-jack",
        "--count",
        "2",
        "--think",
        "0.02",
    )
    assert out.startswith("game over: ") and ("went out" in out or "won" in out), out
    await stop(host)


async def test_play_lan_with_a_friend_joining_from_the_other_machine(machines: Machines) -> None:
    m = machines
    # bots at start_host's pace (play's default is a person's, 1 s a move: this game took up
    # to two minutes), One Card capped as everywhere else
    ann = await m.run(
        m.lan.host_ns,
        "ann",
        "play",
        "--lan",
        "--json",
        "--name",
        "Ann",
        "--bots",
        "2",
        "--data-dir",
        str(m.root / "ann-data"),
        "--port",
        str(PORT),
        "--game",
        "one-card",
        "--delay",
        "0.01",
        *SHORT,
    )
    with trio.fail_after(30):
        while True:
            obj = await ann.obj()
            assert obj is not None, ann.lines
            if obj["type"] == "hosting":
                break
    assert HOST_IP in obj["message"] and "127.0.0.1" not in obj["message"], obj
    table = obj["table"]
    ad = await discovered(m)
    assert ad["addresses"][0] == HOST_IP
    bea = await m.run(
        m.lan.other_ns,
        "bea",
        "join",
        "--json",
        "--name",
        "Bea",
        "--table",
        table,
    )
    with trio.fail_after(30):
        await bea.until('"seated"')
    await ann.send("")  # Enter: start; the empty seat gets a bot
    async with trio.open_nursery() as nursery:
        results: dict[str, list[dict[str, Any]]] = {}

        async def both(name: str, proc: Proc, outage: Outage | None) -> None:
            results[name] = await play_json(proc, outage)

        nursery.start_soon(both, "ann", ann, None)
        nursery.start_soon(both, "bea", bea, Outage(m.lan, 1))
    check_game(results["ann"])
    check_game(results["bea"], dropped=True)
