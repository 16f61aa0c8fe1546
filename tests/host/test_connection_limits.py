"""The connection's reader under load: bursts, trickled frames and a client's own fatal error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

import protocol.table_messages as tm
from host.ratelimit import RateLimits
from host.server import connection
from host.server.connection import OUTGOING_QUEUE
from host.server.server import HostConfig, HostInfo, serve_host
from net.session import RequestError
from protocol.errors import ErrorCode
from protocol.framing import NEED_DATA, FrameDecoder, encode_frame
from protocol.limits import IDLE_TIMEOUT_S
from protocol.messages import Hello

HELLO = encode_frame(Hello(protocol="onecard", versions=(1,), software="raw-test", id=0).to_wire())


async def read_frames(stream: trio.abc.Stream, decoder: FrameDecoder, count: int) -> list[Any]:
    """Read until ``count`` frames came or the host closed; return them."""
    frames: list[Any] = []
    while len(frames) < count:
        chunk = await stream.receive_some(65536)
        if not chunk:
            break
        decoder.receive_data(chunk)
        while (frame := decoder.next_frame()) is not NEED_DATA:
            frames.append(frame)
    return frames


@pytest.mark.parametrize(
    ("frame", "answer"),
    [
        ({"type": "ping"}, "pong"),
        ({"type": "zzz"}, ErrorCode.UNKNOWN_TYPE.value),  # skipped messages are answered too
        ({"type": "join"}, ErrorCode.BAD_FIELD.value),
    ],
)
async def test_a_burst_of_requests_in_one_write_is_answered_not_disconnected(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    frame: dict[str, Any],
    answer: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(connection, "CPU_FREE_SECONDS", 1.0)  # count messages only, not CPU
    # More requests in one read than the outgoing queue holds: the reader used to answer them
    # all without letting the writer run, overflowed the queue and dropped a client that reads.
    burst = 2 * OUTGOING_QUEUE + 10
    allowed = int(mock_host.host.config.rate_limits.burst)  # the default limits
    assert burst > allowed
    client_end, host_end = trio.testing.memory_stream_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(mock_host.host.handle, host_end)
        await client_end.send_all(
            HELLO + b"".join(encode_frame({**frame, "id": i + 1}) for i in range(burst))
        )
        with trio.fail_after(60):
            frames = await read_frames(client_end, FrameDecoder(), burst + 1)
        assert frames[0]["type"] == "welcome"
        replies = frames[1:]
        assert [f["re"] for f in replies] == list(range(1, burst + 1))  # each answered, in order
        kinds = [f["type"] if f["type"] == "pong" else f["code"] for f in replies]
        assert kinds[:allowed] == [answer] * allowed
        rest = replies[allowed:]
        refused = [f for f in rest if f.get("code") == ErrorCode.RATE_LIMITED.value]
        assert refused and all(not f["fatal"] for f in refused)
        # the rest is answered at the rate (each refusal paces the reader): some go through
        assert set(kinds[allowed:]) <= {answer, ErrorCode.RATE_LIMITED.value}
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("limits", "answered"),
    [
        (RateLimits(per_second=1.0, burst=5.0), 5),  # a strict host: 5 at once, then refusals
        (RateLimits(per_second=1_000_000.0, burst=1_000_000.0), 100),  # the tests' full speed
    ],
)
async def test_the_rate_limit_is_the_hosts_config(
    autojump_clock: trio.testing.MockClock,
    tmp_path: Path,
    limits: RateLimits,
    answered: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HostConfig.rate_limits sets each connection's bucket: of 100 pings in one write, as many
    as the burst allows are answered before the first refusal."""
    monkeypatch.setattr(connection, "CPU_FREE_SECONDS", 1.0)  # count messages only, not CPU
    config = HostConfig(
        data_dir=tmp_path / "host",
        bind="127.0.0.1",
        port=0,
        insecure=True,
        advertise=False,
        store_in_thread=False,
        rate_limits=limits,
    )
    async with trio.open_nursery() as nursery:
        info: HostInfo = await nursery.start(serve_host, config)
        client_end, host_end = trio.testing.memory_stream_pair()
        nursery.start_soon(info.host.handle, host_end)
        pings = b"".join(encode_frame({"type": "ping", "id": i + 1}) for i in range(100))
        await client_end.send_all(HELLO + pings)
        with trio.fail_after(600):
            frames = await read_frames(client_end, FrameDecoder(), 101)
        kinds = [f["type"] if f["type"] == "pong" else f["code"] for f in frames[1:]]
        assert kinds[:answered] == ["pong"] * answered
        refused = [i for i, kind in enumerate(kinds) if kind == ErrorCode.RATE_LIMITED.value]
        assert refused[:1] == ([answered] if answered < 100 else [])
        nursery.cancel_scope.cancel()


