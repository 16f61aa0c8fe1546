"""host/table/table.py: absent seats between games, and a restart replaying a game whose seat
changed hands since. Driven directly (no sockets) with stand-in connections, on trio's mock
clock."""

from __future__ import annotations

import logging
import random
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.games import find_game, game_names
from host.games.base import RulesError, State
from host.storage.journal import JournalKind, JournalRow, SeatRow, TableRow
from host.storage.store import Store
from host.table.restore import finish_restore, restore_table
from host.table.runner import GameRunner
from host.table.seating import hash_token, spectator_name
from host.table.seats import VOID_TIMEOUT, Batch, Seat, TablePhase
from host.table.table import Table, TableError
from protocol.cardfair import SeatSecret


async def _store(path: Path, table_id: str) -> Store:
    store = Store(path, in_thread=False)
    await store.open()
    await store.put_table(table_id, 1, {})
    return store


async def test_a_player_who_dropped_during_the_game_keeps_the_seat_for_the_grace_after_it(
    autojump_clock: trio.testing.MockClock,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    fake_conn: type[Any],
) -> None:
    """The grace for freeing an absent seat counts from the end of the game, not from the drop:
    a player coming back just after the game still finds the seat (and the game's end)."""
    caplog.set_level(logging.INFO, logger="host")
    store = await _store(tmp_path, "t1")
    table = Table(
        table_id="t1",
        game_cls=find_game("one").state,
        seats=2,
        options={"target": 1},
        store=store,
        signing_key=Ed25519PrivateKey.generate(),
        turn_timer=None,
        grace=60.0,
        created=1,
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(table.run)
        ann, bob = fake_conn(), fake_conn()
        await table.join(ann, "ann", bot="external")
        _, token = await table.join(bob, "bob")
        await table.set_ready(bob, True)
        await trio.sleep(1)
        for conn in (bob, ann):  # both drop: the host plays both seats after the grace
            conn.closed = True
            table.detach(conn)
        with trio.fail_after(5000):
            while table.phase is not TablePhase.FINISHED:
                await trio.sleep(1)
        ended = trio.current_time()
        await trio.testing.wait_all_tasks_blocked()
        assert table.seats[1] is not None and table.holds_token(token)  # not freed at once
        await trio.sleep(table.grace - 5)
        assert table.seats[1] is not None and table.holds_token(token)
        await trio.sleep(10)
        assert table.seats[1] is None and trio.current_time() - ended >= table.grace
        nursery.cancel_scope.cancel()
    freed = [r.getMessage() for r in caplog.records if "freed" in r.getMessage()]
    assert freed == ["table t1: seat 1 (bob) freed: away 60 s with no game running"]
    await store.close()


async def test_a_restart_does_not_stand_up_whoever_took_a_stood_up_seat() -> None:
    """Bob was stood up in the last game and his seat went to Carol after it; a restart replays
    that game and must not charge Carol with Bob's missed rounds."""
    key = Ed25519PrivateKey.generate()
    runner = GameRunner(
        table_id="tx",
        game_cls=find_game("one-card").state,
        seats=2,
        options={},
        signing_key=key,
        turn_timer=None,
        round_timeout=20.0,
        now=trio.current_time,
    )
    runner.seats[0] = Seat(0, "p0", b"\0" * 32, sit_out=True)
    runner.seats[1] = Seat(1, "bob", hash_token("bob-token"))
    journal: list[JournalRow] = []

    def feed(kind: JournalKind, payload: dict[str, Any]) -> None:
        batch = Batch()
        runner._input(batch, kind, payload)
        while runner._needs_open:
            runner._needs_open = False
            p0 = runner.seats[0]
            assert p0 is not None
            p0.sit_out = True
            runner._input(batch, JournalKind.FAIR, runner._open_payload())
        journal.extend(batch.rows)

    feed(
        JournalKind.GAME, {"game_no": 1, "names": ["p0", "bob"], "misses": {"1": 2}}
    )  # one miss, in halves
    feed(JournalKind.FAIR, {"op": "void", "reason": VOID_TIMEOUT})  # bob's second miss
    bob = runner.seats[1]
    assert bob is not None and bob.stood_up
    rng = random.Random(1)
    while runner.phase is not TablePhase.FINISHED:
        assert runner.engine is not None
        seat = runner.engine.to_act()[0]
        action = rng.choice(runner.engine.legal_actions(seat)).to_wire()
        feed(JournalKind.ACTION, {"seat": seat, "action": action, "act_seq": None})

    with tempfile.TemporaryDirectory() as tmp:
        store = await _store(Path(tmp), "tx")
        carol = SeatRow(1, "carol", hash_token("carol-token"), None)
        await store.put_seat("tx", carol)
        meta = {"game": "one-card", "seats": 2, "options": {}, "turn_timer": None}
        row = TableRow(
            "tx",
            1,
            meta,
            seats=[SeatRow(0, "p0", b"\0" * 32, "host:basic"), carol],
            journal=journal,
        )
        table = restore_table(
            row, game_cls=find_game("one-card").state, store=store, signing_key=key, grace=10.0
        )
        await finish_restore(table)
        seat = table.seats[1]
        assert seat is not None and seat.name == "carol"
        assert not seat.stood_up and seat.misses == 0 and table.holds_token("carol-token")
        await store.close()


class _SlowChatStore(Store):
    """A store whose chat writes wait for ``release`` (a slow disk), or fail with ``fail``."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, in_thread=False)
        self.release = trio.Event()
        self.fail = False
        self.kept: list[int] = []

    async def append_chat(self, table_id: str, rows: Any, *, keep: int) -> None:
        await self.release.wait()
        if self.fail:
            raise OSError("disk full")
        await super().append_chat(table_id, rows, keep=keep)
        self.kept.extend(row.n for row in rows)


async def _chat_table(store: Store) -> Table:
    await store.open()
    await store.put_table("t1", 1, {})
    return Table(
        table_id="t1",
        game_cls=find_game("one-card").state,
        seats=2,
        options={},
        store=store,
        signing_key=Ed25519PrivateKey.generate(),
        turn_timer=None,
        grace=60.0,
        created=1,
    )


async def test_a_slow_chat_write_holds_up_neither_the_line_nor_the_table(
    autojump_clock: trio.testing.MockClock, tmp_path: Path, fake_conn: type[Any]
) -> None:
    """The chat line reaches the table at once and the table lock is free while the store
    writes it (before, the synced write ran under the lock, so a slow disk held up moves)."""
    store = _SlowChatStore(tmp_path)
    table = await _chat_table(store)
    ann, bob = fake_conn(), fake_conn()
    await table.join(ann, "ann")
    await table.join(bob, "bob")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(table.chat, ann, "hello")
        await trio.testing.wait_all_tasks_blocked()
        assert [(m["text"], m["n"]) for m in bob.got if m["type"] == "chat_line"] == [("hello", 1)]
        with trio.fail_after(1):  # the lock is free: a ready flag goes through at once
            await table.set_ready(bob, True)
        assert store.kept == []
        store.release.set()
    assert store.kept == [1]
    (row,) = await store.load_tables("t1")
    assert [c.n for c in row.chat] == [1]


async def test_a_failed_chat_write_still_says_the_line(
    autojump_clock: trio.testing.MockClock, tmp_path: Path, fake_conn: type[Any]
) -> None:
    store = _SlowChatStore(tmp_path)
    store.fail = True
    store.release.set()
    table = await _chat_table(store)
    ann = fake_conn()
    await table.join(ann, "ann")
    await table.chat(ann, "hello")  # no error for the speaker: the line was said
    assert [m["text"] for m in ann.got if m["type"] == "chat_line"] == ["hello"]
    assert [c.n for c in table.chat_log] == [1]


def test_a_spectator_name_is_checked_like_a_seat_name_and_defaults_to_spectator() -> None:
    assert spectator_name(" Sam ") == "Sam"
    assert spectator_name("") == spectator_name("   ") == "spectator"
    for bad in ("x" * 33, "a\tb"):
        with pytest.raises(TableError):
            spectator_name(bad)


async def _answer_round(table: Table, conns: dict[int, Any]) -> None:
    """Commit and reveal for every seat: the deal round of the hand being dealt."""
    deal = table.deal
    assert deal is not None
    hand_no, ctx = deal.hand_no, deal.ctx
    mine = {s: SeatSecret.new(ctx, table.runner.seat(s).name) for s in conns}
    for s, sec in mine.items():
        await table.fair_commit(conns[s], hand_no, sec.c)
    for s, sec in mine.items():
        await table.fair_reveal(conns[s], hand_no, sec.r)


def _counting(game_cls: type[State], monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count the calls of the engine's ``parse_action``, ``check`` and ``apply``."""
    calls: Counter[str] = Counter()
    for name in ("parse_action", "check", "apply"):
        real = getattr(game_cls, name)

        def counted(self: Any, *args: Any, _real: Any = real, _name: str = name) -> Any:
            calls[_name] += 1
            return _real(self, *args)

        monkeypatch.setattr(game_cls, name, counted)
    return calls


async def _move_counted(
    table: Table, conns: dict[int, Any], act_seq: dict[int, int], calls: Counter[str]
) -> bool:
    """The seat to act makes its first legal move, sent twice, after the other seat tried it
    (when it is not the other's too); the calls each costs are counted. Whether one was refused.
    """
    assert table.engine is not None
    seat = table.engine.to_act()[0]
    other = 1 - seat
    legal = table.engine.view(seat)["legal"]
    theirs = table.engine.view(other)["legal"]
    wrong = next((w for w in legal if w not in theirs), None)
    if wrong is not None:  # the other seat sends this seat's move: refused
        calls.clear()
        with pytest.raises(RulesError):
            await table.act(conns[other], act_seq[other] + 1, wrong)
        assert calls == {"parse_action": 1, "check": 1}
    act_seq[seat] += 1
    calls.clear()
    conns[seat].got.clear()
    assert await table.act(conns[seat], act_seq[seat], legal[0], re=7) is True
    assert calls == {"parse_action": 1, "check": 1, "apply": 1}
    ack = {"type": "ack", "re": 7, "table": "t1", "seq": act_seq[seat], "duplicate": False}
    sent = [m for m in conns[seat].got if m["type"] in ("ack", "state")]
    assert sent[0] == ack and sent.count(ack) == 1  # once, before the move's views
    calls.clear()
    conns[seat].got.clear()
    assert await table.act(conns[seat], act_seq[seat], legal[0]) is False
    assert calls["check"] == calls["apply"] == 0
    dup = {"type": "ack", "table": "t1", "seq": act_seq[seat], "duplicate": True}
    assert [m for m in conns[seat].got if m["type"] == "ack"] == [dup]
    return wrong is not None


@pytest.mark.parametrize("game", game_names())
async def test_a_move_is_parsed_and_checked_once_on_its_way_through_the_table(
    game: str,
    autojump_clock: trio.testing.MockClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake_conn: type[Any],
) -> None:
    """Issue 27, step 4: from ``act`` to the journal, the runner alone parses and checks a
    move, once, and the engine applies it without checking it again; a refused move is parsed
    and checked once and applied never; a resend is acknowledged as a duplicate, unchecked."""
    game_cls = find_game(game).state
    calls = _counting(game_cls, monkeypatch)
    store = await _store(tmp_path, "t1")
    table = Table(
        table_id="t1",
        game_cls=game_cls,
        seats=2,
        options={},
        store=store,
        signing_key=Ed25519PrivateKey.generate(),
        turn_timer=None,
        grace=60.0,
        created=1,
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(table.run)
        conns: dict[int, Any] = {}
        for name in ("ann", "bob"):
            conn = fake_conn()
            seat, _ = await table.join(conn, name)
            conns[seat] = conn
        for conn in conns.values():
            await table.set_ready(conn, True)
        act_seq = dict.fromkeys(conns, 0)
        moves = refused = 0
        while moves < 12 and table.phase is not TablePhase.FINISHED:
            if table.phase is TablePhase.DEALING:
                await _answer_round(table, conns)
                continue
            refused += await _move_counted(table, conns, act_seq, calls)
            moves += 1
        nursery.cancel_scope.cancel()
    # a One Card game may end early (a seat bankrupt after a few attacks)
    assert moves == 12 or table.phase is TablePhase.FINISHED
    assert moves > 0 and refused > 0
    rows = await store.load_tables(only="t1")
    acts = [r.payload for r in rows[0].journal if r.kind is JournalKind.ACTION]
    assert len(acts) == moves  # a refused move and a resend leave no row
    await store.close()
