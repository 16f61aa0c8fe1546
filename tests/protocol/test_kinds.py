"""Tests for protocol/kinds.py: each field kind coerces, validates, encodes and describes."""

from __future__ import annotations

from typing import Any

import pytest

import protocol.messages
from protocol import kinds
from protocol.cards import card
from protocol.errors import ErrorCode, LocalProtocolError
from protocol.framing import checked_trees, trees_checked
from protocol.kinds import (
    AnyMap,
    Bool,
    Bytes,
    CardKind,
    EnumKind,
    Int,
    Kind,
    ListOf,
    MapOf,
    MessageIdKind,
    Nullable,
    Str,
    bad_field,
)
from protocol.limits import MAX_ID_LEN, MAX_MESSAGE_ID


def refused(kind: Kind, value: object, path: str = "f") -> LocalProtocolError:
    """The error ``kind`` raises for ``value``; it must name ``path`` (or a path inside it)."""
    with pytest.raises(LocalProtocolError) as info:
        kind.coerce(value, path)
    assert info.value.message.startswith(f"field '{path}")
    return info.value


def test_every_kind_is_still_importable_from_protocol_messages() -> None:
    for name in kinds.__all__:
        if name != "bad_field":
            assert getattr(protocol.messages, name) is getattr(kinds, name)
            assert name in protocol.messages.__all__


def test_bad_field_names_the_path_and_defaults_to_bad_field() -> None:
    err = bad_field("a.b", "no good")
    assert err.code is ErrorCode.BAD_FIELD
    assert err.message == "field 'a.b': no good"
    assert bad_field("c", "x", ErrorCode.BAD_CARD).code is ErrorCode.BAD_CARD


def test_int_takes_its_range_and_never_a_bool() -> None:
    kind = Int(1, 5)
    assert kind.coerce(5, "f") == 5
    for value in (0, 6, True, "3", 1.0, None):
        assert refused(kind, value).code is ErrorCode.BAD_FIELD
    assert kind.describe() == "int 1..5"
    assert Int().describe() == f"int 0..{MAX_MESSAGE_ID}"


def test_bool() -> None:
    assert Bool().coerce(False, "f") is False
    assert "expected bool, got int" in refused(Bool(), 0).message
    assert Bool().describe() == "bool"


def test_str_pattern_and_printable_are_enforced() -> None:
    kind = Str(min_len=1, max_len=5, pattern="[a-z]+", printable=True)
    assert kind.coerce("abc", "f") == "abc"
    for value in ("ABC", "", "abcdef", "a\tb"):
        with pytest.raises(LocalProtocolError):
            kind.coerce(value, "f")
    assert kind.describe() == "str 1..5 printable `[a-z]+`"
    assert "expected str, got nil" in refused(kind, None).message


def test_bytes_come_back_as_bytes() -> None:
    kind = Bytes(2, 2)
    assert kind.coerce(bytearray(b"ab"), "f") == b"ab"
    assert type(kind.coerce(bytearray(b"ab"), "f")) is bytes
    refused(kind, b"abc")
    refused(kind, "ab")
    assert kind.describe() == "bin[2]"
    assert Bytes(0, 9).describe() == "bin 0..9"


def test_enum_kind_reads_values_and_falls_back() -> None:
    strict = EnumKind(ErrorCode)
    assert strict.coerce("bad_field", "f") is ErrorCode.BAD_FIELD
    assert strict.coerce(ErrorCode.MALFORMED, "f") is ErrorCode.MALFORMED
    assert "is not one of" in refused(strict, "nope").message
    refused(strict, 3)
    loose = EnumKind(ErrorCode, fallback=ErrorCode.INTERNAL)
    assert loose.coerce("nope", "f") is ErrorCode.INTERNAL
    assert loose.to_wire(ErrorCode.BAD_FIELD) == "bad_field"
    assert loose.describe() == "str (ErrorCode)"


def test_card_kind_keeps_the_bad_card_code() -> None:
    assert CardKind().coerce("10H", "f") is card("10H")
    assert CardKind().coerce(card("QS"), "f") is card("QS")
    assert refused(CardKind(), "1Z").code is ErrorCode.BAD_CARD
    assert CardKind().to_wire(card("JB")) == "JB"
    assert CardKind().describe() == "card"


def test_nullable_list_and_map_compose() -> None:
    cards = ListOf(CardKind(), max_len=2)
    assert cards.coerce(["AS", "2H"], "f") == (card("AS"), card("2H"))
    assert "f[1]" in refused(cards, ["AS", "1Z"]).message
    refused(cards, ["AS", "2H", "3C"])
    refused(cards, "AS")
    assert cards.to_wire((card("AS"),)) == ["AS"]
    assert cards.describe() == "array of (card), 0..2 items"

    maybe = Nullable(CardKind())
    assert maybe.coerce(None, "f") is None
    assert maybe.to_wire(None) is None
    assert maybe.to_wire(card("AS")) == "AS"
    assert maybe.describe() == "card or nil"

    by_name = MapOf(Str(min_len=1, max_len=3), Int(0, 9), max_len=2)
    assert by_name.coerce({"a": 1}, "f") == {"a": 1}
    refused(by_name, {"abcd": 1})
    refused(by_name, {"a": 10})
    refused(by_name, {"a": 1, "b": 2, "c": 3})
    refused(by_name, [("a", 1)])
    assert by_name.describe() == "map (str 1..3) to (int 0..9)"


def test_any_map_copies_and_checks_the_tree() -> None:
    original: dict[str, Any] = {"a": [1, "x", None, {"b": b"\x00"}]}
    copy = AnyMap().coerce(original, "f")
    assert copy == original
    assert copy is not original
    refused(AnyMap(), [1])
    refused(AnyMap(), {"a": 1.5})
    assert AnyMap().describe() == "map"


def test_any_map_trusts_a_tree_checked_already() -> None:
    # inside checked_trees (a decoded frame, whose whole tree decode_body checked) the map is
    # only copied: a float, which check_tree refuses, shows the check did not run again
    with checked_trees():
        assert trees_checked()
        assert AnyMap().coerce({"a": 1.5}, "f") == {"a": 1.5}
        refused(AnyMap(), [1])  # not a map at all is still refused
    assert not trees_checked()
    refused(AnyMap(), {"a": 1.5})


def test_message_id_kind() -> None:
    kind = MessageIdKind()
    assert kind.coerce(MAX_MESSAGE_ID, "id") == MAX_MESSAGE_ID
    assert kind.coerce("x" * MAX_ID_LEN, "id") == "x" * MAX_ID_LEN
    for value in (-1, MAX_MESSAGE_ID + 1, "", "x" * (MAX_ID_LEN + 1), True, 1.5):
        refused(kind, value, "id")
    assert kind.describe() == f"int 0..2^53-1 or str 1..{MAX_ID_LEN}"


def test_a_custom_kind_without_examples_says_so() -> None:
    class Plain(Kind):
        def coerce(self, value: object, path: str) -> object:
            return value

        def describe(self) -> str:
            return "plain"

    with pytest.raises(NotImplementedError, match=r"Plain\.examples"):
        Plain().examples()
    assert Plain().to_wire(3) == 3
