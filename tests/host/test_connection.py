"""Timers and bad peers, on trio's mock clock over in-memory streams (no wall-clock waits)."""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import protocol.table_messages as tm
from host.bots.bots import BotPlayer, run_bots
from host.games import game_names
from host.server import connection as host_connection
from host.server.connection import CLOSE_FLUSH_TIMEOUT, OUTGOING_QUEUE
from host.server.server import HostConfig, HostInfo, serve_host
from host.table.seats import MAX_MISSED_ROUNDS
from host.table.timers import Timers
from net.session import ClientSession, RequestError
from protocol.errors import ErrorCode
from protocol.fairness import HandVerifier, SignedMessage
from protocol.framing import NEED_DATA, FrameDecoder, encode_frame
from protocol.hand_records import verify_record
from protocol.limits import HANDSHAKE_TIMEOUT_S, IDLE_TIMEOUT_S
from protocol.messages import Error, Hello, Message, Ping, Pong, ServerClosing


async def wait_for(client: ClientSession, predicate: Any, limit: float = 600) -> Message:
    """The first received message (already or later) matching ``predicate``."""
    assert client.received is not None
    seen = 0
    with trio.fail_after(limit):
        while True:
            for msg in client.received[seen:]:
                if predicate(msg):
                    return msg
            seen = len(client.received)
            await trio.sleep(0.5)


def host_event(kind: str) -> Any:
    return lambda m: isinstance(m, tm.EventPush) and m.event.get("kind") == kind


async def test_turn_timer_plays_the_default_action_and_says_so(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    nursery: trio.Nursery,
) -> None:
    table = await mock_host.host.create_table("one-card", seats=2)
    async with connect_memory(mock_host) as a, connect_memory(mock_host) as b:
        players = [BotPlayer(c, table_id=table, acts=False) for c in (a, b)]
        await players[0].join("ann", as_bot=False)
        await players[1].join("bob", as_bot=False)
        for c in (a, b):
            await c.request(tm.Ready(table=table))
        for p in players:
            nursery.start_soon(p.play)
        first = await wait_for(a, lambda m: isinstance(m, tm.StatePush) and m.to_act)
        assert isinstance(first, tm.StatePush)
        assert first.turn_ms == 30_000
        start = trio.current_time()
        timed_out = await wait_for(a, host_event("timeout"))
        assert isinstance(timed_out, tm.EventPush)
        assert trio.current_time() - start >= 30.0
        assert timed_out.event["seat"] == first.to_act[0]
        assert timed_out.event["action"]["type"] in ("draw", "play")


async def test_absent_seat_is_played_by_the_host_after_the_grace_period_then_resumes(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    nursery: trio.Nursery,
) -> None:
    table = await mock_host.host.create_table("one-card", seats=2)
    async with connect_memory(mock_host) as a:
        stayer = BotPlayer(a, table_id=table)
        await stayer.join("ann")
        async with connect_memory(mock_host) as b:
            leaver = BotPlayer(b, table_id=table, acts=False)
            await leaver.join("bob")
            nursery.start_soon(stayer.play)
            async with trio.open_nursery() as inner:
                inner.start_soon(leaver.play)
                await wait_for(b, lambda m: isinstance(m, tm.StatePush) and m.phase == "playing")
                inner.cancel_scope.cancel()
            token, last_seq = leaver.token, leaver.last_seq
        gone = trio.current_time()
        seat = leaver.seat or 0

        def away(m: Message) -> bool:
            held = m.seats[seat] if isinstance(m, tm.TableInfo) else None
            return held is not None and held["connected"] is False

        dropped = await wait_for(a, away)  # the others can count down the grace period
        assert isinstance(dropped, tm.TableInfo) and dropped.seats[seat] is not None
        assert 9_000 <= dropped.seats[seat]["away_ms"] <= 10_000
        substituted = await wait_for(a, host_event("substitute"))
        assert trio.current_time() - gone >= 10.0
        assert isinstance(substituted, tm.EventPush)
        assert token is not None
        async with connect_memory(mock_host) as b2:
            back = BotPlayer(b2, table_id=table)
            back.last_seq = last_seq
            await back.resume(token)
            assert back.seat == leaver.seat
            async with trio.open_nursery() as inner:
                inner.start_soon(back.play)  # drain the backlog while we look at it
                resumed = await wait_for(b2, lambda m: isinstance(m, tm.Resumed))
                assert isinstance(resumed, tm.Resumed)
                end = await wait_for(
                    b2, lambda m: isinstance(m, tm.StatePush) and m.seq >= resumed.seq
                )
                assert b2.received is not None  # the backlog: between resumed and its state
                later = b2.received[b2.received.index(resumed) + 1 : b2.received.index(end)]
                assert isinstance(later[0], tm.TableInfo)
                backlog = [m for m in later if isinstance(m, tm.EventPush | tm.FairPush)]
                assert backlog, "the resumed client got none of what it missed"
                assert all(last_seq < m.seq <= resumed.seq for m in backlog)
                assert any(
                    m.event.get("kind") == "substitute"
                    for m in backlog
                    if isinstance(m, tm.EventPush)
                )
                with trio.fail_after(3600):
                    while back.outcome is None:
                        await trio.sleep(1)
                inner.cancel_scope.cancel()


