"""Benchmark of the trio host: bot tables played to the end over loopback, and its response time.

How it works: start :func:`host.server.serve_host` on 127.0.0.1 (plain TCP, a temporary data dir,
no LAN advertising), create ``--tables`` tables of ``--seats`` seats, watch each from its own
spectator connection (every public message crosses a real socket), fill every seat with bots that
act at once and time until every table's ``game_over``. By default the bots run in other
processes (one ``onecard bot`` per table, as on a LAN, where players' machines do their own work),
so the CPU time of this process is the host's (plus the light spectators and probe); ``--bots
local`` seats the host's in-process bots instead, all in this process. Everything a real game
does runs: the fair-deal rounds with their signatures, the journal (sqlite, ``synchronous=FULL``),
the hand records, the fan-out to spectators. Meanwhile a probe connection sends ``ping`` every
``--probe`` seconds and records the round trip: what a human's client would wait for a reply
while the host is busy. A first run with one table (not reported) warms up imports and disk.

Reports games/s, fair-deal hands/s, messages/s delivered to spectators, this process's CPU time
per table message, and the ping round trip (median, 95th percentile, max) under that load. Run:
``python bench/server.py [--game one-card] [--tables 8] [--seats 4] [--probe 0.1]
[--bots remote|local]``. No target is set by an issue; a LAN game night is a few tables of
humans, far below this load.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import trio

import protocol.table_messages as tm
from host.server import HostConfig, HostInfo, serve_host
from net.session import ClientSession, open_session
from protocol.messages import Ping

#: a game that runs longer than this is reported as stuck (the bench fails loudly)
GAME_TIMEOUT_S = 600.0


@dataclass(slots=True)
class Figures:
    games: int = 0
    hands: int = 0
    messages: int = 0
    wall: float = 0.0
    cpu: float = 0.0  #: CPU seconds of this process while the games ran
    rtts: list[float] = field(default_factory=list)


async def _watch(port: int, table: str, figures: Figures, done: trio.Event) -> None:
    """Spectate ``table`` until its game is over, counting messages and fair-deal hands."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with open_session(stream) as spectator:
        await spectator.request(tm.Watch(table=table))
        done.set()  # watching: the bots may sit down
        with trio.fail_after(GAME_TIMEOUT_S):
            async for push in spectator.pushes:
                figures.messages += 1
                if isinstance(push, tm.FairPush) and push.msg[0] == "hand_end":
                    figures.hands += 1
                if isinstance(push, tm.GameOver):
                    figures.games += 1
                    return
    raise RuntimeError(f"table {table}: the connection ended before the game did")


async def _probe(session: ClientSession, every: float, rtts: list[float]) -> None:
    while True:
        t0 = time.perf_counter()
        await session.request(Ping())
        rtts.append(time.perf_counter() - t0)
        await trio.sleep(every)


async def _remote_bots(port: int, table: str, seats: int) -> None:
    """One ``onecard bot`` process filling every seat of ``table``; it exits after the game."""
    cmd = [sys.executable, "-m", "client", "bot", f"127.0.0.1:{port}", "--insecure"]
    cmd += ["--table", table, "--count", str(seats), "--think", "0"]
    done = await trio.run_process(cmd, capture_stdout=True, capture_stderr=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"onecard bot for {table} failed: {done.stderr.decode()[-500:]}")


async def run(
    game: str, tables: int, seats: int, probe: float, data_dir: Path, *, remote: bool = True
) -> Figures:
    config = HostConfig(
        data_dir=data_dir,
        bind="127.0.0.1",
        port=0,
        insecure=True,
        advertise=False,
        bot_think=0.0,
    )
    figures = Figures()
    async with trio.open_nursery() as nursery:
        info: HostInfo = await nursery.start(serve_host, config)
        ids = [await info.host.create_table(game, seats=seats) for _ in range(tables)]
        stream = await trio.open_tcp_stream("127.0.0.1", info.port)
        async with open_session(stream) as prober, trio.open_nursery() as games:
            watching = []
            for table in ids:
                ready = trio.Event()
                games.start_soon(_watch, info.port, table, figures, ready)
                watching.append(ready)
            for ready in watching:
                await ready.wait()
            probing = trio.CancelScope()

            async def probe_until_cancelled() -> None:
                with probing:
                    await _probe(prober, probe, figures.rtts)

            nursery.start_soon(probe_until_cancelled)
            t0, cpu0 = time.perf_counter(), time.process_time()
            async with trio.open_nursery() as waiter:
                for table in ids:
                    if remote:
                        waiter.start_soon(_remote_bots, info.port, table, seats)
                    else:
                        await info.host.add_bots(table, seats)
                waiter.start_soon(_all_done, figures, tables)
            figures.wall = time.perf_counter() - t0
            figures.cpu = time.process_time() - cpu0
            probing.cancel()
        await info.host.shutdown()
    return figures


async def _all_done(figures: Figures, tables: int) -> None:
    with trio.fail_after(GAME_TIMEOUT_S):
        while figures.games < tables:
            await trio.sleep(0.01)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:6.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="one-card", help="game name (default one-card)")
    parser.add_argument("--tables", type=int, default=8, help="tables played at once")
    parser.add_argument("--seats", type=int, default=4, help="seats per table, all bots")
    parser.add_argument("--probe", type=float, default=0.1, help="seconds between probe pings")
    parser.add_argument(
        "--bots", choices=["remote", "local"], default="remote", help="bots in other processes"
    )
    args = parser.parse_args()
    remote = args.bots == "remote"
    with tempfile.TemporaryDirectory(prefix="onecard-bench-") as tmp:
        bench = functools.partial(run, remote=remote)
        trio.run(bench, args.game, 1, args.seats, args.probe, Path(tmp) / "warm")
        f = trio.run(bench, args.game, args.tables, args.seats, args.probe, Path(tmp) / "host")
    rtts = sorted(f.rtts)
    p95 = rtts[min(len(rtts) - 1, int(len(rtts) * 0.95))] if rtts else float("nan")
    print(
        f"host benchmark: {args.tables} tables of {args.game}, {args.seats} bots each "
        f"({'other processes' if remote else 'in the host process'}), loopback TCP, "
        "sqlite journal"
    )
    print(f"  {f.games} games, {f.hands} fair-deal hands in {f.wall:.2f} s")
    print(f"  {f.games / f.wall:8.2f} games/s   {f.hands / f.wall:8.1f} hands/s")
    print(f"  {f.messages / f.wall:8.0f} messages/s delivered to {args.tables} spectators")
    print(
        f"  this process: {f.cpu:.2f} s CPU, {f.cpu / f.messages * 1000:.2f} ms per table "
        f"message, {f.cpu / f.wall:.0%} of one core"
    )
    if rtts:
        print(
            f"  ping round trip under load ({len(rtts)} pings): median "
            f"{_ms(statistics.median(rtts))}, 95% {_ms(p95)}, max {_ms(rtts[-1])}"
        )


if __name__ == "__main__":
    main()
