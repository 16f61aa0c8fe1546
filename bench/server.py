"""Benchmark of the trio host at scale, beside a bare trio + msgpack echo server in the same run.

How it works: the host runs as its own process (``onecard host`` on 127.0.0.1, plain TCP, a
temporary data directory, caps sized from ``--tables``: ``--max-tables`` and
``--max-connections``), so its CPU time and memory are read from ``/proc`` (bench/procstat.py)
and nothing else is counted. ``--procs`` worker processes (bench/loadgen.py) share the tables:
for each, ``--seats`` bot connections; the first creates the table, all join as bots and play
with the heuristic policy, thinking ``--think`` seconds a move, answering every fair-deal round
and checking every deal. Meanwhile a probe connection in this process pings every ``--probe``
seconds: the round trip a person's client would wait for while the host is busy. The workers
run at ``--nice`` 10: on a LAN the players' machines do their work, so here the load yields the
CPU to the host and the echo server under test.

Two modes. Without ``--duration``: every table plays one game to the end (bots think 0 s by
default) and the run reports games/s. With ``--duration S``: the connections are all made
first (over ``--ramp`` seconds), then held for S seconds while the bots play; the window is
measured alone.

Figures: connections held, errors (any is a failure: the run exits 1), host frames/s (every
frame the host sent: pushes, replies and heartbeat answers, counted from the frame headers the
workers receive), host CPU per frame, host RSS per connection (its growth from start-up to the
window, divided by the connections), and the probe's ping p50/p95/p99/max. Then, unless
``--no-echo``, bench/echo.py runs with the same number of connections and frames/s of the same
mean size; its CPU per frame and the ratio host/echo are printed.

Examples (docs/PERFORMANCE.md has the figures):
``python bench/server.py --tables 8`` (games to the end),
``python bench/server.py --tables 1000 --seats 4 --think 10 --duration 120 --procs 4``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from procstat import cpu_seconds, rss_bytes

from net.session import open_session
from protocol.messages import Ping

BENCH = Path(__file__).resolve().parent
#: a run whose games or connections take longer than this is reported as stuck
RUN_TIMEOUT_S = 1800.0
#: how the host is started (``ONECARD_BENCH_HOST`` may name another script, for profiling)
HOST_CMD = [sys.executable, *(os.environ.get("ONECARD_BENCH_HOST", "-m client").split()), "host"]


@dataclass(slots=True)
class Window:
    """What one server did over the measured window."""

    seconds: float = 0.0
    cpu: float = 0.0
    frames: int = 0
    bytes: int = 0
    connections: int = 0
    games: int = 0
    rss_start: int = 0
    rss_window: int = 0
    errors: list[str] = field(default_factory=list)
    rtts: list[float] = field(default_factory=list)

    @property
    def cpu_per_frame(self) -> float:
        return self.cpu / self.frames if self.frames else math.nan

    @property
    def frames_per_s(self) -> float:
        return self.frames / self.seconds if self.seconds else math.nan


def _start_server(cmd: list[str], marker: str) -> tuple[subprocess.Popen[str], int]:
    """Start a server process and read its port from the line starting with ``marker``."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith(marker):
        proc.kill()
        raise RuntimeError(f"{cmd[2:4]} did not start: {line!r} {proc.stderr.read()[-800:]}")
    port = int(line.split(":")[-1].split()[0])
    return proc, port


