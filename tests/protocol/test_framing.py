"""Tests for protocol/framing.py: frame encoding, body decoding and the buffering decoder."""

from __future__ import annotations

import itertools

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.errors import ErrorCode, LocalProtocolError, ProtocolError
from protocol.framing import (
    NEED_DATA,
    FrameDecoder,
    Outgoing,
    WireDict,
    check_tree,
    decode_body,
    encode_frame,
    pack_frame,
)
from protocol.limits import (
    FRAME_HEADER_BYTES,
    MAX_ARRAY_LEN,
    MAX_BIN_LEN,
    MAX_BUFFERED_BYTES,
    MAX_FRAME_BYTES,
    MAX_MAP_LEN,
    MAX_NESTING,
    MAX_STR_LEN,
    RECEIVE_CHUNK_BYTES,
)

frame_maps = st.dictionaries(
    st.text(max_size=10),
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text() | st.binary(),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
        ),
        max_leaves=15,
    ),
    max_size=6,
)

BIG_MAP = {str(i): 0 for i in range(MAX_MAP_LEN + 1)}


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    """Split ``data`` at the given (unsorted, possibly repeated) cut points."""
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


def nested(depth: int) -> WireDict:
    """A map whose nesting depth (top-level map = 1) is exactly ``depth``."""
    value: object = []
    for _ in range(depth - 2):
        value = [value]
    return {"x": value}


class TestEncodeFrame:
    def test_spec_example_bytes(self) -> None:
        # The worked example in spec/PROTOCOL.md section 2.2.
        frame = encode_frame({"type": "ping", "id": 7})
        assert frame.hex(" ") == "00 00 00 0f 82 a4 74 79 70 65 a4 70 69 6e 67 a2 69 64 07"

    def test_header_is_big_endian_body_length(self) -> None:
        frame = encode_frame({"k": "v" * 300})
        assert int.from_bytes(frame[:FRAME_HEADER_BYTES], "big") == len(frame) - 4

    @pytest.mark.parametrize(
        "obj",
        [{"f": 1.5}, {"k": {1: 2}}, {"k": object()}, {"k": 2**64}, {"k": -(2**63) - 1}],
        ids=["float", "int-key", "object", "too-big-int", "too-small-int"],
    )
    def test_rejects_values_outside_the_protocol_subset(self, obj: WireDict) -> None:
        with pytest.raises(LocalProtocolError) as info:
            encode_frame(obj)
        assert info.value.code is ErrorCode.MALFORMED

    def test_rejects_a_top_level_that_is_not_a_map(self) -> None:
        with pytest.raises(LocalProtocolError) as info:
            encode_frame([1, 2])  # type: ignore[arg-type]
        assert info.value.code is ErrorCode.MALFORMED

    def test_rejects_too_deep_nesting(self) -> None:
        encode_frame(nested(MAX_NESTING))
        with pytest.raises(LocalProtocolError) as info:
            encode_frame(nested(MAX_NESTING + 1))
        assert info.value.code is ErrorCode.LIMIT_EXCEEDED

    def test_rejects_an_oversized_body(self) -> None:
        big = {f"k{i}": "x" * 1000 for i in range(70)}
        with pytest.raises(LocalProtocolError) as info:
            encode_frame(big)
        assert info.value.code is ErrorCode.FRAME_TOO_LARGE

    def test_rejects_a_lone_surrogate(self) -> None:
        with pytest.raises(LocalProtocolError) as info:
            encode_frame({"k": "\ud800"})
        assert info.value.code is ErrorCode.MALFORMED


