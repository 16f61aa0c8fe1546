"""Who may do what at a table: adding bots, leaving, and the phase of a fair-deal answer.

Driven directly (a :class:`Lobby` and :class:`Table` with stand-in connections, no sockets) on
trio's mock clock."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.games.base import RulesError
from host.server.lobby import HOSTED_BOT_PREFIX, Lobby
from host.storage.store import Store
from host.table.seats import TablePhase
from host.table.table import Table, TableError
from protocol.errors import ErrorCode
from protocol.fairness import FairnessError, SeatSecret


@pytest.fixture
async def lobby(
    autojump_clock: trio.testing.MockClock,
    tmp_path: Path,
    nursery: trio.Nursery,
    fake_conn: type[Any],
) -> AsyncIterator[Lobby]:
    """A lobby whose timers run on the mock clock: each test takes ``autojump_clock`` too, since
    pytest-trio uses only the clock the test function asks for (``tests/conftest.py`` checks)."""
    store = Store(tmp_path, in_thread=False)
    await store.open()
    lobby = Lobby(
        store=store,
        signing_key=Ed25519PrivateKey.generate(),
        host_name="test",
        key_fingerprint="x",
        turn_timer=None,
        grace=60.0,
        round_timeout=20.0,
        nursery=nursery,
    )

    async def spawn(table_id: str, kind: str, seat: int | None, token: str | None) -> int:
        table = lobby.table(table_id)
        name = lobby.bot_name(table_id)
        bot = fake_conn(trusted=True)
        taken, _ = await table.join(bot, name, seat, bot=HOSTED_BOT_PREFIX + kind)
        return taken

    lobby.spawn_bot = spawn
    yield lobby
    for table in lobby.tables.values():
        table.close()


async def _refused(code: ErrorCode, call: Any) -> str:
    with pytest.raises(TableError) as refused:
        await call
    assert refused.value.code is code
    return refused.value.message


# --------------------------------------------------------------------------- add_bot


async def test_a_stranger_may_not_add_bots_to_a_table(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """Bots count as ready: a stranger adding them could fill a waiting table and start it."""
    ann, stranger, watcher = fake_conn(), fake_conn(), fake_conn()
    table = await lobby.create_table(game="one-card", seats=3, creator=ann)
    await table.join(ann, "ann")
    await table.watch(watcher)
    for who in (stranger, watcher):
        message = await _refused(
            ErrorCode.BAD_STATE, lobby.add_bot(table.table_id, level="random", seat=None, by=who)
        )
        assert message == "only the table's creator or a player seated at it may add bots"
    assert [s is None for s in table.seats] == [False, True, True]
    assert table.phase is TablePhase.WAITING


async def test_the_creator_adds_bots_before_sitting_down(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """What ``onecard join --create`` does: create, add bots, then join."""
    ann = fake_conn()
    table = await lobby.create_table(game="one-card", seats=3, creator=ann)
    assert table.creator is ann
    seat, name = await lobby.add_bot(table.table_id, level="random", seat=None, by=ann)
    assert (seat, name) == (0, "Bot-1")
    await table.join(ann, "ann")
    assert (await lobby.add_bot(table.table_id, level="random", seat=None, by=ann))[0] == 2


async def test_a_seated_player_adds_bots_at_a_table_someone_else_created(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    table = await lobby.create_table(game="black-jack", seats=3)  # by the host: no creator
    assert table.creator is None
    bea = fake_conn()
    await _refused(
        ErrorCode.BAD_STATE, lobby.add_bot(table.table_id, level="random", seat=None, by=bea)
    )
    await table.join(bea, "bea")
    assert (await lobby.add_bot(table.table_id, level="random", seat=None, by=bea))[0] == 1


async def test_the_host_itself_may_always_add_bots(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    table = await lobby.create_table(game="one", seats=2, creator=fake_conn())
    assert (await lobby.add_bot(table.table_id, level="random", seat=None))[0] == 0


async def test_a_creator_that_disconnected_loses_the_right_to_add_bots(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """Nothing is kept of a gone connection; a new one must sit down first."""
    ann = fake_conn()
    table = await lobby.create_table(game="one-card", seats=2, creator=ann)
    ann.closed = True
    lobby.detach(ann)
    assert table.creator is None
    await _refused(
        ErrorCode.BAD_STATE, lobby.add_bot(table.table_id, level="random", seat=None, by=ann)
    )


# --------------------------------------------------------------------------- leave


async def test_leaving_a_table_one_is_not_at_is_not_found(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    table = await lobby.create_table(game="one-card", seats=2)
    stranger = fake_conn()
    message = await _refused(ErrorCode.NOT_FOUND, table.leave(stranger, re=1))
    assert message == "you are not at this table"
    assert stranger.got == []  # no "left", and no table_info: nothing changed


async def test_leaving_twice_leaves_once(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    table = await lobby.create_table(game="one-card", seats=2)
    ann, watcher = fake_conn(), fake_conn()
    await table.join(ann, "ann")
    await table.watch(watcher)
    await table.leave(ann, re=1)
    await table.leave(watcher, re=2)
    assert [m for m in ann.got if m["type"] == "left"] == [
        {"type": "left", "table": table.table_id, "re": 1}
    ]
    assert table.seats == [None, None] and not table.spectators
    for who in (ann, watcher):
        await _refused(ErrorCode.NOT_FOUND, table.leave(who, re=3))


async def test_a_player_whose_seat_was_freed_after_a_drop_is_not_found(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """The grace period ran out between games: the seat is free, so the player (back on a
    new connection, without a seat) has nothing to leave."""
    table = await lobby.create_table(game="one-card", seats=2)
    ann = fake_conn()
    await table.join(ann, "ann")
    ann.closed = True
    lobby.detach(ann)
    await trio.sleep(table.grace + 1)
    assert table.seats == [None, None]
    await _refused(ErrorCode.NOT_FOUND, table.leave(fake_conn()))


# --------------------------------------------------------------------------- fair-deal phases


async def _dealing(lobby: Lobby, fake_conn: type[Any]) -> tuple[Table, Any, Any]:
    table = await lobby.create_table(game="one-card", seats=2)
    ann, bea = fake_conn(), fake_conn()
    await table.join(ann, "ann")
    await table.join(bea, "bea")
    await table.set_ready(ann, True)
    await table.set_ready(bea, True)
    assert table.phase is TablePhase.DEALING and table.deal is not None
    return table, ann, bea


async def test_a_reveal_before_the_lock_is_bad_state(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """PROTOCOL.md 4.5: a reveal in another phase is ``bad_state``, not ``fairness``."""
    table, ann, _ = await _dealing(lobby, fake_conn)
    assert table.deal is not None
    hand_no = table.deal.hand_no
    message = await _refused(
        ErrorCode.BAD_STATE, table.fair_reveal(ann, hand_no, secrets.token_bytes(32))
    )
    assert "after the lock" in message
    assert not table.deal.locked


async def test_a_commit_after_the_lock_is_bad_state_and_a_wrong_reveal_is_fairness(
    autojump_clock: trio.testing.MockClock,
    lobby: Lobby,
    fake_conn: type[Any],
) -> None:
    """PROTOCOL.md 4.5 (issue 24.2): after the lock a different commitment is ``bad_state``,
    while an identical repeat of the accepted one (a resend after a lost reply: the last
    commitment is the one that completes the lock) is ``ok`` and changes nothing."""
    table, ann, bea = await _dealing(lobby, fake_conn)
    assert table.deal is not None
    hand_no = table.deal.hand_no
    await _refused(ErrorCode.BAD_STATE, table.fair_commit(ann, hand_no + 1, bytes(32)))
    await table.fair_commit(ann, hand_no, secrets.token_bytes(32))
    last = secrets.token_bytes(32)
    await table.fair_commit(bea, hand_no, last)
    assert table.deal.locked
    seq = table.seq
    await table.fair_commit(bea, hand_no, last)  # the repeat: ok, nothing journaled
    assert table.seq == seq
    await _refused(ErrorCode.BAD_STATE, table.fair_commit(ann, hand_no, bytes(32)))
    await _refused(ErrorCode.BAD_STATE, table.fair_commit(bea, hand_no + 1, last))
    await _refused(ErrorCode.BAD_STATE, table.fair_reveal(ann, hand_no + 1, bytes(32)))
    # a reveal that does not open its commitment fails its check: still ``fairness``
    with pytest.raises(FairnessError) as failed:
        await table.fair_reveal(ann, hand_no, secrets.token_bytes(32))
    assert failed.value.code is ErrorCode.FAIRNESS


async def test_a_resend_of_the_last_reveal_comes_after_the_round_and_is_bad_state(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """PROTOCOL.md 4.5 (issue 24.2): the last reveal ends the round (REVEALS went out)."""
    table, ann, bea = await _dealing(lobby, fake_conn)
    assert table.deal is not None
    hand_no, ctx = table.deal.hand_no, table.deal.ctx
    secrets_ = {c: SeatSecret.new(ctx, name) for c, name in ((ann, "ann"), (bea, "bea"))}
    for conn, sec in secrets_.items():
        await table.fair_commit(conn, hand_no, sec.c)
    await table.fair_reveal(ann, hand_no, secrets_[ann].r)
    await table.fair_reveal(ann, hand_no, secrets_[ann].r)  # the round is open: ok
    await table.fair_reveal(bea, hand_no, secrets_[bea].r)
    assert table.phase is TablePhase.PLAYING
    await _refused(ErrorCode.BAD_STATE, table.fair_reveal(bea, hand_no, secrets_[bea].r))


async def test_a_repeated_commitment_or_reveal_is_answered_without_journaling(
    autojump_clock: trio.testing.MockClock,
    lobby: Lobby,
    fake_conn: type[Any],
) -> None:
    """Hardening point 9: an identical commit resent 5,038 times was journaled (a synced disk
    write) each time. A repeat changes nothing, so nothing new is written."""
    table, ann, _ = await _dealing(lobby, fake_conn)
    assert table.deal is not None
    hand_no = table.deal.hand_no
    mine = secrets.token_bytes(32)
    await table.fair_commit(ann, hand_no, mine)
    seq = table.seq
    for _ in range(50):
        await table.fair_commit(ann, hand_no, mine)
    assert table.seq == seq
    with pytest.raises(FairnessError):  # a different one is still refused
        await table.fair_commit(ann, hand_no, secrets.token_bytes(32))


async def test_a_human_may_not_claim_a_host_bot_label(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """Hardening point 12: a player who joined as bot "host:heuristic" had the host's own bot
    seated in its place after a restart, with a new token: the player was locked out."""
    table = await lobby.create_table(game="one-card", seats=2)
    message = await _refused(
        ErrorCode.BAD_FIELD, table.join(fake_conn(), "mallory", bot=HOSTED_BOT_PREFIX + "heuristic")
    )
    assert "the host's own" in message
    seat, _ = await table.join(fake_conn(), "robo", bot="my-script")  # other labels are fine
    assert table.seats[seat] is not None


async def test_no_name_may_pass_for_a_spectator(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """Hardening point 13: chat shows a spectator as "NAME (watching)"; a player named
    "Alice (watching)" would pass for one."""
    table = await lobby.create_table(game="one-card", seats=2)
    await _refused(ErrorCode.BAD_FIELD, table.join(fake_conn(), "Alice (Watching)"))
    await _refused(ErrorCode.BAD_FIELD, table.watch(fake_conn(), "Bob (watching)"))


async def test_a_commitment_equal_to_another_seats_is_fairness(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """PROTOCOL.md 4.5: a copied commitment is refused with ``fairness``; ``bea`` may still send
    her own."""
    table, ann, bea = await _dealing(lobby, fake_conn)
    assert table.deal is not None
    copied = secrets.token_bytes(32)
    await table.fair_commit(ann, table.deal.hand_no, copied)
    with pytest.raises(FairnessError) as refused:
        await table.fair_commit(bea, table.deal.hand_no, copied)
    assert refused.value.code is ErrorCode.FAIRNESS
    assert not table.deal.locked


# --------------------------------------------------------------------------- acting


async def _playing(lobby: Lobby, fake_conn: type[Any]) -> tuple[Table, dict[int, Any]]:
    """A two-seat One Card table whose deal round is done: the game is being played."""
    table, ann, bea = await _dealing(lobby, fake_conn)
    assert table.deal is not None
    hand_no, ctx = table.deal.hand_no, table.deal.ctx
    secrets_ = {c: SeatSecret.new(ctx, name) for c, name in ((ann, "ann"), (bea, "bea"))}
    for conn, sec in secrets_.items():
        await table.fair_commit(conn, hand_no, sec.c)
    for conn, sec in secrets_.items():
        await table.fair_reveal(conn, hand_no, sec.r)
    assert table.phase is TablePhase.PLAYING
    return table, {0: ann, 1: bea}


async def test_an_out_of_turn_play_of_a_card_not_held_is_bad_field_not_not_your_turn(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """PROTOCOL.md 4.2 (issue 17, point 3): a malformed action is refused as such before the
    turn is considered, so the same mistake gets the same answer whenever it is sent."""
    table, conns = await _playing(lobby, fake_conn)
    assert table.engine is not None
    idle = next(s for s in (0, 1) if s not in table.engine.to_act())
    view = table.engine.view(idle)
    held = set(view["hand"])
    not_held = next(c for c in ("AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S") if c not in held)
    with pytest.raises(RulesError) as refused:
        await table.act(conns[idle], 1, {"type": "play", "cards": [not_held]})
    assert refused.value.code is ErrorCode.BAD_FIELD
    with pytest.raises(RulesError) as refused:  # a card held, out of turn: not_your_turn
        await table.act(conns[idle], 1, {"type": "play", "cards": [sorted(held)[0]]})
    assert refused.value.code is ErrorCode.NOT_YOUR_TURN


async def test_a_refused_seq_is_free_and_another_action_under_a_used_seq_is_a_conflict(
    autojump_clock: trio.testing.MockClock, lobby: Lobby, fake_conn: type[Any]
) -> None:
    """PROTOCOL.md 4.2 (issue 17, point 6): a refused act uses no seq; a resend of the accepted
    action is a duplicate; a different action under a used seq is refused with ``conflict``
    instead of being acknowledged and never applied."""
    table, conns = await _playing(lobby, fake_conn)
    assert table.engine is not None
    seat = table.engine.to_act()[0]
    with pytest.raises(RulesError):
        await table.act(conns[seat], 1, {"type": "play", "cards": ["ZZ"]})
    assert await table.act(conns[seat], 1, {"type": "draw"}) is True  # the seq is reused
    assert await table.act(conns[seat], 1, {"type": "draw"}) is False  # a resend: duplicate
    seq = table.seq
    for used in (1, 0):
        message = await _refused(ErrorCode.CONFLICT, table.act(conns[seat], used, {"type": "x"}))
        assert "the next seq is 2" in message
    assert table.seq == seq  # nothing applied, nothing journaled
