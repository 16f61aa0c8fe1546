"""Tests for protocol/limits.py: every limit is documented, consistent and advertised."""

from __future__ import annotations

from protocol import limits


def constant_names() -> list[str]:
    return [name for name in limits.__all__ if name.isupper() and name != "LIMITS"]


def test_every_constant_is_a_row_of_the_table_with_a_one_line_doc() -> None:
    rows = [limit.name.upper() for limit in limits.LIMITS]
    assert rows == [n for n in vars(limits) if n in set(constant_names())]
    assert set(rows) == set(constant_names())
    for limit in limits.LIMITS:
        assert getattr(limits, limit.name.upper()) == limit.value, limit.name
        assert limit.name == limit.name.lower()
        assert limit.doc.endswith("."), limit.name
        assert "\n" not in limit.doc


def test_every_int_constant_of_the_module_is_a_declared_limit() -> None:
    ints = {n for n, v in vars(limits).items() if n.isupper() and isinstance(v, int)}
    assert ints == set(constant_names())


def test_every_limit_is_a_positive_int() -> None:
    for name in constant_names():
        value = getattr(limits, name)
        assert type(value) is int, name
        assert value > 0, name


def test_frame_and_buffer_sizes() -> None:
    assert limits.MAX_FRAME_BYTES == 64 * 1024
    assert limits.FRAME_HEADER_BYTES == 4
    # A transport that drains every frame after each read never trips the buffer limit, even
    # with reads as large as a frame (trio's default receive_some size is 64 KiB).
    assert limits.RECEIVE_CHUNK_BYTES <= limits.MAX_FRAME_BYTES
    assert limits.MAX_BUFFERED_BYTES >= 2 * limits.MAX_FRAME_BYTES + limits.FRAME_HEADER_BYTES
    # Field limits must fit the msgpack limits that bound them.
    assert limits.MAX_CHAT_LEN * 4 <= limits.MAX_STR_LEN
    assert limits.MAX_TEXT_LEN * 4 <= limits.MAX_STR_LEN
    assert limits.MAX_LIST_FIELD_LEN <= limits.MAX_ARRAY_LEN
    assert limits.HEARTBEAT_INTERVAL_S < limits.IDLE_TIMEOUT_S


def test_wire_limits_advertise_every_limit_by_lower_case_name() -> None:
    advertised = limits.wire_limits()
    assert advertised["max_frame_bytes"] == limits.MAX_FRAME_BYTES
    assert advertised["max_name_len"] == limits.MAX_NAME_LEN
    assert set(advertised) == {n.lower() for n in constant_names()}


def test_limits_table_has_a_row_per_limit_in_the_declared_order() -> None:
    rows = limits.limits_table().splitlines()[2:]
    assert rows == [f"| `{row.name}` | {row.value} | {row.doc} |" for row in limits.LIMITS]
    for name in constant_names():
        assert f"| `{name.lower()}` | {getattr(limits, name)} |" in limits.limits_table()


def test_the_handshake_and_the_spec_read_the_same_table() -> None:
    table = limits.limits_table()
    for name, value in limits.wire_limits().items():
        assert f"| `{name}` | {value} |" in table
    assert len(limits.wire_limits()) == len(table.splitlines()) - 2
