"""A host with every output tapped, human seats playing through the real seat client, and what
the host held collected as :class:`hostscan.Item` for :func:`hostscan.scan` (issue 29).

How it works: :func:`play_tapped` starts a host with the suite's ``start_host`` (loopback, port
0, its own data directory, plain TCP so the tap sees the protocol's bytes), then taps it without
touching host code:

* connections: ``Host.handle`` is replaced on the instance by one that wraps each stream (the
  accept loop's and the in-process bots' socket pairs alike) in a :class:`TapStream`, which
  records every byte the host sends (``sent_bytes``, each frame decoded: ``sent``; a served
  record reassembled from its ``record_part`` frames: ``served_record``) and receives
  (``received``). Once a connection said ``hello``, its :class:`ClientConnection` is found in
  ``host.connections`` and its ``deliver``/``deliver_backlog`` are wrapped on the instance: what
  it queues is ``kept`` (held by the connection until the writer sends it).
* the journal: ``Store.append`` is wrapped on the instance (each row: ``journal``); after each
  append, the new bytes of ``host.sqlite3`` and its ``-wal`` (``database``).
* hand records: ``RecordFiles.keep_record`` is wrapped (the record handed over: ``record``; the
  file written, unpacked to its JSON: ``record_file``).
* logs: a handler on the root logger at DEBUG (every level any module logs), records emitted by
  the human clients' own tasks left out (a context variable marks them).

Human seats are :class:`HumanSeat`: the seat client (``net.seat.SeatClient`` through the bots'
:class:`BotPlayer`, seated as a person, not a bot, playing the ``normal`` policy) over its own
TCP connection. It tells the :class:`hostscan.Timeline` what its client receives (``hand_commit``,
its ``card`` messages, ``hand_end``) and what it puts down: the secrets are the client's. The
timeline's clock comes from the host's side where only the host can date a message: the journal
row of each ``card`` message (when it was dealt), each public row (what it shows face up, or
sends back into the stock), the send of ``hand_end`` on the seat's connection.

A copy of a public journaled message, or a ``state`` built with a batch, may leave the host later
than other things: its item is dated by the journal row it copies (or its ``seq``), so a card it
shows is judged as of when the host made it.

Host bots fill the other seats; a spectator watches, and at the end fetches every hand record
over the protocol.

Every tap ticks one :class:`Clock`, so items and the timeline share one order.
"""

from __future__ import annotations

import contextvars
import json
import logging
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgpack
import trio
from hostscan import Item, Report, Secret, Source, Timeline, codes_in, public_codes, scan
from private_seat import PrivateSeat

import protocol.table_messages as tm
from host.bots.bots import BotPlayer
from host.server.server import HostInfo
from host.storage.datadir import DB_FILE
from host.storage.journal import JournalKind
from net.seat import SeatClient
from net.session import open_session
from protocol.cardfair import SignedMessage
from protocol.hand_records import unpack_record_bytes
from protocol.mask_seat import Outgoing
from protocol.messages import Message

StartHost = Callable[..., Awaitable[HostInfo]]

#: set in the human clients' tasks: their log records are the clients', not the host's
CLIENT_SIDE: contextvars.ContextVar[bool] = contextvars.ContextVar("client_side", default=False)
#: the pushes a table journals (PROTOCOL.md 4.1): a public one is the same message for everyone
JOURNALED = frozenset({"game_start", "event", "fair", "game_over"})
#: seconds a tapped game may take before the test fails instead of hanging
GAME_TIMEOUT = 60
#: how the humans and the host bots play (normal: games end sooner than easy's)
KIND = "normal"


class Clock:
    """One counter every tap ticks: the order of everything captured."""

    def __init__(self) -> None:
        self.now = 0

    def tick(self) -> int:
        self.now += 1
        return self.now


def split_frames(buffer: bytearray) -> list[dict[str, Any]]:
    """Take the complete frames (4-byte length, msgpack map) off the front of ``buffer``."""
    out = []
    while len(buffer) >= 4:
        (n,) = struct.unpack(">I", buffer[:4])
        if len(buffer) < 4 + n:
            break
        body = bytes(buffer[4 : 4 + n])
        del buffer[: 4 + n]
        out.append(msgpack.unpackb(body, raw=False, strict_map_key=False))
    return out