async def raw_exchange(info: HostInfo, data: bytes, *, hello: bool = True) -> list[dict[str, Any]]:
    """Send raw bytes (after an optional hello) and collect frames until the host closes."""
    client_end, host_end = trio.testing.memory_stream_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(info.host.handle, host_end)
        if hello:
            msg = Hello(protocol="onecard", versions=(1,), software="raw-test")
            await client_end.send_all(encode_frame(msg.to_wire()))
        await client_end.send_all(data)
        decoder = FrameDecoder()
        frames: list[dict[str, Any]] = []
        with trio.fail_after(120):
            while True:
                chunk = await client_end.receive_some(65536)
                if not chunk:
                    break
                decoder.receive_data(chunk)
                while (frame := decoder.next_frame()) is not NEED_DATA:
                    assert isinstance(frame, dict)
                    frames.append(frame)
                if any(f.get("type") == "error" and f.get("fatal") for f in frames):
                    break
    return frames


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"\x00\x00\x00\x03abc", ErrorCode.MALFORMED),
        (b"\xff\xff\xff\xff", ErrorCode.FRAME_TOO_LARGE),
        (b"\x00\x00\x00\x01\xc1", ErrorCode.MALFORMED),
        (b"\x00\x00\x00\x02\x91\x01", ErrorCode.MALFORMED),
    ],
)
async def test_garbage_gets_a_fatal_error_and_the_host_lives_on(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    data: bytes,
    code: ErrorCode,
    connect_memory: Any,
) -> None:
    frames = await raw_exchange(mock_host, data)
    errors = [f for f in frames if f.get("type") == "error"]
    assert errors and errors[-1]["code"] == code.value and errors[-1]["fatal"]
    async with connect_memory(mock_host) as fine:
        assert isinstance(await fine.request(tm.ListTables()), tm.Tables)


async def test_bad_fields_are_answered_and_the_connection_stays_open(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
) -> None:
    async with connect_memory(mock_host) as c:
        await c.stream.send_all(encode_frame({"type": "join", "table": 5, "name": "x", "id": 7}))
        await c.stream.send_all(encode_frame({"type": "warp", "id": 8}))
        await c.stream.send_all(
            encode_frame({"type": "act", "table": "t1", "seq": 1, "action": {}, "id": 9})
        )
        pong = await c.request(Ping())
        assert isinstance(pong, Pong)
        assert c.received is not None
        errors = {m.re: m.code for m in c.received if isinstance(m, Error)}
        assert errors == {7: ErrorCode.BAD_FIELD, 8: ErrorCode.UNKNOWN_TYPE, 9: ErrorCode.BAD_STATE}


async def test_silent_peers_are_dropped(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo
) -> None:
    start = trio.current_time()
    frames = await raw_exchange(mock_host, b"", hello=False)
    assert frames[-1]["code"] == ErrorCode.TIMEOUT.value
    assert trio.current_time() - start >= HANDSHAKE_TIMEOUT_S
    start = trio.current_time()
    frames = await raw_exchange(mock_host, b"")
    assert frames[0]["type"] == "welcome"
    assert frames[-1]["code"] == ErrorCode.TIMEOUT.value
    assert trio.current_time() - start >= IDLE_TIMEOUT_S


