"""The host's connection caps: in total and per peer address (``host/server/server.py``).

Memory-stream tests run on the mock clock and hand ``Host.handle`` a made-up peer address (the
accept loop passes the socket's); the TCP tests use loopback with real time and generous bounds.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

import protocol.table_messages as tm
from host.server.admission import HANDSHAKE_DEADLINE_S, MAX_HANDSHAKING, MAX_HANDSHAKING_PER_ADDRESS
from host.server.server import (
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_PER_ADDRESS,
    MAX_REFUSING,
    HostConfig,
    HostInfo,
    _capped_address,
    serve_host,
)
from host.tools.cli import BOT_COUNT
from net.session import ClientSession, Disconnected, RequestError, open_session
from protocol.errors import ErrorCode
from protocol.framing import NEED_DATA, FrameDecoder
from protocol.limits import HANDSHAKE_TIMEOUT_S

A, B = "192.0.2.7", "198.51.100.3"  # documentation addresses (RFC 5737)


def _config(tmp_path: Path, **kw: Any) -> HostConfig:
    fields: dict[str, Any] = {
        "bind": "127.0.0.1",
        "port": 0,
        "insecure": True,
        "advertise": False,
        "store_in_thread": False,  # the mock clock's default; the TCP test turns it on
        "bot_think": 0.0,
    }
    return HostConfig(data_dir=tmp_path / "host", **(fields | kw))


@pytest.fixture
async def capped(nursery: trio.Nursery, tmp_path: Path) -> HostInfo:
    """A mock-clock host taking at most 2 connections from one address, 3 in all."""
    config = _config(tmp_path, max_connections=3, max_connections_per_address=2)
    info: HostInfo = await nursery.start(serve_host, config)
    return info


def _from(info: HostInfo, nursery: trio.Nursery, address: str | None) -> trio.abc.Stream:
    """A client end whose host end ``Host.handle`` serves as coming from ``address``."""
    client_end, host_end = trio.testing.memory_stream_pair()
    nursery.start_soon(functools.partial(info.host.handle, host_end, address=address))
    return client_end


@asynccontextmanager
async def _client(
    info: HostInfo, nursery: trio.Nursery, address: str | None
) -> AsyncIterator[ClientSession]:
    async with open_session(_from(info, nursery, address)) as client:
        yield client


async def _frames_until_closed(stream: trio.abc.Stream) -> list[dict[str, Any]]:
    """Every frame the host sends, sending nothing (no hello), until it closes the stream."""
    decoder = FrameDecoder()
    frames: list[dict[str, Any]] = []
    with trio.fail_after(60):
        while chunk := await stream.receive_some(65536):
            decoder.receive_data(chunk)
            while (frame := decoder.next_frame()) is not NEED_DATA:
                assert isinstance(frame, dict)
                frames.append(frame)
    return frames


async def _refused(info: HostInfo, nursery: trio.Nursery, address: str | None) -> dict[str, Any]:
    (frame,) = await _frames_until_closed(_from(info, nursery, address))
    return frame


async def _until(condition: Any) -> None:
    with trio.fail_after(60):
        while not condition():
            await trio.sleep(0.01)


def test_the_defaults_leave_room_for_several_addresses() -> None:
    assert HostConfig(data_dir=Path()).max_connections_per_address == MAX_CONNECTIONS_PER_ADDRESS
    assert MAX_CONNECTIONS_PER_ADDRESS == 20 and MAX_CONNECTIONS == 64
    assert BOT_COUNT.max + 3 <= MAX_CONNECTIONS_PER_ADDRESS  # bots + control, player, spectator
    assert MAX_CONNECTIONS_PER_ADDRESS * 3 < MAX_CONNECTIONS  # three machines cannot fill it


async def test_over_the_address_cap_is_refused_before_hello_and_others_get_in(
    autojump_clock: trio.testing.MockClock, capped: HostInfo, nursery: trio.Nursery
) -> None:
    async with _client(capped, nursery, A) as a1, _client(capped, nursery, A) as a2:
        assert capped.host.per_address[A] == 2
        refused = await _refused(capped, nursery, A)
        assert refused == {
            "type": "error",
            "code": "full",
            "message": f"too many connections from your address ({A}): at most 2 at a time; "
            "close one or retry later",
            "fatal": True,
        }  # no "re": nothing was read
        assert capped.host.per_address[A] == 2  # the refused one took no slot
        async with _client(capped, nursery, B) as b:  # another address still gets in
            assert isinstance(await b.request(tm.ListTables()), tm.Tables)
            assert capped.host.per_address == {A: 2, B: 1}
        for client in (a1, a2):
            assert isinstance(await client.request(tm.ListTables()), tm.Tables)


async def test_a_closed_connection_frees_its_address_slot(
    autojump_clock: trio.testing.MockClock, capped: HostInfo, nursery: trio.Nursery
) -> None:
    host = capped.host
    async with _client(capped, nursery, A):
        async with _client(capped, nursery, A):
            assert (await _refused(capped, nursery, A))["code"] == "full"
        await _until(lambda: host.per_address[A] == 1)
        async with _client(capped, nursery, A) as again:
            assert isinstance(await again.request(tm.ListTables()), tm.Tables)
    await _until(lambda: not host.per_address)


async def test_the_total_cap_still_holds(
    autojump_clock: trio.testing.MockClock, capped: HostInfo, nursery: trio.Nursery
) -> None:
    async with (
        _client(capped, nursery, A),
        _client(capped, nursery, B),
        _client(capped, nursery, None),
    ):
        # one connection per address: no address holds more than its share, so the newcomer
        # gets a slot only by resuming a seat; any other first request is refused
        async with _client(capped, nursery, "203.0.113.9") as newcomer:
            with pytest.raises(RequestError) as refused:
                await newcomer.request(tm.ListTables())
        assert refused.value.code is ErrorCode.FULL and refused.value.error.fatal
        assert "only a player resuming a seat gets in" in refused.value.error.message
        assert len(capped.host.admission.holders) == 3


async def _seated_then_gone(capped: HostInfo, nursery: trio.Nursery, table: str) -> tm.Joined:
    """Ann sits at ``table`` from address B, then her link drops: her seat waits for her."""
    async with _client(capped, nursery, B) as player:
        joined = await player.request(tm.Join(table=table, name="Ann"))
        assert isinstance(joined, tm.Joined)
    await _until(lambda: not capped.host.per_address)
    return joined


async def test_a_seated_player_resumes_while_every_slot_is_held(
    autojump_clock: trio.testing.MockClock, capped: HostInfo, nursery: trio.Nursery
) -> None:
    table = await capped.host.create_table("one-card", seats=2)
    joined = await _seated_then_gone(capped, nursery, table)
    async with (
        _client(capped, nursery, A) as a1,
        _client(capped, nursery, A),
        _client(capped, nursery, "203.0.113.9"),
    ):
        assert len(capped.host.admission.holders) == 3  # every slot held, none with a seat
        async with _client(capped, nursery, B) as back:
            resumed = await back.request(tm.Resume(token=joined.token))
            assert isinstance(resumed, tm.Resumed) and resumed.seat == 0
            # room was made from the busiest address (A), from a connection without a seat
            assert capped.host.per_address == {A: 1, B: 1, "203.0.113.9": 1}
            assert isinstance(await back.request(tm.Ready(table=table)), tm.Ok)
        del a1


async def test_a_bad_token_gets_no_room(
    autojump_clock: trio.testing.MockClock, capped: HostInfo, nursery: trio.Nursery
) -> None:
    async with (
        _client(capped, nursery, A),
        _client(capped, nursery, B),
        _client(capped, nursery, None),
    ):
        async with _client(capped, nursery, "203.0.113.9") as guesser:
            with pytest.raises(RequestError) as refused:
                await guesser.request(tm.Resume(token="x" * 32))
        assert refused.value.code is ErrorCode.FULL
        assert capped.host.per_address == {A: 1, B: 1}  # nobody was closed for it
        assert len(capped.host.admission.holders) == 3


async def test_a_newcomer_takes_a_slot_from_the_busiest_address(
    autojump_clock: trio.testing.MockClock, capped: HostInfo, nursery: trio.Nursery
) -> None:
    async with (
        _client(capped, nursery, A),
        _client(capped, nursery, A),
        _client(capped, nursery, B),
        _client(capped, nursery, "203.0.113.9") as newcomer,
    ):
        assert isinstance(await newcomer.request(tm.ListTables()), tm.Tables)
        assert capped.host.per_address == {A: 1, B: 1, "203.0.113.9": 1}


async def test_the_handshake_budget_cancels_the_oldest_of_the_busiest_address(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery, tmp_path: Path
) -> None:
    # room for more connections from one address than may be in their handshake at once
    config = _config(
        tmp_path, max_connections=3, max_connections_per_address=MAX_HANDSHAKING_PER_ADDRESS + 1
    )
    capped: HostInfo = await nursery.start(serve_host, config)
    admission = capped.host.admission
    # silent connections from many addresses (one each), then from one address (B) its share
    others = MAX_HANDSHAKING - MAX_HANDSHAKING_PER_ADDRESS
    silent = [_from(capped, nursery, f"203.0.113.{i}") for i in range(others)]
    await trio.testing.wait_all_tasks_blocked()
    mine = [_from(capped, nursery, B) for _ in range(MAX_HANDSHAKING_PER_ADDRESS)]
    await trio.testing.wait_all_tasks_blocked()
    assert len(admission.handshaking) == MAX_HANDSHAKING
    # one address cannot hold the budget: its handshakes beyond its share are refused
    frame = (await _frames_until_closed(_from(capped, nursery, B)))[0]
    assert frame["code"] == "full" and "still opening" in frame["message"]
    silent.append(_from(capped, nursery, "203.0.113.200"))  # a newer one makes room
    await trio.testing.wait_all_tasks_blocked()
    assert len(admission.handshaking) == MAX_HANDSHAKING
    async with _client(capped, nursery, A) as honest:  # and so does the honest client
        assert isinstance(await honest.request(tm.ListTables()), tm.Tables)
        start = trio.current_time()
        answered = [await _frames_until_closed(stream) for stream in mine]
        assert trio.current_time() - start <= HANDSHAKE_DEADLINE_S  # each has that at most
        # closed unanswered: two of B's (its oldest), the address with the most handshakes;
        # the others got to their deadline
        assert [frames == [] for frames in answered].count(True) == 2, answered
        # no connection alone from its address was cancelled: each had its deadline
        assert all([await _frames_until_closed(stream) for stream in silent])
    await _until(lambda: not admission.handshaking)


@pytest.mark.parametrize("loopback", ["127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"])
async def test_loopback_peers_are_not_capped_per_address(
    autojump_clock: trio.testing.MockClock, capped: HostInfo, nursery: trio.Nursery, loopback: str
) -> None:
    async with (
        _client(capped, nursery, loopback),
        _client(capped, nursery, loopback),
        _client(capped, nursery, loopback) as third,
    ):
        assert isinstance(await third.request(tm.ListTables()), tm.Tables)
        assert not capped.host.per_address


async def test_a_silent_connection_frees_its_slots_after_the_handshake_timeout(
    autojump_clock: trio.testing.MockClock, capped: HostInfo, nursery: trio.Nursery
) -> None:
    silent = _from(capped, nursery, A)
    start = trio.current_time()
    frames = await _frames_until_closed(silent)
    assert [(f["type"], f["code"], f["fatal"]) for f in frames] == [("error", "timeout", True)]
    assert trio.current_time() - start <= HANDSHAKE_TIMEOUT_S + 1
    await _until(lambda: not capped.host.per_address)


async def test_in_process_bots_take_no_slot(
    autojump_clock: trio.testing.MockClock, nursery: trio.Nursery, tmp_path: Path
) -> None:
    config = _config(tmp_path, max_connections=1, max_connections_per_address=1)
    info: HostInfo = await nursery.start(serve_host, config)
    async with _client(info, nursery, A) as me:  # the host is full now
        async with _client(info, nursery, B) as newcomer:
            with pytest.raises(RequestError, match="the host is full"):
                await newcomer.request(tm.ListTables())
        table = await info.host.create_table("one-card", seats=3)
        assert await info.host.add_bots(table, 2) == [0, 1]
        assert isinstance(await me.request(tm.ListTables()), tm.Tables)


@pytest.mark.parametrize(
    ("address", "key"),
    [
        (None, None),
        ("?", None),
        ("127.0.0.1", None),
        ("::1", None),
        ("::ffff:127.0.0.1", None),
        ("192.168.1.20", "192.168.1.20"),
        ("::ffff:192.168.1.20", "192.168.1.20"),
        ("fe80::1%eth0", "fe80::/64"),
        ("2001:db8::1", "2001:db8::/64"),
        ("2001:db8::ffff:1:2", "2001:db8::/64"),  # one /64: one machine's privacy addresses
        ("2001:db8:0:1::1", "2001:db8:0:1::/64"),
    ],
)
def test_capped_address(address: str | None, key: str | None) -> None:
    assert _capped_address(address) == key


def test_loopback_is_capped_when_the_host_says_so() -> None:
    assert _capped_address("127.0.0.3", exempt_loopback=False) == "127.0.0.3"
    assert _capped_address("::1", exempt_loopback=False) == "::1"


# --------------------------------------------------------------------------- real TCP


async def test_tcp_peers_are_counted_by_their_address(
    nursery: trio.Nursery, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # real time, loopback: 127.0.0.2 as the source address shows the accept loop passes the
    # peer's address; loopback is exempt from the per-address cap, so all three get in
    config = _config(tmp_path, max_connections_per_address=1, store_in_thread=True)
    info: HostInfo = await nursery.start(serve_host, config)
    capped: list[str | None] = []  # the addresses the accept loop handed to the cap

    def record(address: str | None, *, exempt_loopback: bool = True) -> str | None:
        capped.append(address)
        return _capped_address(address, exempt_loopback=exempt_loopback)

    monkeypatch.setattr("host.server.server._capped_address", record)

    async def connect(source: str) -> trio.abc.Stream:
        return await trio.open_tcp_stream("127.0.0.1", info.port, local_address=source)

    with trio.fail_after(60):
        async with (
            open_session(await connect("127.0.0.2")) as a,
            open_session(await connect("127.0.0.2")) as b,
            open_session(await connect("127.0.0.1")) as c,
        ):
            for client in (a, b, c):
                assert isinstance(await client.request(tm.ListTables()), tm.Tables)
            peers = sorted(s.peer for s in info.host.connections)
            assert [p.split(",")[0] for p in peers] == ["('127.0.0.1'", *["('127.0.0.2'"] * 2]
            assert not info.host.per_address
            assert sorted(capped) == ["127.0.0.1", "127.0.0.2", "127.0.0.2"]


async def test_refusals_that_cannot_be_delivered_do_not_pile_up(
    autojump_clock: trio.testing.MockClock, capped: HostInfo, nursery: trio.Nursery
) -> None:
    # The caps count a connection before its TLS handshake; telling an over-cap connection why
    # takes a handshake too, so only MAX_REFUSING such refusals run at once: beyond that a
    # connection is closed unanswered, whatever a flood of them does.
    async with _client(capped, nursery, A), _client(capped, nursery, A):
        stalled = []  # clients that never read: each refusal waits on its write
        for _ in range(MAX_REFUSING):
            client_end, host_end = trio.testing.lockstep_stream_pair()
            nursery.start_soon(functools.partial(capped.host.handle, host_end, address=A))
            stalled.append(client_end)
        await trio.testing.wait_all_tasks_blocked()
        assert (await _frames_until_closed(_from(capped, nursery, A))) == []  # no room to say why
        assert capped.host.per_address[A] == 2  # refused connections never counted
        frames = await _frames_until_closed(stalled[0])  # a stalled one is still answered
        assert [f["code"] for f in frames] == ["full"]
        await trio.sleep(HANDSHAKE_TIMEOUT_S + 1)  # the rest give up within the handshake time
        frames = await _frames_until_closed(_from(capped, nursery, A))
        assert [f["code"] for f in frames] == ["full"]


async def test_four_machines_holding_every_slot_keep_no_one_out(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    # real TCP: 127.0.0.2-5 play four LAN machines (loopback counted per address here), each
    # opening as many connections as its cap allows, more than the host has slots
    config = _config(tmp_path, store_in_thread=True, exempt_loopback=False)
    info: HostInfo = await nursery.start(serve_host, config)
    table = await info.host.create_table("one-card", seats=2)

    async def connect(source: str) -> trio.abc.Stream:
        return await trio.open_tcp_stream("127.0.0.1", info.port, local_address=source)

    with trio.fail_after(60):
        async with open_session(await connect("127.0.0.9")) as player:
            joined = await player.request(tm.Join(table=table, name="Ann"))
            assert isinstance(joined, tm.Joined)
        held: list[ClientSession] = []
        async with contextlib.AsyncExitStack() as stack:
            for n in range(2, 6):
                for _ in range(MAX_CONNECTIONS_PER_ADDRESS):
                    try:
                        client = await stack.enter_async_context(
                            open_session(await connect(f"127.0.0.{n}"))
                        )
                        await client.request(tm.ListTables())
                    except (RequestError, Disconnected, trio.BrokenResourceError):
                        continue
                    held.append(client)
            await _until(lambda: len(info.host.admission.holders) == MAX_CONNECTIONS)
            # the seated player comes back, and a newcomer creates a table
            async with open_session(await connect("127.0.0.9")) as back:
                resumed = await back.request(tm.Resume(token=joined.token))
                assert isinstance(resumed, tm.Resumed)
            async with open_session(await connect("127.0.0.10")) as newcomer:
                made = await newcomer.request(tm.CreateTable(game="one", seats=2))
                assert isinstance(made, tm.TableCreated)
            assert len(held) >= MAX_CONNECTIONS - 1


async def test_a_seated_player_resumes_while_every_connection_holds_a_seat(
    autojump_clock: trio.testing.MockClock, capped: HostInfo, nursery: trio.Nursery
) -> None:
    table = await capped.host.create_table("one-card", seats=4)
    joined = await _seated_then_gone(capped, nursery, table)
    other = await capped.host.create_table("one-card", seats=4)
    async with (
        _client(capped, nursery, A) as a1,
        _client(capped, nursery, A) as a2,
        _client(capped, nursery, "203.0.113.9") as c,
    ):
        for name, client in (("Mal", a1), ("Lory", a2), ("Cy", c)):
            assert isinstance(await client.request(tm.Join(table=other, name=name)), tm.Joined)
        assert len(capped.host.admission.holders) == 3  # every slot held, each with a seat
        async with _client(capped, nursery, B) as back:
            resumed = await back.request(tm.Resume(token=joined.token))
            assert isinstance(resumed, tm.Resumed) and resumed.seat == 0
            # room was made from the address holding two more than B's: one of A's seated
            assert capped.host.per_address == {A: 1, B: 1, "203.0.113.9": 1}
            assert isinstance(await back.request(tm.Ready(table=table)), tm.Ok)
            # the displaced seat is kept, and its player cannot displace B back
            seated = [s for s in capped.host.lobby.tables[other].seats if s is not None]
            assert len(seated) == 3
            async with _client(capped, nursery, A) as again:
                with pytest.raises(RequestError) as refused:
                    await again.request(tm.Resume(token="x" * 32))
            assert refused.value.code is ErrorCode.FULL
            assert capped.host.per_address == {A: 1, B: 1, "203.0.113.9": 1}
