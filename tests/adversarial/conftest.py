"""Fixtures for adversarial tests: hostile text, a host that sends it, and clients that do.

Test files cannot import each other (``--import-mode=importlib``), so everything is handed out
by fixtures. ``hostile`` holds the strings: ESC sequences that set the terminal title, erase a
line and change colours, a C1 CSI, DEL, bidi overrides and isolates, rich markup and a newline
followed by a forged line. ``hostile_pushes`` are host messages carrying them in every field a
client shows (table and seat names, chat, an error push, game start, events, a state with its
view and legal actions, the outcome). ``hostile_host`` serves a scripted game over loopback TCP
(``--insecure``) speaking the real protocol (:class:`protocol.connection.Connection`): it
refuses the first move with a hostile message, explains a card with one, ends the game with a
hostile outcome and answers the rematch's ``ready`` with a fatal ``error`` whose message is
hostile too. ``raw_client`` opens a handshaken connection to a real host (``real_host``) that
can send frames no honest client would. ``unsafe`` lists the characters of a text that a
terminal would act on; ``client_env`` runs client subprocesses on a dumb terminal.

Also: a damaged, full or world-readable data directory.

These tests play the attacker or the unlucky operator against a real host: they corrupt the
sqlite file, write journal rows no host wrote, make the disk refuse writes (a monkeypatched
``os.replace`` raising ``ENOSPC``; no real full disk needed) and loosen file modes, then check
that the host says what is wrong in one line and serves whatever is still sound. Hosts run on
the mock clock over in-memory streams where time matters (see ``tests/host/conftest.py``), and
``onecard host`` runs in-process with :func:`host.tools.cli.run_host` replaced by a start-and-stop,
so a host that wrongly starts returns instead of serving forever. Test files cannot import
each other, so helpers are handed out as fixtures.
"""

from __future__ import annotations

import errno
import functools
import os
import random
import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from click.testing import CliRunner, Result

import protocol.table_messages as tm
from host.games import find_game
from host.server.identity import load_or_create_identity
from host.server.server import HostConfig, HostInfo, serve_host
from host.storage.datadir import RECORDS_DIR
from host.storage.journal import JournalKind, JournalRow, SeatRow
from host.storage.store import Store
from host.table.runner import GameRunner
from host.table.seats import Batch, Seat, TablePhase
from host.tools import cli
from net.session import ClientSession, open_session
from protocol.cards import parse_card
from protocol.connection import Connection, Role
from protocol.errors import ErrorCode
from protocol.fairness import SeatSecret
from protocol.framing import NEED_DATA, encode_frame
from protocol.messages import Error, Hello, Message, Welcome

#: a terminal's worst enemies, short enough for a name (32 code points)
NAME = "E\x1b]0;PWN\x07\x1b[2K\x9b2J\x7f\u202e[red]x\nF"
#: the same and more, for fields without a name's limit
TEXT = (
    "Eve\x1b]0;PWNED\x07\x1b[2K\x1b[31mred\x9b2J\x7f\u202eevil\u2066[bold red]loud[/]"
    "\u200f\x00\r\nFORGED \u2713 deal verified"
)


@dataclass(frozen=True)
class Hostile:
    """The hostile strings, and how each looks once escaped."""

    name: str = NAME
    text: str = TEXT
    #: what must show on the screen instead (escaped, so seen and harmless)
    shown: tuple[str, ...] = ("\\x1b]0;PWNED\\x07", "\\x1b[2K", "\\x9b2J", "\\u202e", "\\x7f")
    #: markup that must show as typed, never styled
    markup: str = "[bold red]loud[/]"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """An open journal store in the test's folder (sqlite on the test's own thread)."""
    store = Store(tmp_path, in_thread=False)
    await store.open()
    yield store
    await store.close()


@pytest.fixture
def hostile() -> Hostile:
    return Hostile()


def _unsafe(text: str, allowed: str = "\n") -> list[str]:
    """The characters of ``text`` a terminal would act on (not printable, not in ``allowed``)."""
    return sorted({ch for ch in text if not ch.isprintable() and ch not in allowed})


