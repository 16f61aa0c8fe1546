"""A real `onecard host` process for the third-party client tests (the spec client, the JS
example): started on a free port with bots that do not pause, optionally with ``--cheat``."""

from __future__ import annotations

import re
import shutil
import subprocess
import sysconfig
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: the ``onecard`` command installed beside the Python running the tests (whatever environment
#: that is: the project's .venv or another one; onecard.exe in Scripts on Windows)
ONECARD = shutil.which("onecard", path=sysconfig.get_path("scripts")) or "onecard"


def start_host_process(
    data_dir: Path, *, tls: bool, extra: Sequence[str] = ()
) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """Start `onecard host` and read what it prints: the IPv4 port and both fingerprints."""
    args = [str(ONECARD), "host", "--port", "0", "--no-advertise", "--bot-think", "0"]
    args += ["--data-dir", str(data_dir), "--name", "spec-test"] + ([] if tls else ["--insecure"])
    proc = subprocess.Popen(
        [*args, *extra], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    printed: dict[str, Any] = {}
    deadline = time.monotonic() + 20
    assert proc.stdout is not None
    while len(printed) < (3 if tls else 2) and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if m := re.search(r"listening on 0\.0\.0\.0:(\d+)", line):
            printed["port"] = int(m.group(1))
        if m := re.search(r"TLS fingerprint: (\S+)", line):
            printed["tls"] = m.group(1)
        if m := re.search(r"fair-dealing key: (\S+)", line):
            printed["deal_key"] = m.group(1)
    return proc, printed


@contextmanager
def running_host(
    data_dir: Path, *, tls: bool = False, extra: Sequence[str] = ()
) -> Iterator[dict[str, Any]]:
    """A host for the duration of the block: ``{"addr", "port", "tls_on", "deal_key", ..}``."""
    proc, printed = start_host_process(data_dir, tls=tls, extra=extra)
    try:
        assert "port" in printed, f"the host printed no IPv4 port: {printed}"
        yield {"addr": "127.0.0.1", "tls_on": tls, **printed}
    finally:
        proc.kill()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