class TapStream(trio.abc.Stream):
    """A stream that records what passes through it (see the module doc)."""

    def __init__(self, inner: trio.abc.Stream, capture: Capture, peer: str) -> None:
        self.inner = inner
        self.capture = capture
        self.label = f"conn{len(capture.streams)} ({peer})"
        capture.streams.append(self)
        self._out = bytearray()
        self._in = bytearray()
        self._parts: dict[tuple[str, int], list[str]] = {}
        self.conn: Any = None
        self.seat: int | None = None  #: the seat its ``joined`` gave

    def __getattr__(self, name: str) -> Any:  # .socket for the host's peer names
        return getattr(self.inner, name)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.capture.sent(self, bytes(data))
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.inner.receive_some(max_bytes)
        self.capture.received(self, bytes(data))
        return data

    async def aclose(self) -> None:
        await self.inner.aclose()


class HumanSeat(BotPlayer):
    """A person's seat: the seat client playing the easy policy, reporting its own secrets."""

    def __init__(self, session: Any, capture: Capture, **kw: Any) -> None:
        super().__init__(session, kind=KIND, **kw)
        self.capture = capture

    async def handle(self, push: Message) -> Any:
        at = self.capture.clock.tick()
        if isinstance(push, tm.FairPush) and self.seat is not None:
            signed = SignedMessage.from_wire(push.msg)
            body = signed.decode()
            line = self.capture.timeline
            if signed.type == "hand_commit":
                line.hand_started(self.seat, self.name or "?", push.hand_no, at)
            elif signed.type == "card" and body.get("to") == self.seat:
                card = str(body["card"])
                since = self.capture.deals.get((self.seat, push.hand_no, card))
                line.dealt(self.seat, push.hand_no, card, at, since=since)
            elif signed.type in ("hand_end", "void"):
                line.hand_ended(self.seat, push.hand_no, at)
        return await super().handle(push)

    async def act(self, action: dict[str, Any]) -> Message:
        at = self.capture.clock.tick()
        cards: list[str] = []
        for key in ("card", "cards"):
            value = action.get(key)
            cards += [value] if isinstance(value, str) else list(value or ())
        if self.seat is not None:
            self.capture.timeline.put_down(self.seat, cards, at)
        return await super().act(action)


@dataclass
class PrivateHuman(PrivateSeat):
    """A person's seat at a private table (``private_seat.PrivateSeat``), reporting its own
    secrets: a card is dealt when its client opens it (its ``sealed`` came), put down when it
    is played or shown (a bankrupt hand), and the hand ends for every card when the seat reveals
    its masking secret (then anyone, the host included, can open its boxes) or the hand ends or
    is void."""

    capture: Capture | None = None

    async def _fair(self, push: tm.FairPush) -> None:
        assert self.capture is not None
        at = self.capture.clock.tick()
        signed = SignedMessage.from_wire(push.msg)
        line = self.capture.timeline
        if signed.type == "hand_commit":
            line.hand_started(self.seat, self.name, push.hand_no, at)
        before = set(self.held)
        await super()._fair(push)
        for hand_no, stream, pos in sorted(set(self.held) - before):
            line.dealt(self.seat, hand_no, self.held[hand_no, stream, pos].code, at)
        if signed.type in ("hand_end", "void"):
            line.hand_ended(self.seat, push.hand_no, at)

    async def _say(self, item: Outgoing) -> None:
        if item.type == "mask_reveal" and self.capture is not None and self.masker is not None:
            at = self.capture.clock.tick()
            self.capture.timeline.hand_ended(self.seat, self.masker.context.hand_no, at)
        if item.type == "show_hand" and self.capture is not None and self.masker is not None:
            # a bankrupt hand goes face up: its cards are put down, as by a play
            cards = self.masker.cards()
            shown = [cards[int(s), int(p)].code for s, p, _ in item.fields["open"]]
            self.capture.timeline.put_down(self.seat, shown, self.capture.clock.tick())
        await super()._say(item)

    def putting_down(self, action: dict[str, Any]) -> None:
        assert self.capture is not None
        cards = action.get("cards", [action["card"]] if "card" in action else [])
        self.capture.timeline.put_down(
            self.seat, [str(c) for c in cards], self.capture.clock.tick()
        )