@pytest.fixture
def unsafe() -> Callable[..., list[str]]:
    """``unsafe(text, allowed="\\n")``: the characters of ``text`` that are not printable."""
    return _unsafe


def _pushes(table: str = "t1") -> list[Message]:
    seats_waiting = (
        {"seat": 0, "name": NAME, "bot": TEXT[:32], "connected": True, "ready": True},
        {"seat": 1, "name": "Bob", "bot": None, "connected": True, "ready": True},
    )
    dropped = ({**seats_waiting[0], "connected": False}, seats_waiting[1])

    def info(seats: tuple[dict[str, Any], ...], phase: str = "waiting") -> tm.TableInfo:
        return tm.TableInfo(
            table=table,
            name=TEXT[:64],
            game="one-card",
            options={},
            seats=seats,
            phase=phase,
            game_no=0,
            spectators=1,
            turn_timer=None,
            voids=0,
        )

    def event(seq: int, **fields: Any) -> tm.EventPush:
        return tm.EventPush(table=table, seq=seq, event=fields)

    view = {
        "game": "one-card",
        "hand": ["7S", "9H"],
        "top": "7D",
        "suit": "D",
        "hand_counts": [3, 2],
        "direction": TEXT,
        "stock": TEXT,
        "extra_turns": TEXT,
        "damage": TEXT,
    }
    legal = (
        {"type": "play", "cards": ["7S"]},
        {"type": "draw"},
        {"type": "x\x1b[2K", "k\x1b]0;T\x07": TEXT},
    )
    return [
        info(seats_waiting),
        info(dropped),
        tm.ChatLine(table=table, seat=0, name=NAME, text=TEXT, n=1),
        tm.ChatLine(table=table, seat=None, name=NAME, text=TEXT, n=2),
        Error(code=ErrorCode.BAD_STATE, message=TEXT, fatal=False),
        tm.GameStart(table=table, seq=1, game_no=1, game="one-card", names=(NAME, "Bob")),
        event(2, kind="play", seat=0, cards=["7S"], suit=TEXT, damage=TEXT),
        event(3, kind="blunder", seat=0, cards=["7S"], reason=TEXT),
        event(4, kind="reverse", direction=TEXT),
        event(5, kind="declare", seat=0, what=TEXT),
        event(6, kind="draw", seat=0, count=1, reason=TEXT),
        event(7, kind=TEXT, seat=0, **{TEXT: TEXT}),
        tm.StatePush(
            table=table,
            seq=7,
            game_no=1,
            phase="playing",
            seat=1,
            view=view,
            legal=legal,
            to_act=(1,),
            turn_ms=None,
        ),
    ]


@pytest.fixture
def hostile_pushes() -> list[Message]:
    """Host messages with the hostile strings in every field a client shows; the last is our
    seat's (1) turn."""
    return _pushes()


def hostile_outcome(table: str = "t1") -> tm.GameOver:
    """The game's end, with a hostile ``termination``; seat 0 (the hostile name) wins."""
    return tm.GameOver(
        table=table,
        seq=8,
        game_no=1,
        outcome={"termination": TEXT, "winners": [0], "ranking": [0, 1], "scores": None},
    )


@pytest.fixture
def game_over() -> tm.GameOver:
    """:func:`hostile_outcome` at table t1."""
    return hostile_outcome()


@dataclass
class ScriptedHost:
    """A hostile host's port and what its client sent."""

    port: int
    received: list[Message] = field(default_factory=list)


