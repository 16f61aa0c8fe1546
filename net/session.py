"""The protocol client library: handshake, requests by ``id``, pushes, heartbeat.

One client serves every program that talks to a host: the terminal and JSON clients and the bots
(``host.bots.bots`` plays through it, over TCP/TLS or an in-process socket pair).

How it works: :func:`open_session` takes an open stream (from :func:`net.trust.open_stream`,
which has already checked the host's pin, or an in-process pair), sends ``hello``,
waits ``WELCOME_TIMEOUT`` for ``welcome`` and then runs two tasks while the caller uses the
:class:`ClientSession`:

* the *reader* feeds bytes to the sans-I/O :class:`protocol.connection.Connection`; a message
  whose ``re`` matches a pending request wakes that request (multi-part ``record_part`` replies
  are collected until the last part; ``joined``/``resumed`` also go to the pushes, since a table
  loop needs them); ``ping`` is answered at once; everything else is a *push* and goes into
  :attr:`ClientSession.pushes` (:class:`PushQueue`). While no request waits for its reply, a
  consumer that stops reading slows the reader down at ``PUSH_QUEUE`` unread pushes instead of
  growing memory; while one waits, the reader reads on (the reply may be behind the pushes:
  after ``ready``, section 2.4), up to ``PUSH_FLOOD`` unread pushes or ``PUSH_FLOOD_BYTES`` of
  memory held by those past ``PUSH_QUEUE`` (:func:`weight`: a decoded push takes 3 to 50 times
  its size on the wire), past which the host is flooding and the session ends with that
  reason. A message of a type we do
  not know (a newer host) or with a bad field is answered with a non-fatal ``error`` and skipped
  (PROTOCOL.md section 1). Our pings get pongs, so a host silent for ``IDLE_TIMEOUT_S`` is
  taken for gone. With ``keep`` every received message is also kept in ``session.received``;
* the *heartbeat* sends ``ping`` every ``HEARTBEAT_INTERVAL_S`` seconds.

When the stream ends (EOF, silence, a protocol error, a fatal ``error``, ``bye`` or
``server_closing``) the push channel closes; ``session.closed_reason`` says why and
``session.retry_after`` is set by ``server_closing``. Requests pending at that moment, and any
later send, raise :class:`Disconnected` (a :class:`trio.BrokenResourceError`, so code written
against plain trio streams sees a broken connection). A refused request raises
:class:`RequestError`; no reply within ``REPLY_TIMEOUT`` raises :class:`trio.TooSlowError`.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import math
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import TypeVar

import trio

import protocol.table_messages as tm
from net.retry import RATE_LIMITED
from protocol.connection import PROTOCOL_NAME, SUPPORTED_VERSIONS, Connection, Role, State
from protocol.errors import ErrorCode, ProtocolError, RemoteProtocolError
from protocol.framing import NEED_DATA
from protocol.hand_records import MAX_RECORD_BYTES
from protocol.limits import HEARTBEAT_INTERVAL_S, IDLE_TIMEOUT_S, RECEIVE_CHUNK_BYTES
from protocol.messages import Bye, Error, Hello, Message, Ping, ServerClosing, Welcome
from protocol.text import safe_text
from protocol.version import software

__all__ = [
    "PUSH_FLOOD",
    "PUSH_FLOOD_BYTES",
    "PUSH_QUEUE",
    "REPLY_TIMEOUT",
    "SOFTWARE",
    "WELCOME_TIMEOUT",
    "ClientSession",
    "Disconnected",
    "PushQueue",
    "RequestError",
    "expect_reply",
    "first_leaf",
    "leaves",
    "open_session",
    "weight",
]

log = logging.getLogger(__name__)

R = TypeVar("R", bound=Message)

SOFTWARE = software("cli")
#: seconds to wait for the reply to a request
REPLY_TIMEOUT = 30.0
#: seconds to wait for ``welcome`` after ``hello``
WELCOME_TIMEOUT = 15.0
#: unread pushes at which the reader waits for the consumer (while no request waits)
PUSH_QUEUE = 512
#: unread pushes past which the host is taken for flooding (a reply awaited behind them)
PUSH_FLOOD = 50_000
#: bytes of memory (:func:`weight`) held by the unread pushes past ``PUSH_QUEUE`` beyond which
#: the host is taken for flooding
PUSH_FLOOD_BYTES = 64 * 1024 * 1024


class RequestError(Exception):
    """The host answered a request with ``error``; ``str()`` ends with the code in parentheses."""

    def __init__(self, error: Error) -> None:
        super().__init__(f"{error.message} ({error.code.value})")
        self.error = error
        self.code = error.code


class Disconnected(trio.BrokenResourceError):
    """The connection ended while a request waited for its reply (or before ``welcome``)."""


def weight(msg: Message) -> int:
    """The bytes of memory a decoded message holds, estimated (``sys.getsizeof`` of it and of
    every container, key and value in its fields): what a flood of pushes costs, 3 to 50 times
    its size on the wire (a thousand one-key maps in 4 kB take 200 kB).

    >>> from protocol.messages import Pong
    >>> 50 < weight(Pong()) < 1000
    True
    """
    return sys.getsizeof(msg) + sum(_held(getattr(msg, f.name)) for f in dataclasses.fields(msg))


def _held(value: object) -> int:
    total = sys.getsizeof(value)
    if isinstance(value, dict):
        for key, item in value.items():
            total += _held(key) + _held(item)
    elif isinstance(value, list | tuple):
        for item in value:
            total += _held(item)
    return total


class PushQueue(trio.abc.ReceiveChannel[Message]):
    """The pushes received and not read yet, in order, with their count and the memory they
    hold (as the reader weighed them: :func:`weight`; a push it did not weigh counts 0).

    The reader puts them in without waiting (:meth:`put`) and decides itself when to wait for
    room (:meth:`wait_room`); the consumer reads them like any trio channel (``async for``).
    When the session ends the pushes already in are still read, then the channel ends.
    """

    def __init__(self) -> None:
        self._send, self._receive = trio.open_memory_channel[tuple[Message, int]](math.inf)
        self.count = 0  #: pushes not read yet
        self.bytes = 0  #: the memory they hold, as weighed
        #: pushes put in since the session began (the ``n``-th push received is number ``n``)
        self.put_total = 0
        #: pushes read since the session began: while the consumer handles a push, its number
        self.taken_total = 0
        self._room = trio.Event()

    def put(self, msg: Message, size: int = 0) -> None:
        """Add one push (holding ``size`` bytes of memory).

        Raises:
            trio.ClosedResourceError: the session has ended.
        """
        self._send.send_nowait((msg, size))
        self.count += 1
        self.put_total += 1
        self.bytes += size

    def close(self) -> None:
        """No more pushes: the consumer reads those in, then the channel ends."""
        self._send.close()
        self.wake()

    def wake(self) -> None:
        """Wake a reader waiting for room (the consumer read, or a request started waiting)."""
        self._room.set()

    async def wait_room(self) -> None:
        """Wait for the next :meth:`wake`."""
        if self._room.is_set():
            self._room = trio.Event()
        await self._room.wait()

    async def receive(self) -> Message:
        msg, size = await self._receive.receive()
        self.count -= 1
        self.taken_total += 1
        self.bytes -= size
        if self.count < PUSH_QUEUE:
            self.wake()
        return msg

    async def aclose(self) -> None:
        await self._receive.aclose()


@dataclass(slots=True)
class _Waiter:
    """A pending request: woken by its (last) reply, or by the connection ending."""

    event: trio.Event
    replies: list[Message]
    #: the whole reply arrived (every part of a multi-part one)
    done: bool = False
    #: UTF-8 bytes of ``record_part`` text collected so far (bounded by MAX_RECORD_BYTES)
    size: int = 0
    #: the pushes the host sent before the (last) reply (:attr:`PushQueue.put_total` then)
    pushes_before: int = 0


class ClientSession:
    """One connection to a host, after the handshake. Use :func:`open_session`.

    Pushes queue in :attr:`pushes`; keep a task draining them: while no request waits, the
    reader stops at ``PUSH_QUEUE`` unread pushes (a request still gets its reply: the reader
    reads on while one waits, up to ``PUSH_FLOOD``).
    """

    def __init__(
        self, stream: trio.abc.Stream, *, software: str = SOFTWARE, keep: bool = False
    ) -> None:
        self.stream = stream
        self.software = software
        self.proto = Connection(role=Role.CLIENT)
        self.welcome: Welcome | None = None
        #: every message received, in order (only with ``keep``; tests and audits use it)
        self.received: list[Message] | None = [] if keep else None
        self._ids = itertools.count(1)
        self._waiters: dict[int, _Waiter] = {}
        self._send_lock = trio.Lock()
        self.pushes = PushQueue()
        self.closed = trio.Event()
        #: why the connection ended, for humans (set when ``closed`` is)
        self.closed_reason = ""
        #: seconds after which the host said reconnecting may work (``server_closing``)
        self.retry_after: int | None = None
        #: True when the host ended the session on purpose (bye, server_closing, fatal error)
        self.ended_by_host = False

    async def send(self, msg: Message) -> None:
        """Send one message (no reply expected).

        Raises:
            Disconnected: the connection is closed or broke while sending.
        """
        try:
            async with self._send_lock:
                # checked under the lock, with no wait before proto.send: while we waited for
                # another sender, the reader may have taken a closing message (bye,
                # server_closing, a fatal error) without marking the session closed yet
                if self.proto.state in (State.CLOSED, State.ERROR):
                    self._close(self.closed_reason or "the host closed the connection")
                if self.closed.is_set():
                    raise Disconnected(self.closed_reason or "the connection is closed")
                await self.stream.send_all(self.proto.send(msg))
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            self._close(f"the connection broke ({exc})" if str(exc) else "the connection broke")
            raise Disconnected(self.closed_reason) from None

    async def request(
        self, msg: Message, *, timeout: float = REPLY_TIMEOUT, resend: bool = True
    ) -> Message:
        """Send ``msg`` with a fresh ``id`` and return its reply.

        Raises:
            RequestError: the host answered ``error``.
            Disconnected: the connection ended first.
            trio.TooSlowError: no reply within ``timeout`` seconds.
        """
        return (await self._request(msg, timeout=timeout, resend=resend)).replies[0]

    async def request_ordered(
        self, msg: Message, *, timeout: float = REPLY_TIMEOUT, resend: bool = True
    ) -> tuple[Message, int]:
        """Like :meth:`request`, with the number of pushes the host sent before its reply: a
        push whose number (:attr:`PushQueue.taken_total` while it is handled) is at most that
        was sent before the host acted on ``msg`` (an ``ack`` comes before the move's
        messages, so a ``state`` that came before it does not show the move yet)."""
        waiter = await self._request(msg, timeout=timeout, resend=resend)
        return waiter.replies[0], waiter.pushes_before

    async def request_all(
        self, msg: Message, *, timeout: float = REPLY_TIMEOUT, resend: bool = True
    ) -> list[Message]:
        """Like :meth:`request`, returning every part of a multi-part (``record_part``) reply."""
        return (await self._request(msg, timeout=timeout, resend=resend)).replies

    async def _request(self, msg: Message, *, timeout: float, resend: bool) -> _Waiter:
        """Send ``msg`` and wait for its whole reply (see :meth:`request_all`).

        With ``resend``, a request the host refuses as ``rate_limited`` ("slow down": it was
        dropped unread) is sent again, unchanged but for its ``id``, after each pause of
        :data:`net.retry.RATE_LIMITED`; the last refusal is raised. ``timeout`` applies to each
        attempt. (Chat passes ``resend=False``: a line over the chat limit is the user's to
        send again, not ours to deliver late.)
        """
        for pause in RATE_LIMITED.pauses() if resend else ():
            try:
                return await self._request_once(msg, timeout=timeout)
            except RequestError as exc:
                if exc.code is not ErrorCode.RATE_LIMITED:
                    raise
            await trio.sleep(pause)
        return await self._request_once(msg, timeout=timeout)  # the last try: its refusal goes up

    async def _request_once(self, msg: Message, *, timeout: float) -> _Waiter:
        mid = next(self._ids)
        waiter = _Waiter(trio.Event(), [])
        self._waiters[mid] = waiter
        self.pushes.wake()  # a reader held by unread pushes reads on: our reply may be behind
        try:
            fields = {f.name: getattr(msg, f.name) for f in dataclasses.fields(msg)}
            await self.send(type(msg)(**{**fields, "id": mid}))
            with trio.fail_after(timeout):
                await waiter.event.wait()
        finally:
            self._waiters.pop(mid, None)
        if not waiter.done:
            raise Disconnected(self.closed_reason or "the connection ended")
        first = waiter.replies[0]
        if isinstance(first, Error):
            raise RequestError(first)
        return waiter

    async def bye(self, reason: str = "") -> None:
        """End the session politely (best effort) and close the stream."""
        if not self.closed.is_set():
            with trio.move_on_after(2):
                with suppress(Disconnected):
                    await self.send(Bye(reason=reason))
        self._close(reason or "closed by us")
        await trio.aclose_forcefully(self.stream)

    def _close(self, reason: str) -> None:
        if not self.closed.is_set():
            log.debug("connection ended: %s", safe_text(reason))  # it may quote the host
            self.closed_reason = reason
            self.closed.set()
            self.pushes.close()
            for waiter in self._waiters.values():
                waiter.event.set()

    async def _reader(self) -> None:
        try:
            while True:
                try:
                    msg = self.proto.next_message()
                except RemoteProtocolError as exc:
                    if self.proto.state is not State.OPEN:
                        raise
                    await self._skipped(exc)
                    continue
                if msg is NEED_DATA:
                    # our pings get pongs, so a host silent this long is a dead one
                    with trio.fail_after(IDLE_TIMEOUT_S):
                        data = await self.stream.receive_some(RECEIVE_CHUNK_BYTES)
                    if not data:
                        self._close("the host closed the connection")
                        return
                    self.proto.receive_data(bytes(data))
                    continue
                assert isinstance(msg, Message)
                if self.received is not None:
                    self.received.append(msg)
                if isinstance(msg, Ping):
                    await self.send(msg.response())
                    continue
                if await self._deliver(msg):
                    return
        except trio.TooSlowError:
            self._close(f"the host sent nothing for {IDLE_TIMEOUT_S} seconds")
        except ProtocolError as exc:
            self._close(f"protocol error: {exc.message}")
        except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
            self._close(f"the connection broke ({exc})" if str(exc) else "the connection broke")
        finally:
            self._close("the connection ended")

    async def _skipped(self, exc: RemoteProtocolError) -> None:
        """Answer a message skipped for an unknown type or a bad field (PROTOCOL.md section 1:
        a newer host may send types we do not know) with a non-fatal ``error``, and read on."""
        log.debug("skipped a message from the host: %s", safe_text(exc.message))
        with suppress(Disconnected):
            await self.send(self.proto.error_reply(exc))

    async def _deliver(self, msg: Message) -> bool:
        """Route one message; True when it ends the session."""
        waiter = self._waiters.get(msg.re) if isinstance(msg.re, int) else None
        answered = waiter is not None and not waiter.done
        if waiter is not None and answered:
            waiter.replies.append(msg)
            if not isinstance(msg, tm.RecordPart) or self._last_part(waiter, msg):
                waiter.done = True
                waiter.pushes_before = self.pushes.put_total
                waiter.event.set()
        if isinstance(msg, ServerClosing):
            self.retry_after = msg.retry_after
            self.ended_by_host = True
            self._close(_said("the host is shutting down", msg.reason))
            return True
        if isinstance(msg, Bye):
            self.ended_by_host = True
            self._close(_said("the host said goodbye", msg.reason))
            return True
        if isinstance(msg, Error) and msg.fatal:
            self.ended_by_host = True
            self._close(f"the host ended the connection: {msg.message} ({msg.code.value})")
            return True
        if answered and not isinstance(msg, tm.Joined | tm.Resumed):
            return False  # a reply; joined and resumed also go to the table loop
        try:
            # weighed only past PUSH_QUEUE (the flood path: it costs half a decode)
            self.pushes.put(msg, weight(msg) if self.pushes.count >= PUSH_QUEUE else 0)
        except trio.ClosedResourceError:
            return True
        if self.pushes.count > PUSH_FLOOD or self.pushes.bytes > PUSH_FLOOD_BYTES:
            self._close(
                f"the host sent more than {PUSH_FLOOD:,} messages or {PUSH_FLOOD_BYTES >> 20} MiB "
                "of them before its reply: a flood, disconnecting"
            )
            return True
        while (
            self.pushes.count >= PUSH_QUEUE
            and not self._awaiting_reply()
            and not self.closed.is_set()
        ):
            await self.pushes.wait_room()  # the consumer reads, or a request starts waiting
        return False

    def _awaiting_reply(self) -> bool:
        return any(not waiter.done for waiter in self._waiters.values())

    @staticmethod
    def _last_part(waiter: _Waiter, msg: tm.RecordPart) -> bool:
        """Whether ``msg`` ends a multi-part reply: the last part, or one out of line.

        A part that is not the next in order, changes the part count or takes the reply past
        :data:`~protocol.hand_records.MAX_RECORD_BYTES` ends the collection at once (the caller
        finds the reply incomplete), so a host cannot make the client hoard parts without bound.
        """
        waiter.size += len(msg.text.encode("utf-8", "surrogatepass"))
        first = waiter.replies[0]
        in_line = (
            isinstance(first, tm.RecordPart)
            and msg.part == len(waiter.replies) - 1
            and msg.parts == first.parts
            and waiter.size <= MAX_RECORD_BYTES
        )
        return not in_line or msg.part + 1 >= msg.parts

    async def _heartbeat(self) -> None:
        while not self.closed.is_set():
            await trio.sleep(HEARTBEAT_INTERVAL_S)
            try:
                await self.send(Ping(id=next(self._ids)))
            except Disconnected:
                return


@asynccontextmanager
async def open_session(
    stream: trio.abc.Stream, *, software: str = SOFTWARE, keep: bool = False
) -> AsyncIterator[ClientSession]:
    """Handshake over ``stream``; run the reader and heartbeat while the block runs.

    ``software`` is sent in ``hello``; ``keep`` keeps every received message in
    ``session.received``. The stream is closed when the block ends, however it ends.

    Raises:
        Disconnected: the host closed, refused or stayed silent before ``welcome``.
    """
    session = ClientSession(stream, software=software, keep=keep)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(session._reader)
            try:
                await session.send(
                    Hello(protocol=PROTOCOL_NAME, versions=SUPPORTED_VERSIONS, software=software)
                )
                with trio.fail_after(WELCOME_TIMEOUT):
                    first = await session.pushes.receive()
            except (trio.EndOfChannel, trio.TooSlowError, Disconnected):
                await _shut(session, nursery, "no welcome from the host")
                raise Disconnected(session.closed_reason) from None
            if isinstance(first, Error) or not isinstance(first, Welcome):
                what = first.message if isinstance(first, Error) else f"a {first.TYPE!r}"
                await _shut(session, nursery, f"the host refused the handshake: {what}")
                raise Disconnected(f"the host refused the handshake: {what}")
            session.welcome = first
            nursery.start_soon(session._heartbeat)
            try:
                yield session
            finally:
                await _shut(session, nursery, "closed by us")
    except BaseExceptionGroup as group:
        # the nursery wraps whatever escapes it; hand a lone error on as itself
        inner = [e for e in leaves(group) if not isinstance(e, trio.Cancelled)]
        if len(inner) == 1:
            raise inner[0] from None
        raise


async def _shut(session: ClientSession, nursery: trio.Nursery, reason: str) -> None:
    """Close the session and its stream, then stop its tasks.

    The stream is closed first, shielded: awaiting after cancelling our own nursery would replace
    an error on its way out (the body's, or our Disconnected) with Cancelled, which the nursery
    then swallows.
    """
    session._close(session.closed_reason or reason)
    with trio.CancelScope(shield=True):
        await trio.aclose_forcefully(session.stream)
    nursery.cancel_scope.cancel()


def expect_reply(reply: Message, kind: type[R]) -> R:
    """``reply`` when it is a ``kind`` message; a host that answers a request with another
    type breaks the protocol (a clear error instead of an assertion deep in a client)."""
    if not isinstance(reply, kind):
        raise RemoteProtocolError(
            f"the host answered with {reply.TYPE!r} where {kind.TYPE!r} belongs",
            code=ErrorCode.BAD_STATE,
        )
    return reply


def _said(what: str, reason: str) -> str:
    """``what: reason``, or ``what`` alone when the host's reason is empty or says the same.

    >>> _said("the host is shutting down", "the host is shutting down")
    'the host is shutting down'
    >>> _said("the host is shutting down", "maintenance")
    'the host is shutting down: maintenance'
    """
    if not reason.strip() or reason.strip().lower() == what.lower():
        return what
    return f"{what}: {reason}"


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside ``exc``, exception groups flattened (trio nurseries wrap them)."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in leaves(sub)]
    return [exc]


def first_leaf(exc: BaseException) -> BaseException:
    """The first non-group exception inside (nested) exception groups, else ``exc``."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
