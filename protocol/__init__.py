"""The onecard wire protocol, sans-I/O: cards, messages, framing, limits, errors, fairness.

This package never imports trio, sockets or click, so the host, the clients, the tests and
third-party Python code can all use it. See ``spec/PROTOCOL.md`` for the contract.

Layers, bottom up: :mod:`protocol.limits` (every limit), :mod:`protocol.framing` (bytes <-> maps),
:mod:`protocol.messages` (maps <-> validated messages), :mod:`protocol.registry` (every message
type, in spec order) and :mod:`protocol.connection` (the handshake and state machine). The names
below are the public API.

They are imported when first used (PEP 562 ``__getattr__``), not with the package: ``from
protocol import Connection`` works as usual, while importing one light module such as
:mod:`protocol.exit_codes` (``onecard --help``) does not load the message registry.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
        register,
        wire,
    )
    from protocol.registry import MESSAGE_TYPES, message_from_wire

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

#: public name -> the module that defines it
_WHERE = {
    **dict.fromkeys(
        [
            "PROTOCOL_NAME",
            "PROTOCOL_VERSION",
            "SUPPORTED_VERSIONS",
            "Connection",
            "Role",
            "State",
            "negotiate_version",
        ],
        "protocol.connection",
    ),
    **dict.fromkeys(
        ["ErrorCode", "LocalProtocolError", "ProtocolError", "RemoteProtocolError"],
        "protocol.errors",
    ),
    **dict.fromkeys(
        ["NEED_DATA", "FrameDecoder", "NeedData", "decode_body", "encode_frame"],
        "protocol.framing",
    ),
    **dict.fromkeys(
        [
            "Bye",
            "Direction",
            "Error",
            "Hello",
            "Message",
            "MessageId",
            "Ping",
            "Pong",
            "ServerClosing",
            "Welcome",
            "register",
            "wire",
        ],
        "protocol.messages",
    ),
    **dict.fromkeys(["MESSAGE_TYPES", "message_from_wire"], "protocol.registry"),
}


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (see the module docstring)."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'protocol' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
