"""Frames: a 4-byte big-endian length, then exactly one msgpack map.

How it works:

* :func:`encode_frame` checks a map against the same rules the decoder enforces (so we never
  send what a peer must reject), packs it and prefixes the length. :func:`pack_frame` only
  packs: for maps the sender built itself from values it already checked (the host's pushes),
  where checking again would cost more than the packing. An :class:`Outgoing` map keeps its
  frame once packed, so one message sent to many peers is packed once.
* :func:`decode_body` unpacks one frame body with a *fresh* ``msgpack.unpackb`` call (never a
  reused ``Unpacker``, which is unsafe after an error) and explicit limits, then checks what
  msgpack cannot: the top level is a map, every map key is a str and unique, no float, no ext,
  nesting at most :data:`~protocol.limits.MAX_NESTING`.
* :class:`FrameDecoder` buffers bytes from the transport. ``receive_data`` reads each frame
  header as soon as its 4 bytes arrive and rejects an oversized length *before* the body is
  buffered; the buffer never exceeds its ``max_buffered_bytes``. ``next_frame`` returns one
  decoded map or :data:`NEED_DATA`.
* :func:`checked_trees` marks a stretch of code whose values were checked already (a decoded
  frame, whose whole tree :func:`decode_body` checked): a field kind that checks a sub-tree
  (``AnyMap``) asks :func:`trees_checked` first, so a received message is checked once.

Rules: every failure on any input is a :class:`~protocol.errors.LocalProtocolError` with code
``frame_too_large``, ``limit_exceeded`` or ``malformed`` (never a msgpack or Python exception);
the decoding boundary (:class:`protocol.connection.Connection`) re-raises it as remote. After a
failure the decoder drops its buffer and stays in an error state: every later call raises.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final, Literal

import msgpack

from protocol.errors import ErrorCode, LocalProtocolError
from protocol.limits import (
    FRAME_HEADER_BYTES,
    MAX_ARRAY_LEN,
    MAX_BIN_LEN,
    MAX_BUFFERED_BYTES,
    MAX_FRAME_BYTES,
    MAX_MAP_LEN,
    MAX_NESTING,
    MAX_STR_LEN,
)

__all__ = [
    "NEED_DATA",
    "FrameDecoder",
    "NeedData",
    "Outgoing",
    "WireDict",
    "check_tree",
    "checked_trees",
    "decode_body",
    "encode_frame",
    "pack_frame",
    "trees_checked",
]

WireDict = dict[str, Any]
"""A decoded frame: str keys; nil, bool, int, str, bytes, list or map values."""


class NeedData(enum.Enum):
    """Sentinel type: not enough bytes buffered for a whole frame or message yet."""

    NEED_DATA = "NEED_DATA"

    def __repr__(self) -> str:
        return "NEED_DATA"


NEED_DATA: Final = NeedData.NEED_DATA

# msgpack's own limit messages read "... exceeds max_array_len(4096)"; ext is not a limit for us.
_MSGPACK_LIMIT_HINT = "exceeds max_"
_MSGPACK_EXT_HINT = "max_ext_len"


def _error(code: ErrorCode, message: str) -> LocalProtocolError:
    return LocalProtocolError(message, code=code)


def _pairs_to_dict(pairs: list[tuple[Any, Any]]) -> WireDict:
    """msgpack ``object_pairs_hook``: str keys only, no duplicates."""
    result: WireDict = {}
    for key, value in pairs:
        if not isinstance(key, str):
            raise _error(ErrorCode.MALFORMED, f"map key {key!r} is not a str")
        if key in result:
            raise _error(ErrorCode.MALFORMED, f"duplicate map key {key!r}")
        result[key] = value
    return result


#: True inside :func:`checked_trees`
_TREES_CHECKED: ContextVar[bool] = ContextVar("trees_checked", default=False)


@contextmanager
def checked_trees() -> Iterator[None]:
    """Within this block, the values being built into messages were checked already (by
    :func:`decode_body`, which checks a frame's whole tree, deeper limits included): a field that
    would run :func:`check_tree` on its sub-tree again skips it (:func:`trees_checked`)."""
    token = _TREES_CHECKED.set(True)
    try:
        yield
    finally:
        _TREES_CHECKED.reset(token)


def trees_checked() -> bool:
    """Whether the caller runs inside :func:`checked_trees`."""
    return _TREES_CHECKED.get()


def check_tree(obj: object, *, max_nesting: int = MAX_NESTING) -> None:  # noqa: C901, PLR0912
    """Check a value against the protocol's type and nesting rules (iteratively, no recursion).

    Allowed: None, bool, int (signed or unsigned 64-bit), str, bytes, list/tuple, and dict with
    str keys. Raise :class:`LocalProtocolError` (``malformed`` for a type, ``limit_exceeded``
    for nesting or length) otherwise.

    Every frame is checked when encoded and when decoded, so this is on the hot path of every
    message: the members of plain dicts and lists that are exactly ``str``/``int``/``bytes``/
    ``bool``/``None`` are checked in place (``type(x) is``), and only containers and anything
    else (subclasses, bad types) go through the general :func:`_check_value`.
    """
    stack: list[tuple[object, int]] = [(obj, 1)]
    pop, push = stack.pop, stack.append
    long_str = MAX_STR_LEN // 4
    while stack:
        value, depth = pop()
        kind = type(value)
        members: Iterable[object]
        if kind is dict:
            assert isinstance(value, dict)
            if depth > max_nesting:
                raise _error(ErrorCode.LIMIT_EXCEEDED, f"nesting deeper than {max_nesting}")
            if len(value) > MAX_MAP_LEN:
                raise _error(ErrorCode.LIMIT_EXCEEDED, "map longer than max_map_len")
            for key in value:
                if type(key) is not str or len(key) > long_str:
                    if not isinstance(key, str):
                        raise _error(ErrorCode.MALFORMED, f"map key {key!r} is not a str")
                    _check_value(key)
            members = value.values()
        elif kind is list or kind is tuple:
            assert isinstance(value, list | tuple)
            if depth > max_nesting:
                raise _error(ErrorCode.LIMIT_EXCEEDED, f"nesting deeper than {max_nesting}")
            if len(value) > MAX_ARRAY_LEN:
                raise _error(ErrorCode.LIMIT_EXCEEDED, "array longer than max_array_len")
            members = value
        else:
            for child in _check_value(value, depth, max_nesting):
                push(child)
            continue
        for item in members:
            t = type(item)
            if t is str:
                if len(item) > long_str:
                    _check_value(item)
            elif t is int:
                if not -(2**63) <= item < 2**64:
                    raise _error(ErrorCode.MALFORMED, "integer out of 64-bit range")
            elif t is bytes:  # a private table's points and keys: thousands a message
                if len(item) > MAX_BIN_LEN:
                    raise _error(ErrorCode.LIMIT_EXCEEDED, "bin longer than max_bin_len")
            elif item is not None and t is not bool:
                push((item, depth + 1))


def _check_value(
    value: object, depth: int = 1, max_nesting: int = MAX_NESTING
) -> list[tuple[object, int]]:
    """The general check of one value; returns the children of a container to check next."""
    if value is None or isinstance(value, bool | str | bytes):
        if isinstance(value, str) and len(value) > MAX_STR_LEN // 4:
            # cheap pre-check: only strings that might be long are encoded to measure
            if len(value.encode("utf-8", "surrogatepass")) > MAX_STR_LEN:
                raise _error(ErrorCode.LIMIT_EXCEEDED, "string longer than max_str_len")
        elif isinstance(value, bytes) and len(value) > MAX_BIN_LEN:
            raise _error(ErrorCode.LIMIT_EXCEEDED, "bin longer than max_bin_len")
        return []
    if isinstance(value, int):
        if not -(2**63) <= value < 2**64:
            raise _error(ErrorCode.MALFORMED, "integer out of 64-bit range")
        return []
    if isinstance(value, list | tuple | dict):
        if depth > max_nesting:
            raise _error(ErrorCode.LIMIT_EXCEEDED, f"nesting deeper than {max_nesting}")
        if isinstance(value, dict):
            if len(value) > MAX_MAP_LEN:
                raise _error(ErrorCode.LIMIT_EXCEEDED, "map longer than max_map_len")
            children: list[tuple[object, int]] = []
            for key, item in value.items():
                if not isinstance(key, str):
                    raise _error(ErrorCode.MALFORMED, f"map key {key!r} is not a str")
                children.append((key, depth + 1))
                children.append((item, depth + 1))
            return children
        if len(value) > MAX_ARRAY_LEN:
            raise _error(ErrorCode.LIMIT_EXCEEDED, "array longer than max_array_len")
        return [(item, depth + 1) for item in value]
    raise _error(ErrorCode.MALFORMED, f"{type(value).__name__} is not a protocol type")


def encode_frame(obj: Mapping[str, Any], *, max_frame_bytes: int = MAX_FRAME_BYTES) -> bytes:
    """Encode one map as a complete frame (header and body).

    Raises:
        LocalProtocolError: ``malformed``/``limit_exceeded`` if ``obj`` breaks the value rules,
            ``frame_too_large`` if the body would exceed ``max_frame_bytes``.
    """
    if not isinstance(obj, dict):
        raise _error(ErrorCode.MALFORMED, f"a frame holds a map, not {type(obj).__name__}")
    check_tree(obj)
    return _pack(obj, max_frame_bytes)


def pack_frame(obj: Mapping[str, Any], *, max_frame_bytes: int = MAX_FRAME_BYTES) -> bytes:
    """Pack one map as a frame *without* checking its values: for maps built by trusted code.

    Raises:
        LocalProtocolError: ``frame_too_large`` if the body would exceed ``max_frame_bytes``;
            ``malformed`` if msgpack cannot pack a value at all.
    """
    if isinstance(obj, Outgoing):
        return obj.frame(max_frame_bytes)
    return _pack(obj, max_frame_bytes)


def _pack(obj: Mapping[str, Any], max_frame_bytes: int) -> bytes:
    """The frame of ``obj``, unchecked (``encode_frame`` checks first, ``pack_frame`` not)."""
    try:
        body: bytes = msgpack.packb(obj, use_bin_type=True, strict_types=False, datetime=False)
    except (ValueError, TypeError, OverflowError) as exc:  # after check_tree: unreachable
        raise _error(ErrorCode.MALFORMED, f"cannot encode: {exc}") from exc
    if len(body) > max_frame_bytes:
        raise _error(
            ErrorCode.FRAME_TOO_LARGE,
            f"frame body of {len(body)} bytes exceeds the limit of {max_frame_bytes}",
        )
    return len(body).to_bytes(FRAME_HEADER_BYTES, "big") + body


class Outgoing(dict[str, Any]):
    """A message map that is packed once, the first time it is sent, and never changed after.

    The same object handed to many connections (a public push at a table) is packed by the
    first and its bytes reused by the rest. Mutating it after it was sent is a bug the frame
    would hide, so do not: build a new one.
    """

    __slots__ = ("_frame",)

    def frame(self, max_frame_bytes: int = MAX_FRAME_BYTES) -> bytes:
        """The frame of this map (packed by :func:`pack_frame` on first use)."""
        try:
            return self._frame
        except AttributeError:
            pass
        frame = _pack(self, max_frame_bytes)
        self._frame: bytes = frame
        return frame


def decode_body(body: bytes) -> WireDict:
    """Decode one frame body (without its header) into a map.

    Raises:
        LocalProtocolError: ``malformed`` (not exactly one valid msgpack map of protocol types)
            or ``limit_exceeded`` (a length or nesting limit). Never any other exception.
    """
    try:
        obj = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=True,
            object_pairs_hook=_pairs_to_dict,
            max_ext_len=0,
            max_str_len=MAX_STR_LEN,
            max_bin_len=MAX_BIN_LEN,
            max_array_len=MAX_ARRAY_LEN,
            max_map_len=MAX_MAP_LEN,
        )
    except LocalProtocolError:
        raise
    except msgpack.StackError as exc:
        raise _error(ErrorCode.LIMIT_EXCEEDED, "msgpack nesting too deep") from exc
    except Exception as exc:  # msgpack documents that "other exceptions can be raised"
        text = str(exc)
        code = ErrorCode.MALFORMED
        if _MSGPACK_LIMIT_HINT in text and _MSGPACK_EXT_HINT not in text:
            code = ErrorCode.LIMIT_EXCEEDED
        raise _error(code, f"invalid msgpack: {type(exc).__name__}: {text}") from exc
    if not isinstance(obj, dict):
        raise _error(ErrorCode.MALFORMED, f"a frame holds a map, not {type(obj).__name__}")
    check_tree(obj)
    return obj


class FrameDecoder:
    """Turn a byte stream into decoded frames (sans-I/O).

    >>> dec = FrameDecoder()
    >>> dec.receive_data(encode_frame({"type": "ping"})[:3])
    >>> dec.next_frame()
    NEED_DATA
    >>> dec.receive_data(encode_frame({"type": "ping"})[3:])
    >>> dec.next_frame()
    {'type': 'ping'}
    """

    def __init__(
        self,
        *,
        max_frame_bytes: int = MAX_FRAME_BYTES,
        max_buffered_bytes: int = MAX_BUFFERED_BYTES,
    ) -> None:
        if max_buffered_bytes < FRAME_HEADER_BYTES + max_frame_bytes:
            raise ValueError("max_buffered_bytes must hold at least one whole frame")
        self.max_frame_bytes = max_frame_bytes
        self.max_buffered_bytes = max_buffered_bytes
        self._buf = bytearray()
        # Offset in _buf of the next frame header not yet checked (may lie beyond the buffer
        # while a checked frame's body is still arriving).
        self._scan = 0
        self._error: LocalProtocolError | None = None

    @property
    def buffered_bytes(self) -> int:
        """Bytes held but not yet returned as frames (0 at a clean frame boundary)."""
        return len(self._buf)

    @property
    def failed(self) -> bool:
        """Whether the decoder is in its sticky error state."""
        return self._error is not None

    def _fail(self, err: LocalProtocolError) -> LocalProtocolError:
        self._error = err
        self._buf = bytearray()
        self._scan = 0
        return err

    def _check_ok(self) -> None:
        if self._error is not None:
            raise LocalProtocolError(
                f"decoder failed earlier: {self._error.message}", code=self._error.code
            )

    def receive_data(self, data: bytes) -> None:
        """Buffer bytes from the transport. An empty ``data`` is a no-op.

        Raises:
            LocalProtocolError: ``frame_too_large`` as soon as a header announces an oversized
                body (before the body is buffered); ``limit_exceeded`` if the buffer would
                exceed ``max_buffered_bytes``. The decoder is then failed.
        """
        self._check_ok()
        if not data:
            return
        held = len(self._buf)
        total = held + len(data)
        scan = self._scan
        while scan + FRAME_HEADER_BYTES <= total:
            if scan + FRAME_HEADER_BYTES <= held:
                header = bytes(self._buf[scan : scan + FRAME_HEADER_BYTES])
            else:  # the header straddles or lies in the new data
                start = max(scan - held, 0)
                header = bytes(self._buf[scan:]) + bytes(
                    data[start : start + FRAME_HEADER_BYTES - max(held - scan, 0)]
                )
            length = int.from_bytes(header, "big")
            if length > self.max_frame_bytes:
                raise self._fail(
                    _error(
                        ErrorCode.FRAME_TOO_LARGE,
                        f"frame of {length} bytes announced; the limit is {self.max_frame_bytes}",
                    )
                )
            scan += FRAME_HEADER_BYTES + length
        if total > self.max_buffered_bytes:
            raise self._fail(
                _error(
                    ErrorCode.LIMIT_EXCEEDED,
                    f"receive buffer would hold {total} bytes; "
                    f"the limit is {self.max_buffered_bytes}",
                )
            )
        self._buf += data
        self._scan = scan

    def next_frame(self) -> WireDict | Literal[NeedData.NEED_DATA]:
        """Return the next decoded frame, or :data:`NEED_DATA` if none is complete yet.

        Raises:
            LocalProtocolError: as :func:`decode_body`; the decoder is then failed.
        """
        self._check_ok()
        if len(self._buf) < FRAME_HEADER_BYTES:
            return NEED_DATA
        length = int.from_bytes(self._buf[:FRAME_HEADER_BYTES], "big")
        end = FRAME_HEADER_BYTES + length
        if len(self._buf) < end:
            return NEED_DATA
        body = bytes(self._buf[FRAME_HEADER_BYTES:end])
        del self._buf[:end]
        self._scan -= end
        try:
            return decode_body(body)
        except LocalProtocolError as err:
            raise self._fail(err) from err
