"""A hostile host against ``onecard join`` (issue 25, points 6 and 7): the real command in a
subprocess, over TLS on loopback, against a small scripted host that floods pushes ahead of a
reply, sends message types no version knows, or breaks the framing.

What must hold: the client keeps going through a flood and unknown types (answering each
unknown type with a non-fatal ``unknown_type``, PROTOCOL.md section 1), and a fatal failure
ends it with one line on stderr and its exit status, never a traceback.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

import protocol.lobby_messages as lm
import protocol.table_messages as tm
from client import join_cmd
from client.commands import HostUnavailable, host_error
from client.join_cmd import join_command
from protocol.connection import Connection, Role
from protocol.errors import ErrorCode
from protocol.exit_codes import ExitCode
from protocol.framing import NEED_DATA, encode_frame
from protocol.messages import Error, Message, Ping, Welcome

ONECARD = [sys.executable, "-m", "onecard"]
#: seconds the whole exchange may take before the test fails (instead of hanging)
EXCHANGE_TIMEOUT = 60
#: pushes sent ahead of the reply to ``ready`` (the issue's figure)
FLOOD = 2000
TABLE = "t1"
OUTCOME = {"termination": "out", "winners": [0], "ranking": [0, 1], "scores": [0, 5]}

TlsHandler = Callable[[trio.SSLStream[trio.SocketStream]], Awaitable[None]]


class HostileHost:
    """Answers ``join`` and ``leave``; on ``ready`` does what its ``mode`` says."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.from_client: list[Message] = []

    async def handle(self, stream: trio.SSLStream[trio.SocketStream]) -> None:
        proto = Connection(role=Role.HOST)
        try:
            while True:
                msg = proto.next_message()
                if msg is NEED_DATA:
                    data = await stream.receive_some(65536)
                    if not data:
                        return
                    proto.receive_data(bytes(data))
                    continue
                assert isinstance(msg, Message)
                self.from_client.append(msg)
                if msg.TYPE == "bye":
                    return
                for out in self.answer(msg):
                    await stream.send_all(out if isinstance(out, bytes) else proto.send(out))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return

    def answer(self, msg: Message) -> list[Message | bytes]:
        if msg.TYPE == "hello":
            fingerprint = "sha256:" + "0" * 64
            return [
                Welcome(
                    version=1,
                    host_name="hostile",
                    software="hostile/1",
                    fingerprint=fingerprint,
                    limits={},
                    re=msg.id,
                )
            ]
        if isinstance(msg, lm.Join):
            return [lm.Joined(table=TABLE, seat=0, token="t" * 32, re=msg.id)]
        if isinstance(msg, lm.Ready):
            return self.on_ready(msg)
        if isinstance(msg, lm.Leave):
            return [lm.Ok(re=msg.id)]
        if isinstance(msg, Ping):
            return [msg.response()]
        if isinstance(msg, Error):
            return []
        return [Error(code=ErrorCode.BAD_STATE, message="no", fatal=False, re=msg.id)]

    def on_ready(self, msg: lm.Ready) -> list[Message | bytes]:
        if self.mode == "broken":  # a frame that is no msgpack map: fatal for the session
            return [b"\x00\x00\x00\x03abc"]
        out: list[Message | bytes] = []
        for n in range(1, FLOOD + 1):
            if n % 500 == 0:  # a newer host's message types, with an id to answer
                out.append(encode_frame({"type": "future_push", "id": 9000 + n, "x": [1, 2]}))
            out.append(tm.ChatLine(table=TABLE, seat=1, name="Flood", text=f"line {n}", n=n))
        out.append(lm.Ok(re=msg.id))
        out.append(encode_frame({"type": "future_push", "id": 99999}))
        out.append(tm.GameOver(table=TABLE, seq=1, game_no=1, outcome=OUTCOME))
        return out


