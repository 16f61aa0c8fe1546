"""host/bots/bots.py on a private table (PROTOCOL.md 10.13): a bot plays from the view its
seat client fills from the cards it opened, and its play carries the keys (``act.open``)."""

from __future__ import annotations

import random
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).parents[1] / "net"))

from private_host import EVERY, FakeHost, FakeSession

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from host.server.server import HostInfo
from net.keystore import MemoryKeyStore


async def _bots(kind: str) -> tuple[FakeHost, BotPlayer]:
    host = FakeHost()
    for s in range(1, 3):
        host.seat_client(s, MemoryKeyStore())
    session: Any = FakeSession(host, 0)
    bot = BotPlayer(session, table_id="priv1", kind=kind)
    bot.name, bot.seat = "Ann", 0
    host.clients[0] = bot
    await host.start()
    await host.deal([0, 1, 2] * 3)
    return host, bot


async def test_easy_and_normal_bots_play_a_private_view_as_a_normal_one() -> None:
    for kind in ("easy", "normal"):
        host, bot = await _bots(kind)
        await host.view(0, [{"actions": EVERY}], [{"type": "draw"}])
        assert bot.state is not None and len(bot.state.view["hand"]) == 3
        choice = await bot._choose(dict(bot.state.view), [dict(a) for a in bot.state.legal])
        assert choice is not None and choice in bot.state.legal
        used = next(p.positions for p in bot.plays if p.action == choice)
        await bot.act(choice)
        # a play opens its position with every seat's key; a draw opens nothing
        assert [host.relay.opened[w].card for w in used] == (
            [choice["card"]] if choice["type"] == "play" else []
        )
        assert len(host.relay.opened) == len(used)


async def test_the_hard_bot_plays_the_normal_move_on_a_private_table() -> None:
    host, bot = await _bots("hard")
    await host.view(0, [{"actions": EVERY}], [{"type": "draw"}])
    assert bot.state is not None
    legal = [dict(a) for a in bot.state.legal]
    choice = await bot._choose(dict(bot.state.view), legal)
    assert choice is not None and choice in legal  # no search was asked of a worker


class _Counting(BotPlayer):
    """A bot that keeps every action it sent, refused or not, and the events it saw."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[tuple[dict[str, Any], bool]] = []
        self.events: list[dict[str, Any]] = []

    async def act(self, action: dict[str, Any]) -> Any:
        try:
            reply = await super().act(action)
        except Exception:
            self.sent.append((action, False))
            raise
        self.sent.append((action, True))
        return reply

    async def _on_push(self, push: Any) -> None:
        if isinstance(push, tm.EventPush):
            self.events.append(dict(push.event))
        await super()._on_push(push)


async def test_black_jack_bots_declare_with_the_play_on_a_private_table(
    host: HostInfo, connect: Any
) -> None:
    """A private table lists Black Jack's plays without ``say`` and takes one sent
    (PROTOCOL.md 10.13): bots that do not pause send it with the play that leaves a hand able
    to go out, with the play's keys, and the host takes it, as a ``declare`` event of the play's
    seat; a declaration made after the play instead was refused as late whenever the next seat
    moved first (issue 29). Games are played until one had such a play."""
    said: list[dict[str, Any]] = []
    with trio.fail_after(120):
        for game in range(6):
            async with connect() as c:
                made = await c.request(
                    tm.CreateTable(game="black-jack", seats=3, private=True, turn_timer=0)
                )
            async with AsyncExitStack() as stack:
                sessions = [await stack.enter_async_context(connect()) for _ in range(3)]
                bots = [
                    _Counting(s, table_id=made.table, rng=random.Random(f"{game}/{i}"), think=0.0)
                    for i, s in enumerate(sessions)
                ]
                for i, bot in enumerate(bots):
                    await bot.join(f"b{i}")
                async with trio.open_nursery() as nursery:
                    for bot in bots:
                        nursery.start_soon(bot.play)
            for bot in bots:
                with_say = [a for a, ok in bot.sent if a["type"] == "play" and "say" in a]
                assert all(ok for a, ok in bot.sent if a in with_say), bot.sent
                declared = [e for e in bot.events if e.get("kind") == "declare"]
                assert len(declared) >= len(with_say)
                said += with_say
            assert bots[0].events[-1]["kind"] == "game_over"
            if said:
                break
    assert said, "six games and no play that needed a declaration"
    assert {a["say"] for a in said} <= {"last_card", "cards"}
