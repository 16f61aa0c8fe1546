"""What checking an incoming message costs: our hand-written validation against msgspec.

How it works: the host decodes and checks every frame a client sends. This bench times, per
message, the two ways to do it for the requests a table sees most (``act``, ``ping``,
``chat``, ``fair_commit``): our path (:class:`protocol.connection.Connection`:
``receive_data`` and ``next_message``, i.e. framing, the tree checks of :mod:`protocol.framing`
and the message's own field checks), and msgspec (``msgspec.msgpack.decode`` of the body, then
``msgspec.convert`` into a ``Struct`` with the same length and range constraints, the approach
issue 15 asked to measure). msgspec is a bench-only dependency (``pip install msgspec``).

The msgspec Structs here check less than our messages do (no printable-text rule, no
per-field error codes, no nesting or key-type limits on free-form maps such as ``act.action``,
unknown fields ignored) so its figure is a lower bound of what it would cost to match ours.
Run: ``python bench/validation.py``; it prints microseconds per message for each.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Annotated, Any

import msgspec

from protocol.connection import Connection, Role
from protocol.framing import encode_frame
from protocol.messages import Hello, Ping

REPEATS = 7
N = 20_000

TableId = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern="^[A-Za-z0-9_-]+$")]
Id = Annotated[int, msgspec.Meta(ge=0, le=2**53)]


class ActS(msgspec.Struct):
    type: str
    table: TableId
    seq: Annotated[int, msgspec.Meta(ge=1)]
    action: dict[str, Any]
    id: Id | None = None


class PingS(msgspec.Struct):
    type: str
    id: Id | None = None


class ChatS(msgspec.Struct):
    type: str
    table: TableId
    text: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
    id: Id | None = None


class FairCommitS(msgspec.Struct):
    type: str
    table: TableId
    hand_no: Annotated[int, msgspec.Meta(ge=1)]
    c: Annotated[bytes, msgspec.Meta(min_length=32, max_length=32)]
    id: Id | None = None


STRUCTS: dict[str, type[msgspec.Struct]] = {
    "act": ActS,
    "ping": PingS,
    "chat": ChatS,
    "fair_commit": FairCommitS,
}
SAMPLES: dict[str, dict[str, Any]] = {
    "act": {
        "type": "act",
        "id": 12,
        "table": "t3f9a1c",
        "seq": 7,
        "action": {"type": "play", "cards": ["QS", "QH"], "suit": None},
    },
    "ping": {"type": "ping", "id": 13},
    "chat": {"type": "chat", "id": 14, "table": "t3f9a1c", "text": "nice one, well played"},
    "fair_commit": {
        "type": "fair_commit",
        "id": 15,
        "table": "t3f9a1c",
        "hand_no": 3,
        "c": bytes(range(32)),
    },
}


def _ours(frame: bytes) -> Callable[[], object]:
    conn = Connection(role=Role.HOST)
    conn.receive_data(
        encode_frame(Hello(protocol="onecard", versions=(1,), software="b").to_wire())
    )
    conn.next_message()
    conn.send(conn_welcome(conn))

    def step() -> object:
        conn.receive_data(frame)
        return conn.next_message()

    return step


def conn_welcome(conn: Connection) -> Any:
    from protocol.limits import wire_limits
    from protocol.messages import Welcome

    return Welcome(
        version=conn.version or 1,
        host_name="b",
        software="b",
        fingerprint="sha256:" + "0f" * 32,
        limits=wire_limits(),
    )


def _msgspec(frame: bytes, kind: str) -> Callable[[], object]:
    decoder = msgspec.msgpack.Decoder()
    struct = STRUCTS[kind]
    body = frame[4:]

    def step() -> object:
        obj = decoder.decode(body)
        return msgspec.convert(obj, struct)

    return step


def _time(step: Callable[[], object]) -> float:
    runs = []
    for _ in range(REPEATS):
        t0 = time.process_time()
        for _ in range(N):
            step()
        runs.append((time.process_time() - t0) / N)
    return statistics.median(runs)


def main() -> None:
    assert Ping(id=1).to_wire()  # the registry is loaded
    print(
        f"incoming message: decode + validate, CPU microseconds per message (median of "
        f"{REPEATS} x {N:,})"
    )
    print(f"  {'message':12} {'ours':>8} {'msgspec':>8} {'ratio':>6}")
    for kind, sample in SAMPLES.items():
        frame = encode_frame(sample)
        ours, theirs = _time(_ours(frame)), _time(_msgspec(frame, kind))
        print(f"  {kind:12} {ours * 1e6:8.1f} {theirs * 1e6:8.1f} {ours / theirs:5.1f}x")


if __name__ == "__main__":
    main()
