"""The onecard wire protocol, sans-I/O: cards, messages, framing, limits, errors, fairness.

This package never imports trio, sockets or click, so the host, the clients, the tests and
third-party Python code can all use it. See ``spec/PROTOCOL.md`` for the contract.
"""

from __future__ import annotations

PROTOCOL_NAME = "onecard"
PROTOCOL_VERSION = 1
