"""A real ``onecard host`` process killed with SIGKILL in every phase of a game, and restarted.

One table, three seats: a player (a protocol client that keeps its resume token, as ``onecard
join`` does) and two of the host's bots; a spectator connection watches to know the phase.
The host is killed (no chance to flush anything) while the table waits for players, while the
deal round collects commitments, while it collects reveals, in the middle of the hand and after
the game is over. After each kill a new host process starts on the same data directory, the
player resumes its seat with its token and plays on. At the end every hand record the host
kept (played hands and the rounds a restart voided) must verify, the game must have an outcome,
and the player's ``ready`` from before the first kill must have survived it.
"""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
import trio

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from net.session import ClientSession, open_session
from protocol.fairness import SignedMessage
from protocol.hand_records import verify_record

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

#: seconds any one wait may take before the test fails instead of hanging
WAIT = 60


async def until_phase(spectator: ClientSession, table: str, phase: str) -> None:
    """Watch ``table`` until it reaches ``phase``: ``commit`` (a round opened), ``reveal``
    (commitments locked), ``playing`` (a few cards played) or ``over``; the spectator must
    already watch (a spectator gets no backlog of what it missed)."""
    played = 0
    with trio.fail_after(WAIT):
        async for push in spectator.pushes:
            if isinstance(push, tm.FairPush):
                kind = SignedMessage.from_wire(push.msg).type
                if (phase, kind) in (("commit", "hand_commit"), ("reveal", "lock")):
                    return
            if isinstance(push, tm.EventPush) and push.event.get("kind") in ("play", "draw"):
                played += 1
                if phase == "playing" and played >= 4:
                    return
            if isinstance(push, tm.GameOver) and phase == "over":
                return
            if isinstance(push, tm.TableInfo) and phase == "over" and push.phase == "finished":
                return
    raise AssertionError(f"the host closed before {phase}")


async def play_on(host: Any, table: str, token: str, *, bots: int = 0) -> dict[str, object]:
    """Ann takes her seat at ``table`` back (seats ``bots`` host bots) and plays it to the end;
    the outcome."""
    async with open_session(await host.connect()) as me:
        player = BotPlayer(me, table_id=table, think=0.01)
        await player.resume(token)
        for _ in range(bots):
            await me.request(tm.AddBot(table=table))
        with trio.fail_after(WAIT):
            await player.play()
        assert player.outcome is not None
        return player.outcome


async def test_a_host_killed_in_every_phase_loses_nothing(
    tmp_path: Path, host_process: Callable[[Path], AbstractContextManager[Any]]
) -> None:
    data_dir = tmp_path / "data"
    seats: dict[str, tuple[str, str]] = {}  # table -> (phase it was killed in, ann's token)
    for phase in ("waiting", "commit", "reveal", "playing", "over"):
        with host_process(data_dir) as host:
            async with (
                open_session(await host.connect()) as me,
                open_session(await host.connect()) as spectator,
            ):
                created = await me.request(
                    tm.CreateTable(game="one-card", seats=3, options={"attack_cap": 2})
                )
                assert isinstance(created, tm.TableCreated)
                table = created.table
                await spectator.request(tm.Watch(table=table))  # first: it sees every push
                player = BotPlayer(me, table_id=table, think=0.01, stay=True)
                await player.join("ann", as_bot=False)
                assert player.token is not None
                seats[table] = (phase, player.token)
                await me.request(tm.Ready(table=table))
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(player.play)
                    if phase != "waiting":  # the bots start the game
                        for _ in range(2):
                            await me.request(tm.AddBot(table=table))
                        await until_phase(spectator, table, phase)
                    host.proc.send_signal(signal.SIGKILL)
                    host.proc.wait(timeout=10)
                    nursery.cancel_scope.cancel()
    with host_process(data_dir) as host:
        async with open_session(await host.connect()) as c:
            for table, (phase, token) in seats.items():
                if phase != "over":
                    # waiting: ann said ready before the kill, and the bots come only now
                    bots = 2 if phase == "waiting" else 0
                    outcome = await play_on(host, table, token, bots=bots)
                    assert outcome["winners"], (phase, outcome)
            for table, (phase, _) in seats.items():
                listing = await c.request(tm.ListRecords(table=table))
                assert isinstance(listing, tm.Records) and listing.hands, phase
                played = 0
                for hand in listing.hands:
                    parts = await c.request_all(tm.GetRecord(table=table, hand_no=hand))
                    text = "".join(p.text for p in parts if isinstance(p, tm.RecordPart))
                    verdict = verify_record(json.loads(text))
                    assert verdict.ok, (phase, hand, verdict.message)
                    played += not verdict.voided
                assert played == 1, (phase, listing.hands)  # one game, one hand played out
            tables = await c.request(tm.ListTables())
            assert isinstance(tables, tm.Tables)
            assert {t["table"]: t["phase"] for t in tables.tables} == dict.fromkeys(
                seats, "finished"
            )
        host.proc.send_signal(signal.SIGTERM)
        assert host.proc.wait(timeout=20) == 0
