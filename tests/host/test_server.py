"""End-to-end games over loopback TCP: bots, scripted clients, spectators, records, leaks."""

from __future__ import annotations

import bisect
import functools
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, cast

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from host.bots.policy import heuristic_choice
from host.games import find_game, game_names
from host.server import server
from host.server.server import HostConfig, HostInfo, serve_host
from host.table.clock import EMPTY_TABLE_S
from net.session import ClientSession, RequestError
from protocol.cards import CardCodeError, parse_card
from protocol.errors import ErrorCode
from protocol.fairness import HandVerifier, SignedMessage, sign_message
from protocol.hand_records import verify_record
from protocol.messages import Message

GAMES = [("one-card", 3), ("one", 2), ("black-jack", 3)]


async def until_game_over(client: ClientSession, limit: float = 60) -> tm.GameOver:
    with trio.fail_after(limit):
        async for push in client.pushes:
            if isinstance(push, tm.GameOver):
                return push
    raise AssertionError("the connection ended before the game did")


async def fetch_records(client: ClientSession, table: str) -> list[dict[str, Any]]:
    listing = await client.request(tm.ListRecords(table=table))
    assert isinstance(listing, tm.Records)
    out = []
    for hand in listing.hands:
        parts = await client.request_all(tm.GetRecord(table=table, hand_no=hand))
        assert all(isinstance(p, tm.RecordPart) for p in parts)
        out.append(json.loads("".join(p.text for p in parts if isinstance(p, tm.RecordPart))))
    return out


@pytest.mark.parametrize(("game", "seats"), GAMES)
async def test_bots_play_a_whole_game_with_verifiable_records(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    game: str,
    seats: int,
) -> None:
    # mock clock, memory streams: a random game may run to its 1,000-turn limit
    host = mock_host
    connect = functools.partial(connect_memory, mock_host)
    table = await host.host.create_table(game, seats=seats)
    async with connect() as spectator:
        await spectator.request(tm.Watch(table=table))
        await host.host.add_bots(table, seats - 1, level="heuristic")
        await host.host.add_bots(table, 1, level="random")
        over = await until_game_over(spectator)
        assert over.outcome["winners"]
        records = await fetch_records(spectator, table)
    assert records
    for record in records:
        verdict = verify_record(record)
        assert verdict.ok, verdict.message
    assert any(not r["voided"] for r in records)


