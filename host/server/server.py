"""The trio host: listeners, connection handlers, tables, bots, graceful shutdown.

Embedding API (``onecard play`` runs a host in-process this way)::

    from host.server.server import HostConfig, serve_host

    async with trio.open_nursery() as nursery:
        info = await nursery.start(serve_host, HostConfig(data_dir=path, port=0, bind="127.0.0.1"))
        info.port, info.fingerprint          # where it listens, TLS pin (SHA256:ab:cd:...)
        table = await info.host.create_table("one-card", seats=3)
        await info.host.add_bots(table, 2, level="normal")     # in-process bot clients
        ...                                  # connect a client to ("127.0.0.1", info.port)
        await info.host.shutdown()           # tells clients server_closing, then returns

``serve_host(config, *, task_status)`` returns after :meth:`Host.shutdown` (or raises
``Cancelled`` when its nursery is cancelled; state is durable either way: every change is
committed before it is sent). ``task_status.started`` receives a :class:`HostInfo`.

How it works (trio ``serve_listeners`` / trio-websocket): the accept loop runs in its own
cancel scope, separate from the nursery that holds the connection handlers, the tables' timer
tasks and the in-process bots, so shutdown first stops accepting, then sends every connection
``server_closing`` and lets the writers flush, then cancels the rest. Each handler takes a
ticket from :class:`host.server.admission.Admission` (the handshake budget and deadline; over its
address's cap the client gets a fatal ``full`` error before its ``hello``), runs a
:class:`host.server.connection.ClientConnection`, which takes a connection slot after ``welcome``
(or, the host being full, only for a ``resume`` of a seat), and always closes the stream in
``finally``; no
exception from one connection can reach the host, nor one from reconnecting a restored table's
bots (a full disk: :meth:`Host.respawn_bot`). Those bots take their seats back before the first
connection is accepted (within ``RESPAWN_TIMEOUT``): a player resuming first could start a
rematch whose deal round a bot, resuming into it as a new process, could only audit (it cannot
know what its old process committed), and the hand would be void at the round timeout. The
nursery also runs the store's retries of hand
records the disk refused (:meth:`host.storage.record_files.RecordFiles.retry_records`). The
per-address cap and admission's fair share keep a few machines from taking every slot, and a
player who comes back to ``resume`` a seat always gets in; loopback peers and the host's own
in-process bots are exempt (see :func:`host.server.admission.address_key`).
"""

from __future__ import annotations

import functools
import importlib
import ipaddress
import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from host.bots.bots import BotPlayer
from host.bots.thinking import Thinkers, ThinkingLimits, open_thinkers
from host.logs import get_logger
from host.ratelimit import RateLimits
from host.server.admission import Admission, Ticket, address_key
from host.server.connection import CLOSE_FLUSH_TIMEOUT, ClientConnection, server_closing
from host.server.identity import HostIdentity, default_host_name, load_or_create_identity
from host.server.lobby import HOSTED_BOT_PREFIX, MAX_TABLES, BotLimits, Lobby
from host.storage.datadir import hold_data_dir
from host.storage.store import Store
from host.table.cheats import CheatKind
from host.table.table import ROUND_TIMEOUT, Table, TableError
from net.address import DEFAULT_PORT
from net.session import RequestError, first_leaf, open_session
from protocol.errors import ErrorCode
from protocol.fairness import key_fingerprint
from protocol.framing import encode_frame
from protocol.limits import HANDSHAKE_TIMEOUT_S, MAX_NAME_LEN
from protocol.messages import Error
from protocol.version import software

__all__ = [
    "KEEP_RECORDS_DAYS",
    "MAX_CONNECTIONS",
    "MAX_CONNECTIONS_PER_ADDRESS",
    "MAX_RECORDS_BYTES",
    "RESPAWN_TIMEOUT",
    "SHUTDOWN_GRACE",
    "Host",
    "HostConfig",
    "HostInfo",
    "serve_host",
]

log = get_logger(__name__)  # what a peer sent is shown escaped (host.logs)

