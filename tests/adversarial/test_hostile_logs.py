"""A hostile client puts ESC sequences, bidi overrides and newlines in what it sends: the host
refuses them where a field must be printable (a bot label too, since it is stored and shown to
everyone in ``table_info``), and its ``-v`` log shows whatever a client said escaped, never
raw (a client's fatal ``error`` message, a label stored before labels were checked)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
import trio

import protocol.table_messages as tm
from host.server.server import HostInfo
from protocol.errors import ErrorCode
from protocol.messages import Error

Unsafe = Callable[..., list[str]]


class _Conn:
    """What a table needs of a connection (a client that never reads)."""

    def __init__(self) -> None:
        self.closed = False

    def deliver(self, msgs: list[dict[str, Any]]) -> bool:
        return True

    def deliver_backlog(self, msgs: list[dict[str, Any]]) -> None:
        pass

    def close_politely(self, msg: dict[str, Any]) -> None:
        self.closed = True


async def test_a_join_whose_bot_label_is_not_printable_is_refused_bad_field(
    real_host: HostInfo, raw_client: Callable[[], Any], hostile: Any
) -> None:
    table_id = await real_host.host.create_table("one-card", seats=3)
    async with raw_client() as client:
        for i, bot in enumerate((hostile.name, "\u202e", "\x1b", "b" * 33), 1):
            join = {"type": "join", "id": i, "table": table_id, "name": f"Eve{i}", "bot": bot}
            await client.send_raw(join)
            reply = await client.reply(i)
            assert isinstance(reply, Error), (bot, reply)
            assert reply.code is ErrorCode.BAD_FIELD and not reply.fatal
            assert "'bot'" in reply.message and reply.message.isprintable()
        await client.send_raw(
            {"type": "join", "id": 9, "table": table_id, "name": "Eve", "bot": "[red]b0t"}
        )
        assert isinstance(await client.reply(9), tm.Joined)  # printable: markup is just text
    seats = real_host.host.lobby.table(table_id).summary()["seats"]
    assert [s["bot"] for s in seats if s is not None] == ["[red]b0t"]


async def test_the_host_log_shows_what_clients_send_escaped(
    real_host: HostInfo,
    raw_client: Callable[[], Any],
    caplog: pytest.LogCaptureFixture,
    hostile: Any,
    unsafe: Unsafe,
) -> None:
    caplog.set_level(logging.INFO, logger="host")
    table_id = await real_host.host.create_table("one-card", seats=3)
    async with raw_client() as eve:
        hostile_join = [{"name": hostile.name}, {"name": "Eve", "bot": hostile.name}]
        for i, fields in enumerate(hostile_join, 1):  # (refused: see the test above)
            await eve.send_raw({"type": "join", "id": i, "table": table_id, **fields})
            await eve.reply(i)
    async with raw_client() as client:
        await client.send_raw({"type": "join", "id": 3, "table": table_id, "name": "[red]Eve"})
        assert isinstance(await client.reply(3), tm.Joined)
        await client.send_raw({"type": "chat", "id": 4, "table": table_id, "text": hostile.text})
        chat = await client.reply(4)
        assert isinstance(chat, Error) and chat.code is ErrorCode.BAD_FIELD
        # the client ends the connection with a fatal error that says anything
        await client.send(Error(code=ErrorCode.INTERNAL, message=hostile.text, fatal=True))
        with trio.fail_after(10):
            while "the client reported" not in caplog.text:
                await trio.sleep(0.01)
    # a label that never passed the wire's check (stored by an older host, say) is logged too
    table = real_host.host.lobby.table(table_id)
    await table.join(_Conn(), "Old", bot=hostile.name)
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("host")]
    assert all(unsafe(line, allowed="") == [] for line in lines), lines
    assert unsafe(caplog.text) == []
    closed = [line for line in lines if "the client reported" in line]
    assert closed and "the client reported internal: Eve\\x1b]0;PWNED\\x07" in closed[0]
    assert "\\nFORGED" in closed[0] and "\\u202e" in closed[0]
    assert any("[red]Eve took seat" in line for line in lines)
    assert any("Old took seat " in line and "(bot: E\\x1b]0;PWN\\x07" in line for line in lines)
