"""The sans-I/O connection: bytes in, messages out; messages in, bytes out (after h11).

How it works: a :class:`Connection` owns a :class:`~protocol.framing.FrameDecoder` and one
connection state. The transport calls ``receive_data(bytes)`` with what it read, then
``next_message()`` until it returns :data:`NEED_DATA`; to send, it calls ``send(msg)`` and
writes the returned bytes. Both directions drive the same transition table. A sender that builds
its messages as wire maps from values it checked itself (the host) may call ``send_map(map)``
instead: the same state rules, but the map is packed, not rebuilt as a message object and
checked again (validation guards what comes in); ``validate_sent=True`` restores the full
check, which the test suite turns on.

Rules:

1. Everything that changes the state lives in ``_TRANSITIONS`` and :meth:`Connection._process`.
   The table is role-free: ``(state, message type) -> next state``, for sent and received
   messages alike; who may send a type is its ``DIRECTION``.
2. The handshake comes first: ``hello`` (client) then ``welcome`` (host). The host picks the
   highest version both sides speak; if there is none, receiving ``hello`` raises
   ``version_mismatch``. Registered types that appear nowhere in the table are application
   messages: allowed in ``OPEN`` only, where they leave the state unchanged.
3. ``bye``, ``server_closing`` and an ``error`` with ``fatal: true`` move to ``CLOSED``; nothing
   may be sent or received after that.
4. Internal code raises :class:`~protocol.errors.LocalProtocolError`; ``receive_data`` and
   ``next_message`` re-raise it as :class:`~protocol.errors.RemoteProtocolError`, the one
   boundary. A failure moves to the sticky ``ERROR`` state, except a well-framed message with an
   unknown type or a bad field while ``OPEN``: it is skipped and the state stays ``OPEN``. In
   ``ERROR`` every call raises, except ``send`` of one fatal ``error`` reporting the failure
   (see :meth:`Connection.error_reply`). An encoding failure in ``send`` (e.g. a frame too
   large) sends nothing and changes nothing.
5. A received message is checked against the table (its sender and the state) before its
   fields: a message that may not come now is a fatal ``bad_state`` even if its fields are also
   wrong, never a skippable ``bad_field``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal

from protocol.errors import ErrorCode, LocalProtocolError, ProtocolError, RemoteProtocolError
from protocol.framing import (
    NEED_DATA,
    FrameDecoder,
    NeedData,
    checked_trees,
    encode_frame,
    pack_frame,
)
from protocol.limits import MAX_BUFFERED_BYTES, MAX_FRAME_BYTES, MAX_REQUEST_BYTES
from protocol.messages import (
    Direction,
    Error,
    Hello,
    Message,
    MessageId,
    Welcome,
    message_id_of,
)
from protocol.registry import MESSAGE_TYPES, message_from_wire

__all__ = [
    "PROTOCOL_NAME",
    "PROTOCOL_VERSION",
    "SUPPORTED_VERSIONS",
    "Connection",
    "Role",
    "State",
    "negotiate_version",
]

PROTOCOL_NAME: Final = "onecard"
"""The ``protocol`` field of ``hello``."""
PROTOCOL_VERSION: Final = 1
"""The newest protocol version this code speaks."""
SUPPORTED_VERSIONS: Final = (1,)
"""Every protocol version this code speaks."""


class Role(enum.Enum):
    """Which end of the connection we are."""

    #: We connected; we send ``hello``.
    CLIENT = "client"
    #: We accepted; we send ``welcome``.
    HOST = "host"


class State(enum.Enum):
    """Connection states (shared by both ends: each sees the same sequence)."""

    #: Nothing exchanged yet; the client must send ``hello``.
    AWAIT_HELLO = "await_hello"
    #: ``hello`` passed; the host must answer ``welcome`` (or a fatal error).
    AWAIT_WELCOME = "await_welcome"
    #: Handshake done; any message allowed by the table or registered as application message.
    OPEN = "open"
    #: A closing message passed; nothing more may be sent or received.
    CLOSED = "closed"
    #: A protocol error happened; sticky.
    ERROR = "error"


S = State
_TRANSITIONS: Final[dict[tuple[State, str], State]] = {
    (S.AWAIT_HELLO, "hello"): S.AWAIT_WELCOME,
    (S.AWAIT_HELLO, "error"): S.AWAIT_HELLO,
    (S.AWAIT_HELLO, "bye"): S.CLOSED,
    (S.AWAIT_HELLO, "server_closing"): S.CLOSED,
    (S.AWAIT_WELCOME, "welcome"): S.OPEN,
    (S.AWAIT_WELCOME, "error"): S.AWAIT_WELCOME,
    (S.AWAIT_WELCOME, "bye"): S.CLOSED,
    (S.AWAIT_WELCOME, "server_closing"): S.CLOSED,
    (S.OPEN, "ping"): S.OPEN,
    (S.OPEN, "pong"): S.OPEN,
    (S.OPEN, "error"): S.OPEN,
    (S.OPEN, "bye"): S.CLOSED,
    (S.OPEN, "server_closing"): S.CLOSED,
}
del S

#: Types the table governs; every other registered type is an application message (rule 2).
_TABLE_TYPES: Final = frozenset(type_name for _, type_name in _TRANSITIONS)

#: Errors that skip one message and leave an OPEN connection OPEN (rule 4).
_RECOVERABLE: Final = frozenset({ErrorCode.UNKNOWN_TYPE, ErrorCode.BAD_FIELD, ErrorCode.BAD_CARD})


def next_state(state: State, type_name: str) -> State | None:
    """The state after a message of ``type_name`` passes in ``state``, or None if forbidden.

    Fatal errors are handled by the caller (rule 3); this is the table plus rule 2.
    """
    found = _TRANSITIONS.get((state, type_name))
    if found is not None:
        return found
    if state is State.OPEN and type_name in MESSAGE_TYPES and type_name not in _TABLE_TYPES:
        return State.OPEN
    return None


def negotiate_version(offered: Iterable[int], supported: Iterable[int]) -> int | None:
    """The highest version in both ``offered`` and ``supported``, or None.

    >>> negotiate_version([1, 2, 3], [2, 3, 4])
    3
    """
    common = set(offered) & set(supported)
    return max(common) if common else None


def _may_send(direction: Direction, role: Role) -> bool:
    if direction is Direction.BOTH:
        return True
    return (direction is Direction.CLIENT_TO_HOST) == (role is Role.CLIENT)


class Connection:
    """One end of a onecard connection, sans-I/O.

    >>> client, host = Connection(role=Role.CLIENT), Connection(role=Role.HOST)
    >>> host.receive_data(client.send(Hello(protocol="onecard", versions=(1,), software="doc")))
    >>> host.next_message()
    Hello(id=None, re=None, protocol='onecard', versions=(1,), software='doc')
    >>> host.state, host.version
    (<State.AWAIT_WELCOME: 'await_welcome'>, 1)
    """

    def __init__(
        self,
        *,
        role: Role,
        versions: Sequence[int] = SUPPORTED_VERSIONS,
        max_frame_bytes: int = MAX_FRAME_BYTES,
        max_request_bytes: int = MAX_REQUEST_BYTES,
        max_buffered_bytes: int = MAX_BUFFERED_BYTES,
        validate_sent: bool = True,
    ) -> None:
        if not versions:
            raise ValueError("a connection must support at least one version")
        self.role = role
        self.versions = tuple(versions)
        # frames from the client are requests: much smaller, so that a host bounds what one
        # frame can cost it to decode before it decodes anything
        request = min(max_request_bytes, max_frame_bytes)
        self.max_frame_bytes = request if role is Role.CLIENT else max_frame_bytes
        receive = request if role is Role.HOST else max_frame_bytes
        self.state = State.AWAIT_HELLO
        #: ``send_map`` checks each map as ``send`` does (False: it only packs it)
        self.validate_sent = validate_sent
        #: The negotiated version: set when ``hello`` (host) or ``welcome`` (client) passes.
        self.version: int | None = None
        #: The valid ``id`` of the frame the last ``next_message`` call read, for ``re`` in an
        #: error about it (None if it read none, or the frame had no valid ``id``).
        self.last_received_id: MessageId | None = None
        self._offered: tuple[int, ...] = ()
        self._error: ProtocolError | None = None
        self._error_reported = False
        self._decoder = FrameDecoder(max_frame_bytes=receive, max_buffered_bytes=max_buffered_bytes)

    def __repr__(self) -> str:
        return f"<Connection role={self.role.value} state={self.state.value}>"

    @property
    def buffered_bytes(self) -> int:
        """Received bytes not yet returned as messages (nonzero at EOF means a cut frame)."""
        return self._decoder.buffered_bytes

    @property
    def error(self) -> ProtocolError | None:
        """The error that put the connection in ``ERROR``, if any."""
        return self._error

    # ------------------------------------------------------------------ receiving

    def receive_data(self, data: bytes) -> None:
        """Buffer bytes read from the transport.

        Raises:
            RemoteProtocolError: ``frame_too_large`` or ``limit_exceeded`` (then ``ERROR``), or
                the stored error if the connection is already in ``ERROR``.
        """
        self._raise_if_failed()
        try:
            self._decoder.receive_data(data)
        except LocalProtocolError as err:
            self.last_received_id = None  # the failure is about these bytes, no message of theirs
            raise self._fail(err.as_remote()) from err

    def next_message(self) -> Message | Literal[NeedData.NEED_DATA]:
        """Return the next complete message, or :data:`NEED_DATA`.

        Returns:
            A validated :class:`~protocol.messages.Message` allowed in the current state (the
            state has moved past it), or ``NEED_DATA``.

        Raises:
            RemoteProtocolError: the peer broke the protocol. Unless the message was merely
                skipped (rule 4), the connection is now in ``ERROR``. Reply with
                :meth:`error_reply`. Any other exception is a bug.
        """
        self._raise_if_failed()
        try:
            # cleared first: an error about a frame that cannot be read answers no ``id``, not
            # the ``id`` of the message before it
            self.last_received_id = None
            frame = self._decoder.next_frame()
            if frame is NEED_DATA:
                return NEED_DATA
            self.last_received_id = message_id_of(frame)
            type_name = frame.get("type")
            kind = MESSAGE_TYPES.get(type_name) if isinstance(type_name, str) else None
            if kind is not None:  # who may send it, and when, before its fields (rule 5)
                self._check_allowed(kind.TYPE, kind.DIRECTION, sending=False)
            with checked_trees():  # decode_body checked the frame's whole tree
                msg = message_from_wire(frame)
            self._process(msg, sending=False)
        except LocalProtocolError as err:
            remote = err.as_remote()
            if self.state is State.OPEN and err.code in _RECOVERABLE:
                raise remote from err
            raise self._fail(remote) from err
        return msg

    # ------------------------------------------------------------------ sending

    def send(self, msg: Message) -> bytes:
        """Check ``msg`` against the state machine and return its frame, to be written.

        Raises:
            LocalProtocolError: the message may not be sent now (``bad_state``; the connection
                is then in ``ERROR``), breaks the handshake (``bad_field``/``version_mismatch``,
                also ``ERROR``), or cannot be encoded (nothing sent, nothing changed).
        """
        if not isinstance(msg, Message):
            raise TypeError(f"send() takes a Message, not {type(msg).__name__}")
        data = encode_frame(msg.to_wire(), max_frame_bytes=self.max_frame_bytes)
        if self.state is State.ERROR:
            if isinstance(msg, Error) and msg.fatal and not self._error_reported:
                self._error_reported = True
                return data
            raise LocalProtocolError(
                f"cannot send {msg.TYPE!r}: the connection failed ({self._describe_error()})",
                code=ErrorCode.BAD_STATE,
            )
        try:
            self._process(msg, sending=True)
        except LocalProtocolError as err:
            self._fail(err)
            raise
        return data

    def send_map(self, wire: Mapping[str, Any]) -> bytes:
        """Like ``send`` for a message given as its wire map, built by trusted code.

        The state rules apply as for ``send``. The handshake, closing messages and errors (the
        types the transition table governs) always go through ``send``; any other map is only
        packed (:func:`~protocol.framing.pack_frame`, once for an
        :class:`~protocol.framing.Outgoing`) unless ``validate_sent`` is set.

        Raises:
            LocalProtocolError: as ``send``; ``unknown_type`` for a type that is not registered.
        """
        type_name = wire.get("type")
        if not isinstance(type_name, str) or type_name not in MESSAGE_TYPES:
            raise LocalProtocolError(f"no message type {type_name!r}", code=ErrorCode.UNKNOWN_TYPE)
        cls = MESSAGE_TYPES[type_name]
        if self.validate_sent or type_name in _TABLE_TYPES or self.state is not State.OPEN:
            return self.send(message_from_wire(dict(wire)))
        self._check_allowed(type_name, cls.DIRECTION, sending=True)
        return pack_frame(wire, max_frame_bytes=self.max_frame_bytes)

    def error_reply(self, err: ProtocolError) -> Error:
        """The ``error`` message to send after ``next_message``/``receive_data`` raised ``err``.

        It answers the offending message's ``id`` if that could be read, and is fatal exactly
        when the connection is in ``ERROR`` (then close the transport after sending it).
        """
        return Error.from_exception(err, re=self.last_received_id, fatal=self.state is State.ERROR)

    # ------------------------------------------------------------------ state machine

    def _process(self, msg: Message, *, sending: bool) -> None:
        """Apply one message passing in either direction to the state (rules 1-3)."""
        new_state = self._check_allowed(msg.TYPE, msg.DIRECTION, sending=sending)
        if isinstance(msg, Hello):
            self._on_hello(msg, sending=sending)
        elif isinstance(msg, Welcome):
            self._on_welcome(msg, sending=sending)
        elif isinstance(msg, Error) and msg.fatal:
            new_state = State.CLOSED
        self.state = new_state

    def _check_allowed(self, type_name: str, direction: Direction, *, sending: bool) -> State:
        """The state after a ``type_name`` message passes; ``bad_state`` if it may not now."""
        sender = self.role if sending else (Role.HOST if self.role is Role.CLIENT else Role.CLIENT)
        if not _may_send(direction, sender):
            raise LocalProtocolError(
                f"a {sender.value} may not send {type_name!r}", code=ErrorCode.BAD_STATE
            )
        new_state = next_state(self.state, type_name)
        if new_state is None:
            raise LocalProtocolError(
                f"{type_name!r} is not allowed in state {self.state.value}",
                code=ErrorCode.BAD_STATE,
            )
        return new_state

    def _on_hello(self, hello: Hello, *, sending: bool) -> None:
        if hello.protocol != PROTOCOL_NAME:
            raise LocalProtocolError(
                f"protocol {hello.protocol!r} is not {PROTOCOL_NAME!r}",
                code=ErrorCode.VERSION_MISMATCH,
            )
        self._offered = hello.versions
        if sending:
            return
        version = negotiate_version(hello.versions, self.versions)
        if version is None:
            raise LocalProtocolError(
                f"no common version: client offers {list(hello.versions)}, "
                f"host speaks {list(self.versions)}",
                code=ErrorCode.VERSION_MISMATCH,
            )
        self.version = version

    def _on_welcome(self, welcome: Welcome, *, sending: bool) -> None:
        if sending:
            if welcome.version != self.version:
                raise LocalProtocolError(
                    f"welcome.version {welcome.version} is not the negotiated {self.version}",
                    code=ErrorCode.BAD_FIELD,
                )
            return
        if welcome.version not in self._offered:
            raise LocalProtocolError(
                f"host chose version {welcome.version}, not one of {list(self._offered)}",
                code=ErrorCode.VERSION_MISMATCH,
            )
        self.version = welcome.version

    # ------------------------------------------------------------------ errors

    def _fail(self, err: ProtocolError) -> ProtocolError:
        if self._error is None:
            self._error = err
        self.state = State.ERROR
        return err

    def _describe_error(self) -> str:
        err = self._error
        return "unknown error" if err is None else f"{err.code.value}: {err.message}"

    def _raise_if_failed(self) -> None:
        if self.state is State.ERROR:
            code = self._error.code if self._error is not None else ErrorCode.INTERNAL
            raise RemoteProtocolError(
                f"the connection failed earlier ({self._describe_error()})", code=code
            )