async def _hostile_handler(host: ScriptedHost, stream: trio.SocketStream) -> None:
    """One client's game at the hostile host (see the module docstring)."""
    conn = Connection(role=Role.HOST)

    async def recv() -> Message | None:
        while (msg := conn.next_message()) is NEED_DATA:
            data = await stream.receive_some(65536)
            if not data:
                return None
            conn.receive_data(data)
        assert isinstance(msg, Message)
        host.received.append(msg)
        return msg

    async def send(*msgs: Message) -> None:
        for msg in msgs:
            await stream.send_all(conn.send(msg))

    refused = readied = False
    with trio.move_on_after(60):
        while (msg := await recv()) is not None:
            if isinstance(msg, Hello):
                await send(
                    Welcome(
                        re=msg.id,
                        version=1,
                        host_name="[red]Evil[/red] host",
                        software="evil/1",
                        fingerprint="sha256:" + "0" * 64,
                        limits={},
                    )
                )
            elif isinstance(msg, tm.Join):
                await send(tm.Joined(re=msg.id, table=msg.table, seat=1, token="t" * 20))
            elif isinstance(msg, tm.Ready) and not readied:
                readied = True
                await send(tm.Ok(re=msg.id), *_pushes(msg.table))
            elif isinstance(msg, tm.Ready):  # a rematch: the last word, fatal and hostile
                await send(Error(re=msg.id, code=ErrorCode.BAD_STATE, message=TEXT, fatal=True))
                break
            elif isinstance(msg, tm.Act) and not refused:
                refused = True
                await send(
                    Error(re=msg.id, code=ErrorCode.ILLEGAL_ACTION, message=TEXT, fatal=False)
                )
            elif isinstance(msg, tm.Explain):
                await send(
                    tm.Explained(
                        re=msg.id,
                        table=msg.table,
                        card=parse_card("9H"),
                        reason=TEXT,
                        blunder=False,
                        action=None,
                    ),
                    hostile_outcome(msg.table),
                )
            elif msg.id is not None:
                await send(tm.Ok(re=msg.id))
    await stream.aclose()


@pytest.fixture
async def hostile_host(nursery: trio.Nursery) -> ScriptedHost:
    """A scripted host on loopback (plain TCP, as ``--insecure``) that sends hostile text
    everywhere; ``onecard join 127.0.0.1:PORT --insecure --table t1`` plays there: the first
    move is refused, a card held is explained, then the game ends, and a rematch is answered
    with a fatal error."""
    host = ScriptedHost(0)
    handler = functools.partial(_hostile_handler, host)
    listeners = await nursery.start(functools.partial(trio.serve_tcp, handler, 0, host="127.0.0.1"))
    host.port = int(listeners[0].socket.getsockname()[1])
    return host


@pytest.fixture
def client_env(tmp_path: Path) -> dict[str, str]:
    """An environment for client subprocesses: its own known_hosts and state directory, and a
    dumb terminal, on which rich writes no escape sequence of its own."""
    env = dict(os.environ)
    env["ONECARD_KNOWN_HOSTS"] = str(tmp_path / "known_hosts")
    env["ONECARD_STATE_DIR"] = str(tmp_path / "state")
    env["PYTHONUTF8"] = "1"
    env["TERM"] = "dumb"
    env.pop("FORCE_COLOR", None)
    env.pop("NO_COLOR", None)
    return env


@pytest.fixture
async def real_host(nursery: trio.Nursery, tmp_path: Path) -> HostInfo:
    """A real host on loopback (plain TCP)."""
    config = HostConfig(
        data_dir=tmp_path / "host",
        bind="127.0.0.1",
        port=0,
        insecure=True,
        advertise=False,
        bot_think=0.0,
    )
    info: HostInfo = await nursery.start(serve_host, config)
    return info


