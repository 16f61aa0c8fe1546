"""A long-running host keeps no garbage for the cycle collector: what a game leaves is freed
by reference counting (hardening issue 25, point 8).

``onecard host`` freezes what survives each full collection (host/server/gc_tuning.py), so a cycle
among a dropped table's objects waited for the quarter-hourly thaw: 48 -> 277 MB over 2,400
bots-only games. These tests drop a table, with its bots' connections, while the collector is
off, and check that both are gone all the same.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Awaitable, Callable, Iterator

import pytest
import trio

from host.server.server import HostInfo
from host.table.seats import TablePhase

StartHost = Callable[..., Awaitable[HostInfo]]


@pytest.fixture
def no_collector() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def test_a_dropped_table_and_its_bots_connections_are_freed_without_the_collector(
    start_host: StartHost, no_collector: None
) -> None:
    info = await start_host(max_tables=1)
    table_id = await info.host.create_table("one-card", seats=3)
    await info.host.add_bots(table_id, 3, level="normal")
    table = info.host.lobby.table(table_id)
    with trio.fail_after(120):
        while table.phase is not TablePhase.FINISHED:
            await trio.sleep(0.05)
    seated = [s.conn for s in table.seats if s is not None]
    assert len(seated) == 3
    gone = [weakref.ref(table), *(weakref.ref(c) for c in seated)]
    del table, seated
    await info.host.create_table("one-card", seats=2)  # the finished table makes room
    with trio.fail_after(30):
        while any(ref() is not None for ref in gone):
            await trio.sleep(0.05)
    assert table_id not in info.host.lobby.tables