@dataclass
class Capture:
    """Everything captured from one tapped host (see the module doc)."""

    data_dir: Path
    clock: Clock = field(default_factory=Clock)
    timeline: Timeline = field(default_factory=Timeline)
    items: list[Item] = field(default_factory=list)
    streams: list[TapStream] = field(default_factory=list)
    host: Any = None
    #: table seq of each journal row -> when the host journaled it
    rows: dict[int, int] = field(default_factory=dict)
    #: table seq of each public journaled message -> when the host journaled it
    public_rows: dict[int, int] = field(default_factory=dict)
    #: (seat, hand_no, card) -> when the host journaled its ``card`` message (the last time)
    deals: dict[tuple[int, int, str], tuple[int, int]] = field(default_factory=dict)
    batches: int = 0  #: journal appends so far
    _files: dict[str, bytes] = field(default_factory=dict)
    _journal_codes: frozenset[str] = frozenset()

    def add(self, source: Source, where: str, value: Any, **kw: Any) -> None:
        self.items.append(Item(source, where, self.clock.tick(), value, **kw))

    def secrets(self) -> list[Secret]:
        """The human seats' hidden holdings (a hand still open at the end: until then)."""
        return self.timeline.secrets(until=self.clock.now + 1)

    def report(self) -> Report:
        return scan(self.items, self.secrets())

    def only(self, *sources: Source, where: str = "") -> list[Item]:
        return [i for i in self.items if i.source in sources and where in i.where]

    # -- connections

    def sent(self, stream: TapStream, data: bytes) -> None:
        stream._out += data
        frames = split_frames(stream._out)
        first = self.clock.now + 1  # the bytes, as of their first frame
        for f in frames:  # one tick each: a frame sent before ``hand_end`` is before it
            at = self.clock.tick()
            self._watch_frame(stream, f, at)
            at = self._original(f, at)
            self.items.append(Item(Source.SENT, f"{stream.label} {f.get('type')}", at, f))
        twins = tuple(f for f in frames if self._original(f, -1) == -1)
        copies = tuple(f for f in frames if self._original(f, -1) != -1)
        bytes_item = Item(Source.SENT_BYTES, stream.label, first, data, True, frozenset())
        self.items.append(replace(bytes_item, twins=twins, copies=copies))

    def _original(self, msg: Any, at: int) -> int:
        """A copy of a public journaled message dates from the host's first copy (its journal
        row): what it names was public from then, whenever this copy goes out."""
        if isinstance(msg, dict) and msg.get("type") in JOURNALED and "to" not in msg:
            return self.public_rows.get(msg.get("seq"), at)  # type: ignore[arg-type]
        if isinstance(msg, dict) and msg.get("type") == "state" and msg.get("seq") in self.rows:
            # a view is built with its batch: as of the table's row ``seq``, however late it
            # goes out (its public part was public then; its seat's hand was held then)
            return self.rows[msg["seq"]]
        return at

    def _watch_frame(self, stream: TapStream, frame: dict[str, Any], at: int) -> None:
        if frame.get("type") == "fair":
            signed = SignedMessage.from_wire(frame["msg"])
            if signed.type in ("hand_end", "void") and stream.seat is not None:
                self.timeline.hand_ended(stream.seat, int(frame["hand_no"]), at)
        elif frame.get("type") in ("joined", "resumed"):
            stream.seat = int(frame["seat"])
        elif frame.get("type") == "record_part":
            key = (str(frame["table"]), int(frame["hand_no"]))
            parts = stream._parts.setdefault(key, [])
            parts.append(str(frame["text"]))
            if len(parts) == frame["parts"]:
                del stream._parts[key]
                where = f"{stream.label} hand {key[1]}"
                self.add(Source.SERVED_RECORD, where, json.loads("".join(parts)))

    def received(self, stream: TapStream, data: bytes) -> None:
        stream._in += data
        for f in split_frames(stream._in):
            kind = f.get("type")
            if kind in ("join", "watch") and "(" in stream.label:
                stream.label = stream.label.split(" (")[0] + f" {kind} {f.get('name') or '-'}"
            self.add(Source.RECEIVED, f"{stream.label} {kind}", f)
            if stream.conn is None:
                self._find_conn(stream)

    def _find_conn(self, stream: TapStream) -> None:
        for conn in list(self.host.connections):
            if conn.stream is stream:
                stream.conn = conn
                deliver, backlog = conn.deliver, conn.deliver_backlog

                def kept(msgs: list[Any], s: TapStream = stream, d: Any = deliver) -> bool:
                    for m in msgs:
                        at = self._original(m, self.clock.tick())
                        where = f"{s.label} queued {m.get('type')}"
                        self.items.append(Item(Source.KEPT, where, at, m))
                    return bool(d(msgs))

                def kept_backlog(msgs: list[Any], s: TapStream = stream, b: Any = backlog) -> None:
                    for m in msgs:
                        at = self._original(m, self.clock.tick())
                        where = f"{s.label} backlog {m.get('type')}"
                        self.items.append(Item(Source.KEPT, where, at, m))
                    b(msgs)

                conn.deliver, conn.deliver_backlog = kept, kept_backlog

    # -- the data directory

    def files_changed(self) -> None:
        """The new bytes of each database file since the last look (``database`` items)."""
        for name in (DB_FILE, DB_FILE + "-wal"):
            path = self.data_dir / name
            data = path.read_bytes() if path.exists() else b""
            old = self._files.get(name, b"")
            self._files[name] = data
            same = _common_prefix(old, data)
            if same < len(data):
                # SQLite rewrites its WAL from the start after a checkpoint: the bytes past the
                # last one written are the old ones (the common suffix), not new, so scanning
                # only the span between stays linear in what the host wrote
                end = len(data) - _common_suffix(old, data, len(data) - same)
                new = data[max(0, same - 8) : end + 8]
                where = f"{name} bytes {same}-{end}"
                self.add(Source.DATABASE, where, new, raw=True, confirm=self._journal_codes)

    def journal_rows(self, table_id: str, rows: Any) -> None:
        self.batches += 1
        for r in rows:
            value = {"seq": r.seq, "kind": str(r.kind), "seat": r.seat, "payload": r.payload}
            self._journal_codes |= codes_in(value)
            self.add(Source.JOURNAL, f"{table_id} seq {r.seq} {r.kind}", value)
            self.rows[r.seq] = self.clock.now
            if r.kind is not JournalKind.MESSAGE:
                continue
            if r.seat is None:  # a public message: the cards it names are in sight
                shown, recycled = public_codes(r.payload)
                self.timeline.sighted(shown, self.clock.now, self.batches, recycled=False)
                self.timeline.sighted(recycled, self.clock.now, self.batches, recycled=True)
                self.public_rows[int(r.payload["seq"])] = self.clock.now
            elif r.payload.get("type") == "fair":  # the host deals a card to a seat
                signed = SignedMessage.from_wire(r.payload["msg"])
                if signed.type == "card":
                    key = (r.seat, int(r.payload["hand_no"]), str(signed.decode()["card"]))
                    self.deals[key] = (self.clock.now, self.batches)