class RawClient:
    """A client that says what it likes: messages through the protocol's checks, or any map."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.conn = Connection(role=Role.CLIENT)

    async def send(self, msg: Message) -> None:
        await self.stream.send_all(self.conn.send(msg))

    async def send_raw(self, obj: dict[str, Any]) -> None:
        """A map as one frame, unchecked (the host must check it)."""
        await self.stream.send_all(encode_frame(obj))

    async def recv(self) -> Message | None:
        """The next message, or None when the host closed."""
        with trio.fail_after(10):
            while (msg := self.conn.next_message()) is NEED_DATA:
                data = await self.stream.receive_some(65536)
                if not data:
                    return None
                self.conn.receive_data(data)
        assert isinstance(msg, Message)
        return msg

    async def reply(self, id: int) -> Message:
        """The reply to our message ``id`` (pushes before it are skipped)."""
        while True:
            msg = await self.recv()
            assert msg is not None, "the host closed"
            if msg.re == id:
                return msg


@pytest.fixture
def raw_client(real_host: HostInfo) -> Callable[[], Any]:
    """``async with raw_client() as c``: a handshaken :class:`RawClient` at ``real_host``."""

    @asynccontextmanager
    async def connect() -> AsyncIterator[RawClient]:
        stream = await trio.open_tcp_stream("127.0.0.1", real_host.port)
        client = RawClient(stream)
        await client.send(Hello(id=0, protocol="onecard", versions=(1,), software="raw/1"))
        welcome = await client.recv()
        assert isinstance(welcome, Welcome)
        try:
            yield client
        finally:
            await stream.aclose()

    return connect


#: table settings as the lobby stores them
META = {"game": "one", "seats": 3, "options": {"target": 1000}, "turn_timer": None, "name": ""}


class Lab:
    """One test's data directory, the hosts it starts there and the harm it does.

    ``config`` runs a host on the mock clock (sqlite in the trio thread, no turn timer, 10 s
    grace); :meth:`cli` runs ``onecard host`` on the directory instead (see the module
    docstring); :meth:`disk_full` makes the disk refuse hand records.
    """

    def __init__(
        self, tmp_path: Path, nursery: trio.Nursery, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        self.data_dir = tmp_path / "host"
        self.config = HostConfig(
            data_dir=self.data_dir,
            bind="127.0.0.1",
            port=0,
            insecure=True,
            advertise=False,
            store_in_thread=False,
            grace=10.0,
            bot_think=0.0,
        )
        self._nursery = nursery
        self._monkeypatch = monkeypatch
        self._full = False
        real_replace = os.replace

        def replace_file(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
            if self._full and Path(os.fsdecode(dst)).parent.name == RECORDS_DIR:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            real_replace(src, dst, *args, **kwargs)

        monkeypatch.setattr(os, "replace", replace_file)

    async def start(self) -> HostInfo:
        """A host serving from the data directory (stopped when the test ends)."""
        info: HostInfo = await self._nursery.start(serve_host, self.config)
        return info

    @asynccontextmanager
    async def connect(self, info: HostInfo) -> AsyncIterator[ClientSession]:
        """A client of ``info`` over an in-memory stream (mock-clock safe), keeping all it
        receives in ``client.received``."""
        client_end, host_end = trio.testing.memory_stream_pair()
        self._nursery.start_soon(info.host.handle, host_end)
        async with open_session(client_end, keep=True) as client:
            yield client

    def cli(self) -> Result:
        """``onecard host`` on the data directory, started and shut down at once.

        Only the serving is cut short (``run_host`` starts the host in a nursery as the real
        one does, then shuts it down); option parsing and error handling are the command's.
        Blocking: run it with ``trio.to_thread.run_sync``.
        """

        async def start_and_stop(
            config: HostConfig, *, echo: bool = True, freeze_gc: bool = False
        ) -> None:
            async with trio.open_nursery() as nursery:
                info: HostInfo = await nursery.start(serve_host, config)
                await info.host.shutdown()

        self._monkeypatch.setattr(cli, "run_host", start_and_stop)
        args = [
            "--data-dir",
            str(self.data_dir),
            "--bind",
            "127.0.0.1",
            "--port",
            "0",
            "--insecure",
            "--no-advertise",
        ]
        return CliRunner().invoke(cli.host_command, args)

    def disk_full(self, full: bool) -> None:
        """While ``full``, every rename into a ``records`` directory fails with ENOSPC: the
        last step of writing a hand record, in the code before the fix and after."""
        self._full = full

    async def half_dealt_table(self) -> HalfDealtTable:
        """Store a ONE table whose hand 3 round is open (see :class:`HalfDealtTable`)."""
        table = HalfDealtTable(self.data_dir)
        table.build()
        await table.store()
        return table

    async def sound_table(self, table_id: str) -> None:
        """Store one more table, sound and empty (a waiting One Card table for two)."""
        store = Store(self.data_dir, in_thread=False)
        await store.open()
        try:
            meta = {**META, "game": "one-card", "seats": 2, "options": {}}
            await store.put_table(table_id, 2, meta)
        finally:
            await store.close()


@pytest.fixture
def lab(tmp_path: Path, nursery: trio.Nursery, monkeypatch: pytest.MonkeyPatch) -> Lab:
    return Lab(tmp_path, nursery, monkeypatch)


class HalfDealtTable:
    """A ONE table stored mid-game: hands 1 (voided) and 2 (played) are over and hand 3's
    commit-reveal round waits for seat 1, the state a host restart must void and redo.

    Seat 0 is played by the host, seat 1 answers no round, seat 2 answers every round.
    """

    def __init__(self, data_dir: Path, table_id: str = "thalf") -> None:
        self.data_dir = data_dir
        self.table_id = table_id
        key = load_or_create_identity(data_dir).signing_key  # what the restarted host signs with
        self.runner = GameRunner(
            table_id=table_id,
            game_cls=find_game("one").state,
            seats=3,
            options=META["options"],
            signing_key=key,
            turn_timer=None,
            round_timeout=20.0,
            now=trio.current_time,
        )
        self.runner.seats[0] = Seat(0, "p0", None, sit_out=True)
        self.runner.seats[1] = Seat(1, "p1", b"\x01" * 32)
        self.runner.seats[2] = Seat(2, "p2", b"\x02" * 32)
        self.journal: list[JournalRow] = []
        self.records: dict[int, dict[str, Any]] = {}

    def feed(self, kind: JournalKind, payload: dict[str, Any]) -> None:
        batch = Batch()
        self.runner._input(batch, kind, payload)
        while self.runner._needs_open:
            self.runner._needs_open = False
            host = self.runner.seats[0]
            assert host is not None
            host.sit_out = True
            self.runner._input(batch, JournalKind.FAIR, self.runner._open_payload())
        self.journal.extend(batch.rows)
        self.records.update(self.runner.pending_records)
        self.runner.pending_records = []

    def answer(self, seat: int) -> None:
        deal = self.runner.deal
        assert deal is not None
        name = f"p{seat}"
        secret = SeatSecret.from_r(deal.ctx, name, secrets.token_bytes(32))
        self.feed(
            JournalKind.FAIR,
            {"op": "commit", "seat": seat, "value": secret.commit_body(deal.hand_no)["c"]},
        )
        if deal.locked:
            reveal = secret.reveal_body(deal.hand_no)["r"]
            self.feed(JournalKind.FAIR, {"op": "reveal", "seat": seat, "value": reveal})

    def build(self) -> None:
        """Play to hand 3's round (random legal moves, seeded) and store it all."""
        rng = random.Random(5)
        self.feed(JournalKind.GAME, {"game_no": 1, "names": ["p0", "p1", "p2"]})
        self.answer(2)
        self.feed(JournalKind.FAIR, {"op": "void", "reason": "timeout"})  # hand 1: p1 missed
        runner = self.runner
        for _ in range(5000):
            deal = runner.deal
            if runner.phase is TablePhase.DEALING and deal is not None:
                if deal.hand_no == 3 and deal.missing() == [1]:
                    return
                self.answer(2)
                continue
            assert runner.engine is not None
            seat = runner.engine.to_act()[0]
            action = rng.choice(runner.engine.legal_actions(seat)).to_wire()
            self.feed(JournalKind.ACTION, {"seat": seat, "action": action, "act_seq": None})
        raise AssertionError("hand 3 never opened")

    async def store(self) -> None:
        store = Store(self.data_dir, in_thread=False)
        await store.open()
        try:
            await store.put_table(self.table_id, 1, META)
            for s in self.runner.seats:
                assert s is not None
                await store.put_seat(self.table_id, SeatRow(s.index, s.name, s.token_hash, None))
            await store.append(self.table_id, self.journal)
            for hand_no, record in self.records.items():
                await store.records.save_record(self.table_id, hand_no, record)
        finally:
            await store.close()
