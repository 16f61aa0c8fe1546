"""Private tables on a running host (``spec/PROTOCOL.md`` 10.11/10.13): whole games played by
test seats (``private_seat.py``) over real sessions, every hand record verified; a seat that
breaks its masking voids the hand naming it; refused options; ``table_info.private``."""

from __future__ import annotations

import json
import sys
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio

sys.path.insert(0, str(Path(__file__).parent))

from private_seat import PrivateSeat

import protocol.table_messages as tm
from host.games import find_game
from host.server.server import HostConfig, HostInfo, serve_host
from net.session import open_session
from protocol.errors import ErrorCode
from protocol.hand_records import record_messages, verify_record
from protocol.mask_seat import Outgoing

GAMES = [
    ("one-card", {}),
    # fewer cards picked up and aces on anything: a shorter game (its plays are all listed
    # as sets all the same)
    ("black-jack", {"black_jack_pickup": 1, "aces_anytime": True}),
    ("one", {"target": 1}),
]
#: the most seats played here: each game's maximum, but Black Jack's ten seats (two packs:
#: minutes of play on this harness, where six seats take some 100 s) play three
MOST = {"black-jack": 3}


async def _records(host: HostInfo, table: str) -> list[dict[str, Any]]:
    lobby = host.host.lobby
    hands = await lobby.store.records.list_records(table)
    return [json.loads(await lobby.record_text(table, h)) for h in hands]


async def _play(
    host: HostInfo,
    connect: Any,
    *,
    game: str,
    seats: int,
    options: dict[str, Any],
    tamper: dict[int, Any] | None = None,
    until_void: bool = False,
) -> tuple[str, list[PrivateSeat]]:
    async with connect() as creator:
        made = await creator.request(
            # no turn timer: a long game on a loaded machine must not meet it (the seats here
            # answer at once; timers are test_a_seat_gone_past_its_grace_..'s)
            tm.CreateTable(game=game, seats=seats, options=options, private=True, turn_timer=0)
        )
        assert isinstance(made, tm.TableCreated)
        assert made.info["private"] is True
        table = made.table
    async with AsyncExitStack() as stack:
        players = []
        for i in range(seats):
            session = await stack.enter_async_context(connect())
            players.append(PrivateSeat(session, table, f"p{i}", tamper=(tamper or {}).get(i)))
        for p in players:
            await p.join()
        with trio.fail_after(280):
            async with trio.open_nursery() as nursery:
                for p in players:
                    nursery.start_soon(p.play)
                if until_void:
                    while not any(r.voided for p in players for r in p.reports):
                        await trio.sleep(0.05)
                    nursery.cancel_scope.cancel()
    return table, players


@pytest.mark.timeout(300)  # a whole game of real crypto per seat: Black Jack takes ~25 s alone
@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g for g, _ in GAMES])
@pytest.mark.parametrize("most", [False, True], ids=["2", "max"])
async def test_a_private_table_plays_to_the_end_and_every_record_verifies(
    host: HostInfo, connect: Any, game: str, options: dict[str, Any], most: bool
) -> None:
    seats = MOST.get(game, find_game(game).max_seats) if most else 2
    table, players = await _play(host, connect, game=game, seats=seats, options=options)
    assert all(p.over for p in players)
    assert not [e for p in players for e in p.errors], [str(e) for p in players for e in p.errors]
    reports = [r for p in players for r in p.reports]
    assert reports and not any(r.voided for r in reports)
    records = await _records(host, table)
    assert records
    for record in records:
        verdict = verify_record(record)
        assert verdict.ok, verdict
        types = [m[0] for m in record["messages"]]
        assert "mask_end" in types and "card" not in types
    # every seat was dealt face down and opened its own cards
    assert all(p.held for p in players)


def _once(kind: str, change: Any) -> Any:
    """A tamper hook changing the first request of ``kind`` only."""
    done: list[bool] = []

    def tamper(item: Outgoing) -> Outgoing | None:
        if item.type != kind or done:
            return item
        done.append(True)
        return Outgoing(item.type, change(dict(item.fields)))

    return tamper