def _common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    step = 4096
    i = 0
    while i < n and a[i : i + step] == b[i : i + step]:
        i += step
    while i < n and a[i] == b[i]:
        i += 1
    return min(i, n)


def _common_suffix(a: bytes, b: bytes, most: int) -> int:
    """The length of the common tail of ``a`` and ``b`` (at most ``most``), where they are
    equally long (a file rewritten in place); 0 otherwise (the tail is new)."""
    if len(a) != len(b):
        return 0
    n = min(len(a), most)
    return _common_prefix(a[len(a) - n :][::-1], b[len(b) - n :][::-1])


class _LogTap(logging.Handler):
    def __init__(self, capture: Capture) -> None:
        super().__init__(logging.DEBUG)
        self.capture = capture

    def emit(self, record: logging.LogRecord) -> None:
        if CLIENT_SIDE.get():
            return
        text = self.format(record)
        self.capture.add(Source.LOG, f"{record.name} {record.levelname}", text, raw=True)


def _tap_host(info: HostInfo, capture: Capture) -> None:
    host = info.host
    capture.host = host
    handle = host.handle

    async def tapped(stream: trio.abc.Stream, **kw: Any) -> None:
        await handle(TapStream(stream, capture, str(kw.get("peer", "?"))), **kw)

    host.handle = tapped  # type: ignore[method-assign]
    store = host.lobby.store
    append = store.append

    async def journal(table_id: str, rows: Any) -> None:
        capture.journal_rows(table_id, rows)
        await append(table_id, rows)
        capture.files_changed()

    store.append = journal  # type: ignore[method-assign]
    records = store.records
    keep = records.keep_record

    async def keep_record(table_id: str, hand_no: int, record: dict[str, Any]) -> bool:
        capture.add(Source.RECORD, f"{table_id} hand {hand_no}", record)
        kept = bool(await keep(table_id, hand_no, record))
        path = records.record_path(table_id, hand_no)
        if path.exists():  # xz-compressed JSON: the text it holds, decoded and as text
            text = unpack_record_bytes(path.read_bytes()).decode("utf-8")
            capture.add(Source.RECORD_FILE, path.name, json.loads(text))
            capture.add(Source.RECORD_FILE, f"{path.name} text", text, raw=True)
        return kept

    records.keep_record = keep_record  # type: ignore[method-assign]


