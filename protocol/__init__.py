"""The onecard wire protocol, sans-I/O: cards, messages, framing, limits, errors, fairness.

This package never imports trio, sockets or click, so the host, the clients, the tests and
third-party Python code can all use it. See ``spec/PROTOCOL.md`` for the contract.

Layers, bottom up: :mod:`protocol.limits` (every limit), :mod:`protocol.framing` (bytes <->
maps), :mod:`protocol.messages` (maps <-> validated messages, the registry) and
:mod:`protocol.connection` (the handshake and state machine). The names below are the public API.
"""

from __future__ import annotations

from protocol.connection import (
    PROTOCOL_NAME,
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    Connection,
    Role,
    State,
    negotiate_version,
)
from protocol.errors import ErrorCode, LocalProtocolError, ProtocolError, RemoteProtocolError
from protocol.framing import NEED_DATA, FrameDecoder, NeedData, decode_body, encode_frame
from protocol.messages import (
    MESSAGE_TYPES,
    Bye,
    Direction,
    Error,
    Hello,
    Message,
    MessageId,
    Ping,
    Pong,
    ServerClosing,
    Welcome,
    message_from_wire,
    register,
    wire,
)

__all__ = [
    "MESSAGE_TYPES",
    "NEED_DATA",
    "PROTOCOL_NAME",
    "PROTOCOL_VERSION",
    "SUPPORTED_VERSIONS",
    "Bye",
    "Connection",
    "Direction",
    "Error",
    "ErrorCode",
    "FrameDecoder",
    "Hello",
    "LocalProtocolError",
    "Message",
    "MessageId",
    "NeedData",
    "Ping",
    "Pong",
    "ProtocolError",
    "RemoteProtocolError",
    "Role",
    "ServerClosing",
    "State",
    "Welcome",
    "decode_body",
    "encode_frame",
    "message_from_wire",
    "negotiate_version",
    "register",
    "wire",
]