def card_codes(obj: object) -> Iterator[str]:
    """Every string inside ``obj`` that is exactly a card code."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str) and len(item) <= 3:
            try:
                if parse_card(item).code == item:
                    yield item
            except CardCodeError:
                continue


def message_cards(msg: Message) -> tuple[set[str], set[str]]:
    """(cards this message shows, cards it privately hands to its receiver)."""
    wire = msg.to_wire()
    own: set[str] = set()
    shown = set(card_codes({k: v for k, v in wire.items() if k != "msg"}))
    if isinstance(msg, tm.FairPush):
        signed = SignedMessage.from_wire(msg.msg)
        body = signed.decode()
        codes = set(card_codes(body))
        if signed.type == "card":
            own |= codes
        else:
            shown |= codes
    if isinstance(msg, tm.EventPush) and "to" in msg.event:
        own |= shown
        shown = set()
    return shown, own


@pytest.mark.parametrize("game", game_names())
async def test_no_message_carries_another_seats_hidden_card(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any, game: str
) -> None:
    """Every card a seat is shown is its own or was public (seen by a spectator) by then.

    On the mock clock over memory streams: a random game runs from hundreds to thousands of
    messages, and over TCP the longest ones outlasted a wall-clock bound on a slow machine.
    """
    host = mock_host
    connect = functools.partial(connect_memory, mock_host)
    table = await host.host.create_table(game, seats=3)
    async with connect() as spectator, connect() as a, connect() as b:
        await spectator.request(tm.Watch(table=table))
        players = [BotPlayer(a, table_id=table), BotPlayer(b, table_id=table)]
        await players[0].join("ann")
        await players[1].join("bob")
        await host.host.add_bots(table, 1)
        async with trio.open_nursery() as nursery:
            for p in players:
                nursery.start_soon(p.play)
            # mock seconds: the players' requests outrun the host's rate limit, which refills
            # only as the mock clock moves (up to ~20 s over a 1,000-turn game)
            await until_game_over(spectator, limit=600)
        assert spectator.received is not None
        public_at: dict[int, set[str]] = {}  # seq -> cards the spectator was shown at it
        for msg in spectator.received:
            shown, own = message_cards(msg)
            assert not own, f"a spectator got a private message: {msg}"
            if isinstance(msg, tm.StatePush):
                assert msg.view.get("hand") is None
            seq = getattr(msg, "seq", None)
            if isinstance(seq, int):
                public_at.setdefault(seq, set()).update(shown)
        # cards public by each seq: a running union (a union per message was quadratic, and
        # took seconds after a long game)
        public_seqs = sorted(public_at)
        public_by: list[set[str]] = []
        for q in public_seqs:
            public_by.append((public_by[-1] if public_by else set()) | public_at[q])
        for player, client in zip(players, (a, b), strict=True):
            assert client.received is not None
            mine: set[str] = set()
            for msg in client.received:
                shown, own = message_cards(msg)
                mine |= own
                if isinstance(msg, tm.StatePush):
                    assert msg.seat == player.seat
                    mine |= set(msg.view.get("hand") or [])
                if isinstance(msg, tm.EventPush) and "to" in msg.event:
                    assert msg.event["to"] == player.seat
                if isinstance(msg, tm.FairPush) and msg.msg[0] == "card":
                    assert SignedMessage.from_wire(msg.msg).decode()["to"] == player.seat
                seq = getattr(msg, "seq", None)
                if not isinstance(seq, int):
                    continue
                at = bisect.bisect_right(public_seqs, seq)
                public = public_by[at - 1] if at else set()
                leaked = shown - mine - public
                assert not leaked, f"{player.name} saw {leaked} in {msg}"


async def polite(client: ClientSession, msg: Message) -> Message:
    """A request, retried while the host says we are over its rate limit."""
    while True:
        try:
            return await client.request(msg)
        except RequestError as exc:
            if exc.code is not ErrorCode.RATE_LIMITED:
                raise
            await trio.sleep(0.2)


@pytest.mark.parametrize("game", game_names())
async def test_scripted_client_plays_a_whole_game(  # noqa: PLR0915
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any, game: str
) -> None:
    """A client driving the protocol by hand: join, ready, commit, reveal, act, retry, errors.

    On the mock clock over memory streams: a game may run to its 1,000-turn limit, and the
    client's acts then outrun the host's rate limit (20 a second), so over TCP the pauses
    alone took some 20 s of the 60 s bound, before a slow machine added its share.
    """
    host = mock_host
    connect = functools.partial(connect_memory, mock_host)
    table = await host.host.create_table(game, seats=2)
    async with connect() as me:
        joined = await me.request(tm.Join(table=table, name="alice"))
        assert isinstance(joined, tm.Joined)
        await host.host.add_bots(table, 1)
        await me.request(tm.Ready(table=table))
        verifier: HandVerifier | None = None
        seq = 0
        checked_errors = False
        with trio.fail_after(600):  # mock seconds: mostly rate-limit pauses
            async for push in me.pushes:
                if isinstance(push, tm.FairPush):
                    msg = SignedMessage.from_wire(push.msg)
                    if msg.type == "hand_commit":
                        verifier = HandVerifier(msg.decode()["host_pk"], pid="alice")
                    assert verifier is not None
                    verifier.receive(msg)
                    if msg.type == "hand_commit":
                        body = verifier.player_commit()
                        await polite(
                            me, tm.FairCommit(table=table, hand_no=push.hand_no, c=body["c"])
                        )
                    elif msg.type == "lock":
                        body = verifier.reveal()
                        await polite(
                            me, tm.FairReveal(table=table, hand_no=push.hand_no, r=body["r"])
                        )
                elif isinstance(push, tm.StatePush) and push.seat == joined.seat:
                    if joined.seat not in push.to_act or not push.legal:
                        continue
                    if not checked_errors:
                        checked_errors = True
                        with pytest.raises(RequestError) as bad:
                            await me.request(
                                tm.Act(table=table, seq=1, action={"type": "play", "cards": ["XX"]})
                            )
                        assert bad.value.code in (ErrorCode.BAD_FIELD, ErrorCode.BAD_CARD)
                        with pytest.raises(RequestError) as unknown:
                            await me.request(tm.Act(table=table, seq=1, action={"type": "fly"}))
                        assert unknown.value.code is ErrorCode.BAD_FIELD
                    action = heuristic_choice(dict(push.view), [dict(a) for a in push.legal])
                    assert action is not None
                    try:
                        ack = await polite(me, tm.Act(table=table, seq=seq + 1, action=action))
                    except RequestError as exc:
                        # a state already overtaken by the bot's out-of-turn call (which may
                        # even have ended the game): re-read
                        assert exc.code in (
                            ErrorCode.BAD_FIELD,
                            ErrorCode.ILLEGAL_ACTION,
                            ErrorCode.NOT_YOUR_TURN,
                            ErrorCode.BAD_STATE,
                        )
                        continue
                    seq += 1
                    assert isinstance(ack, tm.Ack) and not ack.duplicate
                    if seq == 1:  # a retry of an applied seq is acknowledged, not applied
                        again = await polite(me, tm.Act(table=table, seq=seq, action=action))
                        assert isinstance(again, tm.Ack) and again.duplicate
                        # another action under a used seq: ``conflict`` names the next free
                        # seq in a field, not only in its text (PROTOCOL.md 4.2, issue 24.7)
                        with pytest.raises(RequestError) as used:
                            await me.request(tm.Act(table=table, seq=seq, action={"type": "x"}))
                        assert used.value.code is ErrorCode.CONFLICT
                        assert used.value.error.next_seq == seq + 1
                elif isinstance(push, tm.GameOver):
                    break
        assert checked_errors and seq > 0
        assert verifier is not None and verifier.report is not None
        assert not verifier.report.voided


async def test_acting_out_of_turn_is_refused_and_the_game_goes_on(
    autojump_clock: trio.testing.MockClock,
    nursery: trio.Nursery,
    host_config: HostConfig,
    connect_memory: Any,
) -> None:
    # The out-of-turn act must reach the host while the bot still thinks (0.3 s). On the mock
    # clock over memory streams that time passes only when every task waits, so the act always
    # arrives first; over TCP in real time a slow machine could take longer, and then it was
    # our turn again and the act was accepted.
    config = replace(host_config, bot_think=0.3, store_in_thread=False)
    info: HostInfo = await nursery.start(serve_host, config)
    table = await info.host.create_table("one-card", seats=2)
    async with connect_memory(info) as me:
        player = BotPlayer(me, table_id=table, acts=False)  # answers the deal round only
        await player.join("carol")
        await info.host.add_bots(table, 1)
        nursery.start_soon(player.play)
        seq, acted_on, refused_at = 0, -1, -1
        with trio.fail_after(30):
            while refused_at < 0:
                await trio.sleep(0.01)
                state = player.state
                if state is None or state.phase != "playing" or state.seq == acted_on:
                    continue
                acted_on = state.seq
                if player.seat in state.to_act:
                    seq += 1
                    await me.request(tm.Act(table=table, seq=seq, action=dict(state.legal[-1])))
                    continue
                with pytest.raises(RequestError) as refused:
                    await me.request(tm.Act(table=table, seq=seq + 1, action={"type": "draw"}))
                assert refused.value.code is ErrorCode.NOT_YOUR_TURN
                refused_at = state.seq
            while player.state.seq <= refused_at or player.seat not in player.state.to_act:
                await trio.sleep(0.01)


async def test_lobby_validates_tables_names_and_seats(host: HostInfo, connect: Any) -> None:
    async with connect() as c:
        games = await c.request(tm.ListGames())
        assert isinstance(games, tm.Games)
        assert {g["name"] for g in games.games} >= set(game_names())
        for bad in (
            tm.CreateTable(game="poker", seats=2),
            tm.CreateTable(game="one-card", seats=9),
            tm.CreateTable(game="one-card", seats=2, options={"nonsense": 1}),
            tm.CreateTable(game="one-card", seats=2, options={"multi_play": "maybe"}),
        ):
            with pytest.raises(RequestError) as refused:
                await c.request(bad)
            assert refused.value.code is ErrorCode.BAD_FIELD, bad  # a value, not a clash
        created = await c.request(
            tm.CreateTable(game="one-card", seats=2, options={"multi_play": "on"})
        )
        assert isinstance(created, tm.TableCreated)
        assert created.info["options"]["multi_play"] is True
        table = created.table
        listing = await c.request(tm.ListTables())
        assert isinstance(listing, tm.Tables)
        assert table in {t["table"] for t in listing.tables}
        await c.request(tm.Join(table=table, name="Dan"))
        async with connect() as other:
            with pytest.raises(RequestError) as taken:
                await other.request(tm.Join(table=table, name="dan"))
            assert taken.value.code is ErrorCode.CONFLICT
            with pytest.raises(RequestError) as nope:
                await other.request(tm.Join(table="nope", name="x"))
            assert nope.value.code is ErrorCode.NOT_FOUND
        await c.request(tm.AddBot(table=table))
        with pytest.raises(RequestError) as full:
            await c.request(tm.AddBot(table=table))
        assert full.value.code is ErrorCode.FULL
        left = await c.request(tm.Leave(table=table))
        assert isinstance(left, tm.Left)
        with pytest.raises(RequestError) as chat:
            await c.request(tm.ChatSay(table=table, text="hi"))
        assert chat.value.code is ErrorCode.BAD_STATE


async def test_chat_reaches_the_table_and_is_rate_limited(host: HostInfo, connect: Any) -> None:
    table = await host.host.create_table("one-card", seats=2)
    async with connect() as a, connect() as watcher:
        await a.request(tm.Join(table=table, name="eve"))
        await watcher.request(tm.Watch(table=table))
        limited = 0
        for i in range(12):
            try:
                await a.request(tm.ChatSay(table=table, text=f"line {i}"), resend=False)
            except RequestError as exc:
                assert exc.code is ErrorCode.RATE_LIMITED
                limited += 1
        assert limited > 0
        with trio.fail_after(10):
            async for push in watcher.pushes:
                if isinstance(push, tm.ChatLine):
                    assert (push.name, push.text) == ("eve", "line 0")
                    break


async def test_ready_after_game_over_starts_a_rematch(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    # mock clock, memory streams: two random games, each of which may run to the turn limit
    host = mock_host
    connect = functools.partial(connect_memory, mock_host)
    table = await host.host.create_table("black-jack", seats=2)
    async with connect() as me:
        player = BotPlayer(me, table_id=table, stay=True)
        await player.join("gus")
        await host.host.add_bots(table, 1)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(player.play)
            with trio.fail_after(60):
                while player.outcome is None:
                    await trio.sleep(0.01)
            await me.request(tm.Ready(table=table))
            with trio.fail_after(60):
                while player.game_no < 2 or player.outcome is None:
                    await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
        assert me.received is not None
        starts = [m.game_no for m in me.received if isinstance(m, tm.GameStart)]
        assert starts == [1, 2]


async def test_an_engine_failure_mid_action_restores_the_table_from_its_journal(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # mock clock, memory streams: a random game may run to its 1,000-turn limit (7 s over TCP
    # on a loaded machine, against a 60 s bound)
    host = mock_host
    connect = functools.partial(connect_memory, mock_host)
    engine_cls = find_game("one-card").state
    real_apply = engine_cls.apply
    calls = {"n": 0}

    def flaky_apply(self: Any, seat: int, action: Any) -> Any:
        calls["n"] += 1
        events = real_apply(self, seat, action)
        if calls["n"] == 2:  # the engine changed its state, then failed (early: One Card
            # games with bankruptcy can end in a handful of actions)
            raise RuntimeError("injected engine bug")
        return events

    monkeypatch.setattr(engine_cls, "apply", flaky_apply)
    table = await host.host.create_table("one-card", seats=2)
    async with connect() as spectator:
        await spectator.request(tm.Watch(table=table))
        await host.host.add_bots(table, 2)
        await until_game_over(spectator)
        records = await fetch_records(spectator, table)
    assert calls["n"] > 2
    assert records and all(verify_record(r).ok for r in records)


async def test_a_full_host_makes_room_by_dropping_its_oldest_idle_table(
    host: HostInfo, connect: Any
) -> None:
    host.host.lobby.max_tables = 2
    idle = await host.host.create_table("one-card", seats=3)  # nobody sat down
    host.host.lobby.table(idle).clock.touched -= EMPTY_TABLE_S  # and nobody came for a minute
    async with connect() as c:
        busy = await host.host.create_table("one-card", seats=2)
        await c.request(tm.Join(table=busy, name="ivy"))
        third = await host.host.create_table("one", seats=2)
        tables = {t["table"] for t in host.host.lobby.table_summaries()}
        assert tables == {busy, third}
        await c.request(tm.Watch(table=third))  # watching keeps no table
        await host.host.add_bots(third, 1)  # but a table being filled with bots is kept
        with pytest.raises(RequestError) as full:  # nothing idle left to drop
            await c.request(tm.CreateTable(game="one", seats=2))
        assert full.value.code is ErrorCode.FULL
        with pytest.raises(RequestError) as gone:
            await c.request(tm.Join(table=idle, name="x"))
        assert gone.value.code is ErrorCode.NOT_FOUND


@pytest.mark.parametrize("host_pk", [None, "not bytes", b"short"])
async def test_a_bot_takes_a_bad_host_key_in_hand_commit_as_a_fairness_alert(
    host_pk: object,
) -> None:
    """A host (any host: bots also play remote ones) cannot crash a bot with a bad HAND_COMMIT."""
    body = {"seq": 0} if host_pk is None else {"seq": 0, "host_pk": host_pk}
    bad = sign_message(Ed25519PrivateKey.generate(), "hand_commit", body)
    bot = BotPlayer(cast(ClientSession, None), table_id="t1")  # the client is not reached
    await bot._on_push(tm.FairPush(table="t1", seq=1, hand_no=1, msg=bad.to_wire()))
    assert bot.fair_alerts and bot.checker.verifier is None and bot.checker.host_pk is None


async def test_a_host_bound_to_loopback_is_not_advertised_on_the_lan(
    nursery: trio.Nursery, host_config: HostConfig, monkeypatch: pytest.MonkeyPatch
) -> None:
    announced: list[str] = []

    async def advertise(info: HostInfo, name: str) -> None:
        announced.append(name)

    monkeypatch.setattr(server, "_advertise", advertise)
    info: HostInfo = await nursery.start(serve_host, replace(host_config, advertise=True))
    assert host_config.bind == "127.0.0.1" and not info.advertised
    await info.host.shutdown()
    assert announced == []
    assert server._loopback_only([("127.0.0.1", 1), ("::1", 1)])
    assert not server._loopback_only([("0.0.0.0", 1)])
    assert not server._loopback_only([("127.0.0.1", 1), ("192.168.1.5", 1)])


async def test_the_host_logs_connections_and_table_events_one_line_each(
    host: HostInfo, connect: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="host")
    async with connect() as c:
        created = await c.request(tm.CreateTable(game="black-jack", seats=2))
        assert isinstance(created, tm.TableCreated)
        table = created.table
        ann = BotPlayer(c, table_id=table, stay=True)
        await ann.join("Ann", as_bot=False)
        await host.host.add_bots(table, 1)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ann.play)
            await c.request(tm.Ready(table=table))
            with trio.fail_after(60):
                while ann.outcome is None:
                    await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
        await c.bye("done")
    with trio.fail_after(60):
        while not any("closed (the client said bye)" in r.getMessage() for r in caplog.records):
            await trio.sleep(0.01)
    async with connect() as again:
        assert ann.token is not None
        # Resume from where Ann stopped: from 0 the host would replay the whole game, and a
        # long one overflows the client's push queue (PUSH_QUEUE) that nothing here drains.
        await again.request(tm.Resume(token=ann.token, last_seq=ann.last_seq))
        await again.request(tm.Leave(table=table))
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("host")]
    assert all("\n" not in line for line in logged)

    def one(pattern: str) -> None:
        assert any(re.fullmatch(pattern, line) for line in logged), (pattern, logged)

    peer = r"\('127\.0\.0\.1', \d+\)"
    one(rf"{peer}: connection opened")
    one(rf"table {table} created: black-jack, 2 seats, options .*")
    one(rf"table {table}: Ann took seat 0 \[{peer}\]")
    one(rf"table {table}: Bot-1 took seat 1 \(bot: host:normal\) \[in-process bot\]")
    one(rf"table {table}: game 1 of black-jack started \(Ann, Bot-1\)")
    one(rf"table {table}: game 1 over: seat \d \((Ann|Bot-1)\) went out")
    one(rf"table {table}: seat 0 \(Ann\) resumed \[{peer}\]")
    one(rf"table {table}: seat 0 left \[{peer}\]")
    one(rf"{peer}: connection closed \(the client said bye\)")
    took = next(i for i, line in enumerate(logged) if "Bot-1 took seat 1" in line)
    started = next(i for i, line in enumerate(logged) if "game 1 of black-jack started" in line)
    assert took < started  # the last seat is taken, then the full table starts
