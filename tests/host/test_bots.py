"""host/bots/bots.py: bots speak through the shared protocol client, and ``onecard bot`` refusals.

The game-playing side of :class:`host.bots.bots.BotPlayer` is exercised by the server, session and
restart tests; these check what bots.py itself adds on top of :mod:`net.session`, and that a bot
is the terminal client's seat client (:class:`net.seat.SeatClient`): it catches a cheating host
as the client does.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any, cast

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import protocol.table_messages as tm
from client.table_client import TableClient
from host.bots.ai.ismcts import Budget
from host.bots.ai.levels import HardBot, NormalBot
from host.bots.bots import (
    BOT_SOFTWARE,
    OVERTAKEN_WAIT,
    BotOutcome,
    BotPlayer,
    BotRefused,
    TableFinished,
    run_bots,
)
from host.server.server import HostConfig, HostInfo, serve_host
from host.table.cheats import CheatKind
from net.fairplay import FairKind
from net.seat import SeatClient
from net.session import ClientSession, Disconnected, RequestError, first_leaf, open_session
from protocol.cards import DECK_52, DECK_54, Rank
from protocol.connection import Connection, Role
from protocol.errors import ErrorCode
from protocol.fairness import HandDealer
from protocol.messages import Error, Hello, Message, Ping, ServerClosing, Welcome


async def test_a_bot_session_says_hello_as_a_bot(autojump_clock: trio.testing.MockClock) -> None:
    client_end, host_end = trio.testing.memory_stream_pair()
    host = Connection(role=Role.HOST)
    welcome = Welcome(
        version=1, host_name="h", software="h/1", fingerprint="sha256:" + "f" * 64, limits={}
    )

    async def accept() -> None:
        host.receive_data(bytes(await host_end.receive_some(65536)))
        hello = host.next_message()
        assert isinstance(hello, Hello) and hello.software == BOT_SOFTWARE
        await host_end.send_all(host.send(welcome))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(accept)
        async with open_session(client_end, keep=True, software=BOT_SOFTWARE) as client:
            assert client.welcome == welcome
            assert client.received == [welcome]


async def test_a_bot_whose_host_is_gone_when_it_commits_stops_playing(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A host killed as it opens the fair-dealing round: its ``hand_commit`` arrives, then the
    connection ends before the bot sends its commitment. ``play`` ends as it does whenever the
    connection ends, instead of raising :class:`Disconnected` from the commitment it cannot
    send (the intermittent failure of tests/adversarial/test_sigkill_every_phase.py)."""
    client_end, host_end = trio.testing.memory_stream_pair()
    host = Connection(role=Role.HOST)
    welcome = Welcome(
        version=1, host_name="h", software="h/1", fingerprint="sha256:" + "f" * 64, limits={}
    )
    dealer = HandDealer(
        signing_key=Ed25519PrivateKey.generate(),
        table_id="t1",
        hand_no=1,
        ruleset_id="black-jack",
        deck=DECK_52,
        pids=["ann", "bob"],
    )
    opened = tm.FairPush(table="t1", seq=1, hand_no=1, msg=dealer.hand_commit.to_wire())

    async def host_killed_after_the_commit() -> None:
        host.receive_data(bytes(await host_end.receive_some(65536)))
        assert isinstance(host.next_message(), Hello)
        await host_end.send_all(host.send(welcome) + host.send(opened))
        await host_end.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host_killed_after_the_commit)
        async with open_session(client_end) as client:
            await client.closed.wait()  # the round's opening is still unread
            bot = BotPlayer(client, table_id="t1", stay=True)
            bot.name, bot.seat = "ann", 0
            await bot.play()
    verifier = bot.checker.verifier
    assert verifier is not None and verifier.pid == "ann"  # it did try to commit
    assert bot.fair_alerts == []


def test_a_bot_refusal_reads_code_first() -> None:
    error = Error(code=ErrorCode.NOT_FOUND, message="no such table", fatal=False)
    assert str(BotRefused(error)) == "not_found: no such table"
    assert str(RequestError(error)) == "no such table (not_found)"


