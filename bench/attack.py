"""Benchmark of the host under attack: what honest players feel while attackers hammer it.

How it works: a real ``onecard host`` process (plain TCP on 127.0.0.1, a temporary data dir)
serves an honest table: a player (a protocol client that plays every turn as soon as it may,
like a quick human) against one of the host's bots, game after game. A probe connection pings
every 50 ms. Both record their round trips: ``ping`` to ``pong``, and each action of the player
from ``act`` to its ``ack``. The measurement runs twice: quiet, then with ``--attackers``
connections in ``--procs`` other processes sending the costliest frames the limits allow, as fast
as the host reads them:

* ``heavy``: a ``ping`` as long as a request may be (``max_request_bytes``), packed with empty
  maps, the shape that cost 90 ms a frame to decode before the limits;
* ``chat``: connections watching the honest table, each saying lines as fast as it may;
* ``garbage``: frames of bad fields and unknown types, which are skipped and answered;
* ``hard-bots``: each attacker (from an address of its own, 127.0.0.2 and up) creates tables of
  ``--seats`` seats and adds a ``hard`` host bot to every seat, as many as the host lets it
  (the games start at once), then keeps asking for more every second. One attacker is one
  client filling the host; ``--attackers 16 --seats 4`` is sixteen clients with a table of
  four hard bots each.

Reports p50/p95/p99/max of the probe's ping and of the player's acts, quiet and attacked, the
number of frames the attackers got written, and the host's CPU (from ``/proc``) over each
phase. Targets (hardening issue): attacked, ping p95 under 50 ms and act p95 under 150 ms.

Run: ``python bench/attack.py [--attackers 8] [--seconds 20] [--kind heavy|chat|garbage]``,
``python bench/attack.py --kind hard-bots --attackers 1 --seats 2``.
``--kind tables|slots|records`` runs the attacks on the host's limits instead
(:mod:`attack_limits`).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import attack_limits
import msgpack
import trio
from local_host import free_port, host_command, wait_listening

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from net.session import RequestError, open_session
from protocol.framing import encode_frame
from protocol.limits import MAX_REQUEST_BYTES
from protocol.messages import Hello, Ping


@dataclass(slots=True)
class Sample:
    pings: list[float] = field(default_factory=list)
    acts: list[float] = field(default_factory=list)


def host_cpu(pid: int) -> float:
    """CPU seconds the process has used (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --------------------------------------------------------------------------- attackers


def heavy_frame() -> bytes:
    """The longest ping a request may be, packed with empty maps (the costliest decode)."""
    n = MAX_REQUEST_BYTES - 40
    body = msgpack.packb({"type": "ping", "id": 1, "pad": [{}] * n})
    while len(body) > MAX_REQUEST_BYTES:
        n -= len(body) - MAX_REQUEST_BYTES
        body = msgpack.packb({"type": "ping", "id": 1, "pad": [{}] * n})
    return len(body).to_bytes(4, "big") + body


def garbage_frames() -> bytes:
    frames = [
        {"type": "join", "id": 2, "table": 7, "name": ["x"]},
        {"type": "zzz-unknown", "id": 3, "pad": "x" * 2000},
        {"type": "act", "id": 4, "table": "t", "seq": -1, "action": "draw"},
    ]
    return b"".join(len(b).to_bytes(4, "big") + b for b in map(msgpack.packb, frames))


async def attacker(port: int, kind: str, table: str, seconds: float, sent: list[int]) -> None:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    hello = Hello(protocol="onecard", versions=(1,), software="attacker", id=0).to_wire()
    await stream.send_all(encode_frame(hello))

    async def drain() -> None:  # read everything, so the host never blocks on us writing
        try:
            while await stream.receive_some(65536):
                pass
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    async with trio.open_nursery() as nursery:
        nursery.start_soon(drain)
        with trio.move_on_after(seconds):
            if kind == "chat":
                watch = {"type": "watch", "id": 1, "table": table, "name": "crowd"}
                body = msgpack.packb(watch)
                await stream.send_all(len(body).to_bytes(4, "big") + body)
                line = {"type": "chat", "table": table, "text": "spam " * 20}
                payload = b""
                for i in range(50):
                    body = msgpack.packb({**line, "id": 10 + i})
                    payload += len(body).to_bytes(4, "big") + body
            else:
                payload = heavy_frame() if kind == "heavy" else garbage_frames()
            try:
                while True:
                    await stream.send_all(payload)
                    sent[0] += 1
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass  # the host closed us (a flood): a real attacker reconnects, so do we
        nursery.cancel_scope.cancel()


async def bot_filler(port: int, seats: int, address: str, seconds: float, sent: list[int]) -> None:
    """Tables of ``seats`` hard host bots, as many as the host allows, asked for every second."""
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=address)
    async with open_session(stream) as me:
        with trio.move_on_after(seconds):
            table: str | None = None
            while True:
                try:
                    if table is None:
                        created = await me.request(tm.CreateTable(game="one-card", seats=seats))
                        assert isinstance(created, tm.TableCreated)
                        table = created.table
                    await me.request(tm.AddBot(table=table, kind="hard"))
                    sent[0] += 1
                    info = await me.request(tm.ListTables())
                    assert isinstance(info, tm.Tables)
                    mine = next(t for t in info.tables if t.get("table") == table)
                    if all(s is not None for s in mine.get("seats") or ()):
                        table = None  # full: its game has started; the next table
                except RequestError:
                    await trio.sleep(1.0)  # refused (the limit): ask again later


