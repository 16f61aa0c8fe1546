"""One client connection on the host: handshake, reader, bounded writer, dispatch.

How it works (after trio-websocket's ``_handle_connection``): :meth:`ClientConnection.run` owns a
nursery holding the writer task; the reader runs in the handler's own task.

* Handshake: the first frame must be ``hello`` within ``HANDSHAKE_TIMEOUT_S``; the host answers
  ``welcome`` (version, name, TLS fingerprint, limits).
* Reader: each message must be complete within ``IDLE_TIMEOUT_S`` of the previous one (clients
  ``ping`` every ``HEARTBEAT_INTERVAL_S``; a frame dribbled a byte at a time does not keep the
  connection alive), bytes go through the sans-I/O :class:`protocol.connection.Connection`;
  each message passes a token-bucket rate limit (chat has its own, stricter one; a seat's
  commit and reveal may draw on a small reserve when it is spent) and is dispatched through a
  ``{type: handler}`` table. Cost comes before work: a request frame is at most
  ``MAX_REQUEST_BYTES`` (the header is checked before the body is read), decoding a frame is
  charged to the same bucket by the CPU it took (``CPU_SECONDS_PER_TOKEN``), and a connection
  in debt is not read again until it has paid, so no client can take more than a small share
  of the host's CPU however heavy its frames. Requests get exactly one reply with ``re``.
  While the outgoing queue is half full the reader waits for the writer (``READER_PAUSE_AT``):
  a burst of requests in one read is answered as fast as the client reads, and cannot fill
  the queue itself.
* Writer: everything sent to the client, replies and table pushes alike, goes through one
  bounded memory channel of message *batches* (``OUTGOING_QUEUE`` batches). Tables queue with
  ``send_nowait``; a client that stops reading fills the queue and is disconnected (it can
  resume), never buffered without bound: there is no room left to tell it why, so the spec
  (section 2.8) says so instead. Each write has its own ``SEND_TIMEOUT``.
* Errors: a recoverable error (unknown type, bad field, illegal move, rate limit) is answered
  with a non-fatal ``error`` and the connection goes on, and so is a handler's unexpected
  exception (a host bug), as ``internal``; a broken stream or a fatal error closes
  the connection after a last ``error``. Whatever happens, ``finally`` tells the tables the
  connection went away (synchronously, without waiting for a table's lock, so a seat never
  keeps pointing at a dead connection) and closes the stream.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import trio

import protocol.mask_messages as mm
import protocol.table_messages as tm
from host.failures import failure
from host.games.base import RulesError, WireMap
from host.logs import get_logger
from host.ratelimit import RateLimits, TokenBucket
from host.table.seating import spectator_name
from protocol.connection import Connection, Role, State
from protocol.errors import ErrorCode, LocalProtocolError, ProtocolError, RemoteProtocolError
from protocol.framing import NEED_DATA
from protocol.limits import (
    HANDSHAKE_TIMEOUT_S,
    IDLE_TIMEOUT_S,
    MAX_TEXT_LEN,
    RECEIVE_CHUNK_BYTES,
    wire_limits,
)
from protocol.messages import Error, Hello, Message, Ping, ServerClosing, Welcome
from protocol.version import software

if TYPE_CHECKING:
    from host.server.lobby import Lobby
    from host.table.table import Table

__all__ = ["OUTGOING_QUEUE", "SEND_TIMEOUT", "Admit", "ClientConnection", "TokenBucket"]

log = get_logger(__name__)  # what a peer sent is shown escaped (host.logs)

#: batches of outgoing messages queued per connection before it counts as not reading
OUTGOING_QUEUE = 64
#: queued batches at which the reader waits for the writer before taking the next request
READER_PAUSE_AT = OUTGOING_QUEUE // 2
#: seconds one write to the client may take
SEND_TIMEOUT = 20.0
#: messages the writer gathers from its queue into one socket write at most
COALESCE_MAX_MESSAGES = 256
#: seconds the writer gets to flush a last message (error, server_closing) before closing
CLOSE_FLUSH_TIMEOUT = 2.0
#: seconds of host CPU that decoding a connection's frames may cost per token of its rate
#: limit: a frame is charged one token per millisecond it took to decode, on top of its one
#: token as a message, so a connection sending the costliest frames the limits allow gets
#: about ``RateLimits.per_second`` ms of the host's CPU a second, not a whole core
CPU_SECONDS_PER_TOKEN = 0.001
#: seconds of decoding per frame that are not charged: an ordinary request takes far less
CPU_FREE_SECONDS = 0.0005
SOFTWARE = software("host")
#: check every message the host sends against its schema, as if a peer had sent it (the test
#: suite sets ``ONECARD_CHECK_SENT=1``); off, what the host built is only packed
CHECK_SENT = os.environ.get("ONECARD_CHECK_SENT") == "1"
#: requests a seat's fair-deal duties need: a rate-limited connection may still send them
_FAIR = (
    tm.FairCommit,
    tm.FairReveal,
    mm.MaskCommit,
    mm.MaskPass,
    mm.SealedKeys,
    mm.OpenKeys,
    mm.ShowHand,
    mm.MaskReveal,
)
_MaskRequest = (
    mm.MaskCommit | mm.MaskPass | mm.SealedKeys | mm.OpenKeys | mm.ShowHand | mm.MaskReveal
)

#: ``admit(conn, resuming)``: take a slot after the handshake (False: none; host.server.admission)
Admit = Callable[["ClientConnection", bool], bool]


def _closing_reason(msg: WireMap) -> str:
    """How the log words a connection the host closed after sending ``msg``.

    >>> _closing_reason({"type": "server_closing", "reason": "the host is shutting down"})
    'the host is shutting down'
    >>> _closing_reason({"type": "error", "code": "conflict", "message": "seat resumed"})
    'conflict: seat resumed'
    """
    if msg.get("type") == "error":
        return f"{msg.get('code')}: {msg.get('message')}"
    return str(msg.get("reason") or msg.get("type") or "closed by the host")


class _Close(Exception):
    """Internal: end the connection after sending ``msg`` (if any)."""

    def __init__(self, msg: WireMap | None, reason: str = "") -> None:
        super().__init__("close")
        self.msg = msg
        if not reason and msg is not None:  # an error sent as the last word
            reason = f"{msg.get('code')}: {msg.get('message')}"
        self.reason = reason or "closed"


class ClientConnection:
    """A connected client. Implements :class:`host.table.seating.Conn`."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        lobby: Lobby,
        *,
        peer: str = "?",
        trusted: bool = False,
        admit: Admit | None = None,
        address_key: str | None = None,
        limits: RateLimits | None = None,
    ) -> None:
        self.stream = stream
        self.trusted = trusted  # in-process bots: no rate limit
        #: takes a connection slot once the handshake is over (None: none needed)
        self._admit = admit
        #: the peer's address key for the per-address caps (host.server.admission), None: not capped
        self.address_key = address_key
        self.lobby = lobby
        self.peer = peer
        self.proto = Connection(role=Role.HOST, validate_sent=CHECK_SENT)
        # batches of wire maps, encoded by the writer; bytes are a message encoded already
        send, receive = trio.open_memory_channel[list[WireMap | bytes]](OUTGOING_QUEUE)
        self._send = send
        self._receive = receive
        self._backlog: list[WireMap] = []
        self.tables: dict[str, Table] = {}
        #: what this connection may send (HostConfig.rate_limits; None: the defaults)
        self.limits = limits or RateLimits()
        self._rate = TokenBucket(self.limits.per_second, self.limits.burst)
        self._fair_reserve = TokenBucket(
            self.limits.fair_reserve_per_second, self.limits.fair_reserve_burst
        )
        self._mask_reserve = TokenBucket(
            self.limits.mask_reserve_per_second, self.limits.mask_reserve_burst
        )
        self._chat_rate = TokenBucket(self.limits.chat_per_second, self.limits.chat_burst)
        self._strikes = 0
        self._cancel = trio.CancelScope()
        self._writer_done = trio.Event()
        self._wrote = trio.Event()  # set (and replaced) after every write
        self._closing = False
        self._closing_reason = ""
        self.closed = False

    # ------------------------------------------------------------------ Conn

    def deliver(self, msgs: list[WireMap]) -> bool:
        """Queue a batch without blocking; a full queue disconnects this client."""
        if self.closed:
            return False
        batch: list[WireMap | bytes] = [*msgs]
        try:
            self._send.send_nowait(batch)
        except trio.WouldBlock:
            log.info("%s: not reading; disconnecting", self.peer)
            self.closed = True
            self._cancel.cancel()
            return False
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        return True

    def deliver_backlog(self, msgs: list[WireMap]) -> None:
        """Missed messages, sent before anything queued after this call."""
        self._backlog.extend(msgs)
        self.deliver([])  # wake the writer

    def close_politely(self, msg: WireMap) -> None:
        """Send ``msg`` (e.g. ``server_closing``) as the last message, then close."""
        self._closing = True
        self._closing_reason = _closing_reason(msg)
        if self.deliver([msg]):
            self._send.close()

    # ------------------------------------------------------------------ tasks

    async def run(self) -> None:
        """Serve the connection until it ends; never raises for anything the client does."""
        log.info("%s: connection opened", self.peer)
        reason = "closed by the host"
        try:
            with self._cancel:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._writer)
                    try:
                        await self._reader()
                    except _Close as close:
                        reason = close.reason
                        if close.msg is not None:
                            self.deliver([close.msg])
                    except (trio.BrokenResourceError, trio.ClosedResourceError):
                        reason = "the connection broke"
                    except trio.TooSlowError:
                        reason = "silent for too long"
                        self.deliver([self._error(ErrorCode.TIMEOUT, "silent for too long")])
                    finally:
                        self._send.close()
                    # let the writer flush the last messages, then stop it
                    with trio.move_on_after(CLOSE_FLUSH_TIMEOUT):
                        await self._writer_done.wait()
                    nursery.cancel_scope.cancel()
        finally:
            if self._closing:
                reason = self._closing_reason
            log.info("%s: connection closed (%s)", self.peer, reason)
            self.closed = True
            # at once, never waiting for a busy table's lock; every table, not only
            # self.tables, which a resume still in progress has not updated yet
            self.lobby.detach(self)
            for table in self.tables.values():  # one the lobby dropped keeps no seat on us
                table.detach(self)
            self.tables.clear()  # a cycle less: the connection is freed as soon as it ends
            await trio.aclose_forcefully(self.stream)

    async def _writer(self) -> None:
        try:
            async for queued in self._receive:
                batch = [*self._backlog, *queued]
                self._backlog = []
                # every batch queued meanwhile goes out in the same write: one system call
                # for a burst of table changes instead of one each
                while len(batch) < COALESCE_MAX_MESSAGES:
                    try:
                        batch.extend(self._receive.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                data = bytearray()
                for item in batch:
                    data += item if isinstance(item, bytes) else self._encode(item)
                if data:
                    with trio.fail_after(SEND_TIMEOUT):
                        await self.stream.send_all(bytes(data))
                wrote, self._wrote = self._wrote, trio.Event()
                wrote.set()
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError):
            self.closed = True
            self._cancel.cancel()
        finally:
            self._writer_done.set()
            if self._closing:  # the last message is out: end the connection
                self._cancel.cancel()

    def _encode(self, item: WireMap) -> bytes:
        try:
            return self.proto.send_map(item)
        except LocalProtocolError as exc:
            if self.proto.state in (State.CLOSED, State.ERROR):
                # the peer broke the protocol (or the connection closed): what was still
                # queued for it cannot go out. Its doing, not the host's: not an error here
                log.info(
                    "%s: not sent after the connection failed: %s", self.peer, item.get("type")
                )
            else:  # the host built a message it may not send: a bug
                log.error("%s: cannot send %s: %s", self.peer, item.get("type"), exc)
            return b""

    async def _reader(self) -> None:
        with trio.fail_after(HANDSHAKE_TIMEOUT_S):
            hello = await self._next_message()
        if not isinstance(hello, Hello):  # the state machine makes this unreachable
            raise _Close(self._error(ErrorCode.BAD_STATE, "hello first"))
        assert self.proto.version is not None
        welcome = Welcome(
            re=hello.id,
            version=self.proto.version,
            host_name=self.lobby.host_name,
            software=SOFTWARE,
            fingerprint=self.lobby.key_fingerprint,
            limits=wire_limits(),
        )
        # encoded here, not by the writer: the state machine must pass welcome (to OPEN) before
        # the reader takes the next message, even one the client sent right behind its hello
        self._send.send_nowait([self.proto.send(welcome)])
        if self._admit is not None and not self._admit(self, False):
            await self._provisional()
        while True:
            msg = await self._next_message()
            await self._room_to_answer()
            if self._within_rate(exempt=self.trusted, message=msg):
                await self._dispatch(msg)
            else:
                self.deliver([self._error(ErrorCode.RATE_LIMITED, "slow down", re=msg.id)])
                await self._pace()

    async def _provisional(self) -> None:
        """The host is full: only a ``resume`` of a seat gets this connection a slot (the host
        makes room for it, host.server.admission); anything else is answered with a fatal
        ``full``."""
        assert self._admit is not None
        with trio.fail_after(HANDSHAKE_TIMEOUT_S):
            msg = await self._next_message()
        resume = isinstance(msg, tm.Resume) and self.lobby.holds_token(msg.token)
        if resume and self._admit(self, True):
            await self._dispatch(msg)
            return
        raise _Close(
            self.full_error(
                "the host is full (only a player resuming a seat gets in now); retry later",
                re=msg.id,
            )
        )

    def full_error(self, text: str, *, re: Any = None) -> WireMap:
        """The fatal ``full`` error that closes a connection the host has no slot for."""
        return self._error(ErrorCode.FULL, text, re=re, fatal=True)

    def _at_a_private_table(self) -> bool:
        """Whether this connection holds a seat at a private table (whose masking requests
        may draw on the larger reserve)."""
        return any(t.private and t.seat_of(self) is not None for t in self.tables.values())

    def holds_a_seat(self) -> bool:
        """Whether this connection holds a seat at any table (admission keeps those)."""
        return any(t.seat_of(self) is not None for t in self.tables.values())

    async def _room_to_answer(self) -> None:
        """Wait while the outgoing queue is half full (``READER_PAUSE_AT``): backpressure, so a
        burst of messages in one read is answered as fast as the client reads the answers."""
        while self._send.statistics().current_buffer_used >= READER_PAUSE_AT:
            await self._wrote.wait()

    def _within_rate(self, *, exempt: bool, message: Message | None = None) -> bool:
        """Take a token from the rate limit, or for a fair-deal ``message`` past it from a
        reserve (a masking request of a seat at a private table from the larger one); False
        when over them all (after ``limits.max_strikes`` refusals in a row the connection is
        closed as flooding). A message a reserve serves neither counts as a refusal nor ends
        a run of them, so a flood cannot keep itself open with a fair message now and then."""
        if exempt or self._rate.take():
            self._strikes = 0
            return True
        masking = isinstance(message, _MaskRequest) and self._at_a_private_table()
        reserve = self._mask_reserve if masking else self._fair_reserve
        if isinstance(message, _FAIR) and reserve.take():
            return True
        self._strikes += 1
        if self._strikes > self.limits.max_strikes:
            raise _Close(self._error(ErrorCode.RATE_LIMITED, "flooding", fatal=True))
        return False

    async def _next_message(self) -> Message:
        """The next message from the peer; recoverable errors are answered and skipped.

        It must be complete within ``IDLE_TIMEOUT_S``, however its bytes trickle in.
        """
        deadline = trio.current_time() + IDLE_TIMEOUT_S
        while True:
            if not self.trusted:  # a connection in CPU debt is not read until it has paid
                pause = self._rate.debt_seconds()
                if pause > 0:
                    await trio.sleep(pause)
                    deadline = max(deadline, trio.current_time() + IDLE_TIMEOUT_S)
            started = time.perf_counter()
            try:
                msg = self.proto.next_message()
            except RemoteProtocolError as exc:
                self._charge_cpu(started)
                reply = self.proto.error_reply(exc).to_wire()
                if reply.get("fatal"):
                    raise _Close(reply) from None
                # a skipped message (unknown type, bad field) is a message like any other: it
                # waits for room and counts against the rate limit
                await self._room_to_answer()
                refused = not self._within_rate(exempt=self.trusted)
                if refused:
                    reply = self._error(ErrorCode.RATE_LIMITED, "slow down", re=reply.get("re"))
                self.deliver([reply])
                if refused:
                    await self._pace()
                continue
            self._charge_cpu(started)
            if msg is not NEED_DATA:
                assert isinstance(msg, Message)
                return msg
            with trio.fail_at(deadline):
                data = await self.stream.receive_some(RECEIVE_CHUNK_BYTES)
            if not data:
                raise _Close(None, "the client hung up")
            try:
                self.proto.receive_data(bytes(data))
            except RemoteProtocolError as exc:
                raise _Close(self.proto.error_reply(exc).to_wire()) from None

    async def _pace(self) -> None:
        """After refusing a message for the rate limit, read nothing for the time one token
        takes to come back: a flood is answered (and decoded) at the rate, never faster, so
        refusing it costs the host no more than serving an honest client would."""
        await trio.sleep(1.0 / self.limits.per_second)

    def _charge_cpu(self, started: float) -> None:
        """Charge the rate limit for the CPU decoding a frame took (``CPU_SECONDS_PER_TOKEN``)."""
        spent = time.perf_counter() - started - CPU_FREE_SECONDS
        if spent > 0 and not self.trusted:
            self._rate.charge(spent / CPU_SECONDS_PER_TOKEN)

    async def _dispatch(self, msg: Message) -> None:
        handler = _HANDLERS.get(type(msg))
        if handler is None:
            if msg.TYPE in ("bye",):
                raise _Close(None, "the client said bye")
            if isinstance(msg, Error) and msg.fatal:  # the client ends the connection (2.6)
                raise _Close(None, f"the client reported {msg.code.value}: {msg.message}")
            if msg.TYPE in ("pong", "error"):
                return
            self.deliver(
                [
                    self._error(
                        ErrorCode.BAD_STATE, f"the host does not take {msg.TYPE!r}", re=msg.id
                    )
                ]
            )
            return
        try:
            await handler(self, msg)
        except (ProtocolError, RulesError) as exc:
            code = exc.code if isinstance(exc.code, ErrorCode) else ErrorCode.INTERNAL
            # a ``conflict`` over an act seq names the next free one (PROTOCOL.md 4.2)
            next_seq = getattr(exc, "next_seq", None)
            self.deliver([self._error(code, exc.message, re=msg.id, next_seq=next_seq)])
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError):
            raise  # the connection itself failed: end it
        except Exception as exc:  # a host bug, unreadable data, a full disk: answer, go on
            log.exception("%s: %s failed", self.peer, msg.TYPE)
            code, text = failure(msg.TYPE, exc)
            self.deliver([self._error(code, text, re=msg.id)])

    @staticmethod
    def _error(
        code: ErrorCode,
        text: str,
        *,
        re: Any = None,
        fatal: bool | None = None,
        next_seq: int | None = None,
    ) -> WireMap:
        return Error(
            code=code,
            message=text[:MAX_TEXT_LEN],
            re=re,
            fatal=code.fatal if fatal is None else fatal,
            next_seq=next_seq,
        ).to_wire()

    def _reply(self, msg: Message, reply: Message) -> None:
        out = reply.to_wire()
        if msg.id is not None:
            out["re"] = msg.id
        self.deliver([out])

    # ------------------------------------------------------------------ handlers

    async def _on_ping(self, msg: Ping) -> None:
        self.deliver([msg.response().to_wire()])

    async def _on_list_games(self, msg: tm.ListGames) -> None:
        self._reply(msg, tm.Games(games=tuple(self.lobby.games())))

    async def _on_list_tables(self, msg: tm.ListTables) -> None:
        self._reply(msg, tm.Tables(tables=tuple(self.lobby.table_summaries())))

    async def _on_create_table(self, msg: tm.CreateTable) -> None:
        table = await self.lobby.create_table(
            game=msg.game,
            seats=msg.seats,
            options=msg.options,
            name=msg.name,
            turn_timer=msg.turn_timer,
            creator=self,
            private=msg.private,
        )
        self._reply(msg, tm.TableCreated(table=table.table_id, info=table.summary()))

    async def _on_join(self, msg: tm.Join) -> None:
        table = self.lobby.table(msg.table)
        self.tables[table.table_id] = table
        try:
            await table.join(self, msg.name, msg.seat, msg.bot, re=msg.id)
        except BaseException:
            if table.seat_of(self) is None and self not in table.spectators:
                self.tables.pop(table.table_id, None)
            raise

    async def _on_leave(self, msg: tm.Leave) -> None:
        table = self.lobby.table(msg.table)
        seat = table.seat_of(self)
        try:
            await table.leave(self, re=msg.id)
        except ProtocolError as exc:
            if exc.code is ErrorCode.NOT_FOUND:  # not at the table (any more): forget it too
                self.tables.pop(table.table_id, None)
            raise
        self.tables.pop(table.table_id, None)
        if seat is not None:
            log.info("table %s: seat %d left [%s]", table.table_id, seat, self.peer)

    async def _on_watch(self, msg: tm.Watch) -> None:
        table = self.lobby.table(msg.table)
        if table.seat_of(self) is not None:
            raise LocalProtocolError("you are seated at this table", code=ErrorCode.BAD_STATE)
        name = spectator_name(msg.name)  # refused before the reply, not after it
        self._reply(msg, tm.Watching(table=table.table_id))
        self.tables[table.table_id] = table
        await table.watch(self, name)

    async def _on_add_bot(self, msg: tm.AddBot) -> None:
        seat, name = await self.lobby.add_bot(msg.table, level=msg.kind, seat=msg.seat, by=self)
        self._reply(msg, tm.BotAdded(table=msg.table, seat=seat, name=name))

    async def _on_ready(self, msg: tm.Ready) -> None:
        table = self._my_table(msg.table)
        await table.set_ready(self, msg.ready)
        self._reply(msg, tm.Ok())

    async def _on_act(self, msg: tm.Act) -> None:
        table = self._my_table(msg.table)
        # the table acknowledges it
        await table.act(self, msg.seq, msg.action, re=msg.id, opens=msg.open)

    async def _on_mask(self, msg: _MaskRequest) -> None:
        """A private hand's masking request (PROTOCOL.md 10.11): the table relays it."""
        table = self._my_table(msg.table)
        fields = {k: v for k, v in msg.to_wire().items() if k not in ("type", "table", "id")}
        await table.mask_request(self, msg.TYPE, msg.hand_no, fields)
        self._reply(msg, tm.Ok())

    async def _on_explain(self, msg: tm.Explain) -> None:
        why = self._my_table(msg.table).explain(self, msg.card)
        action = None if why.action is None else why.action.to_wire()
        reply = tm.Explained(
            table=msg.table, card=msg.card, reason=why.reason, blunder=why.blunder, action=action
        )
        self._reply(msg, reply)

    async def _on_fair_commit(self, msg: tm.FairCommit) -> None:
        table = self._my_table(msg.table)
        await table.fair_commit(self, msg.hand_no, msg.c)
        self._reply(msg, tm.Ok())

    async def _on_fair_reveal(self, msg: tm.FairReveal) -> None:
        table = self._my_table(msg.table)
        await table.fair_reveal(self, msg.hand_no, msg.r)
        self._reply(msg, tm.Ok())

    async def _on_list_records(self, msg: tm.ListRecords) -> None:
        table = self.lobby.table(msg.table)
        hands = await self.lobby.store.records.list_records(table.table_id)
        self._reply(msg, tm.Records(table=table.table_id, hands=tuple(hands)))

    async def _on_get_record(self, msg: tm.GetRecord) -> None:
        table = self.lobby.table(msg.table)
        text = await self.lobby.record_text(table.table_id, msg.hand_no)
        size = tm.RECORD_CHUNK_CHARS
        chunks = [text[i : i + size] for i in range(0, len(text), size)] or [""]
        for i, chunk in enumerate(chunks):
            part = tm.RecordPart(
                table=table.table_id,
                hand_no=msg.hand_no,
                part=i,
                parts=len(chunks),
                text=chunk,
                re=msg.id,
            ).to_wire()
            # a big record goes out with backpressure (this waits, the table never does)
            await self._send.send([part])

    async def _on_resume(self, msg: tm.Resume) -> None:
        table = await self.lobby.resume(self, msg.token, msg.last_seq, re=msg.id)
        self.tables[table.table_id] = table
        seat = table.seat_of(self)
        s = None if seat is None else table.seats[seat]
        name = "" if s is None else f" ({s.name})"
        log.info("table %s: seat %s%s resumed [%s]", table.table_id, seat, name, self.peer)

    async def _on_chat(self, msg: tm.ChatSay) -> None:
        table = self._my_table(msg.table)
        if not self._chat_rate.take():
            raise LocalProtocolError(
                "chat is limited to a few lines at a time", code=ErrorCode.RATE_LIMITED
            )
        await table.chat(self, msg.text)
        self._reply(msg, tm.Ok())

    def _my_table(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise LocalProtocolError(f"you are not at table {table_id!r}", code=ErrorCode.BAD_STATE)
        return table


#: each request type's handler; plain functions, not bound methods, so that a connection holds
#: no reference to itself and is freed as soon as it ends (no cycle for the collector)
_HANDLERS: dict[type[Message], Callable[[ClientConnection, Any], Awaitable[None]]] = {
    Ping: ClientConnection._on_ping,
    tm.ListGames: ClientConnection._on_list_games,
    tm.ListTables: ClientConnection._on_list_tables,
    tm.CreateTable: ClientConnection._on_create_table,
    tm.Join: ClientConnection._on_join,
    tm.Leave: ClientConnection._on_leave,
    tm.Watch: ClientConnection._on_watch,
    tm.AddBot: ClientConnection._on_add_bot,
    tm.Ready: ClientConnection._on_ready,
    tm.Act: ClientConnection._on_act,
    tm.Explain: ClientConnection._on_explain,
    tm.FairCommit: ClientConnection._on_fair_commit,
    tm.FairReveal: ClientConnection._on_fair_reveal,
    mm.MaskCommit: ClientConnection._on_mask,
    mm.MaskPass: ClientConnection._on_mask,
    mm.SealedKeys: ClientConnection._on_mask,
    mm.OpenKeys: ClientConnection._on_mask,
    mm.ShowHand: ClientConnection._on_mask,
    mm.MaskReveal: ClientConnection._on_mask,
    tm.ListRecords: ClientConnection._on_list_records,
    tm.GetRecord: ClientConnection._on_get_record,
    tm.Resume: ClientConnection._on_resume,
    tm.ChatSay: ClientConnection._on_chat,
}


def server_closing(retry_after: int | None, reason: str) -> WireMap:
    return ServerClosing(retry_after=retry_after, reason=reason).to_wire()