async def refusal(**kwargs: Any) -> BaseException:
    try:
        await run_bots(**kwargs)
    except BaseException as raised:  # the bots' nursery may wrap it in a group
        return first_leaf(raised)
    raise AssertionError("run_bots was not refused")


async def test_run_bots_reports_a_refused_join_and_a_refused_game(host: HostInfo) -> None:
    where: dict[str, Any] = {"address": "127.0.0.1", "port": host.port, "insecure": True}
    with trio.fail_after(60):
        no_table = await refusal(**where, count=2, table_id="nope", think=0)
        no_game = await refusal(**where, count=1, create="snap", think=0)
    assert isinstance(no_table, BotRefused) and no_table.code is ErrorCode.NOT_FOUND
    assert str(no_table).startswith("not_found: ")
    assert isinstance(no_game, BotRefused)
    assert str(no_game).startswith(f"{no_game.code.value}: ")


async def test_a_bot_stops_playing_when_the_host_shuts_down(
    host: HostInfo, connect_memory: Any
) -> None:
    table = await host.host.create_table("one-card", seats=2)
    async with connect_memory(host) as client:
        bot = BotPlayer(client, table_id=table, stay=True)
        await bot.join("ann")
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(bot.play)  # returns when the push channel ends
                await host.host.shutdown()
        assert client.received is not None and isinstance(client.received[-1], ServerClosing)
        assert client.ended_by_host and client.retry_after == 5
        with pytest.raises(Disconnected):
            await client.request(tm.ListTables())


async def test_bots_at_a_finished_table_nobody_can_restart_are_refused(host: HostInfo) -> None:
    where: dict[str, Any] = {"address": "127.0.0.1", "port": host.port, "insecure": True}
    with trio.fail_after(60):
        (first, _) = await run_bots(**where, count=2, create="black-jack", think=0)
        assert first.line().startswith("seat ")
        (table,) = host.host.lobby.tables
        finished = await refusal(**where, count=1, table_id=table, think=0)
    assert isinstance(finished, TableFinished)
    assert str(finished).startswith(f"table {table} has finished and no player sits there")


async def test_bots_at_a_finished_table_with_a_player_wait_for_the_rematch(
    host: HostInfo, connect: Any
) -> None:
    table = await host.host.create_table("black-jack", seats=3)
    await host.host.add_bots(table, 1)
    where: dict[str, Any] = {"address": "127.0.0.1", "port": host.port, "insecure": True}
    notices: list[str] = []
    async with connect() as a, connect() as b, trio.open_nursery() as nursery:
        ann = BotPlayer(a, table_id=table, stay=True)
        bea = BotPlayer(b, table_id=table, stay=True)
        for player, client, name in ((ann, a, "Ann"), (bea, b, "Bea")):
            await player.join(name, as_bot=False)
            nursery.start_soon(player.play)
            await client.request(tm.Ready(table=table))
        with trio.fail_after(60):
            while ann.outcome is None or bea.outcome is None:
                await trio.sleep(0.01)
            await b.request(tm.Leave(table=table))  # a free seat; Ann still sits there
            with trio.CancelScope() as waiting:

                def notice(line: str) -> None:
                    notices.append(line)
                    waiting.cancel()  # the bots would wait for Ann's rematch from here on

                await run_bots(**where, count=1, table_id=table, think=0, notice=notice)
        nursery.cancel_scope.cancel()
    assert notices == [
        f"table {table} has finished; the bots wait for its players to start a rematch"
    ]