@dataclass(frozen=True)
class Table:
    """What to play: a game, its options, how many human seats and host bots, and whether the
    table is private (then human seats only: the host's bots do not sit there yet)."""

    game: str
    humans: int
    bots: int
    options: dict[str, Any] = field(default_factory=dict)
    private: bool = False

    @property
    def seats(self) -> int:
        return self.humans + self.bots


async def play_tapped(start_host: StartHost, data_dir: Path, table: Table) -> Capture:
    """Play one game at ``table`` on a tapped host to its end; return what was captured."""
    capture = Capture(data_dir)
    log_tap = _LogTap(capture)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(log_tap)
    root.setLevel(logging.DEBUG)
    try:
        info = await start_host(data_dir=data_dir, insecure=True, turn_timer=None)
        _tap_host(info, capture)
        with trio.fail_after(GAME_TIMEOUT):
            await _play(info, capture, table)
        await info.host.shutdown(retry_after=None)
        capture.files_changed()
    finally:
        root.removeHandler(log_tap)
        root.setLevel(old_level)
    return capture


async def _play(info: HostInfo, capture: Capture, table: Table) -> None:
    table_id = await info.host.create_table(
        table.game, seats=table.seats, options=table.options, private=table.private
    )
    ready = trio.Event()
    done: list[tm.GameOver] = []

    async def human(i: int) -> None:
        CLIENT_SIDE.set(True)
        stream = await trio.open_tcp_stream("127.0.0.1", info.port)
        if table.private:
            async with open_session(stream) as session:
                private = PrivateHuman(session, table_id, f"human{i}", capture=capture)
                await private.join()
                await private.play()
                await session.bye()
            return
        async with open_session(stream) as session:
            seat = HumanSeat(session, capture, table_id=table_id)
            await seat.join(f"human{i}", as_bot=False)
            await ready.wait()
            await seat.ready()
            await seat.play()
            await session.bye()

    async def spectator() -> None:
        CLIENT_SIDE.set(True)
        stream = await trio.open_tcp_stream("127.0.0.1", info.port)
        async with open_session(stream) as session:
            watcher = SeatClient(session, table_id=table_id)
            if table.private:  # the seat client does not verify a private hand yet
                await session.request(tm.Watch(table=table_id, name="watcher"))
            else:
                await watcher.watch("watcher")
            async for push in session.pushes:
                if not table.private:
                    await watcher.handle(push)
                if isinstance(push, tm.GameOver):
                    done.append(push)
                    break
            listed = await session.request(tm.ListRecords(table=table_id))
            assert isinstance(listed, tm.Records)
            for hand_no in listed.hands:
                await session.request_all(tm.GetRecord(table=table_id, hand_no=hand_no))
            await session.bye()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(spectator)
        for i in range(table.humans):
            nursery.start_soon(human, i)
        while len([s for s in info.host.lobby.table(table_id).seats if s is not None]) < (
            table.humans
        ):
            await trio.sleep(0.01)
        await info.host.add_bots(table_id, table.bots, level=KIND)
        ready.set()
    assert done, "the game did not end"
