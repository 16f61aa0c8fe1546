"""The load of bench/server.py, run in worker processes: bots at a host, or echo clients.

How it works: bench/server.py starts several of these (``python bench/loadgen.py bots ...`` or
``... echo ...``), each with its share of the connections, so the load is spread over processes
as players' machines spread it on a LAN, and the process being measured does only its own work.

* ``bots``: for each of its tables, ``seats`` connections; the first creates the table and every
  one joins as a bot (:class:`host.bots.bots.BotPlayer` with the heuristic policy, thinking
  ``--think`` seconds before each move). With ``--until`` the bots stay until then (a table
  that finishes starts its next game); without, each table plays one game and the bots leave.
* ``echo``: ``--connections`` clients of bench/echo.py, each sending one frame of
  ``--frame-bytes`` every ``--interval`` seconds and reading its echo.

Both count every frame the server sends them, pushes, replies and heartbeat answers alike, by
reading the frame headers in the bytes they receive (:class:`CountingStream`): a snapshot at
``--start-at`` (a Unix time) and another at the end, so the measuring process can divide the
server's CPU time over exactly that window by the frames it sent in it. The result is one JSON
object on stdout: connections made, frames and bytes (total and before the window), games
finished, and the first errors (any error is a failure of the benchmark, reported by
bench/server.py).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import msgpack
import trio

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from net.session import leaves, open_session
from protocol.messages import Message

HEADER = 4


@dataclass(slots=True)
class Stats:
    connections: int = 0
    frames: int = 0
    bytes: int = 0
    frames_at_start: int = -1
    bytes_at_start: int = -1
    games: int = 0
    errors: list[str] = field(default_factory=list)

    def error(self, text: str) -> None:
        if len(self.errors) < 20:
            self.errors.append(text)


class CountingStream(trio.abc.Stream):
    """A stream that counts the frames and bytes it receives (by their 4-byte headers)."""

    def __init__(self, inner: trio.abc.Stream, stats: Stats) -> None:
        self.inner = inner
        self.stats = stats
        self._need = 0
        self._header = bytearray()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.inner.receive_some(max_bytes)
        self._count(data)
        return data

    async def aclose(self) -> None:
        await self.inner.aclose()

    def _count(self, data: bytes | bytearray) -> None:
        self.stats.bytes += len(data)
        i, n = 0, len(data)
        while i < n:
            if self._need:
                take = min(self._need, n - i)
                self._need -= take
                i += take
                continue
            take = min(HEADER - len(self._header), n - i)
            self._header += data[i : i + take]
            i += take
            if len(self._header) == HEADER:
                self._need = int.from_bytes(self._header, "big")
                self._header.clear()
                self.stats.frames += 1


class CountingBot(BotPlayer):
    """A bot that counts the games it saw end."""

    stats: Stats

    async def _on_push(self, push: Message) -> None:
        if isinstance(push, tm.GameOver):
            self.stats.games += 1
        await super()._on_push(push)


class _Table:
    """The table one group of bots sits at: its id, once the first bot has created it."""

    def __init__(self) -> None:
        self.id = ""
        self.created = trio.Event()


async def _bot(
    port: int, table: _Table, args: argparse.Namespace, index: int, stats: Stats
) -> None:
    stream = CountingStream(await trio.open_tcp_stream("127.0.0.1", port), stats)
    async with open_session(stream) as client:
        if index == 0:
            reply = await client.request(tm.CreateTable(game=args.game, seats=args.seats))
            assert isinstance(reply, tm.TableCreated)
            table.id = reply.table
            table.created.set()
        await table.created.wait()
        bot = CountingBot(
            client,
            table_id=table.id,
            think=args.think,
            rng=random.Random(index),
            stay=args.until is not None,
        )
        bot.stats = stats
        await bot.join(f"b{index}-{table.id[-4:]}")
        stats.connections += 1
        await bot.play()


async def _one_table(port: int, args: argparse.Namespace, stats: Stats) -> None:
    table = _Table()
    async with trio.open_nursery() as nursery:
        for index in range(args.seats):
            nursery.start_soon(_guarded, _bot, port, table, args, index, stats)


async def _guarded(fn: Any, *fn_args: Any) -> None:
    stats: Stats = fn_args[-1]
    try:
        await fn(*fn_args)
    except BaseException as exc:
        found = [e for e in leaves(exc) if not isinstance(e, trio.Cancelled)]
        if not found:
            raise  # the end of the run
        stats.error(f"{type(found[0]).__name__}: {found[0]}"[:300])


async def _echo_client(port: int, args: argparse.Namespace, stats: Stats) -> None:
    stream = CountingStream(await trio.open_tcp_stream("127.0.0.1", port), stats)
    body = msgpack.packb({"type": "event", "pad": "x" * max(0, args.frame_bytes - 30)})
    frame = len(body).to_bytes(4, "big") + body
    stats.connections += 1
    buffered = bytearray()
    rng = random.Random(id(stream))
    await trio.sleep(rng.random() * args.interval)  # spread the sends over the interval
    async with stream:
        while True:
            await stream.send_all(frame)
            while len(buffered) < len(frame):
                chunk = await stream.receive_some(65536)
                if not chunk:
                    raise ConnectionError("the echo server closed the connection")
                buffered += chunk
            del buffered[: len(frame)]
            await trio.sleep(args.interval)


async def _snapshot(args: argparse.Namespace, stats: Stats) -> None:
    await trio.sleep(max(0.0, args.start_at - time.time()))
    stats.frames_at_start, stats.bytes_at_start = stats.frames, stats.bytes


async def run(args: argparse.Namespace) -> Stats:
    stats = Stats()
    end = None if args.until is None else args.until
    with trio.move_on_at(trio.current_time() + (end - time.time()) if end else float("inf")):
        async with trio.open_nursery() as nursery:
            if args.start_at:
                nursery.start_soon(_snapshot, args, stats)
            for _ in range(args.tables if args.mode == "bots" else args.connections):
                if args.mode == "bots":
                    nursery.start_soon(_one_table, args.port, args, stats)
                else:
                    nursery.start_soon(_guarded, _echo_client, args.port, args, stats)
                await trio.sleep(args.ramp)
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["bots", "echo"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--game", default="one-card")
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--think", type=float, default=0.0)
    parser.add_argument("--connections", type=int, default=1)
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--frame-bytes", type=int, default=200)
    parser.add_argument("--ramp", type=float, default=0.0, help="seconds between tables")
    parser.add_argument("--start-at", type=float, default=0.0, help="Unix time of the window")
    parser.add_argument("--until", type=float, default=None, help="Unix time to stop")
    args = parser.parse_args()
    stats = trio.run(run, args)
    print(json.dumps(asdict(stats)))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
