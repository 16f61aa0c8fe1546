"""Players who stall, leave, drop, crowd or impersonate: the table protects the game.

Attacks from the hardening issue (points 2, 8, 10, 11 and 13), each run on trio's mock clock
against a real :class:`host.server.lobby.Lobby` with in-memory connections (a ``FakeConn`` keeps
what it is sent) or a real host over memory streams, and each bounded by ``fail_after``:

* a player who dropped (or a host that restarted) lost their ``ready`` and the table waited for
  ever (point 2);
* a table whose only player blipped, or that someone merely watched, was dropped to make room
  for any new table, and one connection watching every table blocked all creation (point 8);
* a player who never acted held a game for ever, one who left mid-game stalled it for the grace
  period (point 10);
* fifty chatty connections slowed every move (point 11);
* ``list_tables`` showed what was not committed yet (point 13).
"""

from __future__ import annotations

import contextlib
import itertools
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
from host.games import find_game
from host.server.lobby import MAX_TABLES_PER_ADDRESS, MAX_TABLES_PER_CONNECTION, Lobby
from host.server.server import HostConfig, HostInfo, serve_host
from host.storage.store import Store
from host.table.chat import TABLE_CHAT_BURST
from host.table.clock import EMPTY_TABLE_S
from host.table.restore import restore_table
from host.table.runner import AWAY_AFTER_TIMEOUTS, AWAY_TURN_S
from host.table.seating import UNSTARTED_TABLE_S
from host.table.seats import TablePhase
from host.table.table import Table, TableError
from net.session import ClientSession, open_session
from protocol.errors import ErrorCode


@pytest.fixture
async def lobby(
    autojump_clock: trio.testing.MockClock, store: Store, nursery: trio.Nursery
) -> Lobby:
    """A lobby whose timers run on the mock clock: each test takes ``autojump_clock`` too, since
    pytest-trio uses only the clock the test function asks for (``tests/conftest.py`` checks)."""
    return Lobby(
        store=store,
        signing_key=Ed25519PrivateKey.generate(),
        host_name="test",
        key_fingerprint="x",
        turn_timer=None,
        grace=60.0,
        round_timeout=20.0,
        nursery=nursery,
    )


async def drop(table: Table, conn: Any) -> None:
    conn.closed = True
    table.detach(conn)
    await trio.testing.wait_all_tasks_blocked()


# --------------------------------------------------------------------------- point 2: ready


async def test_ready_survives_a_drop_and_the_game_starts_when_the_player_is_back(
    autojump_clock: trio.testing.MockClock,
    lobby: Lobby,
    fake_conn: type[Any],
) -> None:
    table = await lobby.create_table(game="one-card", seats=2)
    ann, bob = fake_conn(), fake_conn()
    _, token = await table.join(ann, "ann")
    await table.join(bob, "bob")
    await table.set_ready(ann, True)
    await drop(table, ann)  # a blip before the game
    await table.set_ready(bob, True)
    assert table.phase is TablePhase.WAITING  # ann is away: the game waits for her
    assert table.summary()["seats"][0]["ready"] is True
    await table.resume(fake_conn(), token, 0)
    assert table.phase is TablePhase.DEALING  # she is back, still ready: it starts


async def test_ready_survives_a_host_restart(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, store: Store, fake_conn: type[Any]
) -> None:
    table = await lobby.create_table(game="one-card", seats=2)
    ann, bob = fake_conn(), fake_conn()
    await table.join(ann, "ann")
    await table.join(bob, "bob")
    await table.set_ready(ann, True)
    (row,) = await store.load_tables()
    restored = restore_table(
        row,
        game_cls=find_game("one-card").state,
        store=store,
        signing_key=Ed25519PrivateKey.generate(),
        grace=60.0,
    )
    ready = {s.name: s.ready for s in restored.seats if s is not None}
    assert ready == {"ann": True, "bob": False}


# --------------------------------------------------------------------------- point 8: eviction