async def test_a_client_that_stops_reading_is_disconnected_not_buffered(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
) -> None:
    table = await mock_host.host.create_table("one-card", seats=2)
    client_end, host_end = trio.testing.lockstep_stream_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(mock_host.host.handle, host_end)
        hello = Hello(protocol="onecard", versions=(1,), software="stalled")
        await client_end.send_all(encode_frame(hello.to_wire()))
        await client_end.send_all(encode_frame({"type": "watch", "table": table, "id": 1}))
        lobby_table = mock_host.host.lobby.table(table)
        with trio.fail_after(60):
            while not lobby_table.spectators:
                await trio.sleep(0.1)
        stalled = next(iter(lobby_table.spectators))
        async with connect_memory(mock_host) as busy:
            for _ in range(OUTGOING_QUEUE + 5):  # each change pushes a table_info to it
                await busy.request(tm.Join(table=table, name="fidget"))
                await busy.request(tm.Leave(table=table))
                await trio.sleep(0.1)  # within the rate limit (mock clock: no real wait)
        with trio.fail_after(60):
            while stalled in lobby_table.spectators:
                await trio.sleep(0.1)
        assert stalled not in mock_host.host.connections
        nursery.cancel_scope.cancel()


async def test_resuming_a_seat_closes_its_older_connection(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="host")
    table = await mock_host.host.create_table("one-card", seats=2)
    async with connect_memory(mock_host) as old:
        joined = await old.request(tm.Join(table=table, name="ann"))
        assert isinstance(joined, tm.Joined)
        async with connect_memory(mock_host) as new:
            resumed = await new.request(tm.Resume(token=joined.token, last_seq=0))
            assert isinstance(resumed, tm.Resumed)
            assert (resumed.seat, resumed.name) == (joined.seat, "ann")
            with trio.fail_after(60):
                await old.closed.wait()
            assert old.received is not None
            last = old.received[-1]
            assert isinstance(last, Error) and last.code is ErrorCode.CONFLICT and last.fatal
            info = mock_host.host.lobby.table(table).summary()
            assert info["seats"][joined.seat]["connected"]
    # the log says why (before, every connection the host closed was "shutting down"); the old
    # connection's task writes it as it ends, after the client saw the error: wait for it
    why = "(conflict: this seat was resumed by another connection)"
    with trio.fail_after(60):
        while not any(
            "connection closed" in r.getMessage() and r.getMessage().endswith(why)
            for r in caplog.records
        ):
            await trio.sleep(0.01)


async def test_a_missed_reveal_voids_the_deal_and_the_seat_sits_out_the_next(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    nursery: trio.Nursery,
) -> None:
    table = await mock_host.host.create_table("one-card", seats=2)
    async with connect_memory(mock_host) as honest, connect_memory(mock_host) as withholder:
        player = BotPlayer(honest, table_id=table)
        await player.join("ann")
        joined = await withholder.request(tm.Join(table=table, name="bob"))
        assert isinstance(joined, tm.Joined)
        nursery.start_soon(player.play)
        await withholder.request(tm.Ready(table=table))
        commit = await wait_for(withholder, lambda m: isinstance(m, tm.FairPush))
        assert isinstance(commit, tm.FairPush)
        verifier = HandVerifier(SignedMessage.from_wire(commit.msg).decode()["host_pk"], pid="bob")
        verifier.receive(SignedMessage.from_wire(commit.msg))
        body = verifier.player_commit()
        await withholder.request(tm.FairCommit(table=table, hand_no=commit.hand_no, c=body["c"]))
        void = await wait_for(
            withholder, lambda m: isinstance(m, tm.FairPush) and m.msg[0] == "void"
        )
        assert isinstance(void, tm.FairPush)
        assert SignedMessage.from_wire(void.msg).decode()["missing"] == ["bob"]
        again = await wait_for(
            withholder,
            lambda m: isinstance(m, tm.FairPush) and m.msg[0] == "hand_commit" and m.seq > void.seq,
        )
        assert isinstance(again, tm.FairPush)
        assert again.host_seats == (joined.seat,)
        assert again.hand_no == void.hand_no + 1
        dealt = await wait_for(
            withholder, lambda m: isinstance(m, tm.FairPush) and m.msg[0] == "reveals"
        )
        assert dealt.seq > again.seq
        record = await mock_host.host.lobby.store.records.load_record(table, void.hand_no)
        assert record is not None and record["voided"]
        assert verify_record(record).ok
        assert mock_host.host.lobby.table(table).summary()["voids"] == 1


