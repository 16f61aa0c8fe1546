"""Clients that fill the host with bots, hold two seats, or sit where someone just played.

Attacks from the second hardening issue (points 1 and 8), each on trio's mock clock against a
real :class:`host.server.lobby.Lobby` with in-memory connections (a ``FakeConn`` keeps what it is
sent):

* one connection with no seat created tables and added hard bots to each, whose searches
  stalled every other table (point 1): host bots are now limited per connection and per
  address, hard ones more tightly (the searches themselves run in worker processes:
  ``tests/host/test_thinking.py``);
* one connection held two seats at a table by resuming another seat's token (point 8);
* the next player in a freed seat was shown the previous player's final hand (point 8);
* a connection resuming again and again without reading held a copy of the backlog each time
  (point 8): every resume now shares the table's one list of the game's messages;
* a connection that broke the protocol cost an ERROR line for every reply the host could no
  longer send it (point 8): INFO now.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from host.server.lobby import BotLimits, Lobby
from host.server.server import HostConfig, HostInfo, serve_host
from host.storage.store import Store
from host.table.seating import HOSTED_BOT_PREFIX
from host.table.table import TableError
from net.session import ClientSession, open_session
from protocol.errors import ErrorCode
from protocol.framing import encode_frame
from protocol.messages import Hello


@pytest.fixture
async def lobby(
    autojump_clock: trio.testing.MockClock,
    store: Store,
    nursery: trio.Nursery,
    fake_conn: type[Any],
) -> Lobby:
    """A lobby that seats its bots as in-process connections would (no bot plays: the
    tables' games are not what these tests look at)."""
    lobby = Lobby(
        store=store,
        signing_key=Ed25519PrivateKey.generate(),
        host_name="test",
        key_fingerprint="x",
        turn_timer=None,
        grace=60.0,
        round_timeout=20.0,
        nursery=nursery,
        bot_limits=BotLimits(per_client=3, hard_per_client=2),
    )

    async def spawn(table_id: str, kind: str, seat: int | None, token: str | None) -> int:
        table = lobby.table(table_id)
        name = lobby.bot_name(table_id)
        index, _ = await table.join(fake_conn(trusted=True), name, seat, HOSTED_BOT_PREFIX + kind)
        return index

    lobby.spawn_bot = spawn
    return lobby


async def test_one_client_seats_only_so_many_hard_bots(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    eve = fake_conn()
    tables = [await lobby.create_table(game="one-card", seats=4, creator=eve) for _ in range(3)]
    await lobby.add_bot(tables[0].table_id, level="hard", seat=None, by=eve)
    await lobby.add_bot(tables[1].table_id, level="hard", seat=None, by=eve)
    with pytest.raises(TableError) as refused:
        await lobby.add_bot(tables[2].table_id, level="hard", seat=None, by=eve)
    assert refused.value.code is ErrorCode.FULL
    assert refused.value.message == (
        "you have 2 hard bots seated, the most this host allows (its operator can raise "
        "onecard host --max-hard-bots-per-client); an easy or normal bot may still be added"
    )
    await lobby.add_bot(tables[2].table_id, level="normal", seat=None, by=eve)
    with pytest.raises(TableError) as refused:
        await lobby.add_bot(tables[2].table_id, level="easy", seat=None, by=eve)
    assert refused.value.message.startswith("you have 3 host bots seated, the most")
    assert "--max-bots-per-client" in refused.value.message
    # the host itself (onecard play) is not limited
    await lobby.add_bot(tables[2].table_id, level="hard", seat=None, by=None)


async def test_one_address_seats_twice_what_one_client_may(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """Reconnecting gives a fresh connection but not a fresh allowance."""
    tables = []
    for i in range(2):
        eve = fake_conn("192.0.2.66")
        tables.append(await lobby.create_table(game="one-card", seats=4, creator=eve))
        for _ in range(2):
            await lobby.add_bot(tables[i].table_id, level="hard", seat=None, by=eve)
    again = fake_conn("192.0.2.66")
    table = await lobby.create_table(game="one-card", seats=4, creator=again)
    with pytest.raises(TableError) as refused:
        await lobby.add_bot(table.table_id, level="hard", seat=None, by=again)
    assert refused.value.message.startswith(
        "your address (192.0.2.66) has 4 hard bots seated, the most this host allows"
    )
    other = fake_conn("192.0.2.7")  # another machine is not held back
    table = await lobby.create_table(game="one-card", seats=4, creator=other)
    await lobby.add_bot(table.table_id, level="hard", seat=None, by=other)


async def test_a_bot_stops_counting_once_its_seat_is_freed(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    eve = fake_conn()
    table = await lobby.create_table(game="one-card", seats=4, creator=eve)
    await eve_sits(table, eve)
    for _ in range(2):
        await lobby.add_bot(table.table_id, level="hard", seat=None, by=eve)
    seat = next(s for s in table.seats if s is not None and s.bot is not None)
    table.seats[seat.index] = None  # the seat is freed (a kick, a dropped table)
    await lobby.add_bot(table.table_id, level="hard", seat=None, by=eve)


async def eve_sits(table: Any, eve: Any) -> None:
    await table.join(eve, "eve")


async def test_one_connection_cannot_hold_two_seats_by_resuming_another_token(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    table = await lobby.create_table(game="one-card", seats=3)
    eve, ann = fake_conn(), fake_conn()
    await table.join(eve, "eve")
    _, ann_token = await table.join(ann, "ann")
    ann.closed = True
    table.detach(ann)
    with pytest.raises(TableError) as refused:
        await lobby.resume(eve, ann_token, 0)
    assert refused.value.code is ErrorCode.BAD_STATE
    assert refused.value.message == (
        f"this connection already holds seat 0 at table {table.table_id}: one connection plays "
        "one seat at a table (resume seat 1 from another connection)"
    )
    assert table.seat_of(eve) == 0 and table.seats[1] is not None and table.seats[1].conn is None
    await lobby.resume(fake_conn(), ann_token, 0)  # from a connection of her own: fine


async def test_a_freed_seat_shows_the_next_player_nothing_of_the_last(
    autojump_clock: trio.testing.MockClock, tmp_path: Path, nursery: trio.Nursery
) -> None:
    config = HostConfig(
        data_dir=tmp_path / "host",
        bind="127.0.0.1",
        port=0,
        insecure=True,
        advertise=False,
        store_in_thread=False,
        turn_timer=None,
        bot_think=0.0,
    )
    info: HostInfo = await nursery.start(serve_host, config)

    @asynccontextmanager
    async def connect() -> AsyncIterator[ClientSession]:
        client_end, host_end = trio.testing.memory_stream_pair()
        nursery.start_soon(info.host.handle, host_end)
        async with open_session(client_end) as client:
            yield client

    table = await info.host.create_table("one-card", seats=2)
    seen: list[object] = []
    async with connect() as a, connect() as b, trio.open_nursery() as playing:
        ann = BotPlayer(a, table_id=table, stay=True)
        bob = BotPlayer(b, table_id=table)
        for player, name in ((ann, "ann"), (bob, "bob")):
            await player.join(name)
            playing.start_soon(player.play)
        with trio.fail_after(600):
            while ann.outcome is None or bob.outcome is None:
                await trio.sleep(1)
        await b.request(tm.Leave(table=table))  # the game is over: bob's seat is freed
        async with connect() as c:
            joined = await c.request(tm.Join(table=table, name="cy"))
            assert isinstance(joined, tm.Joined) and joined.seat == 1
            await c.request(tm.Ready(table=table, ready=False))
            with trio.move_on_after(5):
                async for push in c.pushes:
                    seen.append(push)
        async with connect() as c:  # cy's connection dropped: she resumes her seat
            resumed = await c.request(tm.Resume(token=joined.token, last_seq=0))
            assert isinstance(resumed, tm.Resumed) and resumed.seat == 1
            with trio.move_on_after(5):
                async for push in c.pushes:
                    seen.append(push)
        playing.cancel_scope.cancel()
    assert any(isinstance(p, tm.TableInfo) for p in seen)
    assert [p for p in seen if isinstance(p, tm.StatePush)] == []


async def test_resuming_again_and_again_without_reading_shares_one_backlog(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    table = await lobby.create_table(game="one-card", seats=2)
    eve, bob = fake_conn(), fake_conn()
    _, token = await table.join(eve, "eve")
    await table.join(bob, "bob")
    await table.set_ready(eve, True)
    await table.set_ready(bob, True)  # the game starts: its pushes are journaled
    backlogs = []
    for last_seq in (0, 0, 1, 0):
        eve.got.clear()
        await lobby.resume(eve, token, last_seq)
        journaled = [
            m for m in eve.got if m.get("seq") is not None and m["type"] not in ("state", "resumed")
        ]
        backlogs.append(journaled)
    assert len(backlogs[0]) >= 2
    first = {id(m) for m in backlogs[0]}
    for again in backlogs[1:]:
        assert again and {id(m) for m in again} <= first  # the same objects, never copies
    assert [m["seq"] for m in backlogs[2]] == [m["seq"] for m in backlogs[0] if m["seq"] > 1]


async def test_garbage_connections_are_logged_at_info_not_error(
    tmp_path: Path, nursery: trio.Nursery, caplog: pytest.LogCaptureFixture
) -> None:
    """A connection that breaks the protocol, then keeps sending, was worth an ERROR line for
    every reply the host could no longer send it (783 from one attack)."""
    config = HostConfig(
        data_dir=tmp_path / "host", bind="127.0.0.1", port=0, insecure=True, advertise=False
    )
    info: HostInfo = await nursery.start(serve_host, config)
    caplog.set_level(logging.INFO)
    hello = Hello(protocol="onecard", versions=(1,), software="garbage", id=0).to_wire()
    frames = [encode_frame(hello)]
    for i in range(20):  # requests refused (their errors are queued), then a type only the
        # host sends: the connection fails before the queued errors are written
        frames.append(encode_frame({"type": "join", "id": 100 + i, "table": "t", "name": "x"}))
    frames.append(encode_frame({"type": "welcome", "id": 1}))
    for _ in range(3):
        stream = await trio.open_tcp_stream("127.0.0.1", info.port)
        await stream.send_all(b"".join(frames))
        with trio.fail_after(30):
            try:
                while await stream.receive_some(65536):
                    pass
            except trio.BrokenResourceError:
                pass
        await stream.aclose()
    with trio.fail_after(30):
        while sum("connection closed" in r.getMessage() for r in caplog.records) < 3:
            await trio.sleep(0.05)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert any("not sent after the connection failed" in r.getMessage() for r in caplog.records)
