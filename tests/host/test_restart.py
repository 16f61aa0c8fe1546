"""A real ``onecard host`` process killed with SIGKILL mid-hand and restarted on its data dir."""

from __future__ import annotations

import json
import signal
import sys
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from host.games import find_game
from host.server.identity import load_or_create_identity
from host.server.server import HostConfig, HostInfo, serve_host
from host.storage.journal import JournalKind, JournalRow
from host.storage.store import Store
from host.table import restore as table_restore
from host.table.chat import CHAT_BACKLOG
from host.table.restore import restore_table
from host.table.seats import MAX_MISSED_ROUNDS, TablePhase
from host.table.table import Table
from net.session import ClientSession, RequestError, open_session
from protocol.cards import DECK_54
from protocol.errors import ErrorCode
from protocol.fairness import SignedMessage
from protocol.hand_records import load_record, verify_record
from protocol.messages import Ping

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


async def watch_until(client: ClientSession, table: str, *, events: int | None) -> int:
    """Watch ``table``; return after ``events`` card events (or at game over: -1)."""
    await client.request(tm.Watch(table=table))
    seen = 0
    with trio.fail_after(60):
        async for push in client.pushes:
            if isinstance(push, tm.GameOver):
                return -1
            if isinstance(push, tm.EventPush) and push.event.get("kind") in ("play", "draw"):
                seen += 1
                if events is not None and seen >= events:
                    return seen
            if isinstance(push, tm.FairPush) and events is not None:
                kind = SignedMessage.from_wire(push.msg).type
                assert kind != "hand_end", "the hand ended before the kill"
    raise AssertionError("the host closed the connection")


async def test_host_killed_mid_hand_resumes_and_the_hand_verifies(
    tmp_path: Path, host_process: Callable[[Path], AbstractContextManager[Any]]
) -> None:
    data_dir = tmp_path / "data"
    with host_process(data_dir) as first:
        async with open_session(await first.connect()) as c:
            # attack_cap: no endless attacks. A default game often runs to the 1,000-turn
            # limit: with the bots' 0.02 s of thinking per turn that took ~28 s of the 60 s
            # bound here, too long for a slower machine.
            created = await c.request(
                tm.CreateTable(game="one-card", seats=3, options={"attack_cap": 2})
            )
            assert isinstance(created, tm.TableCreated)
            table = created.table
            for _ in range(3):
                await c.request(tm.AddBot(table=table))
            assert await watch_until(c, table, events=6) == 6
            first.proc.send_signal(signal.SIGKILL)
            first.proc.wait(timeout=10)
    with host_process(data_dir) as second:
        async with open_session(await second.connect()) as c:
            assert await watch_until(c, table, events=None) == -1
            listing = await c.request(tm.ListRecords(table=table))
            assert isinstance(listing, tm.Records) and listing.hands
            verdicts = []
            for hand in listing.hands:
                parts = await c.request_all(tm.GetRecord(table=table, hand_no=hand))
                text = "".join(p.text for p in parts if isinstance(p, tm.RecordPart))
                verdicts.append(verify_record(json.loads(text)))
            assert all(v.ok for v in verdicts), [v.message for v in verdicts]
            assert any(not v.voided for v in verdicts)
        second.proc.send_signal(signal.SIGTERM)
        assert second.proc.wait(timeout=20) == 0
    # rebuilt offline from the journal: every card of the deck is still in the game, once
    store = Store(data_dir)
    await store.open()
    try:
        (row,) = await store.load_tables()
        identity = load_or_create_identity(data_dir)
        restored = restore_table(
            row,
            game_cls=find_game("one-card").state,
            store=store,
            signing_key=identity.signing_key,
            grace=60.0,
        )
        assert restored.engine is not None and restored.engine.outcome() is not None
        assert Counter(c.code for c in restored.engine.all_cards()) == Counter(
            c.code for c in DECK_54
        )
    finally:
        await store.close()


