"""Fixtures for host tests: a running host on loopback port 0 and protocol clients.

Rules (after trio-websocket's test suite): localhost only, port 0, every wait bounded by
``fail_after``; anything timed runs on ``autojump_clock`` over in-memory streams (no sockets,
sqlite in the trio thread), so no test ever depends on wall-clock speed. Test files cannot import
each other, so helpers are handed out as fixtures.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from host.ratelimit import RateLimits
from host.server.server import HostConfig, HostInfo, serve_host
from net.session import ClientSession, open_session
from protocol.fairness import SignedMessage

Connect = Callable[..., AbstractAsyncContextManager[ClientSession]]


@pytest.fixture
def host_config(tmp_path: Path) -> HostConfig:
    return HostConfig(
        data_dir=tmp_path / "host",
        bind="127.0.0.1",
        port=0,
        insecure=True,
        advertise=False,
        bot_think=0.0,
        grace=5.0,
        rate_limits=RateLimits(per_second=1_000_000.0, burst=1_000_000.0),  # at full speed
    )


@pytest.fixture
async def host(nursery: trio.Nursery, host_config: HostConfig) -> HostInfo:
    info: HostInfo = await nursery.start(serve_host, host_config)
    return info


@pytest.fixture
async def mock_host(nursery: trio.Nursery, tmp_path: Path) -> HostInfo:
    """A host for the mock clock: sqlite in the trio thread, a 30 s turn timer, 10 s grace."""
    config = HostConfig(
        data_dir=tmp_path / "host",
        bind="127.0.0.1",
        port=0,
        insecure=True,
        advertise=False,
        store_in_thread=False,
        turn_timer=30.0,
        grace=10.0,
        bot_think=0.0,
    )
    info: HostInfo = await nursery.start(serve_host, config)
    return info


@pytest.fixture
def connect(host: HostInfo) -> Connect:
    """``async with connect() as client``: a handshaken client over loopback TCP."""

    @asynccontextmanager
    async def _connect(*, keep: bool = True) -> AsyncIterator[ClientSession]:
        stream = await trio.open_tcp_stream("127.0.0.1", host.port)
        async with open_session(stream, keep=keep) as client:
            yield client

    return _connect


@pytest.fixture
def connect_memory(nursery: trio.Nursery) -> Callable[..., Any]:
    """``connect_memory(info)``: a client over an in-memory stream (mock-clock safe)."""

    @asynccontextmanager
    async def _connect(info: HostInfo, *, keep: bool = True) -> AsyncIterator[ClientSession]:
        client_end, host_end = trio.testing.memory_stream_pair()
        nursery.start_soon(info.host.handle, host_end)
        async with open_session(client_end, keep=keep) as client:
            yield client

    return _connect


def signed(push: Any) -> SignedMessage:
    return SignedMessage.from_wire(push.msg)


@pytest.fixture
def decode_signed() -> Callable[[Any], SignedMessage]:
    return signed
