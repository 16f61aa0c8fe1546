"""client/session.py: errors raised inside an open session reach the caller unwrapped."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import trio

from client.session import RequestError, leaves, open_session
from protocol.table_messages import Join


async def test_an_error_in_the_session_body_is_not_swallowed(
    start_host: Callable[..., Awaitable[Any]],
) -> None:
    info = await start_host(insecure=True)
    stream = await trio.open_tcp_stream("127.0.0.1", info.port)
    with pytest.raises(ValueError, match="boom"):
        async with open_session(stream) as session:
            assert session.welcome is not None
            raise ValueError("boom")


async def test_a_refused_request_surfaces_as_request_error(
    start_host: Callable[..., Awaitable[Any]],
) -> None:
    info = await start_host(insecure=True)
    stream = await trio.open_tcp_stream("127.0.0.1", info.port)
    with pytest.raises(RequestError):
        async with open_session(stream) as session:
            await session.request(Join(table="no-such-table", name="Ann"))


def test_leaves_flattens_nested_groups() -> None:
    a, b = ValueError("a"), KeyError("b")
    group = BaseExceptionGroup("outer", [ExceptionGroup("inner", [a]), b])
    assert leaves(group) == [a, b]
    assert leaves(a) == [a]
