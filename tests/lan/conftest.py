"""Fixtures for LAN tests: machines played by network namespaces joined by a veth pair.

``lan_of(host=[...], other=[...])`` (a context manager) builds two namespaces, the host's and
another machine's, joined by a veth pair whose ends get the given addresses (IPv4 on a /24,
IPv6 on a /64 added ``nodad``), with the links and loopback up and **no default route**, and
removes them afterwards. A test module makes its ``lan`` fixture from it, once per module.

Needs Linux, root and iproute2 (as the CI machine has); elsewhere every test in this folder is
skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

import pytest


def _why_not() -> str | None:
    """Why the namespaces cannot be built here, or None if they can."""
    if sys.platform != "linux":
        return "network namespaces are Linux only"
    if os.geteuid() != 0:
        return "building network namespaces needs root"
    if shutil.which("ip") is None:
        return "iproute2's ip command is not installed"
    probe = f"ocprobe{os.getpid() % 100000}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, check=False)
    if made.returncode:
        return f"ip netns add failed: {made.stderr.decode(errors='replace').strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
    return None


WHY_NOT = _why_not()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip this folder's tests, with the reason, where namespaces cannot be built."""
    if WHY_NOT is None:
        return
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.path).startswith(here + os.sep):
            item.add_marker(pytest.mark.skip(reason=f"LAN test skipped: {WHY_NOT}"))


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@dataclass(frozen=True)
class Lan:
    """Two machines: the host's namespace and another, and the veth pair's two ends."""

    host_ns: str
    other_ns: str
    host_link: str  #: the host's end of the veth pair
    other_link: str

    def link(self, up: bool) -> None:
        """Take the host's side of the link down or up."""
        ip("-n", self.host_ns, "link", "set", self.host_link, "up" if up else "down")

    def cut(self, address: str) -> None:
        """The host's side of the link goes down and the host's connections to ``address``
        are killed (``ss -K``), as a host whose cable was pulled long enough to give up: a
        TCP connection would otherwise survive a short outage untouched."""
        self.link(up=False)
        subprocess.run(
            ["ip", "netns", "exec", self.host_ns, "ss", "-K", "dst", address],
            capture_output=True,
            check=True,
        )


@contextmanager
def _lan_of(host: Sequence[str], other: Sequence[str]) -> Iterator[Lan]:
    tag = str(os.getpid() % 100000)
    net = Lan(f"och{tag}", f"oco{tag}", f"vh{tag}", f"vo{tag}")
    try:
        ip("netns", "add", net.host_ns)
        ip("netns", "add", net.other_ns)
        ip("link", "add", net.host_link, "type", "veth", "peer", "name", net.other_link)
        for ns, link, addresses in (
            (net.host_ns, net.host_link, host),
            (net.other_ns, net.other_link, other),
        ):
            ip("link", "set", link, "netns", ns)
            for address in addresses:
                if ":" in address:
                    ip("-n", ns, "-6", "addr", "add", f"{address}/64", "dev", link, "nodad")
                else:
                    ip("-n", ns, "addr", "add", f"{address}/24", "dev", link)
            ip("-n", ns, "link", "set", link, "up")
            ip("-n", ns, "link", "set", "lo", "up")
        yield net
    finally:
        for ns in (net.host_ns, net.other_ns):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


@pytest.fixture(scope="session")
def lan_of() -> Callable[..., AbstractContextManager[Lan]]:
    """``with lan_of(host=[addresses], other=[addresses]) as lan``: see the module doc."""
    return _lan_of