async def test_a_hard_bot_plays_a_game_through_the_host_from_its_events_and_views(
    host: HostInfo, connect: Any
) -> None:
    """The hard bot searches in a worker process, fed the events its seat received."""
    table = await host.host.create_table("black-jack", seats=2)
    hard = HardBot(rng=random.Random(3), budget=Budget(iterations=20))
    seen: list[dict[str, Any]] = []
    searched: list[int] = []
    observe, conclude = hard.observe, hard.conclude

    def spy_observe(event: dict[str, Any]) -> None:
        seen.append(event)
        observe(event)

    def spy_conclude(*args: Any, **kwargs: Any) -> dict[str, Any] | None:
        chosen = conclude(*args, **kwargs)
        searched.append(hard.iterations)
        return chosen

    hard.observe, hard.conclude = spy_observe, spy_conclude  # type: ignore[method-assign]
    async with connect() as a, connect() as b, trio.open_nursery() as nursery:
        ann = BotPlayer(a, table_id=table, stay=True, bot=hard)
        bea = BotPlayer(b, table_id=table, stay=True, kind="easy")
        assert bea.bot.level.value == "easy"
        for player, name in ((ann, "Ann"), (bea, "Bea")):
            await player.join(name)  # a bot is always ready: the game starts
            nursery.start_soon(player.play)
        with trio.fail_after(90):
            while ann.outcome is None:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    assert 20 in searched
    assert [e.get("kind") for e in seen].count("deal") >= 1


def test_a_bot_outcome_reads_as_one_line_with_names() -> None:
    names = {0: "Ann", 1: "bot1-ab12"}
    target = {"termination": "target", "winners": [0], "ranking": None, "scores": [101, 40]}
    assert BotOutcome(target, names).line() == (
        "seat 0 (Ann) reached the target score; scores: seat 0 (Ann) 101, seat 1 (bot1-ab12) 40"
    )


