"""A full disk: hand records the disk refuses, and a restart that cannot write.

Before: a record write failing after the journal commit escaped ``Table._deliver``, so
``hand_end``, ``game_over`` and ``state`` were never sent and the acting seat got ``internal``
for a move that was applied; at restart, a bot seat whose new token could not be stored
stopped the whole host.
"""

from __future__ import annotations

import logging
import lzma
import sqlite3
import stat
from typing import Any

import pytest
import trio
import trio.testing

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from host.storage.journal import SeatRow
from host.storage.store import Store
from net.session import ClientSession, RequestError
from protocol.errors import ErrorCode
from protocol.fairness import SignedMessage
from protocol.hand_records import verify_record
from protocol.messages import Error

Lab = Any  # tests/adversarial/conftest.py (test modules cannot import it)


async def record_text(client: ClientSession, table: str, hand: int) -> str:
    parts = await client.request_all(tm.GetRecord(table=table, hand_no=hand))
    return "".join(p.text for p in parts if isinstance(p, tm.RecordPart))


def hand_ends(client: ClientSession) -> list[int]:
    assert client.received is not None
    return [
        m.hand_no
        for m in client.received
        if isinstance(m, tm.FairPush) and SignedMessage.from_wire(m.msg).type == "hand_end"
    ]


async def play_games(players: list[BotPlayer], games: int) -> None:
    """Let ``players`` (with ``stay``) play ``games`` games at their table, on the mock clock."""
    async with trio.open_nursery() as nursery:
        for p in players:
            nursery.start_soon(p.play)
        with trio.fail_after(600):  # mock seconds: a game that stalls fails here
            for n in range(1, games + 1):
                while players[0].game_no < n or players[0].outcome is None:
                    await trio.sleep(1)
                if n < games:
                    await players[0].ready()
        nursery.cancel_scope.cancel()


async def test_a_refused_record_write_still_delivers_the_hand_and_is_written_later(
    autojump_clock: trio.testing.MockClock, lab: Lab, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="host.storage.record_files")
    info = await lab.start()
    table = await info.host.create_table("one-card", seats=2)
    lab.disk_full(True)
    async with lab.connect(info) as a, lab.connect(info) as b:
        players = [BotPlayer(c, table_id=table, stay=True) for c in (a, b)]
        await players[0].join("ann")
        await players[1].join("bob")
        await play_games(players, 1)
        for client in (a, b):
            assert client.received is not None
            errors = [m for m in client.received if isinstance(m, Error)]
            assert not [e for e in errors if e.code is ErrorCode.INTERNAL], errors
            over = [i for i, m in enumerate(client.received) if isinstance(m, tm.GameOver)]
            assert over
            assert any(isinstance(m, tm.StatePush) for m in client.received[over[-1] :])
        hands = hand_ends(a)
        assert hands
        store = info.host.lobby.store
        # not on disk, yet listed and served, from memory, as the text that will be written
        assert not store.records.record_path(table, hands[-1]).exists()
        listing = await a.request(tm.ListRecords(table=table))
        assert isinstance(listing, tm.Records) and set(hands) <= set(listing.hands)
        served = {hand: await record_text(a, table, hand) for hand in hands}
        lab.disk_full(False)
        from host.storage.record_files import (
            RECORD_RETRY_MAX,  # here: imported after the code it tests
        )

        await trio.sleep(RECORD_RETRY_MAX)  # the background retry, on the mock clock
    for hand, text in served.items():
        path = store.records.record_path(table, hand)
        assert lzma.decompress(path.read_bytes()) == text.encode("utf-8")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert store.records.unwritten_records() == []
    said = [r.getMessage() for r in caplog.records if r.name == "host.storage.record_files"]
    assert len([m for m in said if m.startswith("cannot write the hand record")]) == 1
    assert len([m for m in said if m.startswith("the disk takes hand records again")]) == 1


