"""net/session.py: the one protocol client (people's clients and bots alike).

The routing tests drive the client against a scripted host: the host end of an in-memory stream
run by hand through the sans-I/O :class:`protocol.connection.Connection`, on the mock clock.
"""

from __future__ import annotations

import dataclasses
import functools
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
import trio.testing

import net.session as session_module
import protocol.table_messages as tm
from net.session import (
    PUSH_QUEUE,
    WELCOME_TIMEOUT,
    ClientSession,
    Disconnected,
    RequestError,
    expect_reply,
    first_leaf,
    leaves,
    open_session,
    weight,
)
from protocol.connection import Connection, Role
from protocol.errors import ErrorCode, RemoteProtocolError
from protocol.framing import NEED_DATA, decode_body, encode_frame
from protocol.limits import FRAME_HEADER_BYTES, HEARTBEAT_INTERVAL_S, IDLE_TIMEOUT_S
from protocol.lobby_messages import Ok
from protocol.messages import Bye, Error, Hello, Message, Ping, Pong, ServerClosing, Welcome
from protocol.registry import message_from_wire

Reply = Callable[[int], Message]
"""builds one reply from the id of the request it answers"""

WELCOME = Welcome(
    version=1,
    host_name="scripted",
    software="scripted-host/1",
    fingerprint="sha256:" + "0" * 64,
    limits={},
)


class ScriptedHost:
    """The host end of a client's stream, sending and receiving exactly what a test says."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.proto = Connection(role=Role.HOST)

    async def receive(self) -> Message:
        while True:
            msg = self.proto.next_message()
            if msg is not NEED_DATA:
                assert isinstance(msg, Message)
                return msg
            data = await self.stream.receive_some(65536)
            assert data, "the client closed the stream"
            self.proto.receive_data(bytes(data))

    async def receive_request(self) -> Message:
        """The next message from the client other than a heartbeat ``ping``."""
        while isinstance(msg := await self.receive(), Ping):
            pass
        return msg

    async def send(self, *msgs: Message) -> None:
        for msg in msgs:
            await self.stream.send_all(self.proto.send(msg))

    async def answer(self, *replies: Reply, hang_up: bool = False) -> None:
        """Answer the client's next request with ``replies``, then maybe close the stream."""
        req = await self.receive_request()
        assert isinstance(req.id, int)
        await self.send(*(reply(req.id) for reply in replies))
        if hang_up:
            await self.stream.aclose()


@asynccontextmanager
async def scripted(
    *, keep: bool = False, software: str = "test/1"
) -> AsyncIterator[tuple[ClientSession, ScriptedHost, Hello]]:
    """An open session whose host is scripted; also the ``hello`` the client sent."""
    client_end, host_end = trio.testing.memory_stream_pair()
    host = ScriptedHost(host_end)
    async with trio.open_nursery() as nursery:
        hello: list[Message] = []

        async def handshake() -> None:
            hello.append(await host.receive())
            await host.send(WELCOME)

        nursery.start_soon(handshake)
        async with open_session(client_end, software=software, keep=keep) as session:
            assert isinstance(hello[0], Hello)
            yield session, host, hello[0]


def part(no: int, parts: int) -> Reply:
    return lambda re: tm.RecordPart(
        table="t1", hand_no=1, part=no, parts=parts, text=f"<{no}>", re=re
    )


