"""Fixtures for client tests: a real host on loopback, and client processes to drive.

Test files cannot import each other (``--import-mode=importlib``), so helpers are handed out by
fixtures. ``start_host`` runs :func:`host.server.serve_host` in the test's trio nursery (port 0,
127.0.0.1, a temporary data directory, bots with no thinking time); ``client_env`` is an
environment for client subprocesses whose known_hosts file and state directory live under
``tmp_path``, so no test touches the user's real files; ``json_client`` starts ``onecard ...
--json`` as a subprocess and reads its NDJSON output line by line.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from host.server import HostConfig, HostInfo, serve_host

ONECARD = [sys.executable, "-m", "client"]

StartHost = Callable[..., Awaitable[HostInfo]]


@pytest.fixture
def client_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["ONECARD_KNOWN_HOSTS"] = str(tmp_path / "known_hosts")
    env["ONECARD_STATE_DIR"] = str(tmp_path / "state")
    env["NO_COLOR"] = "1"
    env["PYTHONUTF8"] = "1"
    env.pop("FORCE_COLOR", None)
    return env


@pytest.fixture
def start_host(nursery: trio.Nursery, tmp_path: Path) -> StartHost:
    async def start(**overrides: Any) -> HostInfo:
        fields: dict[str, Any] = {
            "data_dir": tmp_path / "host",
            "bind": "127.0.0.1",
            "port": 0,
            "advertise": False,
            "bot_think": 0.0,
            **overrides,
        }
        info: HostInfo = await nursery.start(serve_host, HostConfig(**fields))
        return info

    return start


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
        assert self.process.stdin is not None
        await self.process.stdin.send_all((json.dumps(obj) + "\n").encode())

    async def play_to_end(
        self, on_line: Callable[[dict[str, Any]], Awaitable[None]] | None = None
    ) -> dict[str, Any] | None:
        """Answer every turn with the first legal action; return the ``end`` line."""
        while True:
            obj = await self.next()
            if obj is None:
                return None
            if on_line is not None:
                await on_line(obj)
            if obj["type"] == "state" and obj.get("my_turn"):
                await self.send({"cmd": "act", "index": 0})
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
