"""What one connection's requests may cost the host: bytes per frame, CPU, rate, disk writes.

Attacks from the hardening issue (points 1 and 9): a valid ping holding tens of thousands of
empty maps cost the host ~90 ms to decode, ten a second filled the event loop and the rate limit
(checked after decoding) never tripped; and an identical ``fair_commit`` repeated thousands of
times was journaled with a synced write each time, outside the rate limit. Each test runs on
trio's mock clock over in-memory streams (the mock clock does not move while Python decodes, so
CPU cost is simulated where it matters) and is bounded by ``fail_after``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio
import trio.testing

from host.server import connection as connection_module
from host.server.server import HostConfig, HostInfo, serve_host
from protocol.errors import ErrorCode
from protocol.framing import NEED_DATA, FrameDecoder, encode_frame
from protocol.limits import MAX_REQUEST_BYTES
from protocol.messages import Hello

HELLO = encode_frame(Hello(protocol="onecard", versions=(1,), software="attack", id=0).to_wire())


@pytest.fixture
async def mock_host(nursery: trio.Nursery, tmp_path: Path) -> HostInfo:
    config = HostConfig(
        data_dir=tmp_path / "host",
        bind="127.0.0.1",
        port=0,
        insecure=True,
        advertise=False,
        store_in_thread=False,
        bot_think=0.0,
    )
    info: HostInfo = await nursery.start(serve_host, config)
    return info


class Raw:
    """A client speaking raw frames over an in-memory stream to the host."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.decoder = FrameDecoder()
        self.frames: list[dict[str, Any]] = []

    async def read(self, count: int) -> list[dict[str, Any]]:
        """Read until ``count`` more frames came or the host closed."""
        start = len(self.frames)
        while len(self.frames) - start < count:
            chunk = await self.stream.receive_some(65536)
            if not chunk:
                break
            self.decoder.receive_data(chunk)
            while (frame := self.decoder.next_frame()) is not NEED_DATA:
                self.frames.append(frame)
        return self.frames[start:]


async def connect(nursery: trio.Nursery, info: HostInfo) -> Raw:
    client_end, host_end = trio.testing.memory_stream_pair()
    nursery.start_soon(info.host.handle, host_end)
    raw = Raw(client_end)
    await client_end.send_all(HELLO)
    (welcome,) = await raw.read(1)
    assert welcome["type"] == "welcome"
    assert welcome["limits"]["max_request_bytes"] == MAX_REQUEST_BYTES
    return raw


def raw_frame(obj: dict[str, Any]) -> bytes:
    """A frame encoded without our encoder's checks (it refuses what attackers send)."""
    body = msgpack.packb(obj)
    return len(body).to_bytes(4, "big") + body


async def test_a_request_longer_than_max_request_bytes_is_refused_before_decoding(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo
) -> None:
    async with trio.open_nursery() as nursery:
        raw = await connect(nursery, mock_host)
        heavy = raw_frame({"type": "ping", "id": 1, "pad": [{}] * MAX_REQUEST_BYTES})
        assert len(heavy) > MAX_REQUEST_BYTES
        await raw.stream.send_all(heavy)
        with trio.fail_after(5):
            (error,) = await raw.read(1)
        assert error["type"] == "error" and error["fatal"] is True
        assert error["code"] == ErrorCode.FRAME_TOO_LARGE.value
        assert await raw.read(1) == []  # and the host hung up
        nursery.cancel_scope.cancel()


