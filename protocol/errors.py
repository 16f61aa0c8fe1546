"""Protocol errors and their wire codes.

How it works (after h11's ``_util.py``): every error is a :class:`ProtocolError` carrying an
:class:`ErrorCode` that goes on the wire in an ``error`` message. Whose fault it was picks the
subclass: :class:`LocalProtocolError` when *our* caller misused the API (tried to send an invalid
message), :class:`RemoteProtocolError` when the *peer* sent something bad. Internal code raises
Local; the decoding boundary (:meth:`protocol.connection.Connection.next_message`) re-raises it
as Remote, so a decoder user never needs to catch anything else.

Error codes are stable strings, documented in ``spec/PROTOCOL.md``; new codes may be added in a
minor version, so clients must treat an unknown code like ``internal``.
"""

from __future__ import annotations

import enum

__all__ = [
    "ErrorCode",
    "LocalProtocolError",
    "ProtocolError",
    "RemoteProtocolError",
]


class ErrorCode(enum.StrEnum):
    """Wire error codes. ``fatal`` codes close the connection after the error is sent."""

    #: The bytes are not a valid frame or not valid msgpack.
    MALFORMED = "malformed"
    #: A frame's declared length exceeds the limit.
    FRAME_TOO_LARGE = "frame_too_large"
    #: A limit other than frame size (nesting, string, list, buffer) was exceeded.
    LIMIT_EXCEEDED = "limit_exceeded"
    #: The message type is not known.
    UNKNOWN_TYPE = "unknown_type"
    #: A field is missing, of the wrong type, or out of range.
    BAD_FIELD = "bad_field"
    #: A card code could not be parsed.
    BAD_CARD = "bad_card"
    #: The message is valid but not allowed in the connection's current state.
    BAD_STATE = "bad_state"
    #: The handshake asked for a protocol version the peer does not speak.
    VERSION_MISMATCH = "version_mismatch"
    #: Too many messages per second.
    RATE_LIMITED = "rate_limited"
    #: The host is full (connections) or the table is full (seats).
    FULL = "full"
    #: No such table, seat, record or token.
    NOT_FOUND = "not_found"
    #: A name is taken, or a seat or token is held by another connection.
    CONFLICT = "conflict"
    #: An action arrived when it is not that seat's turn.
    NOT_YOUR_TURN = "not_your_turn"
    #: An action that is well-formed but against the rules now.
    ILLEGAL_ACTION = "illegal_action"
    #: A commit, reveal or signature failed its check.
    FAIRNESS = "fairness"
    #: The peer was silent for too long.
    TIMEOUT = "timeout"
    #: The host is shutting down.
    SHUTTING_DOWN = "shutting_down"
    #: The host has it but cannot read it: its stored copy (a hand record file) is damaged.
    UNAVAILABLE = "unavailable"
    #: The host's disk is full: it stored nothing of the request; retry later.
    DISK_FULL = "disk_full"
    #: The hand record was deleted by the host's retention (``onecard host --keep-records-days``).
    PRUNED = "pruned"
    #: A bug on the sending side; the message says what.
    INTERNAL = "internal"

    @property
    def fatal(self) -> bool:
        """Whether a connection that sees this error is closed after it is reported."""
        return self in _FATAL


_FATAL = frozenset(
    {
        ErrorCode.MALFORMED,
        ErrorCode.FRAME_TOO_LARGE,
        ErrorCode.LIMIT_EXCEEDED,
        ErrorCode.VERSION_MISMATCH,
        ErrorCode.TIMEOUT,
        ErrorCode.SHUTTING_DOWN,
    }
)


class ProtocolError(Exception):
    """Base of all protocol errors; never raised directly."""

    code: ErrorCode

    def __init__(self, message: str, *, code: ErrorCode = ErrorCode.MALFORMED) -> None:
        if type(self) is ProtocolError:
            raise TypeError("raise LocalProtocolError or RemoteProtocolError, not ProtocolError")
        super().__init__(message)
        self.message = message
        self.code = code

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code.value!r})"


class LocalProtocolError(ProtocolError):
    """Our caller did something the protocol forbids (e.g. built or sent an invalid message)."""

    def as_remote(self) -> RemoteProtocolError:
        """The same error, blamed on the peer (used at the decoding boundary)."""
        err = RemoteProtocolError(self.message, code=self.code)
        err.__cause__ = self
        return err


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol forbids."""