def attack_process(
    port: int, kind: str, table: str, seconds: float, count: int, *, first: int = 0, seats: int = 2
) -> int:
    sent = [0]

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for i in range(count):
                if kind == "hard-bots":
                    address = f"127.0.0.{2 + first + i}"
                    nursery.start_soon(bot_filler, port, seats, address, seconds, sent)
                else:
                    nursery.start_soon(reconnecting, port, kind, table, seconds, sent)

    async def reconnecting(p: int, k: str, t: str, s: float, box: list[int]) -> None:
        end = time.monotonic() + s
        while time.monotonic() < end:
            try:
                await attacker(p, k, t, end - time.monotonic(), box)
            except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
                await trio.sleep(0.05)

    trio.run(main)
    return sent[0]


# --------------------------------------------------------------------------- honest side


async def honest(port: int, table_box: list[str], seconds: float, sample: Sample) -> None:
    """A player at a table with one host bot, game after game, and a pinging probe."""
    async with open_session(await trio.open_tcp_stream("127.0.0.1", port)) as me:
        created = await me.request(tm.CreateTable(game="one-card", seats=2))
        assert isinstance(created, tm.TableCreated)
        table_box.append(created.table)
        player = BotPlayer(me, table_id=created.table, stay=True)
        await player.join("honest", as_bot=False)
        await me.request(tm.AddBot(table=created.table))
        await me.request(tm.Ready(table=created.table))
        real_request = me.request

        async def timed(msg: object, **kwargs: object) -> object:
            t0 = time.perf_counter()
            reply = await real_request(msg, **kwargs)  # type: ignore[arg-type]
            if isinstance(msg, tm.Act):
                sample.acts.append(time.perf_counter() - t0)
            return reply

        me.request = timed  # type: ignore[method-assign]

        async def rematch() -> None:
            while True:
                await trio.sleep(0.5)
                if player.outcome is not None:
                    player.outcome = None
                    await real_request(tm.Ready(table=created.table))

        probe_stream = await trio.open_tcp_stream("127.0.0.1", port)
        async with open_session(probe_stream) as probe, trio.open_nursery() as nursery:
            nursery.start_soon(player.play)
            nursery.start_soon(rematch)
            end = trio.current_time() + seconds
            while trio.current_time() < end:
                t0 = time.perf_counter()
                await probe.request(Ping())
                sample.pings.append(time.perf_counter() - t0)
                await trio.sleep(0.05)
            nursery.cancel_scope.cancel()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def line(name: str, values: list[float]) -> str:
    if not values:
        return f"{name:5} no samples"
    return (
        f"{name:5} n={len(values):5}  p50 {pct(values, 0.5):6.1f} ms  p95 {pct(values, 0.95):6.1f}"
        f" ms  p99 {pct(values, 0.99):6.1f} ms  max {1000 * max(values):6.1f} ms"
        f"  mean {1000 * statistics.fmean(values):6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attackers", type=int, default=8, help="attacking connections")
    parser.add_argument("--procs", type=int, default=2, help="processes running the attackers")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds per phase")
    parser.add_argument(
        "--kind",
        choices=("heavy", "chat", "garbage", "hard-bots", *attack_limits.KINDS),
        default="heavy",
    )
    parser.add_argument("--seats", type=int, default=2, help="hard-bots: seats per table")
    parser.add_argument(
        "--host-option", action="append", default=[], help="pass an option to onecard host"
    )
    args = parser.parse_args()
    port = free_port()
    if args.kind in attack_limits.KINDS:  # the host's limits: bench/attack_limits.py
        attack_limits.run(args.kind, args.seconds, port)
        return
    with tempfile.TemporaryDirectory(prefix="onecard-attack-") as tmp:
        cmd = host_command(
            port,
            tmp,
            "--bot-think",
            "0.2",
            *args.host_option,
        )
        host = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_listening(port)
            table: list[str] = []
            for phase in ("quiet", "attacked"):
                sample = Sample()
                cpu0, wall0 = host_cpu(host.pid), time.monotonic()
                pool = None
                if phase == "attacked":
                    ctx = multiprocessing.get_context("spawn")
                    pool = ctx.Pool(args.procs)
                    shares = [args.attackers // args.procs] * args.procs
                    shares[0] += args.attackers - sum(shares)
                    firsts = [sum(shares[:i]) for i in range(len(shares))]
                    jobs = [
                        pool.apply_async(
                            attack_process,
                            (port, args.kind, table[0], args.seconds + 2, n),
                            {"first": f, "seats": args.seats},
                        )
                        for n, f in zip(shares, firsts, strict=True)
                    ]
                    time.sleep(1.0)  # the attack is under way before measuring
                box: list[str] = []
                trio.run(honest, port, box, args.seconds, sample)
                table[:] = box
                sent = 0
                if pool is not None:
                    sent = sum(j.get(timeout=60) for j in jobs)
                    pool.close()
                    pool.join()
                cpu = host_cpu(host.pid) - cpu0
                wall = time.monotonic() - wall0
                did = "seated {} hard bots" if args.kind == "hard-bots" else "wrote {} batches"
                extra = (
                    f", {args.attackers} {args.kind} attackers {did.format(sent)}" if pool else ""
                )
                print(f"{phase}: host CPU {100 * cpu / wall:.0f}% of a core{extra}")
                print("  " + line("ping", sample.pings))
                print("  " + line("act", sample.acts), flush=True)
        finally:
            host.terminate()
            host.wait(timeout=20)


if __name__ == "__main__":
    main()
