"""One seat of bench/private.py: a bot in a process of its own, so its CPU time is its own.

How it works: bench/private.py starts one of these per seat and keeps it for the whole run. It
prints ``ready`` once its imports are done, then reads one job a line on stdin (JSON: ``port``,
``table``, ``name``, ``kind``, ``seed``, ``timeout``), plays it and prints one JSON line back.
A job is one game at one table: connect to the host on 127.0.0.1 over plain TCP, join as a bot
(:class:`host.bots.bots.BotPlayer`, the seat client every onecard bot and player uses, with the
policy ``kind`` and a :class:`random.Random` seeded with ``seed``), play until ``game_over``.
On a private table that seat client does the seat's whole masking duty (passes, sealed keys,
opening its cards, ``act.open``, the audit); on a normal one the commit-reveal; both check
every deal.

What it reports for the game: ``cpu``, this process's CPU seconds (user + system,
``time.process_time``) from before connecting to ``game_over``; ``sent`` and ``received``, the
bytes written to and read from its socket over that time (the host's traffic with this seat);
``acts``, the actions it sent; ``alerts``, any failed deal check (a failure of the run); and
``timeline``, the moments (``time.monotonic``, one clock for every process of the machine)
bench/private.py bounds its wall times with: ``[t, "hand", hand_no]`` on receiving a
``hand_commit``; ``[t, "turn", hand_no]`` the first time in that hand this seat holds a turn it
can act on (its ``state`` names it to act and offers it actions: on a private table, only once
every card dealt to it is open); ``[t, "reshuffle", stream]`` on receiving a ``reshuffle``;
``[t, "draw", stream]`` on receiving the first ``draw`` from that stream (on a private table
after the round's 2k masking stages); ``[t, "void", hand_no]`` on receiving a ``void``.

With ``ONECARD_BENCH_SEAT_PROFILE=PREFIX`` each game runs under cProfile (CPU time), written
to ``PREFIX.PID.TABLE`` (read it with :mod:`pstats`).
"""

from __future__ import annotations

import cProfile
import json
import os
import random
import sys
import time
from typing import Any

import msgpack
import trio

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from net.session import open_session
from protocol.messages import Message

#: where to write each game's profile (``ONECARD_BENCH_SEAT_PROFILE``; unset: no profile)
PROFILE = os.environ.get("ONECARD_BENCH_SEAT_PROFILE", "")


class CountingStream(trio.abc.Stream):
    """A TCP stream that counts the bytes it sends and receives."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.sent = 0
        self.received = 0

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.sent += len(data)
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.inner.receive_some(max_bytes)
        self.received += len(data)
        return data

    async def aclose(self) -> None:
        await self.inner.aclose()


class TimedBot(BotPlayer):
    """A bot that notes the moments of its timeline (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timeline: list[list[Any]] = []
        self.moves = 0
        self.voids: list[str] = []  #: each void's hand, reason and seats named
        self._hand = 0
        self._turn_seen = True  # no hand yet
        self._streams_drawn: set[int] = set()

    async def act(self, action: dict[str, Any]) -> Message:
        self.moves += 1
        return await super().act(action)

    async def _on_push(self, push: Message) -> None:
        now = time.monotonic()
        if isinstance(push, tm.FairPush):
            kind = push.msg[0]
            if kind == "void":
                self.timeline.append([now, "void", push.hand_no])
                body = msgpack.unpackb(push.msg[1])
                self.voids.append(
                    f"hand {push.hand_no}: {body.get('reason')}, {body.get('missing')}"
                )
            elif kind == "hand_commit":
                self._hand, self._turn_seen = push.hand_no, False
                self.timeline.append([now, "hand", push.hand_no])
            elif kind in ("reshuffle", "draw"):
                stream = int(msgpack.unpackb(push.msg[1])["stream"])
                if kind == "reshuffle":
                    self.timeline.append([now, "reshuffle", stream])
                elif stream not in self._streams_drawn:
                    self._streams_drawn.add(stream)
                    self.timeline.append([now, "draw", stream])
        await super()._on_push(push)
        if not self._turn_seen and self.my_turn:
            self._turn_seen = True
            self.timeline.append([time.monotonic(), "turn", self._hand])


async def play(job: dict[str, Any]) -> dict[str, Any]:
    cpu = time.process_time()
    stream = CountingStream(await trio.open_tcp_stream("127.0.0.1", int(job["port"])))
    with trio.fail_after(float(job["timeout"])):
        async with open_session(stream) as session:
            bot = TimedBot(
                session,
                table_id=str(job["table"]),
                kind=str(job["kind"]),
                rng=random.Random(str(job["seed"])),
            )
            await bot.join(str(job["name"]))
            await bot.play()
    return {
        "cpu": time.process_time() - cpu,
        "sent": stream.sent,
        "received": stream.received,
        "acts": bot.moves,
        "alerts": bot.fair_alerts,
        "voids": bot.voids,
        "outcome": bot.outcome,
        "timeline": bot.timeline,
    }


def main() -> None:
    print("ready", flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        profile = cProfile.Profile(time.process_time) if PROFILE else None
        try:
            if profile is not None:
                profile.enable()
            result = trio.run(play, job)
        except Exception as exc:  # reported to bench/private.py, which stops the run
            result = {"error": f"{type(exc).__name__}: {exc}"[:500]}
        if profile is not None:
            profile.disable()
            profile.dump_stats(f"{PROFILE}.{os.getpid()}.{job['table']}")
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