async def test_a_restarted_host_keeps_tokens_tables_and_hand_numbers(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    config = HostConfig(
        data_dir=tmp_path, bind="127.0.0.1", port=0, insecure=True, advertise=False, bot_think=0.0
    )
    first: HostInfo = await nursery.start(serve_host, config)
    table = await first.host.create_table("black-jack", seats=2)
    async with open_session(await trio.open_tcp_stream("127.0.0.1", first.port)) as c:
        player = BotPlayer(c, table_id=table, stay=True)
        await player.join("hal")
        await first.host.add_bots(table, 1)
        async with trio.open_nursery() as inner:
            inner.start_soon(player.play)
            with trio.fail_after(60):
                while player.outcome is None:
                    await trio.sleep(0.01)
            inner.cancel_scope.cancel()
    hands_before = first.host.lobby.table(table).fair_hand_no
    assert hands_before >= 1
    await first.host.shutdown()
    second: HostInfo = await nursery.start(serve_host, replace(config, port=0))
    restored = second.host.lobby.table(table)
    # the restored table's bot took its seat back before the host let players in, and hal said
    # ready for a rematch before the restart (the host kept it): game 2 is dealing, its hand
    # numbered on from game 1's
    summary = restored.summary()
    assert (summary["game_no"], summary["phase"]) == (2, "dealing")
    assert restored.fair_hand_no == hands_before + 1
    assert [s["connected"] for s in summary["seats"]] == [False, True]
    async with open_session(await trio.open_tcp_stream("127.0.0.1", second.port)) as c:
        # the client outlived the host's restart: the same seat client on a new session (a
        # new client process could only audit a deal round already open when it resumed, and
        # the hand would be void at the round timeout)
        player.session = c
        seat = player.seat
        assert player.token is not None
        await player.resume(player.token)
        assert player.seat == seat
        async with trio.open_nursery() as inner:
            # hal answers game 2's deal round from the backlog (hardening point 2: a table
            # used to wait for ever)
            inner.start_soon(player.play)
            with trio.fail_after(60):
                while player.game_no < 2 or player.outcome is None:
                    await trio.sleep(0.01)
            inner.cancel_scope.cancel()
    assert restored.fair_hand_no == hands_before + 1
    records = sorted((tmp_path / "records").iterdir())
    assert len(records) == restored.fair_hand_no
    verdicts = [verify_record(load_record(p)) for p in records]
    assert [(v.ok, v.voided) for v in verdicts] == [(True, False)] * len(records)
    assert player.fair_alerts == []


async def test_a_table_that_cannot_be_replayed_does_not_stop_the_host(
    nursery: trio.Nursery, tmp_path: Path
) -> None:
    store = Store(tmp_path)
    await store.open()
    await store.put_table(
        "tbroken",
        1,
        {"game": "one-card", "seats": 2, "options": {}, "turn_timer": None, "name": ""},
    )
    await store.append("tbroken", [JournalRow(1, JournalKind.GAME, None, {"names": ["a"]})])
    await store.close()
    config = HostConfig(data_dir=tmp_path, bind="127.0.0.1", port=0, insecure=True, advertise=False)
    info: HostInfo = await nursery.start(serve_host, config)
    assert "tbroken" not in info.host.lobby.tables
    assert await info.host.create_table("one", seats=2)


async def test_a_table_whose_restart_work_fails_does_not_stop_the_host(
    nursery: trio.Nursery, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path)
    await store.open()
    meta = {"game": "one-card", "seats": 2, "options": {}, "turn_timer": None, "name": ""}
    await store.put_table("tbad", 1, meta)
    await store.put_table("tgood", 2, meta)
    await store.close()
    finish = table_restore.finish_restore

    async def failing(table: Table) -> None:
        if table.table_id == "tbad":
            raise OSError("no space left on device")
        await finish(table)

    monkeypatch.setattr(table_restore, "finish_restore", failing)
    config = HostConfig(data_dir=tmp_path, bind="127.0.0.1", port=0, insecure=True, advertise=False)
    info: HostInfo = await nursery.start(serve_host, config)
    assert {"tbad", "tgood"} <= set(info.host.lobby.tables)
    assert await info.host.create_table("one", seats=2)


async def test_a_stood_up_seat_stays_stood_up_and_unresumable_after_a_restart(
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
        grace=10.0,
        bot_think=0.0,
    )
    first: HostInfo = await nursery.start(serve_host, config)
    table_id = await first.host.create_table("one-card", seats=2)
    async with connect_memory(first) as a, connect_memory(first) as b:
        ann = BotPlayer(a, table_id=table_id, acts=False)  # never acts: the game stays open
        await ann.join("ann")
        joined = await b.request(tm.Join(table=table_id, name="bob"))
        assert isinstance(joined, tm.Joined)
        seat = first.host.lobby.table(table_id).seats[joined.seat]
        assert seat is not None
        seat.misses = 2 * (MAX_MISSED_ROUNDS - 1)  # in halves
        async with trio.open_nursery() as inner:
            inner.start_soon(ann.play)
            await b.request(tm.Ready(table=table_id))
            with trio.fail_after(600):
                while not seat.stood_up:
                    await trio.sleep(1)
            inner.cancel_scope.cancel()
    await first.host.shutdown()
    second: HostInfo = await nursery.start(serve_host, config)
    restored = second.host.lobby.table(table_id)
    again = restored.seats[joined.seat]
    assert again is not None and again.stood_up and again.substitute
    assert restored.phase in (TablePhase.DEALING, TablePhase.PLAYING)
    async with connect_memory(second) as c:
        with pytest.raises(RequestError) as refused:
            await c.request(tm.Resume(token=joined.token, last_seq=0))
        assert refused.value.code is ErrorCode.NOT_FOUND
        assert ann.token is not None
        resumed = await c.request(tm.Resume(token=ann.token, last_seq=0))
        assert isinstance(resumed, tm.Resumed) and resumed.seat == ann.seat


async def test_the_chat_backlog_is_bounded_and_survives_a_restart(
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
        bot_think=0.0,
    )
    first: HostInfo = await nursery.start(serve_host, config)
    table_id = await first.host.create_table("one-card", seats=2)
    table = first.host.lobby.table(table_id)
    async with connect_memory(first) as a:
        joined = await a.request(tm.Join(table=table_id, name="ann"))
        assert isinstance(joined, tm.Joined)
        seat = table.seats[joined.seat]
        assert seat is not None and seat.conn is not None
        for n in range(CHAT_BACKLOG + 5):  # past the session's chat rate limit, on purpose
            await trio.sleep(1)  # but within the table's
            await table.chat(seat.conn, f"line {n}")
    await first.host.shutdown()
    second: HostInfo = await nursery.start(serve_host, config)
    async with connect_memory(second) as s:
        watching = await s.request(tm.Watch(table=table_id))
        await s.request(Ping())
        assert s.received is not None
        lines = [
            m.text for m in s.received[s.received.index(watching) :] if isinstance(m, tm.ChatLine)
        ]
        assert lines == [f"line {n}" for n in range(5, CHAT_BACKLOG + 5)]
