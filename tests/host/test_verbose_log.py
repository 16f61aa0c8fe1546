"""The host's ``-v`` log (INFO, one line per event, table id first) for what happens without a
request: the host taking over an absent seat and giving it back, spectators coming and going,
a deal round voided, a seat stood up, and tables restored after a restart (mock clock, in-memory
streams)."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from host.server.server import HostConfig, HostInfo, serve_host
from host.table.seats import MAX_MISSED_ROUNDS, TablePhase


async def test_the_host_logs_takeovers_spectators_voids_and_restores_one_line_each(  # noqa: PLR0915
    autojump_clock: trio.testing.MockClock,
    nursery: trio.Nursery,
    tmp_path: Path,
    connect_memory: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="host")
    config = HostConfig(
        data_dir=tmp_path,
        bind="127.0.0.1",
        port=0,
        insecure=True,
        advertise=False,
        store_in_thread=False,
        grace=10.0,
        bot_think=0.0,
    )
    first: HostInfo = await nursery.start(serve_host, config)
    table_id = await first.host.create_table("one-card", seats=3)
    table = first.host.lobby.table(table_id)
    async with connect_memory(first) as a, connect_memory(first) as c:
        ann = BotPlayer(a, table_id=table_id, acts=False)  # never acts: the game stays open
        await ann.join("ann", as_bot=False)
        joined = await c.request(tm.Join(table=table_id, name="cy"))  # never answers a round
        assert isinstance(joined, tm.Joined)
        cy = table.seats[joined.seat]
        assert cy is not None
        cy.misses = 2 * (MAX_MISSED_ROUNDS - 1)  # in halves
        async with trio.open_nursery() as inner:
            inner.start_soon(ann.play)
            async with connect_memory(first) as b:
                bob = BotPlayer(b, table_id=table_id, acts=False)
                await bob.join("bob", as_bot=False)
                async with trio.open_nursery() as bobs:
                    bobs.start_soon(bob.play)
                    for client in (a, b, c):
                        await client.request(tm.Ready(table=table_id))
                    with trio.fail_after(600):
                        while not cy.stood_up or table.phase is not TablePhase.PLAYING:
                            await trio.sleep(1)
                    bobs.cancel_scope.cancel()
            # bob's connection is gone: after the grace period the host plays his seat
            bob_seat = table.seats[bob.seat or 0]
            assert bob_seat is not None
            with trio.fail_after(600):
                while not bob_seat.substitute:
                    await trio.sleep(1)
            async with connect_memory(first) as back:
                assert bob.token is not None
                resumed = await back.request(tm.Resume(token=bob.token, last_seq=0))
                assert isinstance(resumed, tm.Resumed)
                async with connect_memory(first) as w1, connect_memory(first) as w2:
                    await w1.request(tm.Watch(table=table_id, name="Dee"))
                    await w2.request(tm.Watch(table=table_id, name=""))
                    await w1.request(tm.Leave(table=table_id))
                await trio.sleep(1)
            inner.cancel_scope.cancel()
    await first.host.shutdown()
    second: HostInfo = await nursery.start(serve_host, config)
    assert second.host.lobby.table(table_id)
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("host")]
    assert all("\n" not in line for line in logged)

    def one(pattern: str) -> None:
        assert sum(bool(re.fullmatch(pattern, line)) for line in logged) == 1, (pattern, logged)

    t, b = rf"table {table_id}", bob.seat
    one(rf"{t}: hand 1 voided \(timeout\), no answer from seat\(s\) {joined.seat}")
    one(rf"{t}: seat {joined.seat} \(cy\) stood up after {MAX_MISSED_ROUNDS} missed deal rounds")
    one(rf"{t}: the host plays seat {b} \(bob\): away for the 10 s grace period")
    one(rf"{t}: seat {b} \(bob\) is back: the host stops playing for it")
    one(rf"{t}: Dee started watching \[.*\]")
    one(rf"{t}: Dee stopped watching \(left\) \[.*\]")
    one(rf"{t}: spectator started watching \[.*\]")
    one(rf"{t}: spectator stopped watching \(disconnected\) \[.*\]")
    one(rf"{t}: cy started watching \(stood up\) \[.*\]")
    one(rf"{t}: cy stopped watching \(disconnected\) \[.*\]")
    seats = {ann.seat: "ann", b: "bob", joined.seat: r"cy \(stood up\)"}
    listed = ", ".join(seats[i] for i in range(3))
    one(rf"{t} restored: one-card, playing \(game 1\), seats {listed}")
    tokens = [x for x in (ann.token, bob.token, joined.token) if x]
    assert not any(tok in line for tok in tokens for line in logged)  # no secrets
