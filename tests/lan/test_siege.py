"""A siege of a real TLS host from another machine: honest players still get in.

Issue 25's "Done when": an honest player can always create a table and a seated player can
always resume while attackers hold every slot and table they are allowed. Two network
namespaces joined by a veth pair play two LAN machines: the host's (10.79.0.1, fd79::1) runs
``onecard host`` (TLS, the default limits), the other holds the attackers and, on addresses of
their own, the two honest players:

* ``ipv4``: four machines (10.79.0.2-5), each opening as many connections as the host lets it
  (completing TLS and ``hello``, answering a request) and holding them, reopening any the host
  closes, never more at once in their handshake than the host's budget lets finish; its
  connections make tables up to its limit and sit at them (a table whose maker the host closed
  before it sat is made by another connection still held);
* ``ipv6``: 64 addresses of one /64 (``fd79::100``-``fd79::13f``, added ``nodad``), one
  connection each, held the same way (the host counts them as one machine);
* ``silent``: 80 TCP connections spread over all those addresses that never send a TLS
  ClientHello, each reopened as soon as the host closes it;
* ``all``: the three at once.

A player from 10.79.0.9 sits at a table before the attack; once the attack holds what it is
allowed, that player's connection is cut, and when the attackers have taken its slot too the
player resumes from a new connection, then a newcomer from 10.79.0.10 connects and creates a
table. Each must get its answer within the host's handshake deadline.

The test process opens its sockets in the other namespace (``setns`` around ``socket()``: a
socket stays in the namespace it was made in), so the attackers and players run in trio here.
Needs root and iproute2; elsewhere it is skipped with the reason. The namespaces
(``lan_of``, tests/lan/conftest.py) are removed afterwards.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import socket
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio

import protocol.table_messages as tm
from host.server.admission import HANDSHAKE_DEADLINE_S, MAX_HANDSHAKING, MAX_HANDSHAKING_PER_ADDRESS
from host.server.lobby import MAX_TABLES_PER_ADDRESS, MAX_TABLES_PER_CONNECTION
from host.server.server import MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS
from net.session import ClientSession, Disconnected, RequestError, open_session

HOST_V4, HOST_V6 = "10.79.0.1", "fd79::1"
ATTACK_V4 = [f"10.79.0.{n}" for n in range(2, 6)]
ATTACK_V6 = [f"fd79::{0x100 + n:x}" for n in range(64)]
ATTACK_V6_KEY = "fd79::/64"
SEATED, NEWCOMER = "10.79.0.9", "10.79.0.10"
SILENT = 80
PORT = 7531
#: seconds the attack may take to hold what it may before the test fails instead of hanging
SIEGE_TIMEOUT = 90
#: seconds an attacker the host refused waits before it tries again (pacing the test's CPU)
RETRY_S = 0.05
CLONE_NEWNET = 0x40000000


@pytest.fixture(scope="module")
def lan(lan_of: Callable[..., AbstractContextManager[Any]]) -> Iterator[Any]:
    with lan_of(host=[HOST_V4, HOST_V6], other=[*ATTACK_V4, SEATED, NEWCOMER, *ATTACK_V6]) as net:
        yield net


_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET):
        errno = ctypes.get_errno()
        raise OSError(errno, f"setns: {os.strerror(errno)}")


def socket_in(ns: str, family: socket.AddressFamily) -> trio.socket.SocketType:
    """A TCP socket in namespace ``ns``, made by this thread stepping into it and back."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    there = os.open(f"/var/run/netns/{ns}", os.O_RDONLY)
    try:
        _setns(there)
        try:
            return trio.socket.socket(family, socket.SOCK_STREAM)
        finally:
            _setns(own)
    finally:
        os.close(there)
        os.close(own)


def _tls() -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # the host's certificate is self-signed
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    return ctx


TLS = _tls()  #: one context for every connection (making one reads the system's CA store)


async def tcp_from(ns: str, source: str) -> trio.SocketStream:
    """A TCP connection from ``source`` (an address in ``ns``) to the host."""
    v6 = ":" in source
    sock = socket_in(ns, socket.AF_INET6 if v6 else socket.AF_INET)
    try:
        await sock.bind((source, 0))
        await sock.connect((HOST_V6 if v6 else HOST_V4, PORT))
    except BaseException:
        sock.close()
        raise
    return trio.SocketStream(sock)


@contextlib.asynccontextmanager
async def session_from(ns: str, source: str) -> AsyncIterator[ClientSession]:
    """A protocol session over TLS from ``source``: connected, TLS done, ``welcome`` had."""
    stream = trio.SSLStream(await tcp_from(ns, source), TLS)
    try:
        await stream.do_handshake()
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    async with open_session(stream) as session:
        yield session


async def hold(session: ClientSession, also: Callable[[], Awaitable[None]]) -> None:
    """Keep ``session`` until the host closes it, reading whatever it pushes, with ``also``
    running beside (cancelled when the session closes; it must not raise)."""

    async def drain() -> None:
        with contextlib.suppress(trio.EndOfChannel, trio.ClosedResourceError):
            while True:
                await session.pushes.receive()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(drain)
        nursery.start_soon(also)
        await session.closed.wait()
        nursery.cancel_scope.cancel()