async def test_a_table_whose_player_blipped_is_not_dropped_for_a_new_one(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    lobby.max_tables = 3
    tables = [await lobby.create_table(game="one-card", seats=2) for _ in range(3)]
    for i, table in enumerate(tables):
        conn = fake_conn()
        await table.join(conn, f"p{i}")
        await drop(table, conn)  # within the grace period: the seat is still theirs
    with pytest.raises(TableError) as full:
        await lobby.create_table(game="one-card", seats=2)
    assert full.value.code is ErrorCode.FULL
    assert all(t.table_id in lobby.tables for t in tables)


async def test_watching_a_table_does_not_keep_it_from_being_dropped(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """One connection watching every table used to block all table creation."""
    lobby.max_tables = 3
    watcher = fake_conn()
    tables = [await lobby.create_table(game="one-card", seats=2) for _ in range(3)]
    for table in tables:
        await table.watch(watcher, "lurker")
    await trio.sleep(EMPTY_TABLE_S)  # before that, an empty table counts as being filled
    fresh = await lobby.create_table(game="one-card", seats=2)
    assert fresh.table_id in lobby.tables and tables[0].table_id not in lobby.tables


async def test_tables_being_filled_are_never_dropped_for_a_new_one(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """Before, with 100 tables asked for, tables still being filled with bots were dropped as
    idle and their bots failed. Now: a bot seated at a table that has not started, or an empty
    table whose creator is still connected, keeps it (the creator's for ``UNSTARTED_TABLE_S``)."""
    lobby.max_tables = 2
    creator = fake_conn()
    filling = await lobby.create_table(game="one-card", seats=3)
    await filling.join(fake_conn(), "bot-1", bot="remote")
    kept = await lobby.create_table(game="one", seats=2, creator=creator)
    await trio.sleep(UNSTARTED_TABLE_S - 1)
    with pytest.raises(TableError) as full:
        await lobby.create_table(game="one-card", seats=2)
    assert full.value.code is ErrorCode.FULL and "--max-tables" in str(full.value)
    assert {filling.table_id, kept.table_id} <= set(lobby.tables)
    creator.closed = True  # the creator left and nobody sat down: room for a new table now
    fresh = await lobby.create_table(game="one-card", seats=2)
    assert kept.table_id not in lobby.tables and fresh.table_id in lobby.tables


# --------------------------------------------------------------------------- point 11: chat


async def test_a_crowd_of_chatters_is_limited_per_table(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    table = await lobby.create_table(game="one-card", seats=2)
    crowd = [fake_conn() for _ in range(20)]
    said = refused = 0
    for i, conn in enumerate(crowd):
        await table.watch(conn, f"w{i}")
    for conn in crowd:
        try:
            await table.chat(conn, "hello")
            said += 1
        except TableError as exc:
            assert exc.code is ErrorCode.RATE_LIMITED
            refused += 1
    assert said == int(TABLE_CHAT_BURST) and refused == len(crowd) - said
    await trio.sleep(1.0)  # the table's chat refills: someone may speak again
    await table.chat(crowd[0], "again")


# --------------------------------------------------------------------------- point 13: summary


async def test_list_tables_shows_only_what_is_committed(
    autojump_clock: trio.testing.MockClock,
    lobby: Lobby,
    store: Store,
    monkeypatch: pytest.MonkeyPatch,
    fake_conn: type[Any],
) -> None:
    table = await lobby.create_table(game="one-card", seats=2)
    ann, bob = fake_conn(), fake_conn()
    await table.join(ann, "ann")
    await table.join(bob, "bob")
    await table.set_ready(ann, True)
    writing = trio.Event()
    release = trio.Event()
    append = store.append

    async def slow_append(*args: Any, **kwargs: Any) -> None:
        writing.set()
        await release.wait()
        await append(*args, **kwargs)

    monkeypatch.setattr(store, "append", slow_append)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.set_ready, bob, True)  # starts the game: a journal write
        await writing.wait()
        (listed,) = lobby.table_summaries()
        assert listed["phase"] == "waiting"  # the game start is not committed yet
        release.set()
    (listed,) = lobby.table_summaries()
    assert listed["phase"] == "dealing"


# --------------------------------------------------------------------------- point 10: stalling


@pytest.fixture
def connect_memory(nursery: trio.Nursery) -> Any:
    @asynccontextmanager
    async def connect(info: HostInfo) -> AsyncIterator[ClientSession]:
        client_end, host_end = trio.testing.memory_stream_pair()
        nursery.start_soon(info.host.handle, host_end)
        async with open_session(client_end) as client:
            yield client

    return connect


@pytest.fixture
async def timed_host(nursery: trio.Nursery, tmp_path: Path) -> HostInfo:
    config = HostConfig(
        data_dir=tmp_path / "host",
        bind="127.0.0.1",
        port=0,
        insecure=True,
        advertise=False,
        store_in_thread=False,
        turn_timer=30.0,
        grace=60.0,
        bot_think=0.0,
    )
    info: HostInfo = await nursery.start(serve_host, config)
    return info


async def test_a_player_who_never_acts_cannot_hold_the_game(
    autojump_clock: trio.testing.MockClock, timed_host: HostInfo, connect_memory: Any
) -> None:
    """The host's bot plays each timed-out move; after two in a row, turns are short.

    A game can end before the idle seat has timed out three times (one game in four did: the
    seat, drawing on each timeout while attacks pile up, can be bankrupt after two turns, and
    one run in many saw every timeout after the second fall in a game of its own), so the idle
    player asks for another game until two timeouts in a row of one game came after it counted
    as away; its count of timeouts carries over, and turns are compared within one game only."""
    table_id = await timed_host.host.create_table("one-card", seats=2)
    table = timed_host.host.lobby.table(table_id)
    async with connect_memory(timed_host) as client:
        # answers deals, never moves, stays for the next game
        idle = BotPlayer(client, table_id=table_id, acts=False, stay=True)
        await idle.join("idle", as_bot=False)
        await timed_host.host.add_bots(table_id, 1)
        await client.request(tm.Ready(table=table_id))
        timeouts: list[tuple[int, float]] = []  # (game, when)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(idle.play)
            with trio.fail_after(3600):
                while not _away_turns(timeouts):
                    await trio.sleep(1)
                    seat = table.seats[idle.seat or 0]
                    assert seat is not None
                    if seat.timeouts > len(timeouts):
                        timeouts.append((table.game_no, trio.current_time()))
                    if table.phase is TablePhase.FINISHED:
                        await client.request(tm.Ready(table=table_id))
                        while table.phase is TablePhase.FINISHED:
                            await trio.sleep(1)
            nursery.cancel_scope.cancel()
    short = _away_turns(timeouts)
    assert short and max(short) <= AWAY_TURN_S + 5, timeouts


def _away_turns(timeouts: list[tuple[int, float]]) -> list[float]:
    """The time between two timeouts in a row of one game, once the seat counts as away."""
    return [
        b - a
        for (game_a, a), (game_b, b) in itertools.pairwise(timeouts[AWAY_AFTER_TIMEOUTS - 1 :])
        if game_a == game_b
    ]


async def test_leaving_mid_game_hands_the_seat_to_the_hosts_bot_at_once(
    autojump_clock: trio.testing.MockClock,
    timed_host: HostInfo,
    connect_memory: Any,
    fake_conn: type[Any],
) -> None:
    table_id = await timed_host.host.create_table("one-card", seats=2)
    table = timed_host.host.lobby.table(table_id)
    async with connect_memory(timed_host) as a, connect_memory(timed_host) as b:
        ann = BotPlayer(a, table_id=table_id, acts=False)
        await ann.join("ann", as_bot=False)
        bob = BotPlayer(b, table_id=table_id)  # a player who plays on
        await bob.join("bob", as_bot=False)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ann.play)
            nursery.start_soon(bob.play)
            await a.request(tm.Ready(table=table_id))
            await b.request(tm.Ready(table=table_id))
            with trio.fail_after(600):
                while table.phase is not TablePhase.PLAYING:
                    await trio.sleep(0.1)
            watcher = fake_conn()
            await table.watch(watcher, "watcher")
            left_at = trio.current_time()
            reply = await a.request(tm.Leave(table=table_id))
            assert isinstance(reply, tm.Left)
            events = [m["event"] for m in watcher.got if m.get("type") == "event"]
            assert {"kind": "left", "seat": ann.seat, "name": "ann"} in events
            # the lobby lists the host's bot in the seat, not ann as if still there
            listed = table.public_summary()["seats"][ann.seat or 0]
            assert listed["bot"] == "host" and listed["substitute"] and not listed["connected"]
            with trio.fail_after(600):
                while bob.outcome is None:
                    await trio.sleep(0.1)
            # far less than the 60 s grace period or a 30 s turn per move of ann's
            assert trio.current_time() - left_at < 30
            nursery.cancel_scope.cancel()
    assert table.seats[ann.seat or 0] is None  # freed once the game was over
    assert ann.token is not None and not table.holds_token(ann.token)


# --------------------------------------------------------------------------- point 11: heavy


def test_a_huge_black_jack_hand_is_judged_without_a_long_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With chain, two decks and jokers, a 50-card hand's state cost 100-460 ms: the "could go
    out next turn" search ran for each of ~300 offered plays. A hand whose suits split into
    more stretches than it has queens and jokers to end plays on is settled without one."""
    from host.games.black_jack import moves as plays
    from protocol.cards import card

    searched: list[int] = []
    real = plays._can_finish

    def counting(*args: Any) -> bool:
        searched.append(1)
        return bool(real(*args))

    monkeypatch.setattr(plays, "_can_finish", counting)
    codes = "AS 3S 5S 7S 9S JS KS 2H 4H 6H 8H 10H QH AD 3D 5D 7D 9D JD KD 2C 4C 6C 8C 10C JR"
    hand = [card(c) for c in codes.split()] * 2  # two decks: every card twice
    plays._finishable_masks.cache_clear()
    assert plays._finishable(hand) is False
    assert searched == []
    # a hand that can go out still searches, and is found: QH covered by the run 2H 3H 4H
    assert plays._finishable([card(c) for c in ["QH", "2H", "3H", "4H"]]) is True


# --------------------------------------------------------------------------- issue 25: tables


async def test_one_connection_cannot_take_every_table(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """66 create_table in 0.6 s from one connection took all 64 tables: now it gets its share,
    and an honest player still creates one."""
    attacker = fake_conn("192.0.2.7")
    made, refused = [], []
    for _ in range(66):
        try:
            made.append(await lobby.create_table(game="one-card", seats=2, creator=attacker))
        except TableError as exc:
            refused.append(exc)
    assert len(made) == MAX_TABLES_PER_CONNECTION
    assert {e.code for e in refused} == {ErrorCode.FULL}
    assert "at most 4 per connection" in str(refused[0])
    others = [fake_conn("192.0.2.7") for _ in range(3)]  # more connections, same address
    for conn in others:
        for _ in range(MAX_TABLES_PER_CONNECTION):
            with contextlib.suppress(TableError):
                made.append(await lobby.create_table(game="one-card", seats=2, creator=conn))
    assert len(made) == MAX_TABLES_PER_ADDRESS
    honest = await lobby.create_table(game="one-card", seats=2, creator=fake_conn("192.0.2.9"))
    assert honest.table_id in lobby.tables


async def test_a_hit_and_run_creator_locks_no_table(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """Creating tables, sitting at each and leaving blocked creation for 120 s (grace, then
    EMPTY_TABLE_S): a table only its creator ever sat at, that never started, now makes room
    as soon as its creator is gone."""
    lobby.max_tables = MAX_TABLES_PER_CONNECTION
    attacker = fake_conn("192.0.2.7")
    tables = [
        await lobby.create_table(game="one-card", seats=2, creator=attacker)
        for _ in range(MAX_TABLES_PER_CONNECTION)
    ]
    for table in tables:
        await table.join(attacker, "mallory")
    with pytest.raises(TableError) as full:  # while it is there, they are its tables
        await lobby.create_table(game="one-card", seats=2, creator=fake_conn("192.0.2.9"))
    assert full.value.code is ErrorCode.FULL
    attacker.closed = True
    lobby.detach(attacker)  # it leaves: no grace period, no EMPTY_TABLE_S
    honest = await lobby.create_table(game="one-card", seats=2, creator=fake_conn("192.0.2.9"))
    assert honest.table_id in lobby.tables and len(lobby.tables) == MAX_TABLES_PER_CONNECTION


async def test_a_table_someone_else_joined_waits_for_its_players(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    lobby.max_tables = 1
    creator, friend = fake_conn("192.0.2.7"), fake_conn("192.0.2.8")
    table = await lobby.create_table(game="one-card", seats=3, creator=creator)
    await table.join(creator, "ann")
    await table.join(friend, "bob")
    creator.closed = friend.closed = True
    lobby.detach(creator)
    lobby.detach(friend)
    with pytest.raises(TableError):  # its players may resume: it is kept for them
        await lobby.create_table(game="one-card", seats=2)
    assert not table.book.abandoned()


async def test_a_table_that_never_starts_expires(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    lobby.max_tables = 1
    creator = fake_conn("192.0.2.7")
    table = await lobby.create_table(game="one-card", seats=3, creator=creator)
    await table.join(creator, "ann")  # and it stays, alone, for ever
    with pytest.raises(TableError):
        await lobby.create_table(game="one-card", seats=2)
    await trio.sleep(UNSTARTED_TABLE_S)
    fresh = await lobby.create_table(game="one-card", seats=2)
    assert set(lobby.tables) == {fresh.table_id} and creator.closed  # told "table closed"