async def _join(port: int, tmp_path: Path) -> tuple[int, list[dict[str, object]], str]:
    """Run ``onecard join --json`` against the host; its status, JSON lines and stderr."""
    env = {
        "ONECARD_KNOWN_HOSTS": str(tmp_path / "known_hosts"),
        "ONECARD_STATE_DIR": str(tmp_path / "state"),
        "PATH": "/usr/bin:/bin",
        "PYTHONUTF8": "1",
    }
    args = [*ONECARD, "join", f"127.0.0.1:{port}", "--table", TABLE, "--name", "Ann", "--json"]
    pipe = subprocess.PIPE
    process = await trio.lowlevel.open_process(args, stdin=pipe, stdout=pipe, stderr=pipe, env=env)
    out: dict[str, bytes] = {"stdout": b"", "stderr": b""}

    async def drain(name: str, stream: trio.abc.ReceiveStream | None) -> None:
        assert stream is not None
        while chunk := await stream.receive_some(65536):
            out[name] += chunk

    try:
        # stdin stays open (its end would end the game for a --json client) until the exit
        with trio.fail_after(EXCHANGE_TIMEOUT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(drain, "stdout", process.stdout)
                nursery.start_soon(drain, "stderr", process.stderr)
                await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
        assert process.stdin is not None
        await process.stdin.aclose()
    lines = [json.loads(line) for line in out["stdout"].decode().splitlines()]
    assert process.returncode is not None
    return process.returncode, lines, out["stderr"].decode()


async def test_a_flood_before_the_reply_and_unknown_types_do_not_stop_join(
    serve_tls: Callable[[TlsHandler], Awaitable[int]], tmp_path: Path
) -> None:
    host = HostileHost("flood")
    status, lines, stderr = await _join(await serve_tls(host.handle), tmp_path)
    assert status == ExitCode.OK, stderr
    assert "Traceback" not in stderr
    chat = [line["text"] for line in lines if line["type"] == "chat_line"]
    assert chat == [f"line {n}" for n in range(1, FLOOD + 1)]  # every push, in order
    assert lines[-1]["type"] == "end"
    unknown = [m for m in host.from_client if isinstance(m, Error)]
    assert [(m.code, m.fatal) for m in unknown] == [(ErrorCode.UNKNOWN_TYPE, False)] * 5
    assert sorted(m.re for m in unknown if isinstance(m.re, int)) == [
        9500,
        10000,
        10500,
        11000,
        99999,
    ]
    assert any(isinstance(m, lm.Leave) for m in host.from_client)  # it went on to the end


async def test_a_fatal_failure_is_one_line_with_its_status(
    serve_tls: Callable[[TlsHandler], Awaitable[int]], tmp_path: Path
) -> None:
    status, _lines, stderr = await _join(await serve_tls(HostileHost("broken").handle), tmp_path)
    assert status == ExitCode.UNAVAILABLE
    assert "Traceback" not in stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert "protocol error" in stderr


def test_a_host_that_never_answers_is_one_line() -> None:
    mapped = host_error(trio.TooSlowError())
    assert isinstance(mapped, HostUnavailable)
    assert mapped.message == "the host did not answer within 30 s"


def test_an_unforeseen_failure_is_one_line_and_vv_shows_the_traceback(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug set off by what a host sent (here a KeyError deep in the game) ends ``join`` with
    one line and status 1; at debug level (``-vv``) the traceback shows where."""

    async def broken(**kwargs: object) -> None:
        await trio.lowlevel.checkpoint()
        raise KeyError("hand")

    monkeypatch.setattr(join_cmd, "run_join", broken)
    result = CliRunner().invoke(join_command, ["127.0.0.1:9"])
    assert result.exit_code == ExitCode.FAILED
    assert result.output.strip().splitlines() == [
        "Error: internal error (KeyError: 'hand'): a bug in onecard; run again with -vv to see "
        "where"
    ]
    caplog.set_level(logging.DEBUG)
    result = CliRunner().invoke(join_command, ["127.0.0.1:9"])
    assert isinstance(result.exception, KeyError)
