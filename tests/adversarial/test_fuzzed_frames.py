"""Garbage on the wire: 100,000 seeded fuzzed frames, and every bad field of every request.

Two levels, both seeded so that a failure replays exactly:

* the sans-I/O :class:`protocol.connection.Connection` in the host's role takes 100,000 frames
  made by mutating valid requests (flipped and dropped bytes, wrong types in every field,
  oversized values, random msgpack, frames cut short or announced too long). Every outcome
  must be a message, a skip (a recoverable ``RemoteProtocolError``) or a fatal error with a
  wire code, never another exception;
* a live host (trio's mock clock, in-memory streams) gets every request type with each of its
  fields replaced by values of every wrong type, or missing: each is answered with a
  documented error that names the problem, never ``internal``, and the connection goes on.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio
import trio.testing

from host.server.server import HostConfig, HostInfo, serve_host
from protocol.connection import Connection, Role
from protocol.errors import ErrorCode, RemoteProtocolError
from protocol.framing import NEED_DATA, FrameDecoder, encode_frame
from protocol.limits import MAX_REQUEST_BYTES, wire_limits
from protocol.messages import Direction, Hello, Welcome, field_required, field_specs
from protocol.registry import MESSAGE_TYPES

FRAMES = 100_000
TABLE = "tfuzz1"

#: one valid request of every type a client may send (a test checks none is missing)
VALID: dict[str, dict[str, Any]] = {
    "ping": {},
    "pong": {},
    "bye": {"reason": "done"},
    "error": {"code": "bad_field", "message": "yours", "fatal": False},
    "list_games": {},
    "list_tables": {},
    "create_table": {"game": "one-card", "seats": 2, "options": {}, "name": "t", "turn_timer": 60},
    "join": {"table": TABLE, "name": "ann", "seat": 0, "bot": None},
    "leave": {"table": TABLE},
    "watch": {"table": TABLE, "name": "sam"},
    "add_bot": {"table": TABLE, "kind": "random", "seat": 1},
    "ready": {"table": TABLE, "ready": True},
    "act": {"table": TABLE, "seq": 1, "action": {"type": "draw"}},
    "explain": {"table": TABLE, "card": "AS"},
    "fair_commit": {"table": TABLE, "hand_no": 1, "c": bytes(32)},
    "fair_reveal": {"table": TABLE, "hand_no": 1, "r": bytes(32)},
    "list_records": {"table": TABLE},
    "get_record": {"table": TABLE, "hand_no": 1},
    "resume": {"token": "x" * 43, "last_seq": 0},
    "chat": {"table": TABLE, "text": "hello"},
    "mask_commit": {"table": TABLE, "hand_no": 1, "commit": bytes(32), "box_pk": bytes(32)},
    "mask_pass": {"table": TABLE, "hand_no": 1, "stream": 0, "step": "mask", "points": [bytes(32)]},
    "sealed_keys": {"table": TABLE, "hand_no": 1, "stream": 0, "boxes": [[0, 1, bytes(178)]]},
    "open_keys": {"table": TABLE, "hand_no": 1, "stream": 0, "keys": [[0, bytes(32)]]},
    "show_hand": {"table": TABLE, "hand_no": 1, "open": [[0, 3, [bytes(32), bytes(32)]]]},
    "mask_reveal": {"table": TABLE, "hand_no": 1, "secret": bytes(32)},
}
#: values of every msgpack type, several out of every range a field could have
WRONG: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    2**53,
    2**64 - 1,
    -(2**63),
    "",
    "x" * 200,
    "\x1b[2J",
    "AS",
    b"",
    b"\x00" * 31,
    b"\x00" * 33,
    [],
    [1, 2],
    {},
    {"type": "draw"},
    1.5,
]


def requests() -> list[str]:
    return sorted(
        n for n, c in MESSAGE_TYPES.items() if c.DIRECTION is not Direction.HOST_TO_CLIENT
    )


def test_the_fuzz_covers_every_request_type() -> None:
    assert set(requests()) - {"hello"} == set(VALID)


# --------------------------------------------------------------------------- sans-I/O fuzz


#: the handshake of every fuzzed connection, built once: the fuzz starts a new connection after
#: each fatal error (about half of its 100,000 frames), and building these each time was a third
#: of the test's time
HELLO_FRAME = encode_frame(Hello(protocol="onecard", versions=(1,), software="f").to_wire())
WELCOME = Welcome(
    re=None,
    version=1,
    host_name="h",
    software="s",
    fingerprint="sha256:" + "0" * 64,
    limits=wire_limits(),
)


def _open_host() -> Connection:
    """A host-side connection past its handshake."""
    conn = Connection(role=Role.HOST)
    conn.receive_data(HELLO_FRAME)
    conn.next_message()
    conn.send(WELCOME)
    return conn


def _mutate(rng: random.Random, kinds: list[str]) -> bytes:
    """One fuzzed frame: a valid request (one of ``kinds``) bent in one of several ways."""
    kind = rng.choice(kinds)
    base = dict(VALID.get(kind, {}), type=kind, id=rng.randrange(1000))
    how = rng.randrange(8)
    if how == 0 and len(base) > 2:  # a field of the wrong type
        field = rng.choice([k for k in base if k != "type"])
        base[field] = rng.choice(WRONG)
    elif how == 1 and len(base) > 2:  # a field missing
        del base[rng.choice([k for k in base if k != "type"])]
    elif how == 2:  # random nested junk in an unknown field
        base["junk"] = _junk(rng, 3)
    elif how == 3:  # an unknown type, or a type of the wrong kind
        base["type"] = rng.choice(["", "zzz", 7, None, "welcome", "state", "x" * 40])
    try:
        body = msgpack.packb(base)
    except (TypeError, ValueError, OverflowError):
        body = msgpack.packb({"type": "ping"})
    if how == 4:  # flipped bytes
        data = bytearray(body)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        body = bytes(data)
    elif how == 5:  # cut short or with trailing bytes
        body = body[: rng.randrange(1, len(body))] if rng.random() < 0.5 else body + b"\xc0"
    elif how == 6:  # random bytes
        body = rng.randbytes(rng.randrange(1, 64))
    header = len(body)
    if how == 7:  # a header announcing a different length (too long at times)
        header = rng.choice([0, len(body) + 1, MAX_REQUEST_BYTES + 1, 2**32 - 1])
    return header.to_bytes(4, "big") + body


def _junk(rng: random.Random, depth: int) -> Any:
    pick = rng.randrange(7 if depth else 4)
    if pick == 0:
        return rng.randrange(-(2**63), 2**64)
    if pick == 1:
        return rng.randbytes(rng.randrange(8)).decode("latin-1")
    if pick == 2:
        return rng.randbytes(rng.randrange(8))
    if pick == 3:
        return None
    if pick == 4:
        return [_junk(rng, depth - 1) for _ in range(rng.randrange(4))]
    if pick == 5:
        return {str(i): _junk(rng, depth - 1) for i in range(rng.randrange(4))}
    return rng.random() < 0.5


def test_a_hundred_thousand_fuzzed_frames_get_only_typed_outcomes() -> None:
    rng = random.Random(20261201)
    outcomes: Counter[str] = Counter()
    conn = _open_host()
    kinds = requests()
    for _ in range(FRAMES):
        frame = _mutate(rng, kinds)
        try:
            conn.receive_data(frame)
            while conn.next_message() is not NEED_DATA:
                outcomes["message"] += 1
        except RemoteProtocolError as exc:
            assert isinstance(exc.code, ErrorCode)
            reply = conn.error_reply(exc)
            assert reply.code is exc.code and reply.message
            if reply.fatal:
                outcomes[f"fatal {exc.code.value}"] += 1
                conn = _open_host()
            else:
                outcomes[f"skipped {exc.code.value}"] += 1
        if conn.state.value not in ("open",):  # a bye or a fatal error of its own: start over
            conn = _open_host()
    # every kind of outcome was reached, so the fuzz is not stuck on one path
    assert outcomes["message"] > 1000
    for expected in (
        "skipped bad_field",
        "skipped unknown_type",
        "fatal malformed",
        "fatal frame_too_large",
    ):
        assert outcomes[expected] > 100, outcomes


# --------------------------------------------------------------------------- live host


@pytest.fixture
async def mock_host(nursery: trio.Nursery, tmp_path: Path) -> HostInfo:
    config = HostConfig(
        data_dir=tmp_path / "host",
        bind="127.0.0.1",
        port=0,
        insecure=True,
        advertise=False,
        store_in_thread=False,
        bot_think=0.0,
    )
    info: HostInfo = await nursery.start(serve_host, config)
    return info


class Raw:
    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.decoder = FrameDecoder()
        self.queue: list[dict[str, Any]] = []

    async def next(self) -> dict[str, Any] | None:
        while not self.queue:
            chunk = await self.stream.receive_some(65536)
            if not chunk:
                return None
            self.decoder.receive_data(chunk)
            while (frame := self.decoder.next_frame()) is not NEED_DATA:
                self.queue.append(frame)
        return self.queue.pop(0)

    async def ask(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Send a raw request and a ping behind it; the reply to the request (None if it got
        none, as a client's own ``error`` or ``pong`` gets none), or the fatal error or None
        if the host hung up first."""
        ping = {"type": "ping", "id": "probe"}
        data = b""
        for item in (obj, ping):
            body = msgpack.packb(item)
            data += len(body).to_bytes(4, "big") + body
        await self.stream.send_all(data)
        reply: dict[str, Any] | None = None
        while True:
            got = await self.next()
            if got is None or got.get("fatal"):
                return got
            if got.get("re") == obj.get("id"):
                reply = got
            if got.get("re") == "probe":
                return reply if reply is not None else {"type": "unanswered"}


