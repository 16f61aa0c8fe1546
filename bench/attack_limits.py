"""The attacks on the host's limits (issue 25, points 2-4): ``bench/attack.py --kind
tables|slots|records`` runs them, each against its own host process, and prints what honest
players got while the attack held everything it is allowed.

How it works: the host runs in a child process from :class:`host.server.server.HostConfig` (plain
TCP on 127.0.0.1, a temporary data dir) with loopback counted per address, so the attackers' and
players' sources 127.0.0.2-127.0.0.12 play separate LAN machines without network namespaces.

* ``slots``: four "machines" (127.0.0.2-5) each open as many connections as the per-address
  cap lets them and keep them alive, 80 silent TCP connections (no ``hello``) from 127.0.0.6
  are reopened every 10 s; meanwhile a seated player (127.0.0.9) drops and resumes, and a
  newcomer (127.0.0.10) connects and creates a table, ``--seconds`` long.
* ``tables``: one connection (127.0.0.2) sends 66 ``create_table`` at once and sits at each
  table it got, then leaves and comes back every 2 minutes (hit-and-run, scaled to
  ``--seconds``); an honest player (127.0.0.10) creates a table every half second.
* ``records``: one connection runs bots-only games back to back (a two-seat table with two of
  the host's bots, a new table when one ends) for ``--seconds``; prints the records written,
  their bytes on disk and as JSON, then prunes the data directory as ``onecard host --prune
  --keep-records-days 0`` does and prints what is left.
"""

from __future__ import annotations

import contextlib
import lzma
import multiprocessing
import socket
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

import protocol.table_messages as tm
from net.session import ClientSession, Disconnected, RequestError, open_session
from protocol.messages import Ping

KINDS = ("tables", "slots", "records")


def _serve(port: int, data_dir: str, keep_days: float | None) -> None:
    from host.server.server import HostConfig, serve_host

    config = HostConfig(
        data_dir=Path(data_dir),
        bind="127.0.0.1",
        port=port,
        insecure=True,
        advertise=False,
        bot_think=0.0,
        exempt_loopback=False,
        keep_records_days=keep_days,
        turn_timer=None,
    )
    trio.run(serve_host, config)


@dataclass(slots=True)
class Tally:
    ok: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)

    def failed(self, why: str) -> None:
        self.refused[why] = self.refused.get(why, 0) + 1

    def line(self, what: str) -> str:
        tries = self.ok + sum(self.refused.values())
        worst = f", slowest {1000 * max(self.times):.0f} ms" if self.times else ""
        return f"{what}: {self.ok}/{tries} succeeded{worst}; refused {self.refused or 'never'}"


@contextlib.asynccontextmanager
async def _session(port: int, source: str) -> AsyncIterator[ClientSession]:
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=source)
    async with open_session(stream) as session:
        yield session


async def _attempt(tally: Tally, port: int, source: str, msg: Any) -> Any:
    t0 = time.perf_counter()
    try:
        async with _session(port, source) as s:
            reply = await s.request(msg)
    except RequestError as exc:
        tally.failed(exc.code.value)
        return None
    except (Disconnected, OSError, trio.BrokenResourceError) as exc:
        tally.failed(type(exc).__name__)
        return None
    tally.ok += 1
    tally.times.append(time.perf_counter() - t0)
    return reply


# --------------------------------------------------------------------------- slots


async def _hold(port: int, source: str, stop: trio.Event, held: list[int]) -> None:
    with contextlib.suppress(Exception):
        async with _session(port, source) as s:
            await s.request(tm.ListTables())
            held[0] += 1
            try:
                while not stop.is_set():
                    with trio.move_on_after(10):
                        await stop.wait()
                    await s.request(Ping())
            finally:
                held[0] -= 1