#: what a refused or closed attacker connection raises
GONE = (RequestError, Disconnected, trio.BrokenResourceError, trio.TooSlowError, OSError)


@dataclass
class Siege:
    """The attackers in the other namespace and what they hold, as they see it."""

    ns: str
    held: dict[str, int] = field(default_factory=dict)  #: slots held per address key
    tables: int = 0  #: tables the attackers made and sit at
    #: tables each attacking address key has still to make (its share of tables in use)
    to_make: dict[str, int] = field(default_factory=dict)
    silent_closed: int = 0  #: silent connections the host has closed
    #: what ``until`` waits for: each condition is checked at every change, as it happens (a
    #: waiting task woken later could miss a state the churn of evictions passes through)
    _waiting: list[tuple[Callable[[], bool], trio.Event]] = field(default_factory=list)
    _opening_in_all: trio.Semaphore = field(default_factory=lambda: trio.Semaphore(MAX_HANDSHAKING))
    _opening_per_key: dict[str, trio.Semaphore] = field(default_factory=dict)

    def _bump(self) -> None:
        for done, met in self._waiting:
            if done():
                met.set()

    async def until(self, done: Callable[[], bool]) -> None:
        """Wait until ``done()`` holds, if only for a moment."""
        met = trio.Event()
        if done():
            return
        self._waiting.append((done, met))
        try:
            await met.wait()
        finally:
            self._waiting.remove((done, met))

    def state(self) -> str:
        """What the attack holds, as it sees it (for a failure's message)."""
        return f"slots {dict(self.held)}, tables {self.tables}, still to make {self.to_make}"

    def slots(self) -> int:
        return sum(self.held.values())

    async def holder(self, source: str, key: str) -> None:
        """One connection from ``source``: open, make what is left of its address's tables
        (as many as one connection may) and sit at them, hold; reopen whenever the host closes
        or refuses it."""
        while True:
            with contextlib.suppress(*GONE):
                async with contextlib.AsyncExitStack() as stack:
                    async with self._opening(key):
                        session = await stack.enter_async_context(session_from(self.ns, source))
                        await session.request(tm.ListTables())  # answered: it holds a slot
                    self.held[key] = self.held.get(key, 0) + 1
                    self._bump()
                    try:
                        await hold(session, functools.partial(self._keep_tables, session, key))
                    finally:
                        self.held[key] -= 1
                        self._bump()
            await trio.sleep(RETRY_S)

    @contextlib.asynccontextmanager
    async def _opening(self, key: str) -> AsyncIterator[None]:
        """A place in the host's handshake budget: the attackers open no more connections at
        once than the host lets finish their handshakes (in all, and per address key), as a
        siege that means to hold every slot would. Opening more makes the host cancel the
        oldest for each new one; on a loaded machine none then reaches ``welcome``."""
        semaphore = self._opening_per_key.setdefault(
            key, trio.Semaphore(MAX_HANDSHAKING_PER_ADDRESS)
        )
        async with self._opening_in_all, semaphore:
            yield

    async def _keep_tables(self, session: ClientSession, key: str) -> None:
        """Make what is left of the address's tables (as many as one connection may) and sit at
        them, for as long as the connection is held: a table another connection of the address
        was making when the host closed it falls back to those still held, which the host,
        full and fairly shared, may let no new connection of the address join."""
        made = 0
        while made < MAX_TABLES_PER_CONNECTION:
            await self.until(lambda: self.to_make[key] > 0)
            if self.to_make[key] == 0:
                continue  # another connection took it first
            self.to_make[key] -= 1
            try:
                table = await session.request(tm.CreateTable(game="one-card", seats=2))
                assert isinstance(table, tm.TableCreated)
                await session.request(tm.Join(table=table.table, name="Mallory"))
            except BaseException as exc:
                self.to_make[key] += 1
                self._bump()
                if isinstance(exc, GONE):
                    return  # the session is closing: ``hold`` ends with it
                raise
            made += 1
            self.tables += 1
            self._bump()

    async def silent(self, source: str) -> None:
        """One TCP connection from ``source`` that never says a word, reopened once closed."""
        while True:
            try:
                stream = await tcp_from(self.ns, source)
            except OSError:
                await trio.sleep(RETRY_S)
                continue
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                while await stream.receive_some(4096):
                    pass  # the host's refusal, if it had room to send one
            await trio.aclose_forcefully(stream)
            self.silent_closed += 1
            self._bump()

    def start(self, nursery: trio.Nursery, kinds: set[str]) -> None:
        """Start the connections that hold slots and tables."""
        if "ipv4" in kinds:
            for source in ATTACK_V4:
                self.to_make[source] = MAX_TABLES_PER_ADDRESS
                for _ in range(MAX_CONNECTIONS_PER_ADDRESS):
                    nursery.start_soon(self.holder, source, source)
        if "ipv6" in kinds:
            self.to_make[ATTACK_V6_KEY] = MAX_TABLES_PER_ADDRESS
            for source in ATTACK_V6:
                nursery.start_soon(self.holder, source, ATTACK_V6_KEY)

    def flood(self, nursery: trio.Nursery) -> None:
        """Start the silent connections, spread over every attacking address."""
        sources = [*ATTACK_V4, *ATTACK_V6]
        for n in range(SILENT):
            nursery.start_soon(self.silent, sources[n % len(sources)])

    def ready(self, kinds: set[str], free: int) -> Callable[[], bool]:
        """Whether the attack holds the slots and tables it is allowed, ``free`` slots being
        someone else's."""
        slots = {
            frozenset(): 0,
            frozenset({"ipv6"}): MAX_CONNECTIONS_PER_ADDRESS,
        }.get(frozenset(kinds - {"silent"}), MAX_CONNECTIONS - free)
        table_keys = len(ATTACK_V4) * ("ipv4" in kinds) + ("ipv6" in kinds)
        tables = table_keys * MAX_TABLES_PER_ADDRESS
        # at least: a connection the host closed to make room may not have seen its end yet
        return lambda: self.slots() >= slots and self.tables == tables

    def churning(self) -> bool:
        """Whether the host has closed as many silent connections as there are (each is
        reopened at once)."""
        return self.silent_closed >= SILENT


