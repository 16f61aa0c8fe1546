"""A private table end to end, every part a real process: ``onecard host``, two ``onecard join
--json`` players the test drives (each with its own state directory), the host's bots in the
other seats. One player's process is killed mid-hand (SIGKILL: nothing saved on the way out);
``join`` started again on the same state directory resumes the seat, reloads the hand's keys
from ``private-keys/`` and plays on, so the hand is not voided; the game plays to its end and
every hand record verifies with ``onecard verify`` (issue 29, ``spec/PROTOCOL.md`` 10.14).

The games are kept short (One Card with attacks capped, ONE to one point, Black Jack picking up
one card): what is tested is the resume, and all three games with humans and bots mixed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

ONECARD = [sys.executable, "-m", "client"]
#: seconds one whole game (and the restart within it) may take before the test fails
GAME_TIMEOUT = 240


@dataclass
class Player:
    """A ``onecard join --json`` process and everything it printed."""

    name: str
    state: Path
    process: trio.Process | None = None
    lines: list[dict[str, Any]] = field(default_factory=list)
    buffer: bytes = b""

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["ONECARD_KNOWN_HOSTS"] = str(self.state / "known_hosts")
        env["ONECARD_STATE_DIR"] = str(self.state)
        env["NO_COLOR"] = "1"
        env["PYTHONUTF8"] = "1"
        return env

    async def start(self, nursery: trio.Nursery, *args: str) -> None:
        self.buffer = b""
        self.process = await nursery.start(
            lambda task_status: trio.run_process(
                [*ONECARD, "join", *args, "--insecure", "--json"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=(self.state / "stderr.log").open("ab"),
                env=self.env(),
                check=False,
                task_status=task_status,
            )
        )

    async def next(self) -> dict[str, Any] | None:
        assert self.process is not None and self.process.stdout is not None
        while b"\n" not in self.buffer:
            chunk = await self.process.stdout.receive_some(65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        obj: dict[str, Any] = json.loads(line)
        self.lines.append(obj)
        return obj

    async def send(self, obj: dict[str, Any]) -> None:
        assert self.process is not None and self.process.stdin is not None
        # the process may be gone (killed by the test): its EOF then says so
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await self.process.stdin.send_all((json.dumps(obj) + "\n").encode())

    async def play(self, until: Callable[[dict[str, Any]], bool] | None = None) -> str | None:
        """Answer every turn with the first legal action, and make the first call listed out
        of turn once a state (a Black Jack hand that never says "last card" cannot go out, so
        its games ran to the bot's win or the turn limit), until the ``end`` line (its reason)
        or until ``until`` says stop after a line (None then)."""
        called = -1
        while True:
            obj = await self.next()
            if obj is None:
                return "eof"
            if obj["type"] == "state" and obj.get("my_turn"):
                await self.send({"cmd": "act", "index": 0})
            elif obj["type"] == "state" and obj.get("legal") and obj.get("seq") != called:
                called = obj.get("seq", -1)
                await self.send({"cmd": "act", "index": 0})
            if obj["type"] in ("refused", "busy"):
                await self.send({"cmd": "state"})
            if obj["type"] == "end":
                return str(obj["reason"])
            if until is not None and until(obj):
                return None

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line["type"] == kind]

    def key_files(self) -> list[Path]:
        """The hands' key files (not a temporary file a kill mid-write left behind, which
        ``FileKeyStore.prune`` removes with the files of hands that never ended)."""
        keys = self.state / "private-keys"
        found = keys.glob("*.key") if keys.exists() else ()
        return sorted(p for p in found if not p.name.startswith(".tmp-"))


def _mid_hand(player: Player) -> Callable[[dict[str, Any]], bool]:
    """Stop once the player acted twice in a hand and holds its keys on disk: the hand is
    under way, cards of its own still hidden."""

    def stop(obj: dict[str, Any]) -> bool:
        return obj["type"] == "acted" and len(player.of("acted")) >= 2 and bool(player.key_files())

    return stop


#: (game, seats, host bots, options): short games; One Card at six seats, ONE at its four and at
#: two (the two players alone); Black Jack, whose private games run long on the host, at three
TABLES = [
    ("one", 2, 0, ("target=1",)),
    ("one-card", 6, 4, ("attack_cap=2", "bankrupt_at=0")),
    ("one", 4, 2, ("target=1",)),
    ("black-jack", 3, 1, ("black_jack_pickup=1", "aces_anytime=true")),
]


@pytest.mark.timeout(GAME_TIMEOUT + 60)
@pytest.mark.parametrize("table", TABLES, ids=[f"{t[0]}-{t[1]}" for t in TABLES])
async def test_a_killed_player_resumes_a_private_hand_and_the_game_plays_to_the_end(
    host_process: Callable[[Path], AbstractContextManager[Any]],
    tmp_path: Path,
    table: tuple[str, int, int, tuple[str, ...]],
) -> None:
    game, seats, bots, options = table
    ann, bea = (Player(n, tmp_path / n) for n in ("ann", "bea"))
    for p in (ann, bea):
        p.state.mkdir()
    with host_process(tmp_path / "host") as host, trio.fail_after(GAME_TIMEOUT):
        address = f"127.0.0.1:{host.port}"
        async with trio.open_nursery() as nursery:
            await ann.start(
                nursery,
                address,
                *("--create", game, "--seats", str(seats), "--bots", str(bots), "--private"),
                *(arg for option in options for arg in ("--option", option)),
                *("--name", "Ann"),
            )
            while not ann.of("seated"):
                assert await ann.next() is not None, ann.lines
            table_id = ann.of("seated")[0]["table"]
            await bea.start(nursery, address, "--table", table_id, "--name", "Bea")
            ends: dict[str, str | None] = {}

            async def ann_plays() -> None:
                ends["ann"] = await ann.play()

            nursery.start_soon(ann_plays)
            assert await bea.play(until=_mid_hand(bea)) is None, bea.lines[-5:]
            kept = bea.key_files()
            assert bea.process is not None
            bea.process.send_signal(signal.SIGKILL)
            await bea.process.wait()
            assert [p.name for p in bea.key_files()] == [p.name for p in kept]  # left behind
            killed_at = len(bea.lines)
            # no --table: the saved seat of this host is resumed
            await bea.start(nursery, address)
            ends["bea"] = await bea.play()
    assert ends == {"ann": "game over", "bea": "game over"}, (ann.lines[-3:], bea.lines[-3:])
    after = bea.lines[killed_at:]
    resumed = [line for line in after if line["type"] == "resumed"]
    assert resumed and resumed[0]["table"] == table_id
    assert any(line["type"] == "acted" for line in after)
    # the hand it was killed in went on with its keys: nothing was voided, every deal checked
    for p in (ann, bea):
        verdicts = p.of("fairness")
        assert verdicts and {v["status"] for v in verdicts} == {"verified"}, verdicts
        records = p.of("record")
        assert records and {r["status"] for r in records} == {"valid"}, records
    assert not bea.key_files()  # dropped once each hand ended
    # `onecard verify` on every record either player saved
    files = sorted({r["file"] for p in (ann, bea) for r in p.of("record")})
    done = subprocess.run([*ONECARD, "verify", *files], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(files) and all("valid" in line and "audited" in line for line in lines)
