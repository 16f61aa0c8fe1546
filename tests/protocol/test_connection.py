"""Tests for protocol/connection.py: handshake, version negotiation, the state table, errors."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.connection import (
    _TRANSITIONS,
    PROTOCOL_NAME,
    Connection,
    Role,
    State,
    negotiate_version,
    next_state,
)
from protocol.errors import ErrorCode, LocalProtocolError, ProtocolError, RemoteProtocolError
from protocol.framing import NEED_DATA, encode_frame
from protocol.limits import wire_limits
from protocol.messages import (
    Bye,
    Direction,
    Error,
    Hello,
    Message,
    Ping,
    Pong,
    ServerClosing,
    Welcome,
)
from protocol.registry import MESSAGE_TYPES

Strategies = Callable[[type[Message]], st.SearchStrategy[Message]]
FINGERPRINT = "sha256:" + "0f" * 32


def hello(versions: tuple[int, ...] = (1,), protocol: str = PROTOCOL_NAME) -> Hello:
    return Hello(protocol=protocol, versions=versions, software="test-client/1", id=1)


def welcome(version: int = 1) -> Welcome:
    return Welcome(
        version=version,
        host_name="Den",
        software="test-host/1",
        fingerprint=FINGERPRINT,
        limits=wire_limits(),
        re=1,
    )


class ConnectionPair:
    """A client and a host wired back to back (after h11's tests/helpers.py)."""

    def __init__(
        self, client_versions: tuple[int, ...] = (1,), host_versions: tuple[int, ...] = (1,)
    ) -> None:
        self.client = Connection(role=Role.CLIENT, versions=client_versions)
        self.host = Connection(role=Role.HOST, versions=host_versions)

    def peer(self, conn: Connection) -> Connection:
        return self.host if conn is self.client else self.client

    def send(self, sender: Connection, msg: Message) -> Message:
        """Send ``msg``; assert the peer decodes exactly it and nothing else."""
        receiver = self.peer(sender)
        receiver.receive_data(sender.send(msg))
        got = receiver.next_message()
        assert got == msg
        assert receiver.next_message() is NEED_DATA
        assert isinstance(got, Message)
        return got

    def handshake(self) -> None:
        sent = hello(self.client.versions)
        self.send(self.client, sent)
        assert self.host.version is not None
        self.send(self.host, welcome(self.host.version))


def fail(conn: Connection) -> None:
    """Put a connection in ERROR by feeding it a malformed frame."""
    conn.receive_data(b"\x00\x00\x00\x01\xc1")
    with pytest.raises(RemoteProtocolError):
        conn.next_message()


def pair_in(state: State) -> ConnectionPair:
    """A pair whose two ends are both in ``state``."""
    pair = ConnectionPair()
    if state is State.ERROR:
        fail(pair.client)
        fail(pair.host)
        return pair
    steps: list[tuple[Connection, Message]] = [
        (pair.client, hello()),
        (pair.host, welcome()),
        (pair.client, Bye(reason="done")),
    ]
    count = {
        State.AWAIT_HELLO: 0,
        State.AWAIT_WELCOME: 1,
        State.OPEN: 2,
        State.CLOSED: 3,
    }[state]
    for sender, msg in steps[:count]:
        pair.send(sender, msg)
    assert pair.client.state is state
    assert pair.host.state is state
    return pair


class TestHandshake:
    def test_happy_path(self) -> None:
        pair = ConnectionPair()
        pair.send(pair.client, hello())
        assert pair.client.state is pair.host.state is State.AWAIT_WELCOME
        assert pair.host.version == 1
        pair.send(pair.host, welcome())
        assert pair.client.state is pair.host.state is State.OPEN
        assert pair.client.version == 1

    def test_host_picks_the_highest_common_version(self) -> None:
        pair = ConnectionPair(client_versions=(1, 2, 3), host_versions=(2, 3, 4))
        pair.handshake()
        assert pair.client.version == pair.host.version == 3

    def test_no_common_version_is_a_fatal_version_mismatch(self) -> None:
        pair = ConnectionPair(client_versions=(2,), host_versions=(1,))
        pair.host.receive_data(pair.client.send(hello((2,))))
        with pytest.raises(RemoteProtocolError) as info:
            pair.host.next_message()
        assert info.value.code is ErrorCode.VERSION_MISMATCH
        assert pair.host.state is State.ERROR
        reply = pair.host.error_reply(info.value)
        assert reply.fatal
        assert reply.re == 1
        assert reply.code is ErrorCode.VERSION_MISMATCH
        pair.client.receive_data(pair.host.send(reply))
        assert pair.client.next_message() == reply
        assert pair.client.state is State.CLOSED

    def test_another_protocol_name_is_a_version_mismatch(self) -> None:
        host = Connection(role=Role.HOST)
        host.receive_data(encode_frame(hello(protocol="other").to_wire()))
        with pytest.raises(RemoteProtocolError) as info:
            host.next_message()
        assert info.value.code is ErrorCode.VERSION_MISMATCH

    def test_client_refuses_a_version_it_did_not_offer(self) -> None:
        pair = ConnectionPair(client_versions=(1,), host_versions=(1, 2))
        pair.send(pair.client, hello((1,)))
        pair.client.receive_data(encode_frame(welcome(2).to_wire()))
        with pytest.raises(RemoteProtocolError) as info:
            pair.client.next_message()
        assert info.value.code is ErrorCode.VERSION_MISMATCH
        assert pair.client.state is State.ERROR

    def test_host_cannot_send_a_welcome_with_another_version(self) -> None:
        pair = pair_in(State.AWAIT_WELCOME)
        with pytest.raises(LocalProtocolError) as info:
            pair.host.send(welcome(2))
        assert info.value.code is ErrorCode.BAD_FIELD
        assert pair.host.state is State.ERROR

    def test_nothing_but_hello_may_come_first(self) -> None:
        client = Connection(role=Role.CLIENT)
        with pytest.raises(LocalProtocolError) as info:
            client.send(Ping(id=1))
        assert info.value.code is ErrorCode.BAD_STATE
        assert client.state is State.ERROR

    def test_host_rejects_a_welcome_from_a_client(self) -> None:
        host = pair_in(State.AWAIT_WELCOME).host
        host.receive_data(encode_frame(welcome().to_wire()))
        with pytest.raises(RemoteProtocolError) as info:
            host.next_message()
        assert info.value.code is ErrorCode.BAD_STATE
        assert "client may not send 'welcome'" in info.value.message

    @pytest.mark.parametrize(
        ("offered", "supported", "expected"),
        [((1,), (1,), 1), ((1, 5, 3), (3, 5), 5), ((2,), (1,), None), ((), (1,), None)],
    )
    def test_negotiate_version(
        self, offered: tuple[int, ...], supported: tuple[int, ...], expected: int | None
    ) -> None:
        assert negotiate_version(offered, supported) == expected


class TestOpen:
    def test_ping_pong_and_correlation(self) -> None:
        pair = pair_in(State.OPEN)
        ping = pair.send(pair.host, Ping(id="hb-1"))
        assert isinstance(ping, Ping)
        pong = pair.send(pair.client, ping.response())
        assert pong == Pong(re="hb-1")

    def test_application_messages_are_allowed_only_when_open(
        self, app_message: type[Message]
    ) -> None:
        pair = pair_in(State.OPEN)
        pair.send(pair.client, app_message(cards=("AS",)))
        assert pair.host.state is State.OPEN
        early = Connection(role=Role.CLIENT)
        with pytest.raises(LocalProtocolError) as info:
            early.send(app_message(cards=()))
        assert info.value.code is ErrorCode.BAD_STATE

    def test_unknown_type_skips_the_message_and_stays_open(self) -> None:
        pair = pair_in(State.OPEN)
        pair.host.receive_data(encode_frame({"type": "from_the_future", "id": 42}))
        pair.host.receive_data(pair.client.send(Ping(id=43)))
        with pytest.raises(RemoteProtocolError) as info:
            pair.host.next_message()
        assert info.value.code is ErrorCode.UNKNOWN_TYPE
        assert pair.host.state is State.OPEN
        reply = pair.host.error_reply(info.value)
        assert (reply.re, reply.fatal, reply.code) == (42, False, ErrorCode.UNKNOWN_TYPE)
        assert pair.host.next_message() == Ping(id=43)

    def test_bad_field_while_open_is_recoverable(self) -> None:
        pair = pair_in(State.OPEN)
        pair.client.receive_data(encode_frame({"type": "server_closing", "retry_after": -1}))
        with pytest.raises(RemoteProtocolError) as info:
            pair.client.next_message()
        assert info.value.code is ErrorCode.BAD_FIELD
        assert pair.client.state is State.OPEN
        assert pair.client.error_reply(info.value).re is None

    def test_bad_field_during_the_handshake_is_fatal(self) -> None:
        host = Connection(role=Role.HOST)
        host.receive_data(encode_frame({"type": "hello", "protocol": "onecard"}))
        with pytest.raises(RemoteProtocolError):
            host.next_message()
        assert host.state is State.ERROR

    @pytest.mark.parametrize(
        "closing", [Bye(reason="bye"), Error(code=ErrorCode.TIMEOUT, message="", fatal=True)]
    )
    def test_closing_messages_close_both_ends(self, closing: Message) -> None:
        pair = pair_in(State.OPEN)
        pair.send(pair.client, closing)
        assert pair.client.state is pair.host.state is State.CLOSED
        with pytest.raises(LocalProtocolError):
            pair.client.send(Ping())

    def test_server_closing_carries_retry_after(self) -> None:
        pair = pair_in(State.OPEN)
        msg = pair.send(pair.host, ServerClosing(retry_after=30, reason="restart"))
        assert isinstance(msg, ServerClosing)
        assert msg.retry_after == 30
        assert pair.client.state is State.CLOSED

    def test_non_fatal_error_keeps_the_connection_open(self) -> None:
        pair = pair_in(State.OPEN)
        pair.send(pair.host, Error(code=ErrorCode.NOT_YOUR_TURN, message="wait", fatal=False))
        assert pair.client.state is State.OPEN


class TestErrors:
    @given(
        state=st.sampled_from([State.AWAIT_HELLO, State.AWAIT_WELCOME, State.OPEN]),
        role=st.sampled_from(Role),
        frames=st.lists(
            st.dictionaries(
                st.sampled_from(["type", "id", "re", "versions", "code", "fatal", "reason"]),
                st.none()
                | st.booleans()
                | st.integers(-5, 5)
                | st.text(max_size=8)
                | st.sampled_from(sorted(MESSAGE_TYPES)),
            ),
            max_size=5,
        ),
        noise=st.binary(max_size=12),
    )
    def test_arbitrary_input_yields_only_messages_or_remote_errors(
        self, state: State, role: Role, frames: list[dict[str, object]], noise: bytes
    ) -> None:
        pair = pair_in(state)
        conn = pair.client if role is Role.CLIENT else pair.host
        stream = b"".join(encode_frame(f) for f in frames) + noise
        try:
            conn.receive_data(stream)
            while True:
                try:
                    got = conn.next_message()
                except RemoteProtocolError as err:
                    if conn.state is State.ERROR:
                        raise
                    assert err.code in {ErrorCode.UNKNOWN_TYPE, ErrorCode.BAD_FIELD}
                    assert not conn.error_reply(err).fatal
                    continue
                if got is NEED_DATA:
                    break
                assert isinstance(got, Message)
        except RemoteProtocolError as err:
            assert conn.state is State.ERROR
            assert conn.error_reply(err).fatal

    def test_errors_are_converted_to_remote_at_the_boundary(self) -> None:
        host = Connection(role=Role.HOST)
        host.receive_data(b"\x00\x00\x00\x01\xc1")
        with pytest.raises(RemoteProtocolError) as info:
            host.next_message()
        assert isinstance(info.value.__cause__, LocalProtocolError)
        assert info.value.code is ErrorCode.MALFORMED

    def test_oversized_frame_fails_in_receive_data(self) -> None:
        host = Connection(role=Role.HOST, max_frame_bytes=100)
        with pytest.raises(RemoteProtocolError) as info:
            host.receive_data((101).to_bytes(4, "big"))
        assert info.value.code is ErrorCode.FRAME_TOO_LARGE
        assert host.state is State.ERROR
        assert host.buffered_bytes == 0

    def test_error_state_is_sticky_but_allows_one_fatal_report(self) -> None:
        host = Connection(role=Role.HOST)
        fail(host)
        assert host.error is not None
        with pytest.raises(RemoteProtocolError) as info:
            host.receive_data(b"more")
        assert info.value.code is ErrorCode.MALFORMED
        with pytest.raises(RemoteProtocolError):
            host.next_message()
        with pytest.raises(LocalProtocolError):
            host.send(Ping())
        with pytest.raises(LocalProtocolError):
            host.send(Error(code=ErrorCode.MALFORMED, message="soft", fatal=False))
        report = host.error_reply(host.error)
        assert report.fatal
        assert host.send(report)
        with pytest.raises(LocalProtocolError):
            host.send(report)
        assert host.state is State.ERROR

    def test_a_frame_that_cannot_be_encoded_changes_nothing(
        self, app_message: type[Message]
    ) -> None:
        pair = pair_in(State.OPEN)
        with pytest.raises(LocalProtocolError) as info:
            pair.client.send(app_message(cards=(), note="x"))  # fits: control
            pair.client.max_frame_bytes = 5
            pair.client.send(app_message(cards=(), note="x"))
        assert info.value.code is ErrorCode.FRAME_TOO_LARGE
        assert pair.client.state is State.OPEN

    @pytest.mark.parametrize(
        "bad",
        [
            b"\x00\x00\x00\x01\xc1",  # not msgpack
            (1 << 30).to_bytes(4, "big"),  # over the frame limit: fails in receive_data
        ],
    )
    def test_an_unreadable_frame_is_not_blamed_on_the_message_before_it(self, bad: bytes) -> None:
        pair = pair_in(State.OPEN)
        pair.host.receive_data(pair.client.send(Ping(id="abc-42")))
        assert pair.host.next_message() == Ping(id="abc-42")
        assert pair.host.last_received_id == "abc-42"
        with pytest.raises(RemoteProtocolError) as info:
            pair.host.receive_data(bad)
            pair.host.next_message()
        report = pair.host.error_reply(info.value)
        assert report.fatal and report.re is None

    @pytest.mark.parametrize(
        ("state", "frame"),
        [
            (State.OPEN, {"type": "welcome", "id": 3}),  # a client's welcome, fields missing
            (State.OPEN, {"type": "hello", "id": 3, "versions": list(range(40))}),  # 2nd hello
            (State.AWAIT_HELLO, {"type": "act", "id": 3, "table": 5}),  # before hello, bad
        ],
    )
    def test_a_message_that_may_not_come_now_is_bad_state_whatever_its_fields(
        self, state: State, frame: dict[str, object]
    ) -> None:
        host = pair_in(state).host
        host.receive_data(encode_frame(frame))
        with pytest.raises(RemoteProtocolError) as info:
            host.next_message()
        assert info.value.code is ErrorCode.BAD_STATE
        assert host.state is State.ERROR
        report = host.error_reply(info.value)
        assert report.fatal and report.re == 3

    @pytest.mark.parametrize(
        ("frame", "code"),
        [
            (
                {
                    "type": "hello",
                    "id": 3,
                    "protocol": "onecard",
                    "versions": list(range(1, 41)),
                    "software": "x",
                },
                ErrorCode.BAD_FIELD,
            ),  # 40 versions
            (
                {"type": "hello", "id": 3, "protocol": "onecard", "versions": [0], "software": "x"},
                ErrorCode.BAD_FIELD,
            ),
            (
                {"type": "hello", "id": 3, "protocol": "onecard", "versions": [1]},
                ErrorCode.BAD_FIELD,
            ),  # no software
            (
                {"type": "hello", "id": 3, "protocol": "other", "versions": [1], "software": "x"},
                ErrorCode.VERSION_MISMATCH,
            ),
            ({"type": "ping", "id": 3}, ErrorCode.BAD_STATE),
            ({"type": "no_such", "id": 3}, ErrorCode.UNKNOWN_TYPE),
        ],
    )
    def test_an_invalid_first_message_gets_a_named_fatal_error(
        self, frame: dict[str, object], code: ErrorCode
    ) -> None:
        """PROTOCOL.md 2.5 (issue 17, point 14): each invalid first message has its code."""
        host = Connection(role=Role.HOST)
        host.receive_data(encode_frame(frame))
        with pytest.raises(RemoteProtocolError) as info:
            host.next_message()
        assert info.value.code is code
        report = host.error_reply(info.value)
        assert report.fatal and report.re == 3

    def test_a_bad_field_in_an_allowed_message_is_skipped(self, app_message: type[Message]) -> None:
        host = pair_in(State.OPEN).host
        host.receive_data(encode_frame({"type": "ping", "id": 4, "x": 1}))
        assert host.next_message() == Ping(id=4)
        host.receive_data(encode_frame({"type": app_message.TYPE, "id": 5, "cards": 7}))
        with pytest.raises(RemoteProtocolError) as info:
            host.next_message()
        assert info.value.code is ErrorCode.BAD_FIELD and host.state is State.OPEN
        assert host.error_reply(info.value) == Error(
            code=ErrorCode.BAD_FIELD, message=info.value.message, re=5, fatal=False
        )

    def test_send_rejects_non_messages(self) -> None:
        with pytest.raises(TypeError):
            Connection(role=Role.CLIENT).send({"type": "ping"})  # type: ignore[arg-type]


def _may_send(direction: Direction, sender: Role) -> bool:
    return direction is Direction.BOTH or (direction is Direction.CLIENT_TO_HOST) == (
        sender is Role.CLIENT
    )


class TestStateMachine:
    def test_table_covers_the_handshake_and_control_types_only(self) -> None:
        types = {t for _, t in _TRANSITIONS}
        assert types == {"hello", "welcome", "error", "ping", "pong", "bye", "server_closing"}
        assert all(s not in (State.CLOSED, State.ERROR) for s, _ in _TRANSITIONS)
        assert next_state(State.OPEN, "not_registered") is None

    @pytest.mark.parametrize("state", list(State), ids=lambda s: s.value)
    @pytest.mark.parametrize("type_name", sorted(MESSAGE_TYPES))
    @settings(max_examples=4)  # per pair, each example checked for both roles, both directions
    @given(data=st.data())
    def test_every_state_and_message_type_transitions_per_table_or_errors(
        self, state: State, type_name: str, data: st.DataObject, strategies: Strategies
    ) -> None:
        msg = data.draw(strategies(MESSAGE_TYPES[type_name]))
        for role in Role:
            for sending in (True, False):
                self.check_one(state, role, msg, sending=sending)

    @staticmethod
    def check_one(state: State, role: Role, msg: Message, *, sending: bool) -> None:
        pair = pair_in(state)
        conn = pair.client if role is Role.CLIENT else pair.host
        sender = role if sending else (Role.HOST if role is Role.CLIENT else Role.CLIENT)
        expected = next_state(state, msg.TYPE) if _may_send(msg.DIRECTION, sender) else None
        fatal_error = isinstance(msg, Error) and msg.fatal
        try:
            if sending:
                conn.send(msg)
            else:
                conn.receive_data(encode_frame(msg.to_wire()))
                assert conn.next_message() == msg
        except ProtocolError as err:
            assert isinstance(err, LocalProtocolError if sending else RemoteProtocolError)
            assert conn.state is State.ERROR
            if expected is not None:  # allowed by the table: only handshake content may fail
                assert isinstance(msg, Hello | Welcome)
                assert err.code in {ErrorCode.VERSION_MISMATCH, ErrorCode.BAD_FIELD}
        else:
            if state is State.ERROR:  # the one fatal error report
                assert sending
                assert fatal_error
                assert conn.state is State.ERROR
            else:
                assert expected is not None
                assert conn.state is (State.CLOSED if fatal_error else expected)


def test_send_map_packs_a_trusted_map_under_the_same_state_rules() -> None:
    pair = ConnectionPair()
    pair.host.validate_sent = False
    push = {"type": "chat_line", "table": "t1", "seat": 0, "name": "Ann", "text": "hi", "n": 1}
    with pytest.raises(LocalProtocolError) as early:  # before the handshake: the full check
        pair.host.send_map(push)
    assert early.value.code is ErrorCode.BAD_STATE
    pair = ConnectionPair()
    pair.host.validate_sent = False
    pair.handshake()
    pair.client.receive_data(pair.host.send_map(push))
    got = pair.client.next_message()
    assert isinstance(got, Message)
    assert {key: got.to_wire()[key] for key in push} == push
    with pytest.raises(LocalProtocolError) as wrong_side:  # a client's message, from the host
        pair.host.send_map({"type": "hello", "protocol": PROTOCOL_NAME, "versions": [1]})
    assert wrong_side.value.code in (ErrorCode.BAD_STATE, ErrorCode.BAD_FIELD)
    with pytest.raises(LocalProtocolError) as unknown:
        pair.host.send_map({"type": "no_such_type"})
    assert unknown.value.code is ErrorCode.UNKNOWN_TYPE


def test_send_map_checks_values_only_when_asked() -> None:
    bad = {"type": "chat_line", "table": "t1", "seat": 0, "name": "Ann", "text": 5, "n": 1}
    trusting, checking = ConnectionPair(), ConnectionPair()
    trusting.host.validate_sent = False
    for pair in (trusting, checking):
        pair.handshake()
    trusting.host.send_map(bad)  # packed as built: the host's own maps are not checked again
    with pytest.raises(LocalProtocolError) as caught:
        checking.host.send_map(bad)
    assert caught.value.code is ErrorCode.BAD_FIELD


def test_a_received_message_has_its_tree_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # decode_body checks the whole frame; the ``view`` map field is not checked a second time
    from protocol import framing, kinds
    from protocol.table_messages import StatePush

    pair = ConnectionPair()
    pair.handshake()
    state = StatePush(
        table="t1",
        seq=3,
        game_no=1,
        phase="playing",
        seat=0,
        view={"hand": ["S7"]},
        legal=(),
        to_act=(0,),
        turn_ms=None,
    )
    frame = pair.host.send(state)
    whole: list[object] = []
    field: list[object] = []
    real = framing.check_tree
    monkeypatch.setattr(framing, "check_tree", lambda obj, **kw: whole.append(obj) or real(obj))
    monkeypatch.setattr(kinds, "check_tree", lambda obj, **kw: field.append(obj) or real(obj))
    pair.client.receive_data(frame)
    assert pair.client.next_message() == state
    assert len(whole) == 1  # the frame
    assert field == []  # not the view again
    # a message built in code (not decoded) still has its map fields checked
    StatePush(
        table="t1",
        seq=3,
        game_no=1,
        phase="playing",
        seat=0,
        view={"a": 1},
        legal=(),
        to_act=(),
        turn_ms=None,
    )
    assert field == [{"a": 1}]
