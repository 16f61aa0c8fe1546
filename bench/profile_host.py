"""Where the host's CPU goes: ``onecard`` run under cProfile, and a report of the profile.

How it works: bench/server.py starts its host with ``ONECARD_BENCH_HOST`` when that is set, so

    ONECARD_BENCH_HOST=bench/profile_host.py python bench/server.py --tables 8 --no-echo

runs the host under :mod:`cProfile` (the load workers are not profiled). When the host is
stopped (bench/server.py sends SIGTERM) the profile is written to ``$ONECARD_PROFILE``
(default ``onecard-host.prof`` in the temporary directory). Then

    python bench/profile_host.py --report [FILE]

prints the share of the host's CPU spent in each part of the code (trio's event loop and
sockets, msgpack, our framing and validation, the table and game code, sqlite, signing) and the
functions with the most time of their own. cProfile slows Python code about twofold, so the
shares, not the times, are what to read.
"""

from __future__ import annotations

import atexit
import cProfile
import os
import pstats
import signal
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

DEFAULT_OUT = Path(tempfile.gettempdir()) / "onecard-host.prof"

#: path fragments (checked in order) that name the part of the code a function belongs to
PARTS = [
    ("protocol/framing", "framing + tree checks"),
    ("protocol/", "protocol (messages, fairness)"),
    ("host/connection", "host connections"),
    ("host/games/", "game engines"),
    ("host/", "host tables, lobby, store"),
    ("net/", "sessions"),
    ("trio/", "trio (event loop, sockets)"),
    ("msgpack", "msgpack"),
    ("sqlite3", "sqlite"),
    ("cryptography", "signing (cryptography)"),
]


def _part(filename: str, name: str) -> str:
    where = f"{filename}:{name}"
    for fragment, part in PARTS:
        if fragment in where:
            return part
    if filename == "~":  # a built-in: its caller's part is not known here
        return "built-ins (select, socket, hashing, ...)"
    return "other Python"


def report(path: Path, top: int = 25) -> None:
    stats = pstats.Stats(str(path))
    raw = stats.stats  # type: ignore[attr-defined]
    total = sum(tt for (_, _, tt, _, _) in raw.values())
    parts: dict[str, float] = defaultdict(float)
    for (filename, _line, name), (_cc, _nc, tt, _ct, _callers) in raw.items():
        parts[_part(filename, name)] += tt
    print(f"host CPU under cProfile: {total:.2f} s (own time, by part of the code)")
    for part, seconds in sorted(parts.items(), key=lambda kv: -kv[1]):
        print(f"  {part:42} {seconds / total:6.1%}")
    print(f"\nthe {top} functions with the most time of their own:")
    ranked = sorted(raw.items(), key=lambda kv: -kv[1][2])[:top]
    for (filename, line, name), (_cc, calls, tt, _ct, _callers) in ranked:
        short = "/".join(Path(filename).parts[-2:]) if filename != "~" else ""
        print(f"  {tt / total:6.1%} {calls:9d} calls  {name} ({short}:{line})")


def main() -> None:
    if len(sys.argv) >= 2 and sys.argv[1] == "--report":
        report(Path(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_OUT)
        return
    out = Path(os.environ.get("ONECARD_PROFILE", DEFAULT_OUT))
    profile = cProfile.Profile(time.process_time)  # CPU time: the wait in epoll is not work

    def dump() -> None:
        profile.disable()
        profile.dump_stats(str(out))

    atexit.register(dump)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # bench/server.py's stop: run atexit
    from client.cli import main as onecard

    sys.argv = ["onecard", *sys.argv[1:]]
    profile.enable()
    onecard()


if __name__ == "__main__":
    main()
