"""The ``explain`` request over a real session (mock clock, in-memory streams): a seated player
asks why a held card cannot be played; the reply changes nothing, and a Black Jack blunder it
offers is accepted when sent with ``act``."""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from host.server.server import HostInfo
from net.session import ClientSession, RequestError
from protocol.cards import ALL_CARDS, card
from protocol.errors import ErrorCode, LocalProtocolError
from protocol.messages import Message
from protocol.registry import message_from_wire


async def wait_for(client: ClientSession, predicate: Any, limit: float = 600) -> Message:
    assert client.received is not None
    seen = 0
    with trio.fail_after(limit):
        while True:
            for msg in client.received[seen:]:
                if predicate(msg):
                    return msg
            seen = len(client.received)
            await trio.sleep(0.5)


def is_state(msg: Message) -> bool:
    return isinstance(msg, tm.StatePush) and bool(msg.to_act) and msg.phase == "playing"


async def test_explain_answers_a_seated_player_and_a_blunder_can_be_sent(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
    nursery: trio.Nursery,
) -> None:
    table = await mock_host.host.create_table("black-jack", seats=2)
    async with connect_memory(mock_host) as a, connect_memory(mock_host) as b:
        players = [BotPlayer(c, table_id=table, acts=False) for c in (a, b)]
        await players[0].join("ann", as_bot=False)
        with pytest.raises(RequestError) as early:  # no game yet
            await a.request(tm.Explain(table=table, card=card("QS")))
        assert early.value.code is ErrorCode.BAD_STATE
        await players[1].join("bob", as_bot=False)
        for c in (a, b):
            await c.request(tm.Ready(table=table))
        for p in players:
            nursery.start_soon(p.play)
        state = await wait_for(a, is_state)
        assert isinstance(state, tm.StatePush)
        idle = 1 - state.to_act[0]
        client = (a, b)[idle]
        mine = await wait_for(
            client, lambda m: is_state(m) and m.seat == idle and m.seq >= state.seq
        )
        assert isinstance(mine, tm.StatePush)
        held = mine.view["hand"]
        seq = mine.seq
        why = await client.request(tm.Explain(table=table, card=card(held[0])))
        assert isinstance(why, tm.Explained)
        assert why.card is card(held[0]) and why.blunder
        assert "out of turn" in why.reason and "pick up 2" in why.reason
        assert why.action is not None
        assert why.action["type"] == "play" and why.action["cards"] == [held[0]]
        other = next(c for c in ALL_CARDS if c.code not in held)
        missing = await client.request(tm.Explain(table=table, card=other))
        assert isinstance(missing, tm.Explained)
        assert missing.reason == f"{other.code} is not in your hand" and missing.action is None
        await trio.sleep(1)
        assert not any(  # nothing was journaled or pushed because of the questions
            getattr(m, "seq", 0) > seq for m in client.received if isinstance(m, tm.EventPush)
        )
        ack = await client.request(tm.Act(table=table, seq=1, action=why.action))
        assert isinstance(ack, tm.Ack) and not ack.duplicate
        blunder = await wait_for(
            client, lambda m: isinstance(m, tm.EventPush) and m.event["kind"] == "blunder"
        )
        assert isinstance(blunder, tm.EventPush) and blunder.event["seat"] == idle


async def test_explain_is_refused_to_the_unseated_and_for_bad_cards(
    autojump_clock: trio.testing.MockClock,
    mock_host: HostInfo,
    connect_memory: Any,
) -> None:
    table = await mock_host.host.create_table("one-card", seats=2)
    async with connect_memory(mock_host) as a:
        with pytest.raises(RequestError) as stranger:
            await a.request(tm.Explain(table=table, card=card("QS")))
        assert stranger.value.code is ErrorCode.BAD_STATE
        await a.request(tm.Watch(table=table))
        with pytest.raises(RequestError) as watcher:
            await a.request(tm.Explain(table=table, card=card("QS")))
        assert watcher.value.code is ErrorCode.BAD_STATE


def test_an_unreadable_card_code_is_bad_card() -> None:
    with pytest.raises(LocalProtocolError) as bad:
        message_from_wire({"type": "explain", "id": 1, "table": "t1", "card": "ZZ"})
    assert bad.value.code is ErrorCode.BAD_CARD
    forgiving = message_from_wire({"type": "explain", "id": 1, "table": "t1", "card": "th"})
    assert isinstance(forgiving, tm.Explain) and forgiving.card is card("10H")