class TestDecodeBody:
    @given(frame_maps)
    def test_round_trip(self, obj: WireDict) -> None:
        frame = encode_frame(obj)
        assert decode_body(frame[FRAME_HEADER_BYTES:]) == obj

    @pytest.mark.parametrize(
        ("body", "code"),
        [
            (b"", ErrorCode.MALFORMED),
            (b"\xc1", ErrorCode.MALFORMED),  # never-used msgpack byte
            (msgpack.packb([1, 2]), ErrorCode.MALFORMED),
            (msgpack.packb("text"), ErrorCode.MALFORMED),
            (msgpack.packb({"a": 1}) + b"\x00", ErrorCode.MALFORMED),  # extra data
            (msgpack.packb({"a": 1})[:-1], ErrorCode.MALFORMED),  # truncated
            (msgpack.packb({"a": 1.5}), ErrorCode.MALFORMED),
            (msgpack.packb({1: 1}), ErrorCode.MALFORMED),
            (msgpack.packb({b"k": 1}, use_bin_type=True), ErrorCode.MALFORMED),
            (b"\x82\xa1a\x01\xa1a\x02", ErrorCode.MALFORMED),  # duplicate key "a"
            (b"\x81\xa1a\xa2\xff\xfe", ErrorCode.MALFORMED),  # invalid UTF-8
            (b"\x81\xa1a\xd4\x05\x00", ErrorCode.MALFORMED),  # fixext 1
            (b"\x81\xa1a\xd6\xff\x00\x00\x00\x00", ErrorCode.MALFORMED),  # timestamp 32
            (b"\x81\xa1a" + b"\x91" * 2000 + b"\xc0", ErrorCode.LIMIT_EXCEEDED),  # StackError
            (msgpack.packb(nested(MAX_NESTING + 1)), ErrorCode.LIMIT_EXCEEDED),
            (msgpack.packb({"a": [0] * (MAX_ARRAY_LEN + 1)}), ErrorCode.LIMIT_EXCEEDED),
            (msgpack.packb({"a": BIG_MAP}), ErrorCode.LIMIT_EXCEEDED),
            (msgpack.packb({"a": "x" * (MAX_STR_LEN + 1)}), ErrorCode.LIMIT_EXCEEDED),
            (msgpack.packb({"a": b"x" * (MAX_BIN_LEN + 1)}), ErrorCode.LIMIT_EXCEEDED),
        ],
        ids=[
            "empty",
            "c1",
            "array",
            "str",
            "extra-data",
            "truncated",
            "float",
            "int-key",
            "bin-key",
            "duplicate-key",
            "bad-utf8",
            "ext",
            "timestamp",
            "stack-error",
            "nesting",
            "array-len",
            "map-len",
            "str-len",
            "bin-len",
        ],
    )
    def test_rejects(self, body: bytes, code: ErrorCode) -> None:
        with pytest.raises(LocalProtocolError) as info:
            decode_body(body)
        assert info.value.code is code

    def test_accepts_the_limits_exactly(self) -> None:
        obj = {
            "a": [0] * MAX_ARRAY_LEN,
            "s": "x" * (MAX_STR_LEN - 100),
            "b": b"\x00" * MAX_BIN_LEN,
            "n": nested(MAX_NESTING - 1),
        }
        assert decode_body(msgpack.packb(obj, use_bin_type=True)) == obj

    @given(st.binary(max_size=200))
    def test_arbitrary_bytes_give_a_map_or_a_protocol_error(self, body: bytes) -> None:
        try:
            result = decode_body(body)
        except ProtocolError as err:
            assert err.code in {ErrorCode.MALFORMED, ErrorCode.LIMIT_EXCEEDED}
        else:
            assert isinstance(result, dict)
            assert all(isinstance(k, str) for k in result)


