"""Every size, count and time limit of the protocol, as named constants.

How it works: each limit is a module-level ``int`` preceded by a ``#:`` doc comment. Other
modules import the constants from here (never repeat a number elsewhere); constructors that
enforce a limit accept an override. :func:`wire_limits` is what the host advertises in
``welcome``, and :func:`limits_table` renders the table in ``spec/PROTOCOL.md`` section 2 from
the same doc comments, so the spec cannot drift from the code (a test checks it).

Byte limits count encoded bytes; ``*_LEN`` limits on text count Unicode code points.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = [
    "FRAME_HEADER_BYTES",
    "HANDSHAKE_TIMEOUT_S",
    "HEARTBEAT_INTERVAL_S",
    "IDLE_TIMEOUT_S",
    "MAX_ARRAY_LEN",
    "MAX_BIN_LEN",
    "MAX_BUFFERED_BYTES",
    "MAX_CHAT_LEN",
    "MAX_FRAME_BYTES",
    "MAX_ID_LEN",
    "MAX_LIST_FIELD_LEN",
    "MAX_MAP_LEN",
    "MAX_MESSAGE_ID",
    "MAX_NAME_LEN",
    "MAX_NESTING",
    "MAX_REQUEST_BYTES",
    "MAX_RETRY_AFTER_S",
    "MAX_SOFTWARE_LEN",
    "MAX_STR_LEN",
    "MAX_TEXT_LEN",
    "MAX_VERSION",
    "MAX_VERSIONS",
    "RECEIVE_CHUNK_BYTES",
    "limit_docs",
    "limits_table",
    "wire_limits",
]

# --------------------------------------------------------------------------- framing

#: Size of the frame header: a big-endian unsigned 32-bit body length.
FRAME_HEADER_BYTES = 4

#: Largest frame body (the msgpack map) in bytes, header excluded; longer frames are fatal.
MAX_FRAME_BYTES = 64 * 1024

#: Largest frame body a client may send to the host (requests are small); longer is fatal.
MAX_REQUEST_BYTES = 4 * 1024

#: Recommended read size of a transport; a single read must not exceed `max_frame_bytes`.
RECEIVE_CHUNK_BYTES = 16 * 1024

#: Most bytes a decoder buffers (an incomplete frame plus one read); more is fatal.
MAX_BUFFERED_BYTES = FRAME_HEADER_BYTES + 2 * MAX_FRAME_BYTES

# --------------------------------------------------------------------------- msgpack values

#: Deepest nesting of maps and arrays in a frame; the top-level map is depth 1.
MAX_NESTING = 16

#: Most elements in any one msgpack array.
MAX_ARRAY_LEN = 4096

#: Most key/value pairs in any one msgpack map.
MAX_MAP_LEN = 1024

#: Longest msgpack str, in encoded UTF-8 bytes.
MAX_STR_LEN = 8 * 1024

#: Longest msgpack bin (hashes, nonces, signatures), in bytes.
MAX_BIN_LEN = 4 * 1024

# --------------------------------------------------------------------------- message fields

#: Largest integer message `id` (2^53 - 1, exact in every JSON implementation).
MAX_MESSAGE_ID = 2**53 - 1

#: Longest string message `id`, in code points.
MAX_ID_LEN = 64

#: Longest player, table or host name, in code points.
MAX_NAME_LEN = 32

#: Longest chat line, in code points.
MAX_CHAT_LEN = 500

#: Longest software identification string (`hello`/`welcome`), in code points.
MAX_SOFTWARE_LEN = 64

#: Longest human-readable text field (error messages, close reasons), in code points.
MAX_TEXT_LEN = 500

#: Highest protocol version number.
MAX_VERSION = 65535

#: Most versions a `hello` may offer.
MAX_VERSIONS = 16

#: Most elements in a list-valued message field unless the field says otherwise.
MAX_LIST_FIELD_LEN = 256

#: Largest `retry_after` in `server_closing`, in seconds (one day).
MAX_RETRY_AFTER_S = 86400

# --------------------------------------------------------------------------- timing

#: Seconds a new connection has to complete the handshake before it is closed.
HANDSHAKE_TIMEOUT_S = 10

#: Seconds of silence after which a peer should send `ping`.
HEARTBEAT_INTERVAL_S = 15

#: Seconds of silence after which the host closes a connection with error `timeout`.
IDLE_TIMEOUT_S = 45


_DOC_RE = re.compile(r"^#: (?P<doc>.+)\n(?P<name>[A-Z][A-Z0-9_]*) = ", re.MULTILINE)


def limit_docs() -> dict[str, str]:
    """Each limit's name mapped to its one-line doc comment, in source order."""
    source = Path(__file__).read_text(encoding="utf-8")
    return {m["name"]: m["doc"] for m in _DOC_RE.finditer(source)}


def wire_limits() -> dict[str, int]:
    """The limits a host advertises in ``welcome``: lower-case name to value.

    >>> wire_limits()["max_frame_bytes"]
    65536
    """
    values = globals()
    return {name.lower(): int(values[name]) for name in limit_docs()}


def limits_table() -> str:
    """The Markdown limits table of ``spec/PROTOCOL.md`` section 2."""
    values = globals()
    lines = ["| Name (in `welcome.limits`) | Value | Meaning |", "|---|---:|---|"]
    for name, doc in limit_docs().items():
        lines.append(f"| `{name.lower()}` | {values[name]} | {doc} |")
    return "\n".join(lines) + "\n"