async def start_host(ns: str, root: Path, nursery: trio.Nursery) -> trio.Process:
    env = dict(os.environ)
    env["ONECARD_STATE_DIR"] = str(root / "state")
    env["ONECARD_KNOWN_HOSTS"] = str(root / "known_hosts")
    cmd = [
        "ip",
        "netns",
        "exec",
        ns,
        sys.executable,
        "-m",
        "client",
        "host",
        "--data-dir",
        str(root / "host-data"),
        "--port",
        str(PORT),
        "--name",
        "Keep",
        "-v",
    ]
    log = (root / "host.log").open("ab")
    process: trio.Process = await nursery.start(
        lambda task_status: trio.run_process(
            cmd, stdout=subprocess.PIPE, stderr=log, env=env, check=False, task_status=task_status
        )
    )
    log.close()
    assert process.stdout is not None
    seen = b""
    with trio.fail_after(30):
        while b"data directory:" not in seen:
            chunk = await process.stdout.receive_some(65536)
            assert chunk, f"the host ended: {seen.decode(errors='replace')}"
            seen += chunk
    nursery.start_soon(_drain, process.stdout)
    return process


async def _drain(stream: trio.abc.ReceiveStream) -> None:
    with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
        while await stream.receive_some(65536):
            pass


@contextlib.contextmanager
def _explained(siege: Siege, root: Path) -> Iterator[None]:
    """On a timeout, fail with what the attack held and the end of the host's log."""
    try:
        yield
    except trio.TooSlowError:
        log = (root / "host.log").read_text(errors="replace").splitlines()[-40:]
        pytest.fail(
            f"the attack did not get to hold what it may within {SIEGE_TIMEOUT} s: "
            f"{siege.state()}; the host's log ends:\n" + "\n".join(log)
        )


@pytest.mark.parametrize("attack", ["ipv4", "ipv6", "silent", "all"])
async def test_honest_players_get_in_while_attackers_hold_all_they_may(
    lan: Any, tmp_path: Path, attack: str
) -> None:
    kinds = {"ipv4", "ipv6", "silent"} if attack == "all" else {attack}
    async with trio.open_nursery() as nursery:
        host = await start_host(lan.host_ns, tmp_path, nursery)
        siege = Siege(lan.other_ns)
        with _explained(siege, tmp_path), trio.fail_after(SIEGE_TIMEOUT):
            async with session_from(lan.other_ns, SEATED) as ann:
                made = await ann.request(tm.CreateTable(game="one-card", seats=2))
                assert isinstance(made, tm.TableCreated)
                joined = await ann.request(tm.Join(table=made.table, name="Ann"))
                assert isinstance(joined, tm.Joined)
                siege.start(nursery, kinds)
                await siege.until(siege.ready(kinds, free=1))
            # Ann's connection is cut; the attackers take its slot as well
            await siege.until(siege.ready(kinds, free=0))
            if "silent" in kinds:
                siege.flood(nursery)
                await siege.until(siege.churning)
        with trio.fail_after(HANDSHAKE_DEADLINE_S):
            async with session_from(lan.other_ns, SEATED) as back:
                resumed = await back.request(tm.Resume(token=joined.token))
                assert isinstance(resumed, tm.Resumed)
                assert (resumed.table, resumed.seat) == (made.table, joined.seat)
        with trio.fail_after(HANDSHAKE_DEADLINE_S):
            async with session_from(lan.other_ns, NEWCOMER) as bea:
                mine = await bea.request(tm.CreateTable(game="one", seats=2))
                assert isinstance(mine, tm.TableCreated)
        host.terminate()
        nursery.cancel_scope.cancel()