def _copied_point(fields: dict[str, Any]) -> dict[str, Any]:
    points = list(fields["points"])
    points[1] = points[0]  # a copied card
    return {**fields, "points": points}


def _own_box(fields: dict[str, Any]) -> dict[str, Any]:
    pos, _, box = fields["boxes"][0]
    return {**fields, "boxes": [[pos, 1, box]]}  # a box to itself (seat 1)


def _zero_key(fields: dict[str, Any]) -> dict[str, Any]:
    pos, _ = fields["keys"][0]
    return {**fields, "keys": [[pos, bytes(32)]]}


@pytest.mark.parametrize(
    ("kind", "change", "failure"),
    [
        ("mask_pass", _copied_point, "appears twice"),
        ("sealed_keys", _own_box, "not dealt face down"),
        ("open_keys", _zero_key, "key"),
    ],
    ids=["pass", "box", "open_keys"],
)
async def test_a_seat_that_breaks_its_masking_gets_a_fairness_error_and_voids_the_hand(
    host: HostInfo, connect: Any, kind: str, change: Any, failure: str
) -> None:
    table, players = await _play(
        host, connect, game="one-card", seats=2, options={}, tamper={1: _once(kind, change)}
    )
    cheat = players[1]
    assert [e.code for e in cheat.errors][:1] == [ErrorCode.FAIRNESS]
    assert failure in str(cheat.errors[0])
    records = await _records(host, table)
    void = record_messages(records[0])[-1]
    assert void.type == "void"
    body = void.decode()
    assert body["missing"] == ["p1"] and kind in body["reason"] and failure in body["reason"]
    for record in records:  # the void hand verifies as void, the game then played on
        assert verify_record(record).ok
    assert all(p.over for p in players) and len(records) >= 2


async def test_a_host_restart_voids_the_private_hand_in_progress(
    nursery: trio.Nursery, host_config: HostConfig
) -> None:
    first: HostInfo = await nursery.start(serve_host, host_config)
    table = await first.host.create_table("one-card", seats=2, private=True)
    async with AsyncExitStack() as stack:
        players = []
        for i in range(2):
            stream = await trio.open_tcp_stream("127.0.0.1", first.port)
            session = await stack.enter_async_context(open_session(stream))
            players.append(PrivateSeat(session, table, f"p{i}"))
        for p in players:
            await p.join()
        async with trio.open_nursery() as inner:
            for p in players:
                inner.start_soon(p.play)
            with trio.fail_after(60):  # until a card was played face up
                while not any(p.acted_on >= 0 for p in players):
                    await trio.sleep(0.01)
            inner.cancel_scope.cancel()
    await first.host.shutdown()
    second: HostInfo = await nursery.start(serve_host, replace(host_config, port=0))
    restored = second.host.lobby.table(table)
    with trio.fail_after(10):
        while not await _records(second, table):
            await trio.sleep(0.01)
    (record,) = await _records(second, table)
    assert verify_record(record).ok
    void = record_messages(record)[-1]
    assert void.type == "void" and void.decode()["reason"] == "host restarted"
    assert restored.phase.value == "dealing" and restored.fair_hand_no == 2
    assert restored.engine is not None and restored.engine.outcome() is None