def _spread(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


async def _probe(
    port: int, every: float, start_at: float, window: Window, stop: trio.Event
) -> None:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with open_session(stream) as session:
        await trio.sleep(max(0.0, start_at - time.time()))
        while not stop.is_set():
            t0 = time.perf_counter()
            await session.request(Ping())
            window.rtts.append(time.perf_counter() - t0)
            with trio.move_on_after(every):
                await stop.wait()


def _worker(args: argparse.Namespace, *argv: str) -> list[str]:
    """A load worker's command line, at ``--nice`` (the host plays a LAN server: the players'
    machines would not take its CPU, so on one machine the load yields to it)."""
    return ["nice", "-n", str(args.nice), sys.executable, str(BENCH / "loadgen.py"), *argv]


async def _workers(cmds: list[list[str]]) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []

    async def one(cmd: list[str]) -> None:
        done = await trio.run_process(cmd, capture_stdout=True, capture_stderr=True, check=False)
        if done.returncode != 0:
            tail = done.stderr.decode()[-1500:]
            raise RuntimeError(f"a load worker failed ({done.returncode}): {tail}")
        results.append(json.loads(done.stdout.decode().strip().splitlines()[-1]))

    with trio.fail_after(RUN_TIMEOUT_S):
        async with trio.open_nursery() as nursery:
            for cmd in cmds:
                nursery.start_soon(one, cmd)
    return results


async def _measure(
    pid: int, port: int, cmds: list[list[str]], start_at: float, probe: float | None
) -> Window:
    """Run the workers; read the server's CPU at ``start_at`` and when they are done."""
    window = Window(rss_start=rss_bytes(pid))
    stop = trio.Event()
    async with trio.open_nursery() as nursery:
        if probe:
            nursery.start_soon(_probe, port, probe, start_at, window, stop)
        marks: dict[str, float] = {}

        async def mark_start() -> None:
            await trio.sleep(max(0.0, start_at - time.time()))
            marks["cpu"], marks["t"] = cpu_seconds(pid), time.perf_counter()
            window.rss_window = rss_bytes(pid)

        nursery.start_soon(mark_start)
        results = await _workers(cmds)
        window.cpu = cpu_seconds(pid) - marks["cpu"]
        window.seconds = time.perf_counter() - marks["t"]
        stop.set()
    for r in results:
        start_frames = max(r["frames_at_start"], 0)
        window.frames += r["frames"] - start_frames
        window.bytes += r["bytes"] - max(r["bytes_at_start"], 0)
        window.connections += r["connections"]
        window.games += r["games"]
        window.errors += r["errors"]
    return window


def run_host(args: argparse.Namespace, data_dir: Path) -> Window:
    connections = args.tables * args.seats
    cmd = [
        *HOST_CMD,
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--insecure",
        "--no-advertise",
        "--data-dir",
        str(data_dir),
        "--max-tables",
        str(args.tables + 8),
        "--max-connections",
        str(connections + 32),
        "--max-connections-per-address",
        str(connections + 32),
        "--bot-think",
        "0",
    ]
    proc, port = _start_server(cmd, "onecard host listening on")
    try:
        ramp = args.ramp if args.duration else 0.0
        start_at = time.time() + ramp + 1.0
        until = start_at + args.duration if args.duration else None
        cmds = []
        for tables in _spread(args.tables, args.procs):
            if not tables:
                continue
            cmd = _worker(
                args,
                "bots",
                "--port",
                str(port),
                "--game",
                args.game,
                "--tables",
                str(tables),
                "--seats",
                str(args.seats),
                "--think",
                str(args.think),
                "--ramp",
                str(ramp / max(tables, 1)),
                "--start-at",
                str(start_at),
            )
            if until is not None:
                cmd += ["--until", str(until)]
            cmds.append(cmd)
        return trio.run(_measure, proc.pid, port, cmds, start_at, args.probe)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def run_echo(args: argparse.Namespace, host: Window) -> Window:
    connections = max(host.connections, 1)
    rate = host.frames_per_s
    frame_bytes = int(host.bytes / host.frames) if host.frames else 200
    cmd = [sys.executable, str(BENCH / "echo.py"), "--port", "0"]
    proc, port = _start_server(cmd, "echo listening on")
    try:
        seconds = min(args.duration or 30.0, 60.0)
        ramp = min(args.ramp, 10.0)
        start_at = time.time() + ramp + 1.0
        until = start_at + seconds
        cmds = []
        for n in _spread(connections, args.procs):
            cmd = _worker(
                args,
                "echo",
                "--port",
                str(port),
                "--connections",
                str(n),
                "--interval",
                str(connections / rate),
                "--frame-bytes",
                str(frame_bytes),
                "--ramp",
                str(ramp / max(n, 1)),
                "--start-at",
                str(start_at),
                "--until",
                str(until),
            )
            if n:
                cmds.append(cmd)
        return trio.run(_measure, proc.pid, port, cmds, start_at, None)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else math.nan


def report(args: argparse.Namespace, host: Window, echo: Window | None) -> None:
    mode = f"held {args.duration:g} s" if args.duration else "one game per table to the end"
    print(
        f"host benchmark: {args.tables} tables of {args.game}, {args.seats} bots each thinking "
        f"{args.think:g} s, in {args.procs} processes; {mode}; loopback TCP"
    )
    print(f"  connections held: {host.connections}   errors: {len(host.errors)}")
    for error in host.errors[:5]:
        print(f"    {error}")
    if not args.duration:
        print(
            f"  {host.games} games over in {host.seconds:.1f} s: "
            f"{host.games / args.seats / host.seconds:.2f} games/s"
        )
    print(
        f"  host: {host.frames_per_s:8.0f} frames/s, {host.cpu / host.seconds:5.0%} of one core, "
        f"{host.cpu_per_frame * 1e6:6.1f} us CPU per frame, "
        f"{(host.rss_window - host.rss_start) / max(host.connections, 1) / 1024:.1f} kB RSS "
        "per connection"
    )
    if host.rtts:
        print(
            f"  probe ping ({len(host.rtts)}): p50 {_ms(statistics.median(host.rtts))}, "
            f"p95 {_ms(_percentile(host.rtts, 0.95))}, p99 {_ms(_percentile(host.rtts, 0.99))}, "
            f"max {_ms(max(host.rtts))}"
        )
    if echo is not None:
        print(
            f"  echo: {echo.frames_per_s:8.0f} frames/s at {echo.connections} connections, "
            f"{echo.cpu_per_frame * 1e6:6.1f} us CPU per frame; host/echo per frame: "
            f"{host.cpu_per_frame / echo.cpu_per_frame:.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="one-card", help="game name (default one-card)")
    parser.add_argument("--tables", type=int, default=8, help="tables at once")
    parser.add_argument("--seats", type=int, default=4, help="bot seats per table")
    parser.add_argument("--think", type=float, default=0.0, help="seconds a bot thinks a move")
    parser.add_argument("--duration", type=float, default=None, help="hold for S seconds")
    parser.add_argument("--ramp", type=float, default=30.0, help="seconds to connect everyone")
    parser.add_argument("--procs", type=int, default=2, help="load worker processes")
    parser.add_argument("--probe", type=float, default=0.1, help="seconds between probe pings")
    parser.add_argument("--no-echo", action="store_true", help="skip the echo server's run")
    parser.add_argument(
        "--nice", type=int, default=10, help="niceness of the load workers (default 10)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="onecard-bench-") as tmp:
        host = run_host(args, Path(tmp) / "host")
    echo = None if args.no_echo or not host.frames else run_echo(args, host)
    report(args, host, echo)
    if host.errors or (echo is not None and echo.errors):
        sys.exit(1)


if __name__ == "__main__":
    main()