async def test_records_the_disk_refused_until_the_host_stopped_are_rebuilt_at_the_next_start(
    autojump_clock: trio.testing.MockClock, lab: Lab, caplog: pytest.LogCaptureFixture
) -> None:
    """Games go on with the disk full; at shutdown the records are still only in memory. The
    next start rebuilds every one from the journal, the earlier game's too, byte for byte."""
    info = await lab.start()
    table = await info.host.create_table("one-card", seats=2, options={"attack_cap": 2})
    lab.disk_full(True)
    async with lab.connect(info) as a, lab.connect(info) as b:
        players = [BotPlayer(c, table_id=table, stay=True) for c in (a, b)]
        await players[0].join("ann")
        await players[1].join("bob")
        await play_games(players, 2)
        served = {h: await record_text(a, table, h) for h in hand_ends(a)}
    assert len(served) >= 2
    await info.host.shutdown()
    assert "never reached the disk" in caplog.text
    assert not any(info.host.lobby.store.records.record_path(table, h).exists() for h in served)
    lab.disk_full(False)
    again = await lab.start()
    store = again.host.lobby.store
    for hand, text in served.items():
        stored = store.records.record_path(table, hand).read_bytes()
        assert lzma.decompress(stored) == text.encode("utf-8")
        assert verify_record(await store.records.load_record(table, hand) or {}).ok
    assert "rebuilt the lost records of hands" in caplog.text


async def test_a_bot_that_cannot_be_restarted_on_a_full_disk_does_not_stop_the_host(
    autojump_clock: trio.testing.MockClock,
    lab: Lab,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    first = await lab.start()
    botted = await first.host.create_table("one-card", seats=2)
    await first.host.add_bots(botted, 1)
    other = await first.host.create_table("one", seats=2)
    await first.host.shutdown()

    async def full(self: Store, table_id: str, row: SeatRow) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Store, "put_seat", full)
    second = await lab.start()
    await trio.testing.wait_all_tasks_blocked()  # the bot's restart ran (and failed)
    assert "cannot restart the bot in seat 0" in caplog.text
    assert {botted, other} <= set(second.host.lobby.tables)
    async with lab.connect(second) as c:
        listed = await c.request(tm.ListTables())
        assert isinstance(listed, tm.Tables)
        assert {t["table"] for t in listed.tables} >= {botted, other}
        await c.request(tm.Watch(table=other))
    seat = second.host.lobby.table(botted).seats[0]
    assert seat is not None and seat.conn is None  # away: the host plays it after the grace


async def test_records_waiting_for_the_disk_are_bounded_in_memory(
    lab: Lab, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Past the bound the oldest waiting record is dropped from memory (the next start
    rebuilds it from the journal), never the one just finished."""
    from host.storage import record_files

    monkeypatch.setattr(record_files, "MAX_UNWRITTEN_BYTES", 250)
    store = Store(lab.data_dir, in_thread=False)
    await store.open()
    lab.disk_full(True)
    try:
        for hand in (1, 2, 3):
            assert not await store.records.keep_record(
                "t1", hand, {"hand_no": hand, "pad": "x" * 90}
            )
        assert [p.name for p in store.records.unwritten_records()] == [
            "t1-hand0002.json.xz",
            "t1-hand0003.json.xz",
        ]
        assert await store.records.list_records("t1") == [2, 3]
        assert "t1-hand0001.json.xz dropped from memory" in caplog.text
    finally:
        lab.disk_full(False)
        await store.close()
    assert await Store(lab.data_dir).records.list_records("t1") == [2, 3]  # written at close


async def test_a_full_database_answers_disk_full_never_internal(
    autojump_clock: trio.testing.MockClock, lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: create_table and every move on a full disk were answered ``internal``."""
    info = await lab.start()
    table = await info.host.create_table("one-card", seats=2)

    async def full(*args: Any, **kwargs: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    async with lab.connect(info) as a, lab.connect(info) as b:
        await a.request(tm.Join(table=table, name="ann"))
        await b.request(tm.Join(table=table, name="bob"))
        monkeypatch.setattr(Store, "put_table", full)
        with pytest.raises(RequestError) as refused:
            await a.request(tm.CreateTable(game="one-card", seats=2))
        assert refused.value.code is ErrorCode.DISK_FULL
        assert "disk is full" in refused.value.error.message
        monkeypatch.setattr(Store, "append", full)
        codes = []
        for client in (a, b):  # the game's start cannot be stored
            try:
                await client.request(tm.Ready(table=table))
            except RequestError as exc:
                codes.append(exc.code)
        assert codes == [ErrorCode.DISK_FULL] * 2
        monkeypatch.undo()
        lab.disk_full(False)
        assert isinstance(await a.request(tm.ListTables()), tm.Tables)  # still serving
