"""The lobby: finding a resume token's table, on trio's mock clock over in-memory streams."""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

import protocol.table_messages as tm
from host.server.server import HostInfo
from net.session import RequestError
from protocol.errors import ErrorCode
from protocol.registry import message_from_wire


async def test_a_resume_is_not_held_up_by_another_tables_busy_lock(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    busy_id = await mock_host.host.create_table("one-card", seats=2)
    mine_id = await mock_host.host.create_table("one-card", seats=2)
    busy = mock_host.host.lobby.table(busy_id)
    async with connect_memory(mock_host) as a:
        joined = await a.request(tm.Join(table=mine_id, name="ann"))
        assert isinstance(joined, tm.Joined)
    await busy.lock.acquire()  # e.g. a slow store write at the other table
    try:
        async with connect_memory(mock_host) as b:
            start = trio.current_time()
            resumed = await b.request(tm.Resume(token=joined.token, last_seq=0))
            assert isinstance(resumed, tm.Resumed)
            assert (resumed.table, resumed.seat) == (mine_id, joined.seat)
            assert trio.current_time() - start < 1.0
    finally:
        busy.lock.release()


async def test_an_unknown_token_is_not_found(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    await mock_host.host.create_table("one-card", seats=2)
    async with connect_memory(mock_host) as b:
        with pytest.raises(RequestError) as refused:
            await b.request(tm.Resume(token="x" * 43, last_seq=0))
        assert refused.value.code is ErrorCode.NOT_FOUND and not refused.value.error.fatal


async def test_a_finished_table_with_no_player_leaves_the_list_but_stays_served(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo
) -> None:
    """Before, every finished table stayed in list_tables for as long as the host ran."""
    from host.server.lobby import FINISHED_LISTED_S
    from host.table.table import TablePhase

    lobby = mock_host.host.lobby
    done = await mock_host.host.create_table("black-jack", seats=2)
    await mock_host.host.add_bots(done, 2)
    with trio.fail_after(600):
        while lobby.table(done).phase is not TablePhase.FINISHED:
            await trio.sleep(1)
    waiting = await mock_host.host.create_table("one-card", seats=2)
    await trio.sleep(FINISHED_LISTED_S / 2)
    assert {t["table"] for t in lobby.table_summaries()} == {done, waiting}
    await trio.sleep(FINISHED_LISTED_S)
    assert [t["table"] for t in lobby.table_summaries()] == [waiting]
    assert lobby.table(done).phase is TablePhase.FINISHED  # still there by id


async def test_a_table_without_a_name_shows_its_id_as_its_name(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    """PROTOCOL.md 3.1 (issue 24.11): ``table_info.name`` is the created name (1..32) or, when
    none was given, the table id (up to 64 characters), hence its 0..64 in section 9."""
    async with connect_memory(mock_host) as c:
        named = await c.request(tm.CreateTable(game="one-card", seats=2, name="Den"))
        plain = await c.request(tm.CreateTable(game="one-card", seats=2))
    assert isinstance(named, tm.TableCreated) and isinstance(plain, tm.TableCreated)
    assert named.info["name"] == "Den"
    assert plain.info["name"] == plain.table
    longest = message_from_wire({**plain.info, "type": "table_info", "name": "t" * 64})
    assert isinstance(longest, tm.TableInfo) and len(longest.name) == 64


async def test_a_private_table_says_so_and_refuses_what_it_cannot_play(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    """PROTOCOL.md 10.11/10.13: ``private`` in ``table_info`` and ``tables``; options a
    private table cannot audit are refused naming the option; a host bot may sit there."""
    async with connect_memory(mock_host) as c:
        for game, options, name in [
            ("one-card", {"multi_play": True}, "multi_play"),
            ("black-jack", {"jokers": 2}, "jokers"),
            ("black-jack", {"chain": True}, "chain"),
        ]:
            with pytest.raises(RequestError) as refused:
                await c.request(tm.CreateTable(game=game, seats=2, options=options, private=True))
            assert refused.value.code is ErrorCode.BAD_FIELD
            assert name in str(refused.value) and "private" in str(refused.value)
        # a bankruptcy mid-game is played (its holder shows the hand: 10.11 step 7)
        wide = await c.request(tm.CreateTable(game="one-card", seats=4, private=True))
        assert isinstance(wide, tm.TableCreated) and wide.info["options"]["bankrupt_at"] == 20
        made = await c.request(tm.CreateTable(game="one-card", seats=2, private=True))
        plain = await c.request(tm.CreateTable(game="one-card", seats=2))
        assert isinstance(made, tm.TableCreated) and made.info["private"] is True
        assert isinstance(plain, tm.TableCreated) and plain.info["private"] is False
        listed = await c.request(tm.ListTables())
        assert isinstance(listed, tm.Tables)
        private = {t["table"]: t["private"] for t in listed.tables}
        assert private == {wide.table: True, made.table: True, plain.table: False}
        # a host bot is a seat client, which does a private seat's masking: it may sit here
        seated = await c.request(tm.AddBot(table=made.table, kind="normal"))
        assert isinstance(seated, tm.BotAdded)