async def test_a_frame_trickled_a_byte_at_a_time_does_not_keep_the_connection_alive(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo
) -> None:
    client_end, host_end = trio.testing.memory_stream_pair()
    decoder = FrameDecoder()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(mock_host.host.handle, host_end)
        await client_end.send_all(HELLO)
        assert (await read_frames(client_end, decoder, 1))[0]["type"] == "welcome"
        start = trio.current_time()

        async def trickle() -> None:
            for byte in encode_frame({"type": "ping", "id": 1, "pad": "x" * 200}):
                await trio.sleep(2)
                await client_end.send_all(bytes([byte]))

        nursery.start_soon(trickle)
        with trio.fail_after(10 * IDLE_TIMEOUT_S):
            frames = await read_frames(client_end, decoder, 1)
        assert frames == [
            {"type": "error", "code": "timeout", "message": "silent for too long", "fatal": True}
        ]
        assert IDLE_TIMEOUT_S <= trio.current_time() - start < IDLE_TIMEOUT_S + 3
        nursery.cancel_scope.cancel()


async def test_a_fatal_error_from_the_client_ends_the_connection(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo
) -> None:
    client_end, host_end = trio.testing.memory_stream_pair()
    fatal = {"type": "error", "code": "internal", "message": "client bug", "fatal": True}
    async with trio.open_nursery() as nursery:
        nursery.start_soon(mock_host.host.handle, host_end)
        decoder = FrameDecoder()
        await client_end.send_all(HELLO)
        assert (await read_frames(client_end, decoder, 1))[0]["type"] == "welcome"
        await client_end.send_all(encode_frame(fatal) + encode_frame({"type": "ping", "id": 2}))
        with trio.fail_after(60):
            frames = await read_frames(client_end, decoder, 99)
        assert frames == []  # it reads nothing after it (2.6): no pong, no error about the ping
        nursery.cancel_scope.cancel()


async def test_only_the_creator_or_a_seated_player_adds_bots_through_the_session(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    async with connect_memory(mock_host) as creator, connect_memory(mock_host) as stranger:
        created = await creator.request(tm.CreateTable(game="one-card", seats=4))
        assert isinstance(created, tm.TableCreated)
        table = created.table
        assert isinstance(await creator.request(tm.AddBot(table=table)), tm.BotAdded)
        with pytest.raises(RequestError) as refused:
            await stranger.request(tm.AddBot(table=table))
        assert refused.value.code is ErrorCode.BAD_STATE
        await stranger.request(tm.Join(table=table, name="Sam"))
        assert isinstance(await stranger.request(tm.AddBot(table=table)), tm.BotAdded)
        with pytest.raises(RequestError) as gone:
            await creator.request(tm.Leave(table=table))  # never sat down
        assert gone.value.code is ErrorCode.NOT_FOUND


async def test_a_leave_refused_as_not_found_forgets_the_table(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    table_id = await mock_host.host.create_table("one-card", seats=2)
    table = mock_host.host.lobby.table(table_id)
    async with connect_memory(mock_host) as c:
        joined = await c.request(tm.Join(table=table_id, name="Ann"))
        assert isinstance(joined, tm.Joined)
        (session,) = [s for s in mock_host.host.connections if table_id in s.tables]
        table.seats[joined.seat] = None  # the seat was freed behind the session's back
        with pytest.raises(RequestError) as refused:
            await c.request(tm.Leave(table=table_id))
        assert refused.value.code is ErrorCode.NOT_FOUND
        assert table_id not in session.tables


class _GatedStream(trio.abc.Stream):
    """The host's end of a memory stream whose writes wait while ``gate`` is shut."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.open = trio.Event()
        self.open.set()
        self.frames_per_write: list[int] = []

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.open.wait()
        decoder = FrameDecoder()
        decoder.receive_data(bytes(data))
        frames = 0
        while decoder.next_frame() is not NEED_DATA:
            frames += 1
        self.frames_per_write.append(frames)
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_messages_queued_behind_a_slow_write_leave_in_one_write(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
) -> None:
    table = await mock_host.host.create_table("one-card", seats=2)
    client_end, host_end = trio.testing.memory_stream_pair()
    gated = _GatedStream(host_end)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(mock_host.host.handle, gated)
        hello = Hello(protocol="onecard", versions=(1,), software="gated")
        await client_end.send_all(encode_frame(hello.to_wire()))
        await client_end.send_all(encode_frame({"type": "watch", "table": table, "id": 1}))
        decoder = FrameDecoder()
        frames: list[dict[str, Any]] = []

        async def read_until(pred: Any) -> None:
            with trio.fail_after(60):
                while not pred():
                    decoder.receive_data(await client_end.receive_some(65536))
                    while (frame := decoder.next_frame()) is not NEED_DATA:
                        assert isinstance(frame, dict)
                        frames.append(frame)

        await read_until(lambda: any(f.get("re") == 1 for f in frames))
        gated.open = trio.Event()  # the next write hangs: pushes pile up behind it
        before = len(gated.frames_per_write)
        changes = 6
        async with connect_memory(mock_host) as busy:
            for _ in range(changes // 2):  # each join and leave pushes a table_info
                await busy.request(tm.Join(table=table, name="fidget"))
                await busy.request(tm.Leave(table=table))
                await trio.sleep(0.1)
        gated.open.set()
        seen = sum(1 for f in frames if f.get("type") == "table_info")
        await read_until(lambda: sum(f["type"] == "table_info" for f in frames) >= seen + changes)
        # the writer took the first push before its write hung; the rest left in one write
        assert max(gated.frames_per_write[before:]) >= changes - 1, gated.frames_per_write
        nursery.cancel_scope.cancel()