async def test_a_seat_gone_past_its_grace_voids_the_hand_and_the_host_plays_it_next(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    table = await mock_host.host.create_table("one-card", seats=2, private=True)
    async with connect_memory(mock_host) as stay:
        players = [PrivateSeat(stay, table, "p0")]
        await players[0].join()
        with trio.fail_after(3600):
            async with trio.open_nursery() as inner:
                inner.start_soon(players[0].play)
                async with connect_memory(mock_host) as leaving:
                    players.append(PrivateSeat(leaving, table, "p1"))
                    await players[1].join()
                    # p1 plays until it holds a card, then its connection drops
                    await players[1].play(until=lambda seat: bool(seat.held))
    assert players[0].over
    records = await _records(mock_host, table)
    voided = [r for r in records if record_messages(r)[-1].type == "void"]
    assert voided, "the hand p1 left was voided"
    body = record_messages(voided[0])[-1].decode()
    assert body["missing"] == ["p1"] and "grace" in body["reason"]
    assert all(verify_record(r).ok for r in records)
    last = record_messages(records[-1])
    assert last[-1].type == "hand_end" and "mask_end" in [m.type for m in last]


#: One Card at four seats with a hand limit just above the deal (seven cards): a seat that
#: draws once goes bankrupt, and the game goes on with the other three
BANKRUPT = {"bankrupt_at": 8}


async def test_a_bankrupt_hand_goes_face_up_mid_game_at_four_seats(
    host: HostInfo, connect: Any
) -> None:
    table, players = await _play(host, connect, game="one-card", seats=4, options=BANKRUPT)
    assert all(p.over for p in players)
    assert not [e for p in players for e in p.errors], [str(e) for p in players for e in p.errors]
    shown = [n for p in players for n in p.shown]
    assert shown and all(n >= 8 for n in shown), shown
    records = await _records(host, table)
    (record,) = records
    verdict = verify_record(record)
    assert verdict.ok, verdict
    assert not any(r.voided for p in players for r in p.reports)
    outcome = players[0].outcome
    assert outcome is not None
    # mid-game: the game went on after the first bankruptcy (someone went out, or one stood)
    messages = record_messages(record)
    opened = [m.decode() for m in messages if m.type == "opened"]
    assert len(opened) >= sum(shown)


def _drop(kind: str) -> Any:
    """A tamper hook that never sends a request of ``kind`` (a seat that keeps its keys)."""

    def tamper(item: Outgoing) -> Outgoing | None:
        return None if item.type == kind else item

    return tamper


def _wrong_show_key(fields: dict[str, Any]) -> dict[str, Any]:
    stream, pos, keys = fields["open"][0]
    keys = list(keys)
    keys[0] = bytes([2]) + bytes(31)  # a valid scalar, not the seat's key: opens no card
    return {**fields, "open": [[stream, pos, keys], *fields["open"][1:]]}


async def test_a_bankrupt_seat_that_keeps_its_keys_voids_the_hand_at_the_round_timeout(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo, connect_memory: Any
) -> None:
    silent = {i: _drop("show_hand") for i in range(4)}
    table, players = await _play(
        mock_host,
        lambda: connect_memory(mock_host),
        game="one-card",
        seats=4,
        options=BANKRUPT,
        tamper=silent,
        until_void=True,
    )
    asked = [p for p in players if p.shown]
    assert asked, "a seat went bankrupt"
    records = await _records(mock_host, table)
    void = record_messages(records[0])[-1]
    assert void.type == "void"
    body = void.decode()
    # the seat asked first (a later hand may have asked another before the test stopped)
    assert body["reason"] == "timeout" and len(body["missing"]) == 1
    assert body["missing"][0] in {p.name for p in asked}
    assert verify_record(records[0]).ok


async def test_a_bankrupt_seat_that_shows_wrong_keys_gets_a_fairness_error_and_voids_the_hand(
    host: HostInfo, connect: Any
) -> None:
    wrong = {i: _once("show_hand", _wrong_show_key) for i in range(4)}
    table, players = await _play(
        host, connect, game="one-card", seats=4, options=BANKRUPT, tamper=wrong, until_void=True
    )
    # (other seats may meet bad_state: a request for the hand just voided)
    (cheat,) = [p for p in players if any(e.code is ErrorCode.FAIRNESS for e in p.errors)]
    assert cheat.shown and [e.code for e in cheat.errors][:1] == [ErrorCode.FAIRNESS]
    records = await _records(host, table)
    void = record_messages(records[0])[-1]
    assert void.type == "void"
    body = void.decode()
    assert body["missing"] == [cheat.name] and "show_hand" in body["reason"]
    assert verify_record(records[0]).ok
