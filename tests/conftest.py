"""Suite-wide settings (Hypothesis profiles), a check that mock clocks are not ignored, what the
client knows of the host's games, and the fixtures several test folders share.

The default profile (``onecard``) makes every property test deterministic and free of wall-clock
limits, so the suite gives the same verdict on a fast laptop and on a loaded two-core CI machine:

* ``derandomize=True``: examples come from a fixed seed per test, not a fresh random one, so
  a run cannot fail on an example no earlier run tried (new examples are found with ``fuzz``);
* ``deadline=None``: Hypothesis' 200 ms per-example deadline is a speed check, and speed is
  measured by ``bench/``, never asserted by tests;
* no ``too_slow`` health check, for the same reason; ``database=None``: a clean clone and a
  used checkout behave alike.

``pytest --hypothesis-profile=fuzz`` explores: random seeds, 1,000 examples for each test that
does not set its own number, and the example database in ``.hypothesis/`` so that a failure it
finds is replayed on the next run. A test's own ``@settings`` wins over the profile for the
fields it names.

Every test starts with the client's catalogue (:data:`client.catalogue.CATALOGUE`) holding what
this host says of its games in its ``games`` reply, as a client that asked ``list_games`` does,
so client code tested without a host words events, titles and letters as it would at a table;
a test of the generic wording clears it (``CATALOGUE.forget()``), and the next test starts
afresh.

Shared fixtures: ``start_host`` runs :func:`host.server.server.serve_host` in the test's nursery
(port 0, 127.0.0.1, a temporary data directory, bots with no thinking time, no rate limit:
``FULL_SPEED``); ``serve_tls`` starts a TLS server with a fresh host identity around any
handler; ``fake_conn`` is the class :class:`FakeConn`, what a table needs of a connection, for
tests that drive a :class:`host.table.table.Table` or :class:`host.server.lobby.Lobby` without a
socket;
``host_process`` runs ``onecard host`` as a process of its own, for tests that kill it;
``cheat_caught`` is what a seat client (the terminal client's and the bots' alike) says when it
catches each kind of cheating.

Every host the suite runs, in-process or as a subprocess, checks each message it sends against
its schema (``ONECARD_CHECK_SENT``), so a host that built a bad message fails its test instead
of only packing it.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import HealthCheck, settings

import protocol.table_messages as tm
from client.catalogue import CATALOGUE, Catalogue
from host.games import game_entries
from host.ratelimit import RateLimits
from host.server import connection as host_connection
from host.server.identity import load_or_create_identity
from host.server.server import HostConfig, HostInfo, serve_host
from host.table.cheats import CheatKind

_HOST_SAYS = Catalogue(game_entries()).games


def pytest_configure(config: pytest.Config) -> None:
    os.environ["ONECARD_CHECK_SENT"] = "1"  # hosts started as subprocesses inherit it
    host_connection.CHECK_SENT = True


@pytest.fixture(autouse=True)
def _client_knows_the_hosts_games() -> Iterator[None]:
    CATALOGUE.games, CATALOGUE.learned = dict(_HOST_SAYS), True
    yield
    CATALOGUE.games, CATALOGUE.learned = dict(_HOST_SAYS), True


settings.register_profile(
    "onecard",
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "fuzz",
    derandomize=False,
    deadline=None,
    max_examples=1000,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("onecard")

#: an async handler of one accepted TLS stream (``serve_tls``)
TlsHandler = Callable[[trio.SSLStream[trio.SocketStream]], Awaitable[None]]
StartHost = Callable[..., Awaitable[HostInfo]]


#: games a test of ``--cheat wrong-reshuffle`` plays, at most, for one with a reshuffle: a
#: 4-seat One Card game of normal bots without bankruptcy has none about 30% of the time (89
#: of 300 measured), so five games missed it once in some 400 runs (0.3 ** 5) and twelve once
#: in two million; the tests stop at the first reshuffle, so most play one or two games
RESHUFFLE_TRIES = 12


@pytest.fixture
def reshuffle_tries() -> int:
    """:data:`RESHUFFLE_TRIES`."""
    return RESHUFFLE_TRIES


@pytest.fixture
def cheat_caught() -> dict[CheatKind, str]:
    """What the failed check of a seat client (``net.seat``) says for each kind of cheating of
    ``onecard host --cheat KIND`` (a part of the message)."""
    return {
        CheatKind.SWAPPED_CARD: "never dealt to us",
        CheatKind.BAD_SIGNATURE: "signature",
        CheatKind.WRONG_RESHUFFLE: "does not recycle the discard pile",
        CheatKind.WITHHELD_REVEAL: "out of order (after LOCK)",
        CheatKind.CHANGED_COMMITMENT: "LOCK carries a host commitment other than HAND_COMMIT's",
        CheatKind.REPLAYED_MESSAGE: "has seq",
        CheatKind.SHORT_DECK: "HAND_COMMIT deals 46 cards without 2S 3S",
        CheatKind.CHANGED_OPTIONS: "HAND_COMMIT ruleset 'one-card?",
    }


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common umask, whatever the test runner's: new files 0644, directories 0755, so a
    file the host forgot to make private comes out open."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


class FakeConn:
    """What a table needs of a connection: deliveries are kept, closing is a flag.

    ``address`` is its key for the per-address caps (host.server.admission; None: not capped);
    ``trusted`` makes it the host's own in-process bot connection.
    """

    _peers = itertools.count()

    def __init__(self, address: str | None = None, *, trusted: bool = False) -> None:
        self.closed = False
        self.trusted = trusted
        self.address_key = address
        self.peer = f"fake-{next(self._peers)}"
        self.got: list[dict[str, Any]] = []

    def deliver(self, msgs: list[dict[str, Any]]) -> bool:
        self.got.extend(msgs)
        return True

    def deliver_backlog(self, msgs: list[dict[str, Any]]) -> None:
        self.got.extend(msgs)

    def close_politely(self, msg: dict[str, Any]) -> None:
        self.closed = True

    def types(self) -> list[str]:
        """The types of the messages delivered so far, in order."""
        return [m["type"] for m in self.got]


def _turn_state(seq: int) -> tm.StatePush:
    """Seat 0's turn at One Card with a draw to make, at table seq ``seq``."""
    return tm.StatePush(
        table="t1",
        seq=seq,
        game_no=1,
        phase="playing",
        seat=0,
        view={"game": "one-card", "seat": 0},
        legal=({"type": "draw"},),
        to_act=(0,),
        turn_ms=None,
    )


