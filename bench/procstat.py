"""What another process costs: its CPU seconds and resident memory, read from ``/proc``.

How it works: :func:`cpu_seconds` adds a process's user and system time (fields 14 and 15 of
``/proc/PID/stat``, in clock ticks); :func:`rss_bytes` reads ``VmRSS`` from
``/proc/PID/status``. Linux only, like the benchmarks that use it (bench/server.py,
bench/echo.py): they measure a host or echo server run as a subprocess, so the load generators'
own work is never counted.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cpu_seconds", "rss_bytes"]

_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds the process ``pid`` has used so far."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "; comm may hold spaces
    utime, stime = int(fields[11]), int(fields[12])
    return (utime + stime) / _TICKS


def rss_bytes(pid: int) -> int:
    """The resident set size of ``pid`` in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")