class _TrickWatcher(NormalBot):
    """A normal bot that checks, at each of its plays in ONE, that the events it was fed show
    every card on the table its view shows."""

    def __init__(self) -> None:
        super().__init__(rng=random.Random(1))
        self.table: list[str] = []
        self.checked = 0
        self.missed: list[tuple[list[str], list[str]]] = []

    def observe(self, event: dict[str, Any]) -> None:
        if event.get("kind") == "play":
            self.table.append(str(event["card"]))
        elif event.get("kind") in ("trick", "deal"):
            self.table = []

    def choose(
        self, view: dict[str, Any], legal: Any, *, last: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        if view.get("phase") == "play" and view.get("seat") in (view.get("to_act") or ()):
            shown = [str(p["card"]) for p in view["trick"]["cards"]]
            self.checked += 1
            if shown != self.table:
                self.missed.append((shown, list(self.table)))
        return super().choose(view, legal, last=last)


async def test_a_bot_is_fed_every_card_played_before_it_chooses(
    host: HostInfo, connect: Any
) -> None:
    table = await host.host.create_table("one", seats=2)
    watchers = [_TrickWatcher(), _TrickWatcher()]
    async with connect() as a, connect() as b, trio.open_nursery() as nursery:
        players = [
            BotPlayer(c, table_id=table, stay=True, bot=w)
            for c, w in zip((a, b), watchers, strict=True)
        ]
        for player, name in zip(players, ("Ann", "Bea"), strict=True):
            await player.join(name)
            nursery.start_soon(player.play)
        with trio.fail_after(90):
            while players[0].outcome is None:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    assert all(w.checked for w in watchers)
    assert [w.missed for w in watchers] == [[], []]


class _Witness(NormalBot):
    """A normal bot that notes, at each of its decisions, the table seq of the state it decides
    on (its player's latest ``state``) and every event it has been fed since the game began."""

    def __init__(self) -> None:
        super().__init__(rng=random.Random(2))
        self.player: BotPlayer | None = None
        self.fed: list[dict[str, Any]] = []
        #: per decision: the state's table seq, the events fed so far, the view
        self.decisions: list[tuple[int, list[dict[str, Any]], dict[str, Any]]] = []

    def new_game(self) -> None:
        self.fed = []

    def observe(self, event: dict[str, Any]) -> None:
        self.fed.append(event)

    def choose(
        self, view: dict[str, Any], legal: Any, *, last: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        assert self.player is not None and self.player.state is not None
        assert dict(self.player.state.view) == view  # the state it decides on
        self.decisions.append((self.player.state.seq, list(self.fed), view))
        return super().choose(view, legal, last=last)


@pytest.mark.parametrize("game", ["one-card", "black-jack", "one"])
async def test_a_bot_has_been_fed_every_event_before_its_state_when_it_chooses(
    host: HostInfo, connect: Any, game: str
) -> None:
    """At every decision of a bot at a real table (three bots, loopback), the events it has
    been fed since the game began start with every event its seat received up to the state it
    decides on, as the host's journal has them (public ones and the seat's private ones, in
    order): in ONE the card just played in the trick among them; and nothing else before.
    The bots play until the game ends or each has decided 40 times."""
    table = await host.host.create_table(game, seats=3)
    witnesses = [_Witness() for _ in range(3)]
    async with (
        connect() as a,
        connect() as b,
        connect() as c,
        trio.open_nursery() as nursery,
    ):
        players = [
            BotPlayer(conn, table_id=table, stay=True, bot=w)
            for conn, w in zip((a, b, c), witnesses, strict=True)
        ]
        for player, witness, name in zip(players, witnesses, ("Ann", "Bea", "Cy"), strict=True):
            witness.player = player
            await player.join(name)
            nursery.start_soon(player.play)
        with trio.fail_after(90):
            while players[0].outcome is None and min(len(w.decisions) for w in witnesses) < 40:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    store = host.host.lobby.store
    for player, witness in zip(players, witnesses, strict=True):
        assert player.seat is not None and witness.decisions
        rows = await store.messages_after(table, 0, player.seat)
        starts = [r.seq for r in rows if r.payload.get("type") == "game_start"]
        for seq, fed, _ in witness.decisions:
            begun = max(s for s in starts if s <= seq)  # the game this decision is in
            journal = [
                r.payload["event"]
                for r in rows
                if r.payload.get("type") == "event" and r.seq > begun
            ]
            due = sum(1 for r in rows if r.payload.get("type") == "event" and begun < r.seq <= seq)
            assert len(fed) >= due, f"seat {player.seat} chose at seq {seq} unfed"
            assert fed == journal[: len(fed)], f"seat {player.seat} at seq {seq}"
        if game == "one":  # the cards in the trick it saw were the last ones it was fed
            tricks = [
                ([str(p["card"]) for p in view["trick"]["cards"]], fed)
                for _, fed, view in witness.decisions
                if view.get("phase") == "play" and view["trick"]["cards"]
            ]
            assert tricks  # it decided in the middle of a trick
            for shown, fed in tricks:
                played = [str(e["card"]) for e in fed if e.get("kind") == "play"]
                assert played[-len(shown) :] == shown


async def test_a_bot_and_the_terminal_client_are_one_seat_client_and_refuse_a_deal_alike() -> None:
    """Both are :class:`net.seat.SeatClient`: the same bad HAND_COMMIT (a One Card deck
    without its 2s and 3s) fails both with the same words, and neither commits to it."""
    short = tuple(c for c in DECK_54 if c.rank not in (Rank.TWO, Rank.THREE))
    dealer = HandDealer(
        signing_key=Ed25519PrivateKey.generate(),
        table_id="t1",
        hand_no=1,
        ruleset_id="one-card",
        deck=short,
        pids=["ann", "bob"],
    )
    info = tm.TableInfo(
        table="t1",
        name="t",
        game="one-card",
        options={},
        seats=(None, None),
        phase="dealing",
        game_no=1,
        spectators=0,
        turn_timer=None,
        voids=0,
    )
    opened = tm.FairPush(table="t1", seq=1, hand_no=1, msg=dealer.hand_commit.to_wire())
    nowhere = cast(ClientSession, None)  # a commit sent would fail on it
    client = TableClient(nowhere, table_id="t1", name="ann")
    bot = BotPlayer(nowhere, table_id="t1")
    bot.name = "ann"
    assert isinstance(client, SeatClient) and isinstance(bot, SeatClient)
    assert await client.handle(info) == []
    (failed,) = await client.handle(opened)
    await bot._on_push(info)
    await bot._on_push(opened)
    assert failed.kind is FairKind.FAILED and "deals 46 cards" in failed.message
    assert bot.fair_alerts == [failed.message]
    assert client.checker.verifier is None and bot.checker.verifier is None


@pytest.mark.parametrize("kind", list(CheatKind), ids=lambda k: k.value)
async def test_a_bot_catches_every_kind_of_cheating_live(
    kind: CheatKind,
    nursery: trio.Nursery,
    host_config: HostConfig,
    cheat_caught: dict[CheatKind, str],
    reshuffle_tries: int,
) -> None:
    """A bot seated like the terminal client in tests/client/test_cheating_host.py (a player's
    seat, with host-run bots at the other seats) reports each kind in the same words. A
    reshuffle needs a long game: four seats with bankruptcy off, up to ``reshuffle_tries``
    games (a game has none about 30% of the time)."""
    config = dataclasses.replace(host_config, cheat=kind)
    info: HostInfo = await nursery.start(serve_host, config)
    reshuffle = kind is CheatKind.WRONG_RESHUFFLE
    seats, options = (4, {"bankrupt_at": 0}) if reshuffle else (2, {})
    alerts: list[str] = []
    with trio.fail_after(100):
        for _ in range(reshuffle_tries if reshuffle else 1):
            table = await info.host.create_table("one-card", seats=seats, options=options)
            stream = await trio.open_tcp_stream("127.0.0.1", info.port)
            async with open_session(stream) as client:
                ann = BotPlayer(client, table_id=table, stay=True)
                await ann.join("Ann", as_bot=False)
                await info.host.add_bots(table, seats - 1)
                await client.request(tm.Ready(table=table))
                async with trio.open_nursery() as playing:
                    playing.start_soon(ann.play)
                    while not ann.fair_alerts and ann.outcome is None:
                        await trio.sleep(0.01)
                    playing.cancel_scope.cancel()
            alerts = ann.fair_alerts
            if alerts:
                break
    assert alerts, f"{kind.value}: no failed check reported"
    assert cheat_caught[kind] in alerts[0], alerts


async def test_a_bot_acts_only_on_a_state_that_came_after_the_ack_of_its_last_action(
    autojump_clock: trio.testing.MockClock, turn_state: Callable[[int], tm.StatePush]
) -> None:
    """PROTOCOL.md 4.2: a ``state`` received before the ``ack`` of our ``act`` was sent before
    the act applied. A bot holding only such a state waits for a newer one, up to
    OVERTAKEN_WAIT, then takes it as current; a state after the ack it acts on at once."""
    client_end, host_end = trio.testing.memory_stream_pair()
    host = Connection(role=Role.HOST)
    welcome = Welcome(
        version=1, host_name="h", software="h/1", fingerprint="sha256:" + "f" * 64, limits={}
    )
    waits: list[float] = []

    async def receive() -> Message:
        while True:
            msg = host.next_message()
            if isinstance(msg, Message) and not isinstance(msg, Ping):
                return msg
            if not isinstance(msg, Message):
                host.receive_data(bytes(await host_end.receive_some(65536)))

    async def ack(
        act: Message, *before: tm.StatePush, after: tuple[tm.StatePush, ...] = ()
    ) -> None:
        assert isinstance(act, tm.Act)
        reply = tm.Ack(table="t1", seq=act.seq, duplicate=False, re=act.id)
        await host_end.send_all(b"".join(host.send(m) for m in (*before, reply, *after)))

    async def scripted_host() -> None:
        assert isinstance(await receive(), Hello)
        await host_end.send_all(host.send(welcome) + host.send(turn_state(1)))
        first = await receive()
        # a state the host sent while the act was on its way (still our turn), then the ack
        await ack(first, turn_state(2))
        acked = trio.current_time()
        second = await receive()
        waits.append(trio.current_time() - acked)
        # this time a state after the ack: the bot acts on it at once
        await ack(second, turn_state(3), after=(turn_state(4),))
        acked = trio.current_time()
        await receive()
        waits.append(trio.current_time() - acked)
        await host_end.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(scripted_host)
        async with open_session(client_end) as client:
            bot = BotPlayer(client, table_id="t1", kind="easy", stay=True)
            bot.name, bot.seat = "ann", 0
            await bot.play()
    assert waits[0] >= OVERTAKEN_WAIT and waits[1] < OVERTAKEN_WAIT / 10, waits