@pytest.fixture
def turn_state() -> Callable[[int], tm.StatePush]:
    """``turn_state(seq)``: a ``state`` push naming seat 0 to act at One Card (a draw)."""
    return _turn_state


@pytest.fixture
def fake_conn() -> type[FakeConn]:
    """The class :class:`FakeConn` (test files cannot import the conftest): ``fake_conn()``."""
    return FakeConn


@dataclass(frozen=True)
class HostProcess:
    """``onecard host`` running as a process of its own, and the port it said it listens on."""

    proc: subprocess.Popen[str]
    port: int

    async def connect(self) -> trio.SocketStream:
        """A TCP connection to it (retried while it is not accepting yet)."""
        with trio.fail_after(30):
            while True:
                try:
                    return await trio.open_tcp_stream("127.0.0.1", self.port)
                except OSError:
                    await trio.sleep(0.05)


def _listening_port(proc: subprocess.Popen[str]) -> int:
    """The port ``onecard host`` says it listens on (its first line)."""
    assert proc.stdout is not None
    for line in proc.stdout:
        if m := re.search(r"listening on 127\.0\.0\.1:(\d+)", line):
            return int(m.group(1))
    raise AssertionError(f"the host exited ({proc.wait(timeout=10)}) before listening")


@contextmanager
def _host_process(data_dir: Path) -> Iterator[HostProcess]:
    """``onecard host`` on ``data_dir`` (plain TCP, not advertised, bots thinking 0.01 s), on a
    port it picks itself (port 0) and prints: a port picked here and handed over could be taken
    by another test meanwhile, and was free again whenever the host was down between two
    starts. Killed at the end if it still runs."""
    cmd = [
        *(sys.executable, "-m", "client", "host", "--bind", "127.0.0.1", "--port", "0"),
        *("--data-dir", str(data_dir), "--insecure", "--no-advertise", "--bot-think", "0.01"),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        yield HostProcess(proc, _listening_port(proc))
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        assert proc.stdout is not None
        proc.stdout.close()


@pytest.fixture
def host_process() -> Callable[[Path], AbstractContextManager[HostProcess]]:
    """``with host_process(data_dir) as host``: a :class:`HostProcess` (kill it to test
    restarts), ``await host.connect()`` for a TCP stream to it."""
    return _host_process


#: rate limits for tests' real-TCP hosts: no pause for the clients' messages, so a test game
#: runs at full speed (a test of the limits themselves passes ``rate_limits=RateLimits()``)
FULL_SPEED = RateLimits(per_second=1_000_000.0, burst=1_000_000.0)


@pytest.fixture
def start_host(nursery: trio.Nursery, tmp_path: Path) -> StartHost:
    """``await start_host(**overrides)``: a host on loopback TCP at full speed (FULL_SPEED)."""

    async def start(**overrides: Any) -> HostInfo:
        fields: dict[str, Any] = {
            "data_dir": tmp_path / "host",
            "bind": "127.0.0.1",
            "port": 0,
            "advertise": False,
            "bot_think": 0.0,
            "rate_limits": FULL_SPEED,
            **overrides,
        }
        info: HostInfo = await nursery.start(serve_host, HostConfig(**fields))
        return info

    return start


@pytest.fixture
def serve_tls(nursery: trio.Nursery, tmp_path: Path) -> Callable[[TlsHandler], Awaitable[int]]:
    """Start a TLS server on loopback with a fresh host identity; return its port."""

    async def serve(handler: TlsHandler) -> int:
        identity = load_or_create_identity(tmp_path / "tls-server")
        listeners = await nursery.start(
            functools.partial(
                trio.serve_ssl_over_tcp,
                handler,
                0,
                identity.server_ssl_context(),
                host="127.0.0.1",
            )
        )
        return int(listeners[0].transport_listener.socket.getsockname()[1])

    return serve


#: pytest-trio's clock fixtures. It runs a test on the clock the *test function* takes as an
#: argument; a clock that only a fixture requests is ignored, and the test sleeps in real time
#: (a 60 s grace period really took 61 s).
CLOCK_FIXTURES = frozenset({"autojump_clock", "mock_clock"})


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a test that gets a mock clock through a fixture (or ``usefixtures``) only."""
    if not isinstance(item, pytest.Function):
        return
    own = set(inspect.signature(item.function).parameters)
    ignored = sorted((CLOCK_FIXTURES & set(item.fixturenames)) - own)
    if ignored:
        pytest.fail(
            f"{', '.join(ignored)} is requested by a fixture of this test but not by the test "
            "function itself, so pytest-trio runs it on the real clock: add it to the test's "
            "arguments",
            pytrace=False,
        )
