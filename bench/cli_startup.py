"""Benchmark of the ``onecard`` command's start: ``onecard --help`` against ``python -c pass``.

How it works: runs each command ``--runs`` times as a fresh process (after one unreported warm-up
run each, so the files are in the page cache and the byte code is compiled) and prints the
median wall time of each, their ratio, and (POSIX) the median CPU time of the child (user +
system), which a busy shared machine disturbs less than wall time. ``onecard`` is the console
script installed beside the Python running this (the project's ``.venv``, or any environment
with onecard installed), so the start-up check of an installed wheel (:mod:`onecard.startup`)
is part of the figure. Issue 15 asks for under 0.15 s; the test suite only checks what
``--help`` imports (``tests/client/test_cli.py``), never the time. Run: ``python
bench/cli_startup.py [--runs 21] [ARGS...]`` (ARGS instead of ``--help``: ``--version``, ...).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time


def onecard_script() -> str:
    """The ``onecard`` console script beside this Python (``Scripts\\onecard.exe`` on Windows)."""
    found = shutil.which("onecard", path=sysconfig.get_path("scripts"))
    if found is None:
        sys.exit("no onecard command beside this Python: pip install -e . (or the wheel) first")
    return found


def _children_cpu() -> float:
    if os.name != "posix":
        return 0.0
    import resource  # POSIX only

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def median_seconds(cmd: list[str], runs: int) -> tuple[float, float]:
    """Median wall time and median child CPU time of ``runs`` runs of ``cmd``."""
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)  # warm-up, not reported
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), _children_cpu()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        wall.append(time.perf_counter() - start)
        cpu.append(_children_cpu() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="runs of each command (median)")
    parser.add_argument("args", nargs="*", default=["--help"], help="onecard's arguments")
    args = parser.parse_args()
    command = [onecard_script(), *args.args]
    base_wall, base_cpu = median_seconds([sys.executable, "-c", "pass"], args.runs)
    wall, cpu = median_seconds(command, args.runs)
    label = f"onecard {' '.join(args.args)}"
    print(f"medians of {args.runs} runs         wall        CPU")
    print(f"{'python -c pass':<26}{base_wall * 1000:7.1f} ms {base_cpu * 1000:7.1f} ms")
    print(f"{label:<26}{wall * 1000:7.1f} ms {cpu * 1000:7.1f} ms")
    print(f"{'ratio':<26}{wall / base_wall:7.1f} x")
    print(f"issue 15 target, under 150 ms wall: {'met' if wall < 0.15 else 'NOT met'}")


if __name__ == "__main__":
    main()