async def _silent(port: int, stop: trio.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(OSError):
            stream = await trio.open_tcp_stream("127.0.0.1", port, local_address="127.0.0.6")
            with trio.move_on_after(10):
                await stop.wait()
            await stream.aclose()


async def slots(port: int, seconds: float) -> None:
    async with _session(port, "127.0.0.9") as first:
        made = await first.request(tm.CreateTable(game="one-card", seats=2))
        joined = await first.request(tm.Join(table=made.table, name="Ann"))
    stop, held = trio.Event(), [0]
    resume, create = Tally(), Tally()
    async with trio.open_nursery() as nursery:
        for n in range(2, 6):
            for _ in range(20):
                nursery.start_soon(_hold, port, f"127.0.0.{n}", stop, held)
        for _ in range(80):
            nursery.start_soon(_silent, port, stop)
        await trio.sleep(3)
        print(f"  attackers hold {held[0]} connections (4 addresses) + 80 silent ones")
        end = trio.current_time() + seconds
        while trio.current_time() < end:
            await _attempt(resume, port, "127.0.0.9", tm.Resume(token=joined.token))
            await _attempt(create, port, "127.0.0.10", tm.CreateTable(game="one", seats=2))
            await trio.sleep(1)
        print(f"  attackers still hold {held[0]} connections")
        stop.set()
    print("  " + resume.line("seated player's resume"))
    print("  " + create.line("newcomer's create_table"))


# --------------------------------------------------------------------------- tables


async def _grab(port: int, got: list[str], seconds: float) -> None:
    async with _session(port, "127.0.0.2") as s:
        async with trio.open_nursery() as nursery:

            async def one(i: int) -> None:
                try:
                    made = await s.request(tm.CreateTable(game="one-card", seats=2))
                except RequestError:
                    return
                got.append(made.table)
                with contextlib.suppress(RequestError):
                    await s.request(tm.Join(table=made.table, name=f"m{i}"))

            for i in range(66):
                nursery.start_soon(one, i)
        await trio.sleep(seconds)


async def tables(port: int, seconds: float) -> None:
    create = Tally()
    rounds = 0
    async with trio.open_nursery() as nursery:

        async def hit_and_run() -> None:
            nonlocal rounds
            while True:
                got: list[str] = []
                rounds += 1
                await _grab(port, got, min(seconds / 3, 120))
                print(f"  attacker round {rounds}: got {len(got)} of 66 tables, then left")

        nursery.start_soon(hit_and_run)
        await trio.sleep(1)
        end = trio.current_time() + seconds
        while trio.current_time() < end:
            await _attempt(create, port, "127.0.0.10", tm.CreateTable(game="one", seats=2))
            await trio.sleep(0.5)
        nursery.cancel_scope.cancel()
    print("  " + create.line("honest create_table"))


# --------------------------------------------------------------------------- records


async def records(port: int, seconds: float) -> int:
    games = 0
    end = trio.current_time() + seconds
    async with _session(port, "127.0.0.2") as s:
        while trio.current_time() < end:
            made = await s.request(tm.CreateTable(game="one-card", seats=2))
            for _ in range(2):
                await s.request(tm.AddBot(table=made.table))
            while trio.current_time() < end + 30:
                listed = await s.request(tm.ListTables())
                row = [t for t in listed.tables if t["table"] == made.table]
                if not row or row[0].get("phase") == "finished":
                    break
                await trio.sleep(0.1)
            games += 1
    return games


def record_stats(paths: list[Path]) -> str:
    raw = packed = 0
    for p in paths:
        data = p.read_bytes()
        packed += len(data)
        raw += len(lzma.decompress(data)) if p.suffix == ".xz" else len(data)
    ratio = f", {raw / packed:.2f}x smaller than as JSON" if packed else ""
    return f"{len(paths)} files, {packed} bytes on disk ({raw} bytes as JSON{ratio})"


def _wait_for(port: int) -> None:
    """Until the host process accepts connections (a loaded machine starts it slowly)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def run(kind: str, seconds: float, port: int) -> None:
    """Run one attack (``KINDS``) against its own host process and print the figures."""
    with tempfile.TemporaryDirectory(prefix="onecard-limits-") as tmp:
        ctx = multiprocessing.get_context("spawn")
        host = ctx.Process(target=_serve, args=(port, tmp, None), daemon=True)
        host.start()
        try:
            _wait_for(port)
            print(f"{kind}: {seconds:.0f} s against a host on 127.0.0.1:{port}", flush=True)
            if kind == "slots":
                trio.run(slots, port, seconds)
            elif kind == "tables":
                trio.run(tables, port, seconds)
            else:
                games = trio.run(records, port, seconds)
                paths = list((Path(tmp) / "records").glob("*.json*"))
                print(f"  {games} bots-only games in {seconds:.0f} s wrote {record_stats(paths)}")
                mb = sum(p.stat().st_size for p in paths) / 1e6 * 3600 / seconds
                print(f"  about {mb:.0f} MB an hour on disk before pruning")
        finally:
            host.terminate()
            host.join(timeout=20)
        if kind == "records":
            from host.storage.record_files import prune_data_dir

            done = prune_data_dir(Path(tmp), keep_days=0, max_bytes=None)
            left = list((Path(tmp) / "records").glob("*.json*"))
            pruned = f"deleted {done.deleted}, {len(left)} left"
            print(f"  onecard host --prune --keep-records-days 0: {pruned}")
