"""Benchmark of a long-running host's memory: its RSS over thousands of bots-only games.

How it works: a real ``onecard host`` process (plain TCP on 127.0.0.1, a temporary data dir,
``--bot-think 0``, ``--max-tables`` twice ``--parallel``) runs games of its own normal bots,
``--parallel`` tables at a time: one client creates a two-seat One Card table, adds two host
bots (the game starts at once), waits for it to finish and starts the next; a new table drops
the oldest finished one. The host's resident memory (``/proc``) is read every ``--every``
games. Target (hardening issue 25, point 8): after ``--games`` games, RSS within 20% of its
value after the first ``--base`` games (it grew 48 -> 277 MB over 2,423 games when every game
left reference cycles that the host's collector policy held for a quarter of an hour).

Run: ``python bench/memory.py [--games 2000] [--parallel 6]``.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time

import trio
from local_host import free_port, host_command, wait_listening
from procstat import rss_bytes

import protocol.table_messages as tm
from net.session import ClientSession, RequestError, open_session
from protocol.errors import ErrorCode


async def one_game(client: ClientSession) -> None:
    while True:
        try:
            created = await client.request(tm.CreateTable(game="one-card", seats=2))
            break
        except RequestError as exc:  # two tables created at once may both find none to drop
            if exc.code is not ErrorCode.FULL:
                raise
            await trio.sleep(0.1)
    assert isinstance(created, tm.TableCreated)
    for _ in range(2):
        await client.request(tm.AddBot(table=created.table))
    while True:
        await trio.sleep(0.2)
        listing = await client.request(tm.ListTables())
        assert isinstance(listing, tm.Tables)
        info = next((t for t in listing.tables if t.get("table") == created.table), None)
        if info is None or info.get("phase") == "finished":
            return


async def drive(port: int, host_pid: int, args: argparse.Namespace) -> list[tuple[int, float]]:
    done = 0
    readings: list[tuple[int, float]] = []
    started = time.monotonic()

    async def worker() -> None:
        nonlocal done
        async with open_session(await trio.open_tcp_stream("127.0.0.1", port)) as client:
            while done < args.games:
                await one_game(client)
                done += 1
                if done % args.every == 0:
                    rss = rss_bytes(host_pid) / 2**20
                    readings.append((done, rss))
                    elapsed = time.monotonic() - started
                    print(f"{done:5} games  host RSS {rss:6.1f} MB  ({elapsed:4.0f} s)", flush=True)

    async with trio.open_nursery() as nursery:
        for _ in range(args.parallel):
            nursery.start_soon(worker)
    return readings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games in all")
    parser.add_argument("--parallel", type=int, default=6, help="tables playing at once")
    parser.add_argument("--every", type=int, default=100, help="games between two readings")
    parser.add_argument("--base", type=int, default=200, help="games before the reference")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="onecard-memory-") as tmp:
        cmd = host_command(
            port,
            tmp,
            "--bot-think",
            "0",
            "--max-tables",
            str(2 * args.parallel),
            "--max-bots-per-client",
            "10000",
        )
        host = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_listening(port)
            print(f"start: host RSS {rss_bytes(host.pid) / 2**20:.1f} MB", flush=True)
            readings = trio.run(drive, port, host.pid, args)
        finally:
            host.terminate()
            host.wait(timeout=20)
    base = next(rss for games, rss in readings if games >= args.base)
    last_games, last = readings[-1]
    change = 100 * (last - base) / base
    print(
        f"after {args.base} games {base:.1f} MB, after {last_games} games {last:.1f} MB: "
        f"{change:+.1f}% (target: within 20%)"
    )


if __name__ == "__main__":
    main()
