"""Tests for protocol/messages.py: validation, the registry, wire round trips (kinds alone:
test_kinds.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import protocol.table_messages as tm
from protocol.cards import card
from protocol.errors import ErrorCode, LocalProtocolError
from protocol.framing import FRAME_HEADER_BYTES, decode_body, encode_frame
from protocol.limits import MAX_MESSAGE_ID, MAX_NAME_LEN, MAX_VERSIONS
from protocol.messages import (
    Bye,
    Direction,
    Error,
    Hello,
    Int,
    Message,
    Ping,
    Pong,
    ServerClosing,
    Welcome,
    field_specs,
    register,
    spec_table,
    wire,
)
from protocol.registry import MESSAGE_TYPES, message_from_wire

Strategies = Callable[[type[Message]], st.SearchStrategy[Message]]
FINGERPRINT = "sha256:" + "ab" * 32


def bad_field(excinfo: pytest.ExceptionInfo[LocalProtocolError], name: str) -> None:
    """Assert the error is bad_field and names ``name``."""
    assert excinfo.value.code is ErrorCode.BAD_FIELD
    assert repr(name) in excinfo.value.message


def hello_wire(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "type": "hello",
        "protocol": "onecard",
        "versions": [1],
        "software": "test/1",
    }
    base.update(overrides)
    return base


class TestRegistry:
    def test_core_types_are_registered(self) -> None:
        core = {"hello", "welcome", "error", "ping", "pong", "bye", "server_closing"}
        assert core <= set(MESSAGE_TYPES)
        for type_name, cls in MESSAGE_TYPES.items():
            assert type_name == cls.TYPE
            assert isinstance(cls.DIRECTION, Direction)
            assert (cls.__doc__ or "").strip()

    def test_every_field_has_a_kind_and_a_doc(self) -> None:
        for cls in MESSAGE_TYPES.values():
            for name, spec in field_specs(cls).items():
                assert spec.doc, f"{cls.TYPE}.{name} has no doc"
                assert spec.kind.describe()

    def test_register_rejects_a_duplicate_type(self) -> None:
        @dataclass(frozen=True, kw_only=True)
        class Ping2(Message):
            """Duplicate."""

            TYPE: ClassVar[str] = "ping"
            DIRECTION: ClassVar[Direction] = Direction.BOTH

        with pytest.raises(TypeError, match="already registered"):
            register(Ping2)

    def test_register_rejects_a_class_that_is_not_its_own_dataclass(self) -> None:
        class Loose(Message):
            """Not decorated with @dataclass."""

            TYPE: ClassVar[str] = "test_loose"
            DIRECTION: ClassVar[Direction] = Direction.BOTH

        with pytest.raises(TypeError, match="dataclass"):
            register(Loose)
        assert "test_loose" not in MESSAGE_TYPES

    def test_register_rejects_positional_fields(self) -> None:
        @dataclass(frozen=True)
        class Positional(Message):
            """Fields not keyword-only."""

            TYPE: ClassVar[str] = "test_positional"
            DIRECTION: ClassVar[Direction] = Direction.BOTH
            x: int = wire(Int(), "x")

        with pytest.raises(TypeError, match="kw_only"):
            register(Positional)

    @pytest.mark.parametrize("type_name", ["Bad", "1x", "has-dash", ""])
    def test_register_rejects_a_bad_type_name(self, type_name: str) -> None:
        @dataclass(frozen=True, kw_only=True)
        class Named(Message):
            """Bad name."""

            TYPE: ClassVar[str] = type_name
            DIRECTION: ClassVar[Direction] = Direction.BOTH

        with pytest.raises(TypeError, match="TYPE"):
            register(Named)

    def test_register_rejects_a_field_declared_without_wire(self) -> None:
        @dataclass(frozen=True, kw_only=True)
        class Plain(Message):
            """Plain field."""

            TYPE: ClassVar[str] = "test_plain"
            DIRECTION: ClassVar[Direction] = Direction.BOTH
            x: int = 0

        with pytest.raises(TypeError, match=r"wire\(\.\.\.\)"):
            register(Plain)

    def test_register_rejects_a_redefined_envelope_field(self) -> None:
        @dataclass(frozen=True, kw_only=True)
        class Shadow(Message):
            """Shadows id."""

            TYPE: ClassVar[str] = "test_shadow"
            DIRECTION: ClassVar[Direction] = Direction.BOTH
            id: int | str | None = wire(Int(), "shadow")

        with pytest.raises(TypeError, match="envelope"):
            register(Shadow)

    def test_register_requires_a_docstring(self) -> None:
        @dataclass(frozen=True, kw_only=True)
        class NoDoc(Message):
            TYPE: ClassVar[str] = "test_nodoc"
            DIRECTION: ClassVar[Direction] = Direction.BOTH

        NoDoc.__doc__ = None
        with pytest.raises(TypeError, match="docstring"):
            register(NoDoc)

    def test_unregistered_classes_cannot_be_instantiated(self) -> None:
        @dataclass(frozen=True, kw_only=True)
        class Stray(Message):
            """Never registered."""

            TYPE: ClassVar[str] = "test_stray"
            DIRECTION: ClassVar[Direction] = Direction.BOTH

        with pytest.raises(TypeError, match="not a registered"):
            Stray()
        with pytest.raises(TypeError, match="not a registered"):
            Message()


class TestRoundTrip:
    @pytest.mark.parametrize("type_name", sorted(MESSAGE_TYPES))
    @settings(max_examples=15)  # per type: the file stays fast as the registry grows
    @given(data=st.data())
    def test_every_registered_type_survives_encode_and_decode(
        self, type_name: str, data: st.DataObject, strategies: Strategies
    ) -> None:
        msg = data.draw(strategies(MESSAGE_TYPES[type_name]))
        frame = encode_frame(msg.to_wire())
        decoded = message_from_wire(decode_body(frame[FRAME_HEADER_BYTES:]))
        assert decoded == msg
        assert type(decoded) is type(msg)

    # naming the health checks replaces the profile's list: keep too_slow off (tests/conftest.py)
    @settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(data=st.data())
    def test_types_registered_later_are_covered_too(
        self, data: st.DataObject, strategies: Strategies, app_message: type[Message]
    ) -> None:
        msg = data.draw(strategies(app_message))
        assert message_from_wire(decode_body(encode_frame(msg.to_wire())[4:])) == msg

    @given(
        data=st.data(),
        extra=st.dictionaries(
            st.text(min_size=1, max_size=8).map(lambda s: "x_" + s),
            st.none() | st.integers() | st.text(max_size=5),
            max_size=3,
        ),
    )
    def test_unknown_fields_are_ignored(
        self, data: st.DataObject, extra: dict[str, Any], strategies: Strategies
    ) -> None:
        type_name = data.draw(st.sampled_from(sorted(MESSAGE_TYPES)))
        msg = data.draw(strategies(MESSAGE_TYPES[type_name]))
        assert message_from_wire({**msg.to_wire(), **extra}) == msg

    def test_wire_form_of_hello(self) -> None:
        msg = Hello(protocol="onecard", versions=(1, 2), software="cli/0.1", id=1)
        assert msg.to_wire() == {
            "type": "hello",
            "id": 1,
            "protocol": "onecard",
            "versions": [1, 2],
            "software": "cli/0.1",
        }

    def test_envelope_fields_are_omitted_when_unset_and_nil_reads_as_unset(self) -> None:
        assert Pong().to_wire() == {"type": "pong"}
        assert message_from_wire({"type": "pong", "id": None, "re": None}) == Pong()

    def test_optional_fields_may_be_absent(self) -> None:
        assert message_from_wire({"type": "bye"}) == Bye(reason="")
        closing = message_from_wire({"type": "server_closing"})
        assert closing == ServerClosing(retry_after=None, reason="")

    def test_cards_travel_as_codes(self, app_message: type[Message]) -> None:
        msg = app_message(cards=[card("10H"), "qs"])
        assert msg.to_wire()["cards"] == ["10H", "QS"]
        assert message_from_wire({"type": "test_show", "cards": ["JB"]}) == app_message(
            cards=(card("JB"),)
        )


class TestValidation:
    @given(data=st.data())
    def test_arbitrary_field_values_give_a_message_or_a_protocol_error(
        self, data: st.DataObject, wire_values: st.SearchStrategy[Any]
    ) -> None:
        type_name = data.draw(st.sampled_from(sorted(MESSAGE_TYPES)))
        wire_map: dict[str, Any] = {"type": type_name}
        for name in [*field_specs(MESSAGE_TYPES[type_name]), "id", "re"]:
            if data.draw(st.booleans()):
                wire_map[name] = data.draw(wire_values)
        try:
            msg = message_from_wire(wire_map)
        except LocalProtocolError as err:
            assert err.code in {ErrorCode.BAD_FIELD, ErrorCode.BAD_CARD}
        else:
            assert type_name == msg.TYPE
            assert message_from_wire(msg.to_wire()) == msg

    def test_unknown_type(self) -> None:
        with pytest.raises(LocalProtocolError) as info:
            message_from_wire({"type": "teleport"})
        assert info.value.code is ErrorCode.UNKNOWN_TYPE
        assert "teleport" in info.value.message

    @pytest.mark.parametrize("wire_map", [{}, {"type": 3}, {"type": None}])
    def test_missing_or_bad_type(self, wire_map: dict[str, Any]) -> None:
        with pytest.raises(LocalProtocolError) as info:
            message_from_wire(wire_map)
        bad_field(info, "type")

    @pytest.mark.parametrize("name", ["protocol", "versions", "software"])
    def test_missing_required_field_is_named(self, name: str) -> None:
        wire_map = hello_wire()
        del wire_map[name]
        with pytest.raises(LocalProtocolError) as info:
            message_from_wire(wire_map)
        bad_field(info, name)

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("versions", []),
            ("versions", [0]),
            ("versions", [True]),
            ("versions", "1"),
            ("versions", list(range(1, MAX_VERSIONS + 2))),
            ("software", ""),
            ("software", "a\nb"),
            ("software", b"bytes"),
            ("protocol", None),
        ],
    )
    def test_wrong_field_values_are_named(self, field: str, value: object) -> None:
        with pytest.raises(LocalProtocolError) as info:
            message_from_wire(hello_wire(**{field: value}))
        assert info.value.code is ErrorCode.BAD_FIELD
        assert field in info.value.message

    def test_constructor_validates_like_the_decoder(self) -> None:
        with pytest.raises(LocalProtocolError) as info:
            Welcome(
                version=1,
                host_name="x" * (MAX_NAME_LEN + 1),
                software="h/1",
                fingerprint=FINGERPRINT,
                limits={},
            )
        bad_field(info, "host_name")
        with pytest.raises(LocalProtocolError) as info:
            Welcome(version=1, host_name="h", software="h/1", fingerprint="sha1:00", limits={})
        bad_field(info, "fingerprint")

    def test_constructor_normalises_lists_to_tuples(self) -> None:
        msg = Hello(protocol="onecard", versions=[1, 2], software="x")  # type: ignore[arg-type]
        assert msg.versions == (1, 2)
        with pytest.raises(dataclasses.FrozenInstanceError):
            msg.versions = (3,)  # type: ignore[misc]

    @pytest.mark.parametrize("value", [-1, MAX_MESSAGE_ID + 1, "", "x" * 65, 1.5, True, [1]])
    def test_bad_envelope_ids(self, value: object) -> None:
        for name in ("id", "re"):
            with pytest.raises(LocalProtocolError) as info:
                message_from_wire({"type": "ping", name: value})
            bad_field(info, name)

    def test_good_envelope_ids(self) -> None:
        assert Ping(id=MAX_MESSAGE_ID).id == MAX_MESSAGE_ID
        assert Ping(id="x" * 64).id == "x" * 64

    def test_bad_card_names_the_field_and_keeps_the_code(self, app_message: type[Message]) -> None:
        with pytest.raises(LocalProtocolError) as info:
            message_from_wire({"type": "test_show", "cards": ["AS", "1Z"]})
        assert info.value.code is ErrorCode.BAD_CARD
        assert "cards[1]" in info.value.message

    def test_unknown_error_code_reads_as_internal(self) -> None:
        msg = message_from_wire(
            {"type": "error", "code": "new_in_v9", "message": "", "fatal": False}
        )
        assert isinstance(msg, Error)
        assert msg.code is ErrorCode.INTERNAL

    def test_error_fatal_must_be_a_bool(self) -> None:
        with pytest.raises(LocalProtocolError) as info:
            message_from_wire({"type": "error", "code": "internal", "message": "", "fatal": 0})
        bad_field(info, "fatal")

    def test_watch_carries_an_optional_spectator_name(self) -> None:
        assert message_from_wire({"type": "watch", "table": "t1"}) == tm.Watch(table="t1", name="")
        sam = message_from_wire({"type": "watch", "table": "t1", "name": "Sam"})
        assert sam == tm.Watch(table="t1", name="Sam")
        for bad in ("x" * (MAX_NAME_LEN + 1), "a\tb"):
            with pytest.raises(LocalProtocolError):
                message_from_wire({"type": "watch", "table": "t1", "name": bad})


class TestHelpers:
    def test_ping_response_answers_its_id(self) -> None:
        assert Ping(id=5).response() == Pong(re=5)

    def test_error_from_exception_takes_the_code_and_its_fatality(self) -> None:
        err = LocalProtocolError("bad", code=ErrorCode.MALFORMED)
        assert Error.from_exception(err, re="a") == Error(
            code=ErrorCode.MALFORMED, message="bad", fatal=True, re="a"
        )
        soft = LocalProtocolError("x" * 900, code=ErrorCode.BAD_FIELD)
        reply = Error.from_exception(soft)
        assert not reply.fatal
        assert len(reply.message) == 500

    def test_spec_table_has_one_row_per_type(self) -> None:
        table = spec_table(MESSAGE_TYPES)
        rows = [line for line in table.splitlines() if line.startswith("| `")]
        assert [row.split("`")[1] for row in rows] == sorted(MESSAGE_TYPES)
        assert "`retry_after?`" in table
        assert "`versions`" in table