class SlowClock:
    """``time.perf_counter`` for host.server.connection where every call is 5 ms after the last:
    each frame the host decodes then looks as costly as an attacker's heaviest."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 0.005
        return self.now


@pytest.fixture
def costly_frames(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(connection_module, "time", SlowClock())
    yield


async def test_a_connection_whose_frames_cost_cpu_is_paused_before_decoding_more(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, costly_frames: None
) -> None:
    """Each frame charges its decoding CPU to the rate limit; a connection in debt is not read
    until it has paid, so its frames are spread over time instead of decoded at once."""
    async with trio.open_nursery() as nursery:
        raw = await connect(nursery, mock_host)
        pings = 60
        await raw.stream.send_all(
            b"".join(raw_frame({"type": "ping", "id": i}) for i in range(pings))
        )
        answered_at: list[float] = []
        with trio.fail_after(120):
            while len(answered_at) < pings:
                got = await raw.read(1)
                assert got, "the host hung up"
                # the host may send several answers in one write
                answered_at += [trio.current_time()] * len(got)
        first_second = sum(1 for t in answered_at if t - answered_at[0] < 1.0)
        # 4.5 ms charged per frame (5 ms between two clock reads, less the free 0.5 ms) and one
        # token as a message: with 60 tokens of burst and 20 a second, about 11 frames at once,
        # then about 4 a second; without the charge, all 60 at once
        assert first_second <= 16, first_second
        assert answered_at[-1] - answered_at[0] >= 10
        codes = {f.get("code") for f in raw.frames if f["type"] == "error"}
        assert codes <= {ErrorCode.RATE_LIMITED.value}
        nursery.cancel_scope.cancel()


#: a flood of requests that draw on a reserve past the rate limit: the request (to the table
#: ``table`` names), whether its sender sits at a private table first, and the reserve it meets
_RESERVED = {
    "fair": ({"type": "fair_commit", "hand_no": 1, "c": b"\x01" * 32}, False, "fair"),
    "mask": ({"type": "mask_reveal", "hand_no": 1, "secret": b"\x01" * 32}, True, "mask"),
    # a masking request from a connection at no private table gets the small reserve only
    "mask-unseated": ({"type": "mask_reveal", "hand_no": 1, "secret": b"\x01" * 32}, False, "fair"),
}


async def _reply(raw: Raw, re: str) -> dict[str, Any]:
    """The reply to request ``re`` (pushes before it skipped)."""
    while True:
        got = await raw.read(1)
        assert got, "the host closed the connection"
        for frame in got:
            if frame.get("re") == re:
                return frame


@pytest.mark.parametrize("case", sorted(_RESERVED))
async def test_fair_and_masking_requests_count_against_the_rate_limit_then_a_reserve(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    monkeypatch: pytest.MonkeyPatch,
    case: str,
) -> None:
    """``fair_commit`` flooded: it used to skip the rate limit entirely. Now every one counts;
    once the bucket and the small fair reserve are spent, the rest are refused. A private
    table's masking requests (a box for every position drawn to another seat, two passes a
    reshuffle) draw on a larger reserve of their own, for a seat at a private table only: at
    six seats the bucket ran out in a deal and a refused box voided the hand. A flood of either
    is refused past its reserve, served no faster than the bucket and that reserve allow, and
    the requests a reserve serves do not keep a flood from being closed."""
    # count messages only: the decoding CPU a frame is charged is measured on the wall clock,
    # so on a loaded machine a preempted decode was charged and the burst ran out early
    monkeypatch.setattr(connection_module, "CPU_FREE_SECONDS", 1.0)
    request, seated, reserve = _RESERVED[case]
    limits = mock_host.host.config.rate_limits  # the default limits
    async with trio.open_nursery() as nursery:
        raw = await connect(nursery, mock_host)
        table, spent = "tnothere", 0
        if seated:
            create = {"type": "create_table", "id": "made", "game": "one-card", "seats": 2}
            await raw.stream.send_all(raw_frame({**create, "private": True}))
            table = (await _reply(raw, "made"))["table"]
            await raw.stream.send_all(
                raw_frame({"type": "join", "id": "in", "table": table, "name": "ann"})
            )
            assert (await _reply(raw, "in"))["type"] == "joined"
            spent = 2
        served = int(limits.burst - spent + getattr(limits, f"{reserve}_reserve_burst"))
        flood = served + 100
        frames = b"".join(raw_frame({**request, "table": table, "id": i}) for i in range(flood))
        await raw.stream.send_all(frames)
        replies: list[dict[str, Any]] = []
        with trio.fail_after(60):
            while len(replies) < flood:
                got = await raw.read(1)
                if not got:
                    break
                replies += [f for f in got if isinstance(f.get("re"), int)]
        limited = [f.get("code") == ErrorCode.RATE_LIMITED.value for f in replies]
        assert not any(limited[:served])  # answered: no such table, or nothing to reveal
        # after the burst: refused, each refusal pausing the reader for one token's time, so
        # the flood is served no faster than the rate plus the reserve allow
        later = limited[served:].count(False)
        rate = limits.per_second + getattr(limits, f"{reserve}_reserve_per_second")
        assert later <= trio.current_time() * rate + 1
        assert any(limited[served:])
        nursery.cancel_scope.cancel()