async def test_connections_over_the_cap_are_refused(
    autojump_clock: trio.testing.MockClock,
    nursery: trio.Nursery,
    tmp_path: Path,
    connect_memory: Any,
) -> None:
    config = HostConfig(
        data_dir=tmp_path,
        bind="127.0.0.1",
        port=0,
        insecure=True,
        advertise=False,
        store_in_thread=False,
        max_connections=1,
    )
    info: HostInfo = await nursery.start(serve_host, config)
    async with connect_memory(info):
        # the handshake completes; with no slot free, only a resume of a seat would get in
        ping = encode_frame(Ping(id=1).to_wire())
        frames = await raw_exchange(info, ping)
        assert [f["type"] for f in frames] == ["welcome", "error"]
        assert frames[1] == {
            "type": "error",
            "code": "full",
            "message": "the host is full (only a player resuming a seat gets in now); retry later",
            "fatal": True,
            "re": 1,
        }


async def test_shutdown_tells_every_client_server_closing(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
) -> None:
    async with connect_memory(mock_host) as c:
        await mock_host.host.shutdown()
        with trio.fail_after(30):
            await c.closed.wait()
        assert c.received is not None
        last = c.received[-1]
        assert isinstance(last, ServerClosing) and last.retry_after == 5


@settings(  # naming the health checks replaces the profile's list: keep too_slow off
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(garbage=st.binary(max_size=300))
async def test_any_bytes_after_hello_leave_the_host_serving(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    garbage: bytes,
) -> None:
    frames = await raw_exchange(mock_host, garbage)
    # an oversized header may be seen in the same read as the hello: then no welcome
    assert frames and all(f["type"] in ("welcome", "error", "pong") for f in frames)
    assert [f["type"] for f in frames].count("welcome") <= 1
    async with connect_memory(mock_host) as fine:
        assert isinstance(await fine.request(tm.ListTables()), tm.Tables)


async def test_a_handler_that_fails_unexpectedly_gets_an_internal_error_reply(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bug in a handler is answered with ``internal``; the connection lives. (A damaged
    record file used to be the example; it is answered ``unavailable`` now.)"""
    table = await mock_host.host.create_table("one-card", seats=2)

    async def buggy(table_id: str, hand_no: int) -> str:
        raise RuntimeError("a bug")

    monkeypatch.setattr(mock_host.host.lobby, "record_text", buggy)
    async with connect_memory(mock_host) as c:
        with pytest.raises(RequestError) as info:
            await c.request(tm.GetRecord(table=table, hand_no=1))
        assert info.value.code is ErrorCode.INTERNAL and not info.value.error.fatal
        assert isinstance(await c.request(Ping()), Pong)


async def test_a_crashing_timer_step_backs_off_without_holding_the_table_lock(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table_id = await mock_host.host.create_table("one-card", seats=2)
    table = mock_host.host.lobby.table(table_id)

    async def crash(self: Timers) -> None:
        raise RuntimeError("an engine bug")

    monkeypatch.setattr(Timers, "_tick", crash)
    async with connect_memory(mock_host) as c:
        await c.request(tm.Watch(table=table_id))
        table.clock.poke()
        await trio.testing.wait_all_tasks_blocked()  # the timer step crashed and backs off
        start = trio.current_time()
        await c.request(tm.ChatSay(table=table_id, text="still here"))
        assert trio.current_time() - start < 1.0


async def test_a_seat_whose_table_is_locked_past_the_close_limit_is_still_detached(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    nursery: trio.Nursery,
) -> None:
    """The table lock is busy longer than a closing session waits for it: the seat must not
    keep pointing at the dead connection, or a table without a turn timer waits forever."""
    table_id = await mock_host.host.create_table("one-card", seats=2)
    table = mock_host.host.lobby.table(table_id)
    table.runner.turn_timer = None
    async with connect_memory(mock_host) as a:
        stayer = BotPlayer(a, table_id=table_id)
        await stayer.join("ann")
        async with connect_memory(mock_host) as b:
            leaver = BotPlayer(b, table_id=table_id, acts=False)
            await leaver.join("bob")
            nursery.start_soon(stayer.play)
            async with trio.open_nursery() as inner:
                inner.start_soon(leaver.play)
                await wait_for(b, lambda m: isinstance(m, tm.StatePush) and m.phase == "playing")
                inner.cancel_scope.cancel()
            token = leaver.token
            assert leaver.seat is not None
            seat = table.seats[leaver.seat]
            assert seat is not None and seat.conn is not None
            dead = seat.conn
            await table.lock.acquire()  # a slow store write, say
        with trio.fail_after(60):
            while not dead.closed:
                await trio.sleep(0.5)
        await trio.sleep(3 * CLOSE_FLUSH_TIMEOUT)  # the closing session gave up on the lock
        table.lock.release()
        await trio.testing.wait_all_tasks_blocked()
        assert seat.conn is None and seat.disconnected_at is not None
        gone = leaver.seat
        away = {"seat": gone, "name": "bob", "connected": False}
        await wait_for(
            a,
            lambda m: isinstance(m, tm.TableInfo) and away.items() <= (m.seats[gone] or {}).items(),
        )
        await wait_for(a, host_event("substitute"))  # the table does not wait on bob forever
        assert token is not None
        async with connect_memory(mock_host) as b2:
            back = BotPlayer(b2, table_id=table_id)
            await back.resume(token)
            assert back.seat == leaver.seat
            back_info = table.summary()["seats"][leaver.seat]
            assert back_info["connected"] and not back_info["substitute"]


async def test_a_session_cut_off_mid_resume_leaves_the_seat_free(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The resume has taken the seat but not yet returned when its connection is dropped (a
    full queue cancels the session): the seat must not keep the dead connection."""
    table_id = await mock_host.host.create_table("one-card", seats=2)
    table = mock_host.host.lobby.table(table_id)
    async with connect_memory(mock_host) as a:
        joined = await a.request(tm.Join(table=table_id, name="ann"))
        assert isinstance(joined, tm.Joined)
    seat = table.seats[joined.seat]
    assert seat is not None
    with trio.fail_after(60):
        while seat.conn is not None:
            await trio.sleep(0.5)
    reading = trio.Event()

    async def stuck(*args: Any) -> list[Any]:
        reading.set()
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    monkeypatch.setattr(table.store, "messages_after", stuck)
    async with connect_memory(mock_host) as b:
        await b.send(tm.Resume(token=joined.token, last_seq=0, id=1))
        with trio.fail_after(60):
            await reading.wait()
        session: Any = seat.conn
        assert session is not None
        session.deliver = lambda msgs: False
        session._cancel.cancel()  # what a full outgoing queue does
        with trio.fail_after(60):
            await b.closed.wait()
    assert seat.conn is None and seat.disconnected_at is not None


async def test_a_seat_that_keeps_missing_deal_rounds_is_stood_up_and_the_game_goes_on(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    nursery: trio.Nursery,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="host")
    table_id = await mock_host.host.create_table("one-card", seats=2)
    table = mock_host.host.lobby.table(table_id)
    async with connect_memory(mock_host) as honest, connect_memory(mock_host) as withholder:
        player = BotPlayer(honest, table_id=table_id)
        await player.join("ann")
        joined = await withholder.request(tm.Join(table=table_id, name="bob"))
        assert isinstance(joined, tm.Joined)
        seat = table.seats[joined.seat]
        assert seat is not None
        seat.misses = 2 * (
            MAX_MISSED_ROUNDS - 1
        )  # in halves  # missed a round in an earlier game already
        nursery.start_soon(player.play)
        await withholder.request(tm.Ready(table=table_id))
        stood = await wait_for(withholder, host_event("stood_up"))
        assert isinstance(stood, tm.EventPush)
        assert stood.event == {
            "kind": "stood_up",
            "seat": joined.seat,
            "name": "bob",
            "misses": MAX_MISSED_ROUNDS,
        }
        logged = [r.getMessage() for r in caplog.records]  # onecard host -v
        voided = f"hand 1 voided (timeout), no answer from seat(s) {joined.seat}"
        assert f"table {table_id}: {voided}" in logged
        stood_up = f"seat {joined.seat} (bob) stood up after {MAX_MISSED_ROUNDS} missed deal rounds"
        assert f"table {table_id}: {stood_up}" in logged
        info = await wait_for(
            withholder,
            lambda m: isinstance(m, tm.TableInfo) and m.seats[joined.seat]["substitute"],
        )
        assert isinstance(info, tm.TableInfo) and not info.seats[joined.seat]["connected"]
        assert info.spectators == 1  # bob watches the rest of the game
        await wait_for(
            withholder,
            lambda m: isinstance(m, tm.StatePush) and m.seat is None and m.seq > stood.seq,
        )
        over = await wait_for(honest, lambda m: isinstance(m, tm.GameOver), limit=3600)
        assert isinstance(over, tm.GameOver)
        await wait_for(
            honest, lambda m: isinstance(m, tm.TableInfo) and m.seats[joined.seat] is None
        )
        stored = await mock_host.host.lobby.store.load_tables(only=table_id)
        assert [s.seat for s in stored[0].seats] == [player.seat]
    async with connect_memory(mock_host) as back:
        with pytest.raises(RequestError) as refused:
            await back.request(tm.Resume(token=joined.token, last_seq=0))
        assert refused.value.code is ErrorCode.NOT_FOUND


def after(client: ClientSession, first: Message) -> list[Message]:
    assert client.received is not None
    return client.received[client.received.index(first) + 1 :]


async def test_a_resumed_seat_gets_the_chat_it_missed_before_the_game_backlog(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
) -> None:
    table_id = await mock_host.host.create_table("one-card", seats=2)
    async with connect_memory(mock_host) as a:
        await a.request(tm.Join(table=table_id, name="ann"))
        async with connect_memory(mock_host) as b:
            joined = await b.request(tm.Join(table=table_id, name="bob"))
            assert isinstance(joined, tm.Joined)
            await b.request(tm.ChatSay(table=table_id, text="brb"))
        await a.request(tm.ChatSay(table=table_id, text="where did bob go?"))
        async with connect_memory(mock_host) as b2:
            resumed = await b2.request(tm.Resume(token=joined.token, last_seq=0))
            await b2.request(Ping())  # everything queued before the pong has arrived
            later = after(b2, resumed)
            assert isinstance(later[0], tm.TableInfo)
            lines = [(m.name, m.text) for m in later[1:3] if isinstance(m, tm.ChatLine)]
            assert lines == [("bob", "brb"), ("ann", "where did bob go?")]


async def test_a_returning_spectator_gets_what_a_fresh_one_gets_chat_included(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    nursery: trio.Nursery,
) -> None:
    table_id = await mock_host.host.create_table("one-card", seats=2)
    table = mock_host.host.lobby.table(table_id)
    table.runner.turn_timer = None
    async with connect_memory(mock_host) as a:
        player = BotPlayer(a, table_id=table_id, acts=False)  # the game waits for ann
        await player.join("ann")
        await mock_host.host.add_bots(table_id, 1)
        nursery.start_soon(player.play)
        await wait_for(a, lambda m: isinstance(m, tm.StatePush) and m.phase == "playing")
        async with connect_memory(mock_host) as s:
            await s.request(tm.Watch(table=table_id))
            await s.request(tm.ChatSay(table=table_id, text="go ann"))
        with trio.fail_after(60):
            while table.spectators:
                await trio.sleep(0.5)
        seen: list[list[Message]] = []
        async with connect_memory(mock_host) as back, connect_memory(mock_host) as fresh:
            for c in (back, fresh):
                watching = await c.request(tm.Watch(table=table_id))
                await c.request(Ping())
                seen.append(after(c, watching)[:3])
            assert table.summary()["spectators"] == 2  # the gone connection is not counted
        for got in seen:
            info, chat, state = got
            assert isinstance(info, tm.TableInfo) and info.phase == "playing"
            assert isinstance(chat, tm.ChatLine)
            assert (chat.seat, chat.name, chat.text) == (None, "spectator", "go ann")
            assert isinstance(state, tm.StatePush) and state.seat is None and not state.legal
            assert state.seq == table.seq
        returning, first_time = seen[0][2], seen[1][2]
        assert isinstance(returning, tm.StatePush) and isinstance(first_time, tm.StatePush)
        assert returning.view == first_time.view and returning.view["hand"] is None


async def test_a_spectator_chats_under_the_name_it_watches_with(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
) -> None:
    table_id = await mock_host.host.create_table("one-card", seats=2)
    async with (
        connect_memory(mock_host) as a,
        connect_memory(mock_host) as sam,
        connect_memory(mock_host) as anon,
        connect_memory(mock_host) as ann,
    ):
        await a.request(tm.Join(table=table_id, name="Ann"))
        await sam.request(tm.Watch(table=table_id, name=" Sam "))
        await anon.request(tm.Watch(table=table_id))  # an older client: no name
        await ann.request(tm.Watch(table=table_id, name="Ann"))  # a seated player's name is fine
        for c, text in ((sam, "hi"), (anon, "hello"), (ann, "me too")):
            await c.request(tm.ChatSay(table=table_id, text=text))
        await a.request(Ping())
        assert a.received is not None
        lines = [(m.seat, m.name, m.text) for m in a.received if isinstance(m, tm.ChatLine)]
        assert lines == [(None, "Sam", "hi"), (None, "spectator", "hello"), (None, "Ann", "me too")]


async def test_a_resume_skips_chat_said_before_the_last_push_the_client_had(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
) -> None:
    table_id = await mock_host.host.create_table("one-card", seats=2)
    table = mock_host.host.lobby.table(table_id)
    table.runner.turn_timer = None
    async with connect_memory(mock_host) as a:
        player = BotPlayer(a, table_id=table_id, acts=False)
        await player.join("ann")
        await a.request(tm.ChatSay(table=table_id, text="early"))
        await mock_host.host.add_bots(table_id, 1)
        async with trio.open_nursery() as inner:
            inner.start_soon(player.play)
            await wait_for(a, lambda m: isinstance(m, tm.StatePush) and m.phase == "playing")
            await a.request(tm.ChatSay(table=table_id, text="late"))
            inner.cancel_scope.cancel()
        token, last_seq = player.token, player.last_seq
    assert token is not None and last_seq > 0
    for since in (last_seq, 0):  # 0: a client started afresh, which had seen nothing
        async with connect_memory(mock_host) as again:
            resumed = await again.request(tm.Resume(token=token, last_seq=since))
            await again.request(Ping())
            lines = [m.text for m in after(again, resumed) if isinstance(m, tm.ChatLine)]
            assert lines == ["late"]  # before, a fresh resume got "early" from before game 1


async def test_a_spectator_who_resumes_a_seat_stops_being_a_spectator(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
) -> None:
    table_id = await mock_host.host.create_table("one-card", seats=2)
    table = mock_host.host.lobby.table(table_id)
    async with connect_memory(mock_host) as a:
        joined = await a.request(tm.Join(table=table_id, name="ann"))
        assert isinstance(joined, tm.Joined)
    async with connect_memory(mock_host) as c:
        await c.request(tm.Watch(table=table_id))
        # the host answers ``watch`` before it adds the spectator under the table's lock: the
        # answer to a later request on the same connection comes after both
        await c.request(Ping())
        assert table.summary()["spectators"] == 1
        await c.request(tm.Resume(token=joined.token, last_seq=0))
        await c.request(Ping())
        info = table.summary()
        assert info["spectators"] == 0 and info["seats"][joined.seat]["connected"]


async def test_a_seat_left_empty_before_the_game_is_freed_after_the_grace_period(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    """One player who walks away before the start must not keep the others from playing."""
    table_id = await mock_host.host.create_table("one-card", seats=3)
    table = mock_host.host.lobby.table(table_id)
    async with connect_memory(mock_host) as a:
        ann = BotPlayer(a, table_id=table_id)
        await ann.join("ann", as_bot=False)
        async with connect_memory(mock_host) as b:
            bob = BotPlayer(b, table_id=table_id)
            await bob.join("bob", as_bot=False)
            token = bob.token
        await trio.sleep(mock_host.host.lobby.grace / 2)
        assert table.seats[1] is not None  # still his: he may come back within the grace
        await trio.sleep(mock_host.host.lobby.grace)
        assert table.seats[1] is None
        await wait_for(a, lambda m: isinstance(m, tm.TableInfo) and m.seats[1] is None)
        assert token is not None
        async with connect_memory(mock_host) as b2:
            with pytest.raises(RequestError) as err:
                await BotPlayer(b2, table_id=table_id).resume(token)
            assert err.value.code is ErrorCode.NOT_FOUND
            cat = BotPlayer(b2, table_id=table_id)
            await cat.join("cat", as_bot=False)
            assert cat.seat == 1


async def test_a_connection_that_closes_while_waiting_to_join_keeps_no_seat(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    """Seated or not by the time the host notices, the seat is away and freed after the grace."""
    table_id = await mock_host.host.create_table("one-card", seats=2)
    table = mock_host.host.lobby.table(table_id)
    async with connect_memory(mock_host) as a:
        await table.lock.acquire()

        async def join_then_give_up() -> None:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await BotPlayer(a, table_id=table_id).join("ann", as_bot=False)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(join_then_give_up)
            await trio.testing.wait_all_tasks_blocked()
            await a.stream.aclose()  # ann gives up while the table is busy
            nursery.cancel_scope.cancel()
        await trio.sleep(3 * CLOSE_FLUSH_TIMEOUT)  # the host has seen the connection close
        table.lock.release()
        await trio.testing.wait_all_tasks_blocked()
        assert all(s is None or s.conn is None for s in table.seats)
        await trio.sleep(mock_host.host.lobby.grace + 1)
    assert table.seats == [None, None]


@pytest.mark.parametrize("game", game_names())
async def test_a_host_that_only_packs_what_it_built_plays_games_clients_accept(
    host: HostInfo, game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside the test suite the host packs its own messages without checking them again
    (``CHECK_SENT`` off): the bots, whose sessions check every message they receive, still
    play a whole game and every deal verifies."""
    monkeypatch.setattr(host_connection, "CHECK_SENT", False)
    where: dict[str, Any] = {"address": "127.0.0.1", "port": host.port, "insecure": True}
    with trio.fail_after(120):
        outcomes = await run_bots(**where, count=2, create=game, think=0)
    assert len(outcomes) == 2 and all(o.outcome for o in outcomes)
    (table,) = host.host.lobby.tables
    records = await host.host.lobby.store.records.list_records(table)
    assert records
    for hand in records:
        record = await host.host.lobby.store.records.load_record(table, hand)
        assert record is not None and verify_record(record).ok


async def test_an_ack_comes_before_the_events_and_the_state_its_action_caused(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    nursery: trio.Nursery,
) -> None:
    """PROTOCOL.md 4.2 (issue 17, point 7): a ``state`` is fresh when it arrives after the
    ``ack``, in the connection's stream order; everything the action caused comes after it."""
    table = await mock_host.host.create_table("one-card", seats=2, turn_timer=0)
    async with connect_memory(mock_host) as a, connect_memory(mock_host) as b:
        players = [BotPlayer(c, table_id=table, acts=False) for c in (a, b)]
        await players[0].join("ann", as_bot=False)
        await players[1].join("bob", as_bot=False)
        for c in (a, b):
            await c.request(tm.Ready(table=table))
        for p in players:
            nursery.start_soon(p.play)

        def a_turn(m: Message) -> bool:
            return isinstance(m, tm.StatePush) and bool(m.to_act) and m.phase == "playing"

        first = await wait_for(a, a_turn)
        assert isinstance(first, tm.StatePush)
        mover = a if first.seat in first.to_act else b
        turn = await wait_for(mover, lambda m: a_turn(m) and m.seq == first.seq)
        assert isinstance(turn, tm.StatePush) and turn.seat in turn.to_act
        ack = await mover.request(tm.Act(table=table, seq=1, action=turn.legal[0]))
        assert isinstance(ack, tm.Ack) and ack.duplicate is False
        await wait_for(mover, lambda m: isinstance(m, tm.StatePush) and m.seq > turn.seq)
        later = after(mover, turn)
        caused = [
            i
            for i, m in enumerate(later)
            if isinstance(m, tm.EventPush | tm.StatePush) and m.seq > turn.seq
        ]
        assert caused and later.index(ack) < min(caused)
