"""host/bots/bots.py on a private table (PROTOCOL.md 10.13): a bot plays from the view its
seat client fills from the cards it opened, and its play carries the keys (``act.open``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "net"))

from private_host import EVERY, FakeHost, FakeSession

from host.bots.bots import BotPlayer
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