#: concurrent connections a host accepts (its in-process bots not counted)
MAX_CONNECTIONS = 64
#: concurrent connections a host accepts from one IP address (loopback not counted): room for
#: one machine's ``onecard bot --count 16`` (and its control connection), a player and a
#: spectator, while no three addresses can fill the host
MAX_CONNECTIONS_PER_ADDRESS = 20
#: connections over a cap being told so at once (a TLS handshake each); more are just closed
MAX_REFUSING = 8
#: days hand records are kept by default (``onecard host --keep-records-days``)
KEEP_RECORDS_DAYS = 90.0
#: bytes hand records may take on disk by default (``onecard host --max-records-mb``)
MAX_RECORDS_BYTES = 2048 * 1024 * 1024
#: seconds connections get to receive ``server_closing`` before the host cancels them
SHUTDOWN_GRACE = 2.0
#: seconds a restarted host waits for its own bots to take their seats back before accepting
#: players (a bot still away then is played by the host after the grace period, as any seat)
RESPAWN_TIMEOUT = 10.0
#: seconds a client waits before reconnecting after ``server_closing``
RETRY_AFTER_S = 5
#: seconds per turn unless a table asks otherwise: generous for a person thinking, but one
#: player who walks away can no longer hold a game for ever (the host's bot plays the move)
DEFAULT_TURN_TIMER = 120.0


@dataclass(frozen=True, slots=True)
class HostConfig:
    """Everything a host needs; the defaults serve a LAN game with no configuration."""

    data_dir: Path
    bind: str | None = None  #: None: every interface
    port: int = DEFAULT_PORT  #: 0: any free port
    #: shown in the LAN list and ``welcome``: ``onecard on`` and the machine's name
    name: str = field(default_factory=default_host_name)
    insecure: bool = False  #: plain TCP instead of TLS 1.3
    #: seconds per turn (a table may ask for its own, or none), None: no timer
    turn_timer: float | None = DEFAULT_TURN_TIMER
    grace: float = 60.0  #: seconds a disconnected seat is waited for before a bot plays for it
    #: announce the host on the LAN (net.discover), if available; never on a loopback bind
    advertise: bool = True
    max_connections: int = MAX_CONNECTIONS
    max_connections_per_address: int = MAX_CONNECTIONS_PER_ADDRESS
    #: days hand records are kept (None: for ever; 0: pruned at the next pass)
    keep_records_days: float | None = KEEP_RECORDS_DAYS
    #: bytes the hand records may take on disk; past it the oldest are deleted (None: no cap)
    max_records_bytes: int | None = MAX_RECORDS_BYTES
    #: loopback peers are not counted per address (False: tests playing machines on 127.0.0.x)
    exempt_loopback: bool = True
    max_tables: int = MAX_TABLES  #: tables kept at once (in use ones are never dropped)
    round_timeout: float = ROUND_TIMEOUT  #: seconds for each fair-deal commit and reveal
    bot_think: float = 0.5  #: seconds in-process bots wait before acting
    #: how hard bots share the host's cores: worker processes, cap, wait (host.bots.thinking)
    thinking: ThinkingLimits = field(default_factory=ThinkingLimits)
    #: host bots one client may have seated at once, and how many of them hard (host.server.lobby);
    #: one address may have twice as many
    bot_limits: BotLimits = field(default_factory=BotLimits)
    #: deal dishonestly on purpose (``--cheat``, for testing clients; host.table.cheats)
    cheat: CheatKind | None = None
    #: run sqlite in a worker thread (False only for tests on trio's mock clock)
    store_in_thread: bool = True
    #: what each remote connection may send (host.ratelimit; the in-process bots are exempt)
    rate_limits: RateLimits = field(default_factory=RateLimits)