async def test_the_handshake_names_the_software_and_keep_records_every_message(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with scripted(keep=True, software="onecard-bot/0.1.0") as (session, _host, hello):
        assert hello.software == "onecard-bot/0.1.0"
        assert session.welcome == WELCOME
        assert session.received == [WELCOME]
    async with scripted() as (session, _host, _hello):
        assert session.received is None


async def test_a_multi_part_reply_is_collected_and_pushes_between_its_parts_stay_pushes(
    autojump_clock: trio.testing.MockClock,
) -> None:
    between = Pong()
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(host.answer, part(0, 3), lambda _: between, part(1, 3), part(2, 3))
        got = await session.request_all(tm.GetRecord(table="t1", hand_no=1))
        assert [p.text for p in got if isinstance(p, tm.RecordPart)] == ["<0>", "<1>", "<2>"]
        assert await session.pushes.receive() == between


@pytest.mark.parametrize(
    ("replies", "kept"),
    [
        ([part(0, 65536), part(0, 65536), part(1, 65536)], 2),  # part 0 repeated
        ([part(0, 3), part(2, 3), part(1, 3)], 2),  # a part skipped
        ([part(0, 3), part(1, 4), part(2, 4)], 2),  # the part count changes
    ],
)
async def test_a_multi_part_reply_out_of_line_ends_at_once(
    autojump_clock: trio.testing.MockClock, replies: list[Reply], kept: int
) -> None:
    """A host cannot make the client hoard parts: the first part out of line ends the reply."""
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(host.answer, *replies)
        got = await session.request_all(tm.GetRecord(table="t1", hand_no=1))
        assert len(got) == kept  # the caller sees an incomplete reply (fetch_record_text says so)


async def test_a_multi_part_reply_stops_at_the_record_size_limit(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("net.session.MAX_RECORD_BYTES", 7)  # each part's text is 3 bytes
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(host.answer, *(part(i, 5) for i in range(5)))
        got = await session.request_all(tm.GetRecord(table="t1", hand_no=1))
        assert [p.text for p in got if isinstance(p, tm.RecordPart)] == ["<0>", "<1>", "<2>"]


async def test_joined_answers_the_request_and_is_pushed_for_the_table_loop(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(
            host.answer, lambda re: tm.Joined(table="t1", seat=1, token="k" * 16, re=re)
        )
        joined = await session.request(tm.Join(table="t1", name="Ann"))
        assert isinstance(joined, tm.Joined) and joined.seat == 1
        assert await session.pushes.receive() == joined


@pytest.mark.parametrize("fatal", [False, True])
async def test_an_error_reply_raises_request_error_and_a_fatal_one_ends_the_session(
    autojump_clock: trio.testing.MockClock, fatal: bool
) -> None:
    error = Error(code=ErrorCode.CONFLICT, message="seat taken", fatal=fatal)
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(host.answer, lambda re: dataclasses.replace(error, re=re))
        with pytest.raises(RequestError) as refused:
            await session.request(tm.Resume(token="k" * 16, last_seq=0))
        assert refused.value.code is ErrorCode.CONFLICT and refused.value.error.fatal is fatal
        assert str(refused.value) == "seat taken (conflict)"  # the code last, in parentheses
        assert session.closed.is_set() is fatal and session.ended_by_host is fatal
        ended = "the host ended the connection: seat taken (conflict)"
        assert session.closed_reason == (ended if fatal else "")


async def test_a_reply_cut_off_midway_raises_disconnected(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(functools.partial(host.answer, part(0, 2), hang_up=True))
        with pytest.raises(Disconnected, match="closed the connection"):
            await session.request_all(tm.GetRecord(table="t1", hand_no=1))
        assert session.closed.is_set() and not session.ended_by_host
        with pytest.raises(Disconnected):
            await session.send(Ping())


def test_disconnected_is_a_broken_resource_for_code_written_against_trio_streams() -> None:
    assert issubclass(Disconnected, trio.BrokenResourceError)


async def test_server_closing_ends_the_session_and_says_when_to_retry(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with scripted(keep=True) as (session, host, _hello):
        closing = ServerClosing(retry_after=5, reason="maintenance")
        await host.send(closing)
        with trio.fail_after(5):
            await session.closed.wait()
        assert [m async for m in session.pushes] == []  # the channel ends; nothing was pushed
        assert session.retry_after == 5 and session.ended_by_host
        assert session.closed_reason == "the host is shutting down: maintenance"
        assert session.received is not None and session.received[-1] == closing


async def test_pings_are_answered_and_the_heartbeat_pings_the_host(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with scripted() as (_session, host, _hello):
        await host.send(Ping(id=41))
        assert await host.receive() == Pong(re=41)
        start = trio.current_time()
        beat = await host.receive()
        assert isinstance(beat, Ping) and isinstance(beat.id, int)
        assert trio.current_time() - start >= HEARTBEAT_INTERVAL_S - 1


async def test_a_silent_host_is_taken_for_gone(autojump_clock: trio.testing.MockClock) -> None:
    async with scripted() as (session, _host, _hello):
        start = trio.current_time()
        with trio.fail_after(IDLE_TIMEOUT_S * 2):
            await session.closed.wait()
        assert trio.current_time() - start >= IDLE_TIMEOUT_S
        assert "sent nothing" in session.closed_reason


async def test_pushes_are_bounded_a_consumer_that_stops_reading_holds_the_reader(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with scripted() as (session, host, _hello):
        await host.send(*[Pong()] * (PUSH_QUEUE + 10))
        await trio.testing.wait_all_tasks_blocked()
        assert session.pushes.count == PUSH_QUEUE  # no request waits: the reader waits
        assert await session.pushes.receive() == Pong()
        await trio.testing.wait_all_tasks_blocked()
        assert session.pushes.count == PUSH_QUEUE  # one read, one more taken in
        for _ in range(PUSH_QUEUE + 9):
            assert await session.pushes.receive() == Pong()
        assert session.pushes.count == 0
        assert not session.closed.is_set()


async def test_a_reply_behind_a_flood_of_pushes_still_arrives(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """2,000 pushes before the reply to ``ready`` (issue 25): nothing drains them while the
    request waits, yet the reply arrives, and every push is read after it, in order."""

    def line(n: int) -> Reply:
        return lambda _: tm.ChatLine(table="t1", seat=0, n=n, name="h", text="x")

    flood = [line(n) for n in range(1, 2001)]
    flood.append(lambda re: Ok(re=re))
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(host.answer, *flood)
        with trio.fail_after(5):
            reply = await session.request(tm.Ready(table="t1"))
        assert isinstance(reply, Ok)
        assert session.pushes.count == 2000
        got = [await session.pushes.receive() for _ in range(2000)]
        assert [m.n for m in got if isinstance(m, tm.ChatLine)] == list(range(1, 2001))
        assert not session.closed.is_set()


async def test_a_flood_past_the_limit_ends_the_session_with_the_reason(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_module, "PUSH_FLOOD", PUSH_QUEUE + 100)
    flood: list[Reply] = [lambda _: Pong()] * (PUSH_QUEUE + 101)
    flood.append(lambda re: Ok(re=re))
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(host.answer, *flood)
        with pytest.raises(Disconnected, match="a flood, disconnecting"):
            await session.request(tm.Ready(table="t1"))
        assert session.closed.is_set()
        # the pushes taken in before the end are still read, then the channel ends
        assert len([m async for m in session.pushes]) == PUSH_QUEUE + 101


def _heavy_state(n: int) -> tm.StatePush:
    """A legal push that is small on the wire (4 kB) and large decoded (a thousand maps)."""
    legal = tuple({"a": i % 100} for i in range(1024))
    view: dict[str, Any] = {}
    return tm.StatePush(
        table="t1",
        seq=n,
        game_no=1,
        phase="play",
        seat=0,
        view=view,
        legal=legal,
        to_act=(0,),
        turn_ms=None,
    )


def test_a_pushes_weight_is_the_memory_it_holds_not_its_size_on_the_wire() -> None:
    """Decoded, the heavy push takes about 200 kB for 4 kB on the wire: the flood limit counts
    that (within a factor of two of what tracemalloc sees)."""
    wire = encode_frame(_heavy_state(1).to_wire())
    tracemalloc.start()
    try:
        kept = [message_from_wire(decode_body(wire[FRAME_HEADER_BYTES:])) for _ in range(20)]
        held, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    each = held / len(kept)
    assert len(wire) < 5000 and each > 40 * len(wire)
    assert each / 2 < weight(kept[0]) < each * 2


def _heavy_reply(n: int, _re: int) -> Message:
    return _heavy_state(n)


async def test_a_flood_of_heavy_pushes_ends_the_session_by_the_memory_they_hold(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """64 MiB on the wire would hold gigabytes decoded: the limit is the memory held by the
    pushes past PUSH_QUEUE (at about 200 kB each, some 330 of them), not their wire size.
    Run with both limits scaled down (a queue of 32, 40 heavy pushes' worth of memory): the
    same path, a tenth of the pushes to decode."""
    heavy = weight(_heavy_state(1))
    queue, flood_bytes = 32, 40 * heavy
    monkeypatch.setattr(session_module, "PUSH_QUEUE", queue)
    monkeypatch.setattr(session_module, "PUSH_FLOOD_BYTES", flood_bytes)
    past = flood_bytes // heavy + 10
    on_the_wire = len(encode_frame(_heavy_state(1).to_wire())) * past
    assert on_the_wire < flood_bytes // 40  # a limit on wire bytes would never have tripped
    flood: list[Reply] = [functools.partial(_heavy_reply, n) for n in range(1, queue + past)]
    flood.append(lambda re: Ok(re=re))
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(host.answer, *flood)
        with pytest.raises(Disconnected, match="a flood, disconnecting"):
            await session.request(tm.Ready(table="t1"))
        assert queue < session.pushes.count < queue + past
        nursery.cancel_scope.cancel()


async def test_an_unknown_message_type_is_answered_and_skipped(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """PROTOCOL.md section 1: a newer host's message type gets a non-fatal ``unknown_type``;
    a message with a bad field a non-fatal ``bad_field``; the session goes on."""
    async with scripted() as (session, host, _hello):
        await host.stream.send_all(encode_frame({"type": "future_thing", "id": 41, "x": 1}))
        answer = await host.receive_request()
        assert isinstance(answer, Error)
        assert (answer.code, answer.fatal, answer.re) == (ErrorCode.UNKNOWN_TYPE, False, 41)
        await host.stream.send_all(encode_frame({"type": "chat_line", "id": 42, "table": 5}))
        answer = await host.receive_request()
        assert isinstance(answer, Error)
        assert (answer.code, answer.fatal, answer.re) == (ErrorCode.BAD_FIELD, False, 42)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host.answer, lambda re: Ok(re=re))
            assert isinstance(await session.request(tm.Ready(table="t1")), Ok)
        assert not session.closed.is_set()


async def test_no_welcome_in_time_is_disconnected(autojump_clock: trio.testing.MockClock) -> None:
    client_end, _host_end = trio.testing.memory_stream_pair()
    start = trio.current_time()
    with pytest.raises(Disconnected, match="no welcome"):
        async with open_session(client_end):
            pytest.fail("the session opened without a welcome")
    assert trio.current_time() - start >= WELCOME_TIMEOUT


async def test_a_refused_handshake_is_disconnected_with_the_hosts_words(
    autojump_clock: trio.testing.MockClock,
) -> None:
    client_end, host_end = trio.testing.memory_stream_pair()
    host = ScriptedHost(host_end)

    async def refuse() -> None:
        await host.receive()
        await host.send(Error(code=ErrorCode.FULL, message="the host is full", fatal=True))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(refuse)
        with pytest.raises(Disconnected, match=r"ended the connection: the host is full \(full\)"):
            async with open_session(client_end):
                pytest.fail("the session opened after a refusal")


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
            await session.request(tm.Join(table="no-such-table", name="Ann"))


def test_leaves_flattens_nested_groups() -> None:
    a, b = ValueError("a"), KeyError("b")
    group = BaseExceptionGroup("outer", [ExceptionGroup("inner", [a]), b])
    assert leaves(group) == [a, b]
    assert leaves(a) == [a]
    assert first_leaf(group) is a
    assert first_leaf(b) is b


async def test_a_closing_message_the_reader_has_not_handed_on_yet_ends_sends_quietly(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The host's bye is parsed (the connection is closed) but the session is not marked
    closed yet: sending is Disconnected, and our own bye is skipped, not an error (seen on CI
    as "'bye' is not allowed in state closed")."""
    async with scripted() as (session, _host, _hello):
        session.proto.receive_data(encode_frame(Bye(reason="done").to_wire()))
        assert isinstance(session.proto.next_message(), Bye)  # as the reader would
        assert not session.closed.is_set()
        with pytest.raises(Disconnected):
            await session.send(Ping())
        await session.bye("leaving")  # no LocalProtocolError


async def test_a_closing_message_taken_while_a_send_waits_for_the_lock_ends_it_quietly(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Another sender holds the lock; meanwhile the reader takes the host's bye. The waiting
    bye must then be skipped, not sent into a closed connection (CI: "'bye' is not allowed in
    state closed", the check before the lock was not enough)."""
    async with scripted() as (session, _host, _hello):
        # the lock is held by "another send" until the bye is waiting for it and the reader
        # has taken the host's bye; then bye goes on, finds the connection over, returns quietly
        async with trio.open_nursery() as nursery, session._send_lock:
            nursery.start_soon(session.bye, "leaving")
            await trio.testing.wait_all_tasks_blocked()
            session.proto.receive_data(encode_frame(Bye(reason="done").to_wire()))
            assert isinstance(session.proto.next_message(), Bye)  # as the reader would
        assert session.closed.is_set()


def slow_down(re: int) -> Message:
    return Error(code=ErrorCode.RATE_LIMITED, message="slow down", fatal=False, re=re)


async def test_a_rate_limited_request_is_sent_again_after_a_pause(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The host drops a request it refuses as rate_limited: the same request (a new id) goes
    again after 0.2 s, then 0.5 s; the reply to the third try is the answer."""
    tried: list[tuple[float, Message]] = []
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:

        async def host_side() -> None:
            for reply in (slow_down, slow_down, part(0, 1)):
                req = await host.receive_request()
                tried.append((trio.current_time(), req))
                assert isinstance(req.id, int)
                await host.send(reply(req.id))

        nursery.start_soon(host_side)
        got = await session.request_all(tm.GetRecord(table="t1", hand_no=1))
    assert [p.text for p in got if isinstance(p, tm.RecordPart)] == ["<0>"]
    (t0, first), (t1, second), (t2, third) = tried
    assert t1 - t0 == pytest.approx(0.2) and t2 - t1 == pytest.approx(0.5)
    assert len({m.id for _, m in tried}) == 3  # a fresh id each time, the same request
    assert dataclasses.replace(first, id=None) == dataclasses.replace(third, id=None)
    assert dataclasses.replace(second, id=None) == dataclasses.replace(third, id=None)


async def test_a_request_still_rate_limited_after_every_pause_raises(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:

        async def host_side() -> None:
            while True:
                await host.answer(slow_down)

        nursery.start_soon(host_side)
        with pytest.raises(RequestError) as info:
            await session.request(tm.Ready(table="t1", ready=True))
        assert info.value.code is ErrorCode.RATE_LIMITED
        nursery.cancel_scope.cancel()


async def test_other_refusals_are_not_sent_again(autojump_clock: trio.testing.MockClock) -> None:
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(
            host.answer,
            lambda re: Error(code=ErrorCode.NOT_FOUND, message="no table", fatal=False, re=re),
        )
        with pytest.raises(RequestError) as info:
            await session.request(tm.Ready(table="t1", ready=True))
        assert info.value.code is ErrorCode.NOT_FOUND


async def test_resend_false_raises_the_first_rate_limited(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Chat's way: a line over the chat limit is the user's to send again, not ours."""
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(host.answer, slow_down)
        t0 = trio.current_time()
        with pytest.raises(RequestError) as info:
            await session.request(tm.ChatSay(table="t1", text="hi"), resend=False)
        assert info.value.code is ErrorCode.RATE_LIMITED and trio.current_time() == t0


def test_a_reply_of_another_type_is_a_protocol_error_not_an_assertion() -> None:
    ok = tm.Joined(table="t1", seat=0, token="t" * 20)
    assert expect_reply(ok, tm.Joined) is ok
    with pytest.raises(RemoteProtocolError, match="answered with 'joined' where 'resumed'"):
        expect_reply(ok, tm.Resumed)


async def test_an_ordered_request_counts_the_pushes_before_its_reply_and_a_seat_sees_them_stale(
    autojump_clock: trio.testing.MockClock, turn_state: Callable[[int], tm.StatePush]
) -> None:
    """``request_ordered`` gives the pushes the host sent before its reply, numbered as the
    consumer reads them (``taken_total``); the seat client marks a ``state`` sent before the
    ``ack`` of its action as overtaken (it does not show the action yet), one sent after as
    current, and forgets the mark when asked (or on another session)."""
    from net.seat import SeatClient

    ack: Reply = lambda re: tm.Ack(table="t1", seq=1, duplicate=False, re=re)  # noqa: E731
    async with scripted() as (session, host, _hello), trio.open_nursery() as nursery:
        nursery.start_soon(host.answer, lambda _: turn_state(7), lambda _: turn_state(8), ack)
        got, before = await session.request_ordered(
            tm.Act(table="t1", seq=1, action={"type": "draw"})
        )
        await host.send(turn_state(9))
        seat = SeatClient(session, table_id="t1", name="Ann")
        seat._acted_at = (session, before)  # as act() leaves it (act() is tested below)
        seen: list[tuple[int, bool]] = []
        while len(seen) < 3:
            push = await session.pushes.receive()
            await seat.handle(push)
            if isinstance(push, tm.StatePush):
                seen.append((push.seq, session.pushes.taken_total <= before))
                assert seat.state_overtaken is (push.seq < 9)
        assert isinstance(got, tm.Ack) and seen == [(7, True), (8, True), (9, False)]
        # act() itself: the ack's mark makes the state just read overtaken again
        nursery.start_soon(host.answer, ack)
        assert isinstance(await seat.act({"type": "draw"}), tm.Ack)
        assert seat.state_overtaken
        seat.forget_overtaken()
        assert not seat.state_overtaken
