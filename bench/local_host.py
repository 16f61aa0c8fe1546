"""A local ``onecard host`` for the benches that measure one from outside (attack, memory).

How it works: :func:`host_command` is the command line of a host on 127.0.0.1 with its data in
a given folder, no TLS and no mDNS (the benches talk to it over loopback only), plus whatever
options the bench adds; :func:`free_port` picks its port and :func:`wait_listening` waits until
it accepts connections.
"""

from __future__ import annotations

import socket
import sys
import time

__all__ = ["free_port", "host_command", "wait_listening"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_listening(port: int, seconds: float = 30.0) -> None:
    """Return once 127.0.0.1:``port`` accepts a connection; raise after ``seconds``."""
    end = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.2)


def host_command(port: int, data_dir: str, *options: str) -> list[str]:
    """``onecard host`` on 127.0.0.1:``port`` keeping its data in ``data_dir``, over plain TCP
    and not advertised, with ``options`` added."""
    return [
        sys.executable,
        "-m",
        "client",
        "host",
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--data-dir",
        data_dir,
        "--insecure",
        "--no-advertise",
        *options,
    ]