@dataclass(frozen=True, slots=True)
class HostInfo:
    """What ``serve_host`` reports once it listens."""

    port: int  #: the (first) bound port
    addresses: tuple[tuple[str, int], ...]  #: every bound (address, port)
    fingerprint: str  #: TLS certificate pin, ``SHA256:ab:cd:...``
    signing_key_fingerprint: str  #: fair-dealing Ed25519 key, as clients show it
    tls: bool
    host: Host = field(repr=False)
    #: announced on the LAN (never when every bound address is a loopback one)
    advertised: bool = False


class Host:
    """A running host: its lobby, connections and shutdown switch."""

    def __init__(
        self,
        config: HostConfig,
        identity: HostIdentity,
        lobby: Lobby,
        thinkers: Thinkers | None = None,
    ) -> None:
        self.config = config
        self.identity = identity
        self.lobby = lobby
        self.connections: set[ClientConnection] = set()
        self.admission = Admission(
            max_connections=config.max_connections,
            max_per_address=config.max_connections_per_address,
        )
        self._refusing = trio.Semaphore(MAX_REFUSING)
        self._shutdown = trio.Event()
        #: the message every connection gets at shutdown (:meth:`shutdown` words it)
        self._closing = server_closing(RETRY_AFTER_S, "the host is shutting down")
        self.stopped = trio.Event()
        #: where the host's hard bots search: worker processes, never the event loop
        self.thinkers = thinkers or Thinkers(config.thinking)
        lobby.spawn_bot = self._spawn_bot

    # ------------------------------------------------------------------ embedding helpers

    async def create_table(
        self,
        game: str,
        *,
        seats: int,
        options: dict[str, Any] | None = None,
        name: str | None = None,
        turn_timer: float | None = None,
        private: bool = False,
    ) -> str:
        """Create a table (as ``create_table`` over the protocol would); return its id."""
        table = await self.lobby.create_table(
            game=game,
            seats=seats,
            options=options,
            name=name,
            turn_timer=turn_timer,
            private=private,
        )
        return table.table_id

    async def add_bots(self, table_id: str, count: int, *, level: str = "normal") -> list[int]:
        """Seat ``count`` in-process bots playing at ``level`` (a bot kind of ``add_bot``) at a
        table; return their seats."""
        return [
            (await self.lobby.add_bot(table_id, level=level, seat=None))[0] for _ in range(count)
        ]

    async def shutdown(
        self, *, retry_after: int | None = RETRY_AFTER_S, reason: str = "the host is shutting down"
    ) -> None:
        """Tell every client ``server_closing`` (with ``retry_after``: None says the host is not
        coming back, so clients stop at once instead of reconnecting), stop, and return once
        the host stopped."""
        self._closing = server_closing(retry_after, reason)
        self._shutdown.set()
        await self.stopped.wait()

    # ------------------------------------------------------------------ connections

    async def handle(
        self,
        stream: trio.abc.Stream,
        *,
        peer: str = "?",
        trusted: bool = False,
        address: str | None = None,
    ) -> None:
        """Serve one connection; never raises (handler errors are logged).

        ``address`` is the peer's IP address (the accept loop passes it; None: unknown, as for
        in-memory test streams): it counts against ``max_connections_per_address`` unless it is
        a loopback one. ``trusted`` connections (the host's in-process bots) count against
        neither cap: a host full of remote clients must still seat and substitute bots.
        """
        if trusted:
            try:
                await self._serve(stream, peer, trusted=True)
            except (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, OSError):
                pass
            except Exception:
                log.exception("connection %s failed", peer)
            finally:
                await trio.aclose_forcefully(stream)
            return
        key = _capped_address(address, exempt_loopback=self.config.exempt_loopback)
        # counted before the TLS handshake, so connections stuck in one count too
        ticket = self.admission.open(key)
        try:
            if isinstance(ticket, str):
                await self._refuse(stream, ticket)
                return
            with ticket.scope:  # the handshake's deadline; cancelled to make room
                await self._tls_handshake(stream)
                await self._serve(stream, peer, trusted=False, ticket=ticket)
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, OSError):
            pass
        except Exception:
            log.exception("connection %s failed", peer)
        finally:
            if not isinstance(ticket, str):
                self.admission.close(ticket)
            await trio.aclose_forcefully(stream)

    def _admit(self, ticket: Ticket, conn: ClientConnection, resuming: bool) -> bool:
        """A connection's handshake is over: take a slot (``resuming``: its first request is a
        resume a seat's token matches; make room for it). False: the host is full for it."""
        if resuming:
            return self.admission.make_room(ticket)
        return self.admission.take_slot(ticket, conn)

    @property
    def per_address(self) -> Counter[str]:
        """Connection slots held per capped address key (no zero counts)."""
        return self.admission.per_address

    @staticmethod
    async def _tls_handshake(stream: trio.abc.Stream) -> None:
        if isinstance(stream, trio.SSLStream):
            with trio.fail_after(HANDSHAKE_TIMEOUT_S):
                await stream.do_handshake()

    async def _serve(
        self,
        stream: trio.abc.Stream,
        peer: str,
        *,
        trusted: bool,
        ticket: Ticket | None = None,
    ) -> None:
        admit = None if ticket is None else functools.partial(self._admit, ticket)
        session = ClientConnection(
            stream,
            self.lobby,
            peer=peer,
            trusted=trusted,
            admit=admit,
            address_key=_key(ticket),
            limits=self.config.rate_limits,
        )
        self.connections.add(session)
        try:
            await session.run()
        finally:
            self.connections.discard(session)

    async def _refuse(self, stream: trio.abc.Stream, message: str) -> None:
        """Over a connection cap: one fatal ``full`` error frame (no ``re``), then close.

        Over TLS the refusal needs a handshake first. At most ``MAX_REFUSING`` refusals run at
        once, each within ``HANDSHAKE_TIMEOUT_S``; beyond that a connection is closed unanswered,
        so a flood of connections cannot pile up in handshakes the caps do not count.
        """
        try:
            self._refusing.acquire_nowait()
        except trio.WouldBlock:
            return
        try:
            with trio.move_on_after(HANDSHAKE_TIMEOUT_S):
                await self._tls_handshake(stream)
                msg = Error(code=ErrorCode.FULL, message=message, fatal=True)
                with trio.move_on_after(CLOSE_FLUSH_TIMEOUT):
                    await stream.send_all(encode_frame(msg.to_wire()))
        finally:
            self._refusing.release()

    async def _accept_loop(
        self, listeners: Sequence[trio.abc.Listener[Any]], nursery: trio.Nursery
    ) -> None:
        async def handler(stream: trio.abc.Stream) -> None:
            await self.handle(stream, peer=_peer_name(stream), address=_peer_address(stream))

        await trio.serve_listeners(handler, list(listeners), handler_nursery=nursery)

    # ------------------------------------------------------------------ bots

    async def _spawn_bot(
        self, table_id: str, level: str, seat: int | None, token: str | None
    ) -> int:
        a, b = trio.socket.socketpair()
        host_end, bot_end = trio.SocketStream(a), trio.SocketStream(b)
        nursery = self.lobby.nursery
        nursery.start_soon(
            functools.partial(self.handle, host_end, peer="in-process bot", trusted=True)
        )
        try:
            seat_no: int = await nursery.start(self._run_bot, bot_end, table_id, level, seat, token)
        except Exception as raised:  # the bot could not take its seat
            exc = first_leaf(raised)
            if isinstance(exc, RequestError):
                raise TableError(exc.error.message, code=exc.code) from None
            raise TableError(f"the bot could not start: {exc}", code=ErrorCode.INTERNAL) from None
        return seat_no

    async def _run_bot(
        self,
        stream: trio.abc.Stream,
        table_id: str,
        level: str,
        seat: int | None,
        token: str | None,
        *,
        task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        started = False
        try:
            async with open_session(stream, software=software("host-bot")) as client:
                bot = BotPlayer(
                    client,
                    table_id=table_id,
                    kind=level,
                    stay=True,
                    think=self.config.bot_think,
                    thinkers=self.thinkers,
                )
                if token is None:
                    name = self.lobby.bot_name(table_id)
                    await bot.join(name, seat, bot=HOSTED_BOT_PREFIX + level)
                else:
                    await bot.resume(token)
                assert bot.seat is not None
                task_status.started(bot.seat)
                started = True
                await bot.play()
        except Exception as raised:  # errors arrive wrapped in the client's nursery groups
            if not started:
                raise
            exc = first_leaf(raised)
            gone = (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError)
            if not isinstance(exc, gone):
                log.exception("in-process bot at %s failed", table_id)

    async def respawn_bot(self, table: Table, seat: int) -> None:
        """Reconnect a host-run bot after a restart; never raises (a task of the host's
        nursery: a failure here must not stop the host).

        If its new token cannot be stored (a full disk) the bot stays away and, as for any
        absent seat, the host plays it once the grace period is over; the line logged says so.
        """
        s = table.seats[seat]
        if s is None or s.bot is None:
            return
        try:
            token = await table.reissue_token(seat)
        except (OSError, sqlite3.Error) as exc:
            log.error(
                "table %s: cannot restart the bot in seat %d: storing its token failed (%s); "
                "the host plays the seat after the grace period",
                table.table_id,
                seat,
                exc,
            )
            return
        except Exception:
            log.exception("table %s: cannot restart the bot in seat %d", table.table_id, seat)
            return
        level = s.bot.removeprefix(HOSTED_BOT_PREFIX)
        try:
            await self._spawn_bot(table.table_id, level, seat, token)
        except TableError as exc:
            log.error("cannot restart the bot at %s seat %d: %s", table.table_id, seat, exc)


def _peername(stream: trio.abc.Stream) -> Any:
    """The socket's peer name (``(host, port, ...)`` for TCP), or None."""
    inner: Any = getattr(stream, "transport_stream", stream)
    sock = getattr(inner, "socket", None)
    try:
        return sock.getpeername() if sock is not None else None
    except OSError:
        return None


def _peer_name(stream: trio.abc.Stream) -> str:
    name = _peername(stream)
    return "?" if name is None else str(name)


def _peer_address(stream: trio.abc.Stream) -> str | None:
    """The peer's IP address as text (``"192.0.2.7"``), or None when it has none."""
    name = _peername(stream)
    if isinstance(name, tuple) and name and isinstance(name[0], str):
        return name[0]
    return None


def _capped_address(address: str | None, *, exempt_loopback: bool = True) -> str | None:
    """The key a peer address counts under for the per-address caps (None: not capped):
    :func:`host.server.admission.address_key`."""
    return address_key(address, exempt_loopback=exempt_loopback)


def _key(ticket: Ticket | None) -> str | None:
    return None if ticket is None else ticket.key


def _secure(config: HostConfig, identity: HostIdentity, tcp: Sequence[Any]) -> list[Any]:
    """The listeners bound by :func:`_serve`, with TLS unless the host is ``insecure``."""
    if config.insecure:
        return list(tcp)
    ctx = identity.server_ssl_context()
    return [trio.SSLListener(listener, ctx, https_compatible=False) for listener in tcp]


def _bound(listeners: Sequence[Any]) -> tuple[tuple[str, int], ...]:
    out = []
    for listener in listeners:
        inner = getattr(listener, "transport_listener", listener)
        name = inner.socket.getsockname()
        out.append((str(name[0]), int(name[1])))
    return tuple(out)


def _loopback_only(addresses: Sequence[tuple[str, int]]) -> bool:
    """True when nothing but this machine can reach the host (``--bind 127.0.0.1``, ``::1``)."""

    def loopback(address: str) -> bool:
        try:
            return ipaddress.ip_address(address.split("%", maxsplit=1)[0]).is_loopback
        except ValueError:
            return False

    return bool(addresses) and all(loopback(a) for a, _ in addresses)


async def _advertise(info: HostInfo, name: str) -> None:
    """Hook for LAN discovery: ``net.discover.advertise_host(info, name)`` if it exists."""
    try:
        module = importlib.import_module("net.discover")
    except ImportError:
        return
    advertise = getattr(module, "advertise_host", None)
    if advertise is None:
        return
    try:
        await advertise(info, name)
    except Exception:
        log.exception("LAN advertising failed; the host still serves by address")


async def serve_host(
    config: HostConfig, *, task_status: trio.TaskStatus[HostInfo] = trio.TASK_STATUS_IGNORED
) -> None:
    """Run a host until :meth:`Host.shutdown`; see the module docstring.

    Raises:
        ValueError: the host name is empty, too long or not printable.
        DataDirError: the data directory cannot be held or used (DataDirInUse: another host
            serves from it; DataDirDamaged: a file in it is damaged, see :mod:`host.storage.store`).
        IdentityError: the key files in the data directory are unreadable.
        OSError: the port cannot be bound.
    """
    if not (1 <= len(config.name) <= MAX_NAME_LEN and config.name.isprintable()):
        raise ValueError(f"the host name must be 1-{MAX_NAME_LEN} printable characters")
    with hold_data_dir(config.data_dir):
        await _serve(config, task_status)


async def _serve(config: HostConfig, task_status: trio.TaskStatus[HostInfo]) -> None:
    # the port first: a host that cannot listen leaves no keys or database behind
    tcp = await trio.open_tcp_listeners(config.port, host=config.bind)
    try:
        identity = load_or_create_identity(config.data_dir, name=config.name)
        store = Store(config.data_dir, in_thread=config.store_in_thread)
        await store.open()
    except BaseException:
        for listener in tcp:
            await trio.aclose_forcefully(listener)
        raise
    host: Host | None = None
    try:
        async with open_thinkers(config.thinking) as thinkers, trio.open_nursery() as nursery:
            lobby = Lobby(
                store=store,
                signing_key=identity.signing_key,
                host_name=config.name,
                key_fingerprint=identity.spki_fingerprint,
                turn_timer=config.turn_timer,
                grace=config.grace,
                round_timeout=config.round_timeout,
                nursery=nursery,
                max_tables=config.max_tables,
                cheat=config.cheat,
                bot_limits=config.bot_limits,
            )
            host = Host(config, identity, lobby, thinkers)
            bots = await lobby.restore()
            listeners = _secure(config, identity, tcp)
            addresses = _bound(listeners)
            advertise = config.advertise and not _loopback_only(addresses)
            if config.advertise and not advertise:
                log.info("not advertising on the LAN: bound to a loopback address only")
            info = HostInfo(
                port=addresses[0][1],
                addresses=addresses,
                fingerprint=identity.fingerprint,
                signing_key_fingerprint=key_fingerprint(identity.signing_public_key),
                tls=not config.insecure,
                host=host,
                advertised=advertise,
            )
            accept_scope = trio.CancelScope()

            async def accept() -> None:
                assert host is not None
                with accept_scope:
                    await host._accept_loop(listeners, nursery)

            with trio.move_on_after(RESPAWN_TIMEOUT) as respawning:
                async with trio.open_nursery() as respawns:
                    for table, seat in bots:
                        respawns.start_soon(host.respawn_bot, table, seat)
            if respawning.cancelled_caught:
                log.error(
                    "the host's bots were not all back in %s s; accepting players", RESPAWN_TIMEOUT
                )
            nursery.start_soon(accept)
            nursery.start_soon(store.records.retry_records)
            nursery.start_soon(
                functools.partial(
                    store.records.keep_pruning,
                    keep_days=config.keep_records_days,
                    max_bytes=config.max_records_bytes,
                )
            )
            if advertise:
                nursery.start_soon(_advertise, info, config.name)
            task_status.started(info)
            await host._shutdown.wait()
            accept_scope.cancel()
            for session in list(host.connections):
                session.close_politely(host._closing)
            with trio.move_on_after(SHUTDOWN_GRACE):
                while any(not s.closed for s in host.connections if s.peer != "in-process bot"):
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await store.close()
        if host is not None:
            host.stopped.set()