class TestFrameDecoder:
    @given(st.lists(frame_maps, max_size=5), st.lists(st.integers(0, 10_000), max_size=10))
    def test_frames_split_anywhere_decode_in_order(
        self, maps: list[WireDict], cuts: list[int]
    ) -> None:
        stream = b"".join(encode_frame(m) for m in maps)
        dec = FrameDecoder()
        out: list[WireDict] = []
        for chunk in chunked(stream, cuts):
            dec.receive_data(chunk)
            while (frame := dec.next_frame()) is not NEED_DATA:
                out.append(frame)
        assert out == maps
        assert dec.buffered_bytes == 0

    @settings(max_examples=300)
    @given(st.binary(max_size=300), st.lists(st.integers(0, 300), max_size=8))
    def test_arbitrary_bytes_in_arbitrary_chunks_yield_only_maps_or_protocol_errors(
        self, stream: bytes, cuts: list[int]
    ) -> None:
        dec = FrameDecoder()
        try:
            for chunk in chunked(stream, cuts):
                dec.receive_data(chunk)
                assert dec.buffered_bytes <= dec.max_buffered_bytes
                while (frame := dec.next_frame()) is not NEED_DATA:
                    assert isinstance(frame, dict)
        except ProtocolError as err:
            assert err.code in {
                ErrorCode.MALFORMED,
                ErrorCode.LIMIT_EXCEEDED,
                ErrorCode.FRAME_TOO_LARGE,
            }
            assert dec.failed
            assert dec.buffered_bytes == 0

    @given(st.lists(st.binary(max_size=40), max_size=6), st.lists(st.integers(0, 300)))
    def test_random_bodies_with_valid_headers_yield_only_maps_or_protocol_errors(
        self, bodies: list[bytes], cuts: list[int]
    ) -> None:
        stream = b"".join(len(b).to_bytes(4, "big") + b for b in bodies)
        dec = FrameDecoder()
        frames = 0
        try:
            for chunk in chunked(stream, cuts):
                dec.receive_data(chunk)
                while (frame := dec.next_frame()) is not NEED_DATA:
                    assert isinstance(frame, dict)
                    frames += 1
        except ProtocolError as err:
            assert err.code in {ErrorCode.MALFORMED, ErrorCode.LIMIT_EXCEEDED}
        else:
            assert frames == len(bodies)

    @given(frame_maps, st.data())
    def test_corrupted_frames_yield_only_maps_or_protocol_errors(
        self, obj: WireDict, data: st.DataObject
    ) -> None:
        frame = bytearray(encode_frame(obj))
        for _ in range(data.draw(st.integers(1, 4))):
            index = data.draw(st.integers(0, len(frame) - 1))
            frame[index] = data.draw(st.integers(0, 255))
        dec = FrameDecoder()
        try:
            dec.receive_data(bytes(frame))
            result = dec.next_frame()
        except ProtocolError:
            assert dec.failed
        else:
            assert result is NEED_DATA or isinstance(result, dict)

    @given(
        st.integers(MAX_FRAME_BYTES + 1, 2**32 - 1),
        st.lists(st.integers(0, 20), max_size=6),
        st.binary(min_size=0, max_size=20),
    )
    def test_oversized_header_is_rejected_before_its_body_is_buffered(
        self, length: int, cuts: list[int], prefix_body: bytes
    ) -> None:
        good = encode_frame({"p": prefix_body})
        header = length.to_bytes(FRAME_HEADER_BYTES, "big")
        stream = good + header + b"\x00" * 16
        dec = FrameDecoder()
        fed = 0
        with pytest.raises(LocalProtocolError) as info:
            for chunk in chunked(stream, cuts):
                dec.receive_data(chunk)
                fed += len(chunk)
                # Still here: the bad header cannot be complete yet.
                assert fed < len(good) + FRAME_HEADER_BYTES
        assert info.value.code is ErrorCode.FRAME_TOO_LARGE
        assert dec.buffered_bytes == 0

    def test_oversized_header_raises_immediately_even_mid_body_of_an_earlier_frame(self) -> None:
        dec = FrameDecoder()
        first = encode_frame({"k": "v" * 50})
        dec.receive_data(first[:10])
        assert dec.buffered_bytes == 10
        with pytest.raises(LocalProtocolError) as info:
            dec.receive_data(first[10:] + (MAX_FRAME_BYTES + 1).to_bytes(4, "big"))
        assert info.value.code is ErrorCode.FRAME_TOO_LARGE

    def test_a_frame_of_exactly_the_limit_is_accepted(self) -> None:
        body = msgpack.packb({"s": "x" * (MAX_STR_LEN - 10)})
        dec = FrameDecoder(max_frame_bytes=len(body))
        dec.receive_data(len(body).to_bytes(4, "big") + body)
        assert dec.next_frame() == {"s": "x" * (MAX_STR_LEN - 10)}

    def test_buffer_limit_raises_limit_exceeded_and_holds_nothing(self) -> None:
        dec = FrameDecoder()
        frame = encode_frame({"k": ["x" * 1000] * 60})  # a valid, large frame
        data = frame * (MAX_BUFFERED_BYTES // len(frame) + 1)
        with pytest.raises(LocalProtocolError) as info:
            dec.receive_data(data)
        assert info.value.code is ErrorCode.LIMIT_EXCEEDED
        assert dec.buffered_bytes == 0

    @pytest.mark.parametrize("read_size", [1000, RECEIVE_CHUNK_BYTES, MAX_FRAME_BYTES])
    def test_draining_between_reads_keeps_the_buffer_bounded(self, read_size: int) -> None:
        frame = encode_frame({"k": ["x" * 1000] * 60})  # ~ 61 KB, close to the limit
        stream = frame * 20
        dec = FrameDecoder()
        count = 0
        for start in range(0, len(stream), read_size):
            dec.receive_data(stream[start : start + read_size])
            while dec.next_frame() is not NEED_DATA:
                count += 1
        assert count == 20

    def test_errors_are_sticky(self) -> None:
        dec = FrameDecoder()
        dec.receive_data(b"\x00\x00\x00\x01\xc1")
        with pytest.raises(LocalProtocolError):
            dec.next_frame()
        assert dec.failed
        with pytest.raises(LocalProtocolError) as info:
            dec.receive_data(encode_frame({"type": "ping"}))
        assert info.value.code is ErrorCode.MALFORMED
        with pytest.raises(LocalProtocolError):
            dec.next_frame()

    def test_empty_data_is_a_no_op_and_partial_header_needs_data(self) -> None:
        dec = FrameDecoder()
        dec.receive_data(b"")
        dec.receive_data(b"\x00\x00")
        assert dec.next_frame() is NEED_DATA
        assert dec.buffered_bytes == 2

    def test_zero_length_frame_is_malformed(self) -> None:
        dec = FrameDecoder()
        dec.receive_data(b"\x00\x00\x00\x00")
        with pytest.raises(LocalProtocolError) as info:
            dec.next_frame()
        assert info.value.code is ErrorCode.MALFORMED

    def test_buffer_must_hold_one_frame(self) -> None:
        with pytest.raises(ValueError, match="whole frame"):
            FrameDecoder(max_frame_bytes=100, max_buffered_bytes=50)


# ----------------------------------------------------------------- check_tree against a reference


def _reference_check(value: object, depth: int = 1) -> None:
    """The value rules of PROTOCOL.md 2.3, written recursively and plainly."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, str):
        if len(value.encode("utf-8", "surrogatepass")) > MAX_STR_LEN:
            raise LocalProtocolError("long str", code=ErrorCode.LIMIT_EXCEEDED)
        return
    if isinstance(value, bytes):
        if len(value) > MAX_BIN_LEN:
            raise LocalProtocolError("long bin", code=ErrorCode.LIMIT_EXCEEDED)
        return
    if isinstance(value, int):
        if not -(2**63) <= value < 2**64:
            raise LocalProtocolError("big int", code=ErrorCode.MALFORMED)
        return
    if isinstance(value, list | tuple | dict):
        if depth > MAX_NESTING:
            raise LocalProtocolError("deep", code=ErrorCode.LIMIT_EXCEEDED)
        if len(value) > (MAX_MAP_LEN if isinstance(value, dict) else MAX_ARRAY_LEN):
            raise LocalProtocolError("long", code=ErrorCode.LIMIT_EXCEEDED)
        items = list(value.items()) if isinstance(value, dict) else [(None, v) for v in value]
        for key, item in items:
            if isinstance(value, dict):
                if not isinstance(key, str):
                    raise LocalProtocolError("key", code=ErrorCode.MALFORMED)
                _reference_check(key, depth + 1)
            _reference_check(item, depth + 1)
        return
    raise LocalProtocolError("type", code=ErrorCode.MALFORMED)


class _Str(str):
    pass


_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**64), 2**65),
    st.text(max_size=8),
    st.builds(_Str, st.text(max_size=4)),
    st.binary(max_size=8),
    st.floats(allow_nan=False),
    st.just("x" * (MAX_STR_LEN + 1)),
    st.just("é" * (MAX_STR_LEN // 2 + 1)),  # short in code points, long in bytes
    st.just(b"x" * (MAX_BIN_LEN + 1)),
)
_TREES = st.recursive(
    _LEAVES,
    lambda kids: st.one_of(
        st.lists(kids, max_size=4),
        st.lists(kids, max_size=3).map(tuple),
        st.dictionaries(st.one_of(st.text(max_size=4), st.integers(0, 3)), kids, max_size=4),
    ),
    max_leaves=40,
)


def _outcome(fn: object, value: object) -> str | None:
    assert callable(fn)
    try:
        fn(value)
    except LocalProtocolError as err:
        return str(err.code)
    return None


@settings(max_examples=400, deadline=None)
@given(tree=_TREES, wrap=st.integers(0, MAX_NESTING + 1))
def test_check_tree_agrees_with_the_reference(tree: object, wrap: int) -> None:
    """The fast check_tree accepts and rejects exactly what the plain rules do.

    (With several faults in one tree the two may meet a different one first, so only the
    verdict is compared; the codes of single faults are tested above.)
    """
    for _ in range(wrap):  # nest some trees near and past the nesting limit
        tree = [tree]
    assert (_outcome(check_tree, tree) is None) == (_outcome(_reference_check, tree) is None)


@given(frame_maps)
@settings(max_examples=200)
def test_packing_a_trusted_map_gives_the_frame_the_checked_path_gives(obj: WireDict) -> None:
    assert pack_frame(obj) == encode_frame(obj)
    assert Outgoing(obj).frame() == encode_frame(obj)


def test_an_outgoing_map_is_packed_once_however_often_it_is_sent() -> None:
    msg = Outgoing(type="event", table="t1", seq=7, event={"kind": "draw", "seat": 1})
    first = pack_frame(msg)
    assert pack_frame(msg) is first and msg.frame() is first
    assert decode_body(first[FRAME_HEADER_BYTES:]) == dict(msg)


def test_packing_does_not_check_values_but_still_bounds_the_frame() -> None:
    nested: object = 1
    for _ in range(MAX_NESTING + 2):
        nested = [nested]
    deep: WireDict = {"a": nested}
    pack_frame(deep)  # nested past MAX_NESTING: encode_frame refuses it, pack_frame does not
    with pytest.raises(LocalProtocolError) as caught:
        encode_frame(deep)
    assert caught.value.code is ErrorCode.LIMIT_EXCEEDED
    with pytest.raises(LocalProtocolError) as too_big:
        pack_frame({"text": "x" * 100}, max_frame_bytes=50)
    assert too_big.value.code is ErrorCode.FRAME_TOO_LARGE