async def _connect(nursery: trio.Nursery, info: HostInfo) -> Raw:
    client_end, host_end = trio.testing.memory_stream_pair()
    nursery.start_soon(info.host.handle, host_end)
    raw = Raw(client_end)
    hello = Hello(protocol="onecard", versions=(1,), software="fuzz", id=0).to_wire()
    body = msgpack.packb(hello)
    await raw.stream.send_all(len(body).to_bytes(4, "big") + body)
    assert (await raw.next() or {}).get("type") == "welcome"
    return raw


async def test_every_bad_field_of_every_request_gets_a_documented_error(
    autojump_clock: trio.testing.MockClock, mock_host: HostInfo
) -> None:
    await mock_host.host.create_table("one-card", seats=2)  # a real table exists too
    internal: list[str] = []
    answered: Counter[str] = Counter()
    n = 0
    async with trio.open_nursery() as nursery:
        raw = await _connect(nursery, mock_host)
        for kind in sorted(VALID):
            cls = MESSAGE_TYPES[kind]
            cases: list[tuple[str, dict[str, Any]]] = []
            for field in field_specs(cls):
                for bad in WRONG:
                    cases.append((f"{kind}.{field}={bad!r}"[:80], {**VALID[kind], field: bad}))
                if field_required(cls, field):
                    missing = {k: v for k, v in VALID[kind].items() if k != field}
                    cases.append((f"{kind} without {field}", missing))
            for label, fields in cases:
                n += 1
                await trio.sleep(0.1)  # within the rate limit: every request is judged
                reply = await raw.ask({"type": kind, "id": n, **fields})
                if reply is None or reply.get("fatal"):
                    answered[f"closed {None if reply is None else reply.get('code')}"] += 1
                    raw = await _connect(nursery, mock_host)  # bye, an error of ours, a float
                    continue
                code = reply.get("code") if reply.get("type") == "error" else "answered"
                answered[str(code)] += 1
                if code == ErrorCode.INTERNAL.value:
                    internal.append(f"{label}: {reply.get('message')}")
            assert (await raw.ask({"type": "ping", "id": 0})) == {"type": "pong", "re": 0}
        nursery.cancel_scope.cancel()
    assert not internal, internal
    assert answered[ErrorCode.BAD_FIELD.value] > 200, answered
    # the only connections that closed: a float (fatal malformed: no such type on the wire)
    # and the client's own bye or fatal error, never the host's timeout or a crash
    assert {k for k in answered if k.startswith("closed")} <= {
        f"closed {ErrorCode.MALFORMED.value}",
        "closed None",
    }, answered
