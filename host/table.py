"""One table: its seats, connections, timers and who is told what.

How it works. A :class:`Table` is a :class:`host.runner.GameRunner` (the journaled game state
machine: engine, fair deals, inputs and outputs) plus everything about people: seating, ready
flags, spectators, resume tokens, chat, and the timers. Every change runs under the table's
lock in three steps: compute (the runner appends the input row and its output rows to a
batch), *commit* the batch in one sqlite transaction (:mod:`host.store`), then *deliver* it.
Nothing is sent that is not durable, so a restarted host rebuilds a table by replaying the
stored inputs (:meth:`Table.restore`) and resumes at the last message it sent. A hand record
is kept before its batch is delivered, but never holds the batch back: one the disk refuses
waits in the store's memory and is retried (:mod:`host.store`).

Who sees what: each journaled message is public (``None``) or private to one seat; seats get
public messages and their own, spectators public ones only. After every change each seat gets a
``state`` message with ``game.view(seat)`` and its legal actions; spectators get
``game.view(None)``. The engine's ``view`` alone decides what is hidden. Deliveries are
non-blocking (``Conn.deliver``): one slow client never holds up a table.

Timers (:meth:`Table.run`, a task in the server's nursery): the turn timer (on expiry the host's
bot plays the move and says so; a seat that lets it run out twice in a row gets short turns
until it acts again, see :mod:`host.runner`), the deal-round deadline (a missing commit or reveal
voids the round; a seat that keeps missing rounds is stood up) and the reconnect grace period
(after which the host plays for an absent seat with the heuristic bot policy until it returns).
A connection that ends is detached from its seats at once (:meth:`Table.detach`, no lock), so no
seat ever waits on a dead connection; its ``ready`` stands (a game starts only once every seated
player is connected), and is kept in the table's stored meta so a host restart keeps it too. A
player may ``leave`` during a game: the host's bot plays the seat to the end, then it is freed.

Chat is not journaled (and so the one thing sent before it is stored: a line goes out at once
and is written to the store after the table lock is released, so chat never holds up play), but
the last ``CHAT_BACKLOG`` lines are kept (in the store too) and sent after the ``table_info`` of
a ``resume`` (lines said since the client's ``last_seq``) and of a ``watch`` (all of them).
"""

from __future__ import annotations

import hashlib
import secrets
from collections import deque
from collections.abc import Sequence
from typing import Any, Protocol

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host import policy
from host.dealing import Deal
from host.games.base import Explanation, Game, WireMap
from host.logs import get_logger
from host.ratelimit import TokenBucket
from host.runner import (
    ROUND_TIMEOUT,
    VOID_TIMEOUT,
    Batch,
    EngineFailure,
    GameRunner,
    Seat,
    TableError,
    TablePhase,
)
from host.store import ChatRow, JournalKind, JournalRow, SeatRow, Store, TableRow
from protocol.cards import Card
from protocol.errors import ErrorCode, LocalProtocolError
from protocol.fairness import FairnessError

BAD_STATE = ErrorCode.BAD_STATE

__all__ = [
    "CHAT_BACKLOG",
    "HOSTED_BOT_PREFIX",
    "ROUND_TIMEOUT",
    "Conn",
    "Seat",
    "Table",
    "TableError",
    "TablePhase",
    "hash_token",
    "spectator_name",
]

log = get_logger(__name__)  # what a peer sent is shown escaped (host.logs)

#: longest player name, in characters
MAX_NAME_CHARS = 32
#: the chat name of a spectator who gave none
SPECTATOR = "spectator"
#: chat lines a table keeps (in the store too) for clients that resume and spectators who return
CHAT_BACKLOG = 50
#: chat lines per second a whole table takes on average, and the burst (each line goes to every
#: member and into the store: fifty chatty connections must not slow the moves)
TABLE_CHAT_PER_SECOND = 4.0
TABLE_CHAT_BURST = 10.0
#: seconds a waiting table holding only bots (and no one watching) is kept before it counts as
#: idle and may be dropped to make room for a new table
IDLE_TABLE_S = 600.0
#: seat ``bot`` labels of bots the host itself runs (restarted with the host); no one else may
#: claim one, or a restart would seat the host's bot there and lock its player out
HOSTED_BOT_PREFIX = "host:"
#: what the client adds to a spectator's name in chat; no name may contain it (a player named
#: "Alice (watching)" would pass for a spectator)
WATCHING_TAG = "(watching)"


class Conn(Protocol):
    """What a table needs of a connection: non-blocking sends into a bounded queue.

    ``deliver`` queues one batch of messages; when the queue is full the connection closes
    itself (the client can resume) and ``deliver`` returns False. ``deliver_backlog`` hands over
    missed messages that must go out before anything queued later. ``closed`` is True once the
    connection has ended (a table never seats a closed connection: it would wait on it).
    """

    closed: bool

    def deliver(self, msgs: list[WireMap]) -> bool: ...

    def deliver_backlog(self, msgs: list[WireMap]) -> None: ...

    def close_politely(self, msg: WireMap) -> None: ...


def spectator_name(name: str) -> str:
    """The chat name of a spectator who watches as ``name``: checked like a seat's name, but
    empty means "spectator" and it need not be unique (a seated player's name is fine: the
    chat line's nil ``seat`` tells them apart); ``TableError`` (``bad_field``) if unusable."""
    return check_name(name.strip() or SPECTATOR)


def check_name(name: str) -> str:
    """A seat's or spectator's name, stripped; ``TableError`` (``bad_field``) if unusable."""
    name = name.strip()
    if not name or len(name) > MAX_NAME_CHARS or not name.isprintable():
        raise TableError(
            f"a name is 1-{MAX_NAME_CHARS} printable characters", code=ErrorCode.BAD_FIELD
        )
    if WATCHING_TAG in name.casefold():
        raise TableError(f"a name may not contain {WATCHING_TAG!r}", code=ErrorCode.BAD_FIELD)
    return name


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


class Table(GameRunner):
    """A table and its running game. Public coroutines take the table lock."""

    def __init__(
        self,
        *,
        table_id: str,
        game_cls: type[Game],
        seats: int,
        options: dict[str, Any],
        store: Store,
        signing_key: Ed25519PrivateKey,
        turn_timer: float | None,
        grace: float,
        created: int,
        name: str = "",
        round_timeout: float = ROUND_TIMEOUT,
    ) -> None:
        super().__init__(
            table_id=table_id,
            game_cls=game_cls,
            seats=seats,
            options=options,
            signing_key=signing_key,
            turn_timer=turn_timer,
            round_timeout=round_timeout,
        )
        self.store = store
        self.grace = grace
        self.created = created
        self.name = name or table_id
        #: watching connections, each with the name its chat lines carry
        self.spectators: dict[Conn, str] = {}
        self._ack: tuple[Conn, WireMap] | None = None
        self._lock = trio.Lock()
        self._wake = trio.Event()
        self._run_scope = trio.CancelScope()
        #: when the table last stopped running a game (None: a game runs, or no tick yet)
        self._idle_since: float | None = None
        #: a connection left (:meth:`detach`); the timer task sends the ``table_info``
        self._summary_due = False
        #: the last CHAT_BACKLOG chat lines, oldest first
        self.chat_log: deque[ChatRow] = deque(maxlen=CHAT_BACKLOG)
        #: the connection that created the table, while it stays connected; it may add bots
        #: before it sits down. Not stored: after a restart only seated players may add bots.
        self.creator: Conn | None = None
        #: the summary from before an input being committed (see :meth:`public_summary`)
        self._committed: WireMap | None = None
        #: chat lines the whole table takes (every member gets each one)
        self._chat_rate = TokenBucket(TABLE_CHAT_PER_SECOND, TABLE_CHAT_BURST)
        #: chat lines said but not yet in the store, written in one transaction by one task
        self._chat_unsaved: list[ChatRow] = []
        self._chat_saving = False

    # ------------------------------------------------------------------ summaries

    def meta(self) -> dict[str, Any]:
        ready = [
            [s.index, s.name] for s in self.seats if s is not None and s.bot is None and s.ready
        ]
        return {
            "game": self.game_cls.name,
            "seats": self.nseats,
            "options": dict(self.options),
            "turn_timer": self.turn_timer,
            "name": self.name,
            # the players ready for game ``game_no + 1``; stale once that game has started
            "ready": {"game_no": self.game_no, "seats": ready},
        }

    def summary(self) -> WireMap:
        return {
            "table": self.table_id,
            "name": self.name,
            "game": self.game_cls.name,
            "options": dict(self.options),
            "seats": [None if s is None else s.summary() for s in self.seats],
            "phase": self.phase.value,
            "game_no": self.game_no,
            "spectators": len(self.spectators),
            "turn_timer": None if self.turn_timer is None else int(self.turn_timer),
            "voids": self.voids,
        }

    def seat_of(self, conn: Conn) -> int | None:
        for s in self.seats:
            if s is not None and s.conn is conn:
                return s.index
        return None

    def members(self) -> list[Conn]:
        out = [s.conn for s in self.seats if s is not None and s.conn is not None]
        return out + list(self.spectators)

    # ------------------------------------------------------------------ lobby

    async def join(
        self,
        conn: Conn,
        name: str,
        seat: int | None = None,
        bot: str | None = None,
        *,
        re: Any = None,
    ) -> tuple[int, str]:
        """Seat ``conn`` as ``name``; return (seat, resume token).

        A ``bot`` label starting ``host:`` is the host's own (restarted with the host): only an
        in-process bot connection (``conn.trusted``) may claim one.
        """
        name = check_name(name)
        hosted = bot is not None and bot.startswith(HOSTED_BOT_PREFIX)
        if hosted and not getattr(conn, "trusted", False):
            raise TableError(
                f"bot labels starting {HOSTED_BOT_PREFIX!r} are the host's own",
                code=ErrorCode.BAD_FIELD,
            )
        async with self._lock:
            if conn.closed:  # gone while waiting for the lock: seat nobody
                raise TableError(
                    "the connection closed before the seat was taken", code=ErrorCode.BAD_STATE
                )
            if self.phase in (TablePhase.DEALING, TablePhase.PLAYING):
                raise TableError("the game has started: watch instead", code=ErrorCode.BAD_STATE)
            if any(s is not None and s.name.casefold() == name.casefold() for s in self.seats):
                raise TableError(
                    f"the name {name!r} is taken at this table", code=ErrorCode.CONFLICT
                )
            if self.seat_of(conn) is not None:
                raise TableError("already seated at this table", code=ErrorCode.BAD_STATE)
            if seat is None:
                free = [i for i, s in enumerate(self.seats) if s is None]
                if not free:
                    raise TableError("the table is full", code=ErrorCode.FULL)
                seat = free[0]
            elif not 0 <= seat < self.nseats:
                raise TableError(f"no seat {seat} at this table", code=ErrorCode.NOT_FOUND)
            elif self.seats[seat] is not None:
                raise TableError(f"seat {seat} is taken", code=ErrorCode.FULL)
            token = secrets.token_urlsafe(32)
            row = Seat(seat, name, hash_token(token), bot=bot, ready=bot is not None)
            await self.store.put_seat(self.table_id, SeatRow(seat, name, row.token_hash, bot))
            self.spectators.pop(conn, None)
            self.seats[seat] = row
            self._attach(row, conn)
            conn.deliver(
                [{"type": "joined", "table": self.table_id, "seat": seat, "token": token, "re": re}]
            )
            # logged here, before a full table starts its game, so the lines come in order
            log.info(
                "table %s: %s took seat %d%s [%s]",
                self.table_id, name, seat, f" (bot: {bot})" if bot else "",
                getattr(conn, "peer", "?"),
            )  # fmt: skip
            self._send_summary()
            await self._maybe_start()
            return seat, token

    async def reissue_token(self, seat: int) -> str:
        """A fresh resume token for a seat (host-run bots after a restart)."""
        async with self._lock:
            s = self.seats[seat]
            if s is None or s.stood_up:
                raise TableError(f"seat {seat} is empty", code=ErrorCode.NOT_FOUND)
            token = secrets.token_urlsafe(32)
            s.token_hash = hash_token(token)
            await self.store.put_seat(self.table_id, SeatRow(seat, s.name, s.token_hash, s.bot))
            return token

    async def leave(self, conn: Conn, *, re: Any = None) -> None:
        """A seat leaves or a spectator stops watching.

        During a game the seat is not emptied: like a stood-up seat it loses its owner (the
        resume token stops working) and the host's bot plays it at once, to the end of the game
        (a ``left`` event says so); then it is freed. A connection that is neither seated nor
        watching (it never came, left already, or its seat was freed after it dropped) gets
        ``not_found``: there is nothing to leave, and nothing changes.
        """
        async with self._lock:
            seat = self.seat_of(conn)
            if seat is None and conn not in self.spectators:
                raise TableError("you are not at this table", code=ErrorCode.NOT_FOUND)
            self._stop_watching(conn, "left")
            if seat is not None:
                s = self._seat(seat)
                s.conn = None  # gone now: it gets neither the game's messages nor a spectator's
                s.disconnected_at = trio.current_time()
                if self.phase in (TablePhase.DEALING, TablePhase.PLAYING):
                    await self._live(JournalKind.SEAT, {"op": "leave", "seat": seat})
                    self._poke()  # the host plays the seat from now on
                else:
                    self.seats[seat] = None
                    await self.store.delete_seat(self.table_id, seat)
            conn.deliver([{"type": "left", "table": self.table_id, "re": re}])
            self._send_summary()

    def check_bot_request(self, by: Conn | None) -> None:
        """Raise ``TableError`` (``bad_state``) unless ``by`` may seat a host bot here.

        ``None`` is the host itself (``onecard play``, ``HostInfo.add_bots``): always allowed.
        A connection may if it created the table (and has not disconnected since) or holds a
        seat here; anyone else could otherwise fill a stranger's waiting table with bots, which
        count as ready, and so start its game.
        """
        if by is None or by is self.creator or self.seat_of(by) is not None:
            return
        raise TableError(
            "only the table's creator or a player seated at it may add bots",
            code=ErrorCode.BAD_STATE,
        )

    async def watch(self, conn: Conn, name: str = "") -> None:
        """Add ``conn`` as a spectator whose chat lines carry ``name`` (:func:`spectator_name`)."""
        name = spectator_name(name)
        async with self._lock:
            if self.seat_of(conn) is not None:
                raise TableError("already seated at this table", code=ErrorCode.BAD_STATE)
            if conn.closed:  # gone while waiting for the lock
                return
            if conn not in self.spectators:
                log.info(
                    "table %s: %s started watching [%s]",
                    self.table_id, name, getattr(conn, "peer", "?"),
                )  # fmt: skip
            self.spectators[conn] = name
            conn.deliver(
                [
                    {"type": "table_info", **self.summary()},
                    *self._chat_backlog(),
                    *self._view_msgs(None),
                ]
            )
            self._send_summary()

    async def set_ready(self, conn: Conn, ready: bool) -> None:
        async with self._lock:
            seat = self._require_seat(conn)
            if self.phase in (TablePhase.DEALING, TablePhase.PLAYING):
                raise TableError("the game is already running", code=ErrorCode.BAD_STATE)
            seat.ready = ready
            await self._save_ready()
            self._send_summary()
            await self._maybe_start()

    async def _save_ready(self) -> None:
        """Keep who is ready for the next game in the table's stored meta (a restart keeps it)."""
        await self.store.put_table(self.table_id, self.created, self.meta())

    def holds_token(self, token: str) -> bool:
        """Whether a seat here has this resume token (no lock: the lobby asks every table)."""
        return self._seat_for_token(hash_token(token)) is not None

    def _seat_for_token(self, digest: bytes) -> Seat | None:
        found = None
        for s in self.seats:
            if (
                s is not None
                and s.token_hash is not None
                and secrets.compare_digest(s.token_hash, digest)
            ):
                found = s
        return found

    async def resume(self, conn: Conn, token: str, last_seq: int, *, re: Any = None) -> int | None:
        """Give a seat back to its owner and queue what it missed; return the seat or None."""
        digest = hash_token(token)
        async with self._lock:
            found = self._seat_for_token(digest)
            if found is None:
                return None
            if conn.closed:  # gone while waiting for the lock: the seat stays as it is
                return found.index
            old = found.conn
            self.spectators.pop(conn, None)  # a seat sees its own view, not the public one
            self._attach(found, conn)
            if found.substitute and not found.stood_up:
                log.info(
                    "table %s: seat %d (%s) is back: the host stops playing for it",
                    self.table_id, found.index, found.name,
                )  # fmt: skip
            found.substitute = False
            if old is not None and old is not conn:
                old.close_politely(
                    {
                        "type": "error",
                        "code": "conflict",
                        "fatal": True,
                        "message": "this seat was resumed by another connection",
                    }
                )
            rows = await self.store.messages_after(
                self.table_id, max(last_seq, self.game_seq), found.index
            )
            head = {
                "type": "resumed",
                "table": self.table_id,
                "seat": found.index,
                "name": found.name,
                "seq": self.seq,
                "act_seq": found.last_cseq,
                "re": re,
            }
            conn.deliver_backlog(
                [
                    head,
                    {"type": "table_info", **self.summary()},
                    *self._chat_backlog(last_seq),
                    *(r.payload for r in rows),
                    *self._view_msgs(found.index),
                ]
            )
            self._send_summary()
            await self._maybe_start()
            self._poke()
            return found.index

    def _stop_watching(self, conn: Conn, why: str) -> None:
        """``conn`` no longer watches (if it did): it left the table or went away."""
        name = self.spectators.pop(conn, None)
        if name is not None:
            log.info(
                "table %s: %s stopped watching (%s) [%s]",
                self.table_id, name, why, getattr(conn, "peer", "?"),
            )  # fmt: skip

    def _attach(self, seat: Seat, conn: Conn) -> None:
        """Give ``seat`` to ``conn``, or mark it away if ``conn`` closed meanwhile."""
        if conn.closed:
            seat.conn = None
            seat.disconnected_at = trio.current_time()
        else:
            seat.conn = conn
            seat.disconnected_at = None

    def detach(self, conn: Conn) -> None:
        """A connection went away: free its seat for a resume and start its grace period.

        Runs at once, without the table lock: a closing connection must never wait for a busy
        table (it would give up and leave its seat pointing at a dead connection, and a table
        without a turn timer would then wait for that seat forever). Nothing is sent here; the
        timer task, woken by this, pushes the new ``table_info`` under the lock.
        """
        changed = conn in self.spectators
        self._stop_watching(conn, "disconnected")
        if conn is self.creator:  # its right to add bots ends with it (and nothing is kept)
            self.creator = None
        for s in self.seats:
            if s is not None and s.conn is conn:
                changed = True
                s.conn = None
                s.disconnected_at = trio.current_time()
        if changed:
            self._summary_due = True
            self._poke()

    async def chat(self, conn: Conn, text: str) -> None:
        """Say a line to the table; it is delivered first and kept in the store after.

        The whole table takes ``TABLE_CHAT_PER_SECOND`` lines (a crowd of chatters is refused
        ``rate_limited``, each line going to every member). The store write (a synced sqlite
        commit through the store's one worker) runs outside the table lock, so chat, which is
        not journaled, never holds up a move; lines said while one is being written are
        written together in the next transaction. A write that fails loses the lines from the
        kept backlog only, and is logged.
        """
        async with self._lock:
            seat = self.seat_of(conn)
            if seat is None and conn not in self.spectators:
                raise TableError("join or watch the table to chat", code=ErrorCode.BAD_STATE)
            if not self._chat_rate.take():
                raise TableError(
                    "the table's chat is busy: wait a moment", code=ErrorCode.RATE_LIMITED
                )
            sender = self.spectators[conn] if seat is None else self._seat(seat).name
            n = self.chat_log[-1].n + 1 if self.chat_log else 1
            msg = {
                "type": "chat_line",
                "table": self.table_id,
                "seat": seat,
                "name": sender,
                "text": text,
                "n": n,
            }
            line = ChatRow(n, self.seq, msg)
            self.chat_log.append(line)
            for member in self.members():
                member.deliver([msg])
            self._chat_unsaved.append(line)
        if self._chat_saving:
            return  # the write in progress takes this line too
        self._chat_saving = True
        try:
            while self._chat_unsaved:
                rows, self._chat_unsaved = self._chat_unsaved, []
                try:
                    await self.store.append_chat(self.table_id, rows, keep=CHAT_BACKLOG)
                except Exception:  # said, but not kept in the backlog for after a restart
                    log.exception("table %s: chat lines %d-%d not kept", self.table_id,
                                  rows[0].n, rows[-1].n)  # fmt: skip
        finally:
            self._chat_saving = False

    def _chat_backlog(self, since_seq: int = 0) -> list[WireMap]:
        """The kept chat lines said at table seq ``since_seq`` or later, oldest first.

        A client that last received seq S may have missed lines said at S (chat does not move
        the seq), so those are sent again: a repeated line rather than a lost one."""
        return [dict(c.line) for c in self.chat_log if c.seq >= since_seq]

    # ------------------------------------------------------------------ play

    async def act(self, conn: Conn, cseq: int, wire: object, *, re: Any = None) -> bool:
        """Apply a seat's action; False for a duplicate (already applied) ``cseq``.

        Raises:
            TableError, RulesError: the action is refused (code says why).
        """
        async with self._lock:
            seat = self._require_seat(conn)
            if cseq <= seat.last_cseq:
                return False
            if self.phase is not TablePhase.PLAYING or self.engine is None:
                raise TableError(
                    f"no moves now: the table is {self.phase.value}", code=ErrorCode.BAD_STATE
                )
            action = self.engine.parse_action(wire)
            self.engine.check(seat.index, action)
            self._ack = (
                conn,
                {"type": "ack", "table": self.table_id, "seq": cseq, "duplicate": False, "re": re},
            )
            try:
                await self._live(
                    JournalKind.ACTION,
                    {"seat": seat.index, "action": action.to_wire(), "cseq": cseq, "note": None},
                )
            finally:
                self._ack = None
            return True

    def explain(self, conn: Conn, card: Card) -> Explanation:
        """Why the connection's seat cannot play ``card`` now; changes nothing, not journaled.

        Raises:
            TableError: not seated here, or no game running (``bad_state``).
        """
        seat = self._require_seat(conn)
        running = self.phase in (TablePhase.DEALING, TablePhase.PLAYING)
        if not running or self.engine is None:
            raise TableError(f"no game now: the table is {self.phase.value}", code=BAD_STATE)
        return self.engine.explain(seat.index, card)

    async def fair_commit(self, conn: Conn, hand_no: int, commitment: bytes) -> None:
        async with self._lock:
            seat = self._require_seat(conn)
            deal = self._require_deal(hand_no)
            if deal.locked:
                raise TableError("commitments are locked", code=ErrorCode.BAD_STATE)
            if deal.already(seat.index, commit=commitment):
                return  # a repeat (a resend after a lost reply): nothing new to journal
            await self._live(
                JournalKind.FAIR, {"op": "commit", "seat": seat.index, "value": commitment}
            )

    async def fair_reveal(self, conn: Conn, hand_no: int, reveal: bytes) -> None:
        async with self._lock:
            seat = self._require_seat(conn)
            deal = self._require_deal(hand_no)
            if not deal.locked:  # a phase error (4.5), not a failed check (``fairness``)
                raise TableError(
                    "reveal only after the lock: commitments are still open",
                    code=ErrorCode.BAD_STATE,
                )
            if deal.already(seat.index, reveal=reveal):
                return  # a repeat: nothing new to journal
            await self._live(
                JournalKind.FAIR, {"op": "reveal", "seat": seat.index, "value": reveal}
            )

    # ------------------------------------------------------------------ timers

    def _poke(self) -> None:
        self._wake.set()

    def _next_deadline(self) -> float:
        times = [t for t in (self.round_deadline, self.turn_deadline) if t is not None]
        running = self.phase in (TablePhase.DEALING, TablePhase.PLAYING)
        for s in self.seats:
            if s is None or s.disconnected_at is None:
                continue
            if running and not s.substitute:  # the host plays for it after the grace period
                times.append(s.disconnected_at + self.grace)
            elif not running and s.bot is None:  # no game: it is freed after the grace period
                times.append(self._away_since(s) + self.grace)
        return min(times, default=float("inf"))

    def _away_since(self, seat: Seat) -> float:
        """Since when a seat has been away *while no game runs* (the grace for freeing it)."""
        assert seat.disconnected_at is not None
        idle = trio.current_time() if self._idle_since is None else self._idle_since
        return max(seat.disconnected_at, idle)

    async def _free_absent_seats(self, now: float) -> None:
        """No game running: free each seat whose player has been away for the grace period.

        Otherwise one player who walked away before the start (or between games) would keep a
        waiting table from ever starting. The seat goes as after ``leave``; its token stops
        working, since a resume finds no seat.
        """
        freed = False
        for i, s in enumerate(self.seats):
            if s is None or s.bot is not None or s.disconnected_at is None:
                continue
            if now >= self._away_since(s) + self.grace:
                self.seats[i] = None
                await self.store.delete_seat(self.table_id, i)
                log.info(
                    "table %s: seat %d (%s) freed: away %.0f s with no game running",
                    self.table_id, i, s.name, self.grace,
                )  # fmt: skip
                freed = True
        if freed:
            self._send_summary()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The table's timer loop; runs until cancelled or :meth:`close`."""
        task_status.started()
        with self._run_scope:
            await self._timer_loop()

    def idle(self) -> bool:
        """Whether the table may be dropped to make room for a new one: no game running, no
        player seated (connected or within the grace period of a drop) and either no bot
        either, or its game over, or nothing happening for ``IDLE_TABLE_S`` (a table being
        filled with bots is kept). Spectators do not keep a table: they are only watching."""
        if self.phase not in (TablePhase.WAITING, TablePhase.FINISHED):
            return False
        taken = [s for s in self.seats if s is not None]
        if any(s.bot is None for s in taken):
            return False
        if not taken or self.phase is TablePhase.FINISHED:
            return True
        since = self._idle_since
        return since is not None and trio.current_time() - since >= IDLE_TABLE_S

    def close(self) -> None:
        """Stop the timers and disconnect whoever is left (bots); the lobby forgets the table."""
        self._run_scope.cancel()
        gone = {"type": "error", "code": "not_found", "fatal": True, "message": "table closed"}
        for member in self.members():
            member.close_politely(gone)

    async def _timer_loop(self) -> None:
        while True:
            with trio.move_on_at(self._next_deadline()):
                await self._wake.wait()
            self._wake = trio.Event()
            crashed = False
            async with self._lock:
                if self._summary_due:
                    self._send_summary()
                try:
                    await self._tick()
                except (LocalProtocolError, FairnessError) as exc:
                    log.error("table %s: automatic step failed: %s", self.table_id, exc)
                except Exception:  # an engine bug must not take the host down
                    log.exception("table %s: automatic step crashed", self.table_id)
                    crashed = True
            if crashed:  # back off without the lock, so the seats can still act and chat
                await trio.sleep(1.0)
            await trio.lowlevel.checkpoint()

    async def _tick(self) -> None:
        now = trio.current_time()
        if self.phase not in (TablePhase.DEALING, TablePhase.PLAYING):
            if self._idle_since is None:  # the first tick since the game ended (or ever)
                self._idle_since = now
            await self._free_absent_seats(now)
            return
        self._idle_since = None
        if self.engine is None:
            return
        for s in self.seats:
            if s is None or s.disconnected_at is None or s.substitute:
                continue
            if now >= s.disconnected_at + self.grace:
                s.substitute = True
                log.info(
                    "table %s: the host plays seat %d (%s): away for the %.0f s grace period",
                    self.table_id, s.index, s.name, self.grace,
                )  # fmt: skip
                self._send_summary()
        if self.phase is TablePhase.DEALING:
            if self.round_deadline is not None and now >= self.round_deadline:
                await self._live(JournalKind.FAIR, {"op": "void", "reason": VOID_TIMEOUT})
            return
        for seat in self.engine.to_act():
            s = self._seat(seat)
            if s.substitute:
                legal = [a.to_wire() for a in self.engine.legal_actions(seat)]
                choice = policy.heuristic_choice(self.engine.view(seat), legal)
                if choice is not None:
                    await self._live(
                        JournalKind.ACTION,
                        {"seat": seat, "action": choice, "cseq": None, "note": "substitute"},
                    )
                return
        if self.turn_deadline is not None and now >= self.turn_deadline:
            for seat in self.engine.to_act():  # the host's bot plays the move, as for an absent
                legal = [a.to_wire() for a in self.engine.legal_actions(seat)]
                choice = policy.heuristic_choice(self.engine.view(seat), legal)
                if choice is None:
                    default = self.engine.default_action(seat)
                    choice = None if default is None else default.to_wire()
                if choice is not None:
                    await self._live(
                        JournalKind.ACTION,
                        {"seat": seat, "action": choice, "cseq": None, "note": "timeout"},
                    )
                    return

    # ------------------------------------------------------------------ inputs

    def public_summary(self) -> WireMap:
        """The table as ``list_tables`` shows it: while an input is being committed, the table
        as it was before it (what is not stored yet may still be undone)."""
        return self._committed if self._committed is not None else self.summary()

    async def _live(self, kind: JournalKind, payload: WireMap) -> None:
        """Handle one live input: compute, commit, deliver (with any round it opens)."""
        batch = Batch()
        self._committed = self.summary()
        try:
            self._input(batch, kind, payload)
            while self._needs_open:
                self._needs_open = False
                self._input(batch, JournalKind.FAIR, self._open_payload())
            await self.store.append(self.table_id, batch.rows)
        except Exception as exc:
            if not batch.rows and not isinstance(exc, EngineFailure):
                raise  # refused before anything changed
            # failed half-way (an engine bug, a full disk): the game in memory may no longer
            # match the journal, so rebuild it from the journal, which is the truth
            log.exception("table %s: input %s failed; reloading the table", self.table_id, kind)
            await self._reload()
            raise TableError(
                "the host could not apply that; the table was restored to its last state",
                code=ErrorCode.INTERNAL,
            ) from None
        finally:
            self._committed = None
        await self._deliver(batch)

    async def _reload(self) -> None:
        rows = await self.store.load_tables(only=self.table_id)
        self._reset_game_state()
        stored = {r.seat: r for r in rows[0].seats} if rows else {}
        for s in self.seats:
            if s is not None:
                s.last_cseq, s.sit_out, s.last_action = 0, False, None
                if s.stood_up:  # the replay says again whether it stands up
                    s.stood_up = s.substitute = False
                    row = stored.get(s.index)
                    s.token_hash = None if row is None else row.token_hash
        if rows:
            self.replay(rows[0].journal)
        self.pending_records = []
        self.round_deadline = None
        if self.phase is TablePhase.DEALING:
            self.round_deadline = trio.current_time() + self.round_timeout
        if self.phase is TablePhase.PLAYING and self.turn_timer is not None:
            seconds = self.turn_seconds()
            self.turn_deadline = None if seconds is None else trio.current_time() + seconds

    async def _commit(self, batch: Batch) -> None:
        """Persist the batch, then deliver its messages and fresh views."""
        await self.store.append(self.table_id, batch.rows)
        await self._deliver(batch)

    async def _deliver(self, batch: Batch) -> None:
        """Keep the hand records the batch finished, then send its messages and views.

        The batch is committed, so its messages go out whatever becomes of the records: a
        write the disk refuses waits in the store's memory, is served from there and retried
        (:meth:`host.store.Store.keep_record`); nothing here raises for the disk.
        """
        records, self.pending_records = self.pending_records, []
        for hand_no, record in records:
            try:
                await self.store.keep_record(self.table_id, hand_no, record)
            except Exception:  # a bug, not the disk: still, the committed messages go out
                log.exception("table %s: the record of hand %d is lost", self.table_id, hand_no)
        per_conn: dict[int, tuple[Conn, list[WireMap]]] = {}
        for member in self.members():
            per_conn[id(member)] = (member, [])
        ack, self._ack = self._ack, None
        if ack is not None and id(ack[0]) in per_conn:
            per_conn[id(ack[0])][1].append(ack[1])
        for to, msg in batch.out:
            for member in self._audience(to):
                per_conn[id(member)][1].append(msg)
        for s in self.seats:
            if s is not None and s.conn is not None:
                per_conn[id(s.conn)][1].extend(self._view_msgs(s.index))
        for spectator in self.spectators:
            per_conn[id(spectator)][1].extend(self._view_msgs(None))
        for conn, msgs in per_conn.values():
            if msgs:
                conn.deliver(msgs)
        try:
            await self._settle_stood_up()
        except Exception:  # the seat is freed in memory; the restart replay frees it again
            log.exception("table %s: storing a freed seat failed", self.table_id)

    async def _settle_stood_up(self) -> None:
        """Seats the runner stood up (too many missed deal rounds): the owner's connection
        becomes a spectator at once, and once no game runs the seat is freed for someone else.

        The stored seat row keeps its token hash until then; the replayed journal stands the
        seat up again (and forgets the token) after a restart, so it is never resumable."""
        changed = False
        running = self.phase in (TablePhase.DEALING, TablePhase.PLAYING)
        for s in list(self.seats):
            if s is None or not s.stood_up:
                continue
            if s.conn is not None:
                conn, s.conn = s.conn, None
                if not conn.closed:
                    self.spectators[conn] = s.name
                    log.info(
                        "table %s: %s started watching (stood up) [%s]",
                        self.table_id, s.name, getattr(conn, "peer", "?"),
                    )  # fmt: skip
                changed = True
            if not running:
                self.seats[s.index] = None
                await self.store.delete_seat(self.table_id, s.index)
                changed = True
        if changed:
            self._send_summary()

    def _audience(self, to: int | None) -> list[Conn]:
        if to is None:
            return self.members()
        s = self.seats[to]
        return [s.conn] if s is not None and s.conn is not None else []

    def _send_summary(self) -> None:
        self._summary_due = False
        msg = {"type": "table_info", **self.summary()}
        for member in self.members():
            member.deliver([msg])

    def _view_msgs(self, seat: int | None) -> list[WireMap]:
        if self.engine is None:
            return []
        playing = self.phase is TablePhase.PLAYING
        view = self.engine.view(seat)
        legal: list[Any] = []
        if seat is not None and playing:
            # every game's view already lists the seat's legal actions (VIEW_CORE_KEYS): reuse
            # that list rather than enumerate them twice (Black Jack's can take milliseconds)
            listed = view.get("legal")
            legal = (
                listed
                if isinstance(listed, list)
                else [a.to_wire() for a in self.engine.legal_actions(seat)]
            )
        deadline = None
        if self.turn_deadline is not None:
            deadline = max(0, int((self.turn_deadline - trio.current_time()) * 1000))
        return [
            {
                "type": "state",
                "table": self.table_id,
                "seq": self.seq,
                "game_no": self.game_no,
                "phase": self.phase.value,
                "seat": seat,
                "view": view,
                "legal": legal,
                "to_act": list(self.engine.to_act()) if playing else [],
                "turn_ms": deadline,
            }
        ]

    # ------------------------------------------------------------------ helpers

    def _require_seat(self, conn: Conn) -> Seat:
        seat = self.seat_of(conn)
        if seat is None:
            raise TableError("you have no seat at this table", code=ErrorCode.BAD_STATE)
        return self._seat(seat)

    def _require_deal(self, hand_no: int) -> Deal:
        if self.phase is not TablePhase.DEALING or self.deal is None:
            raise TableError("no deal round in progress", code=ErrorCode.BAD_STATE)
        if hand_no != self.deal.hand_no:
            raise TableError(
                f"the round in progress is for hand {self.deal.hand_no}, not {hand_no}",
                code=ErrorCode.BAD_STATE,
            )
        return self.deal

    async def _maybe_start(self) -> None:
        if self.phase not in (TablePhase.WAITING, TablePhase.FINISHED):
            return
        if not all(s is not None and (s.ready or s.bot is not None) for s in self.seats):
            return
        if any(s is not None and s.bot is None and s.conn is None for s in self.seats):
            return  # a player who is ready but away: the game starts when it is back
        names = [self._seat(i).name for i in range(self.nseats)]
        misses = {str(s.index): s.misses for s in self.seats if s is not None and s.misses}
        await self._live(
            JournalKind.GAME,
            {
                "game_no": self.game_no + 1,
                "names": names,
                "fair_hand_no": self.fair_hand_no,
                "voids": self.voids,
                "misses": misses,
            },
        )
        self._send_summary()

    # ------------------------------------------------------------------ restart

    #: the journal :meth:`restore` replayed, until :meth:`after_restore` rebuilds lost records
    _restored_journal: Sequence[JournalRow] = ()

    @classmethod
    def restore(
        cls,
        row: TableRow,
        *,
        game_cls: type[Game],
        store: Store,
        signing_key: Ed25519PrivateKey,
        grace: float,
        round_timeout: float = ROUND_TIMEOUT,
    ) -> Table:
        """Rebuild a table from its stored row by replaying its journal's inputs."""
        meta = row.meta
        table = cls(
            table_id=row.table_id,
            game_cls=game_cls,
            seats=int(meta["seats"]),
            options=dict(meta["options"]),
            store=store,
            signing_key=signing_key,
            turn_timer=meta.get("turn_timer"),
            grace=grace,
            created=row.created,
            name=str(meta.get("name", "")),
            round_timeout=round_timeout,
        )
        for s in row.seats:
            if 0 <= s.seat < table.nseats:
                table.seats[s.seat] = Seat(s.seat, s.name, s.token_hash, bot=s.bot)
        table.replay(row.journal)
        table._restored_journal = row.journal
        table.chat_log.extend(row.chat)
        ready = meta.get("ready")
        waiting = table.phase in (TablePhase.WAITING, TablePhase.FINISHED)
        if waiting and isinstance(ready, dict) and ready.get("game_no") == table.game_no:
            for index, name in ready.get("seats") or []:
                back = table.seats[index] if 0 <= index < table.nseats else None
                if back is not None and back.name == name and back.bot is None:
                    back.ready = True
        now = trio.current_time()
        for seat in table.seats:
            if seat is not None:
                seat.disconnected_at = now
        if table.phase is TablePhase.PLAYING and table.turn_timer is not None:
            seconds = table.turn_seconds()
            table.turn_deadline = None if seconds is None else now + seconds
        return table

    async def after_restore(self) -> None:
        """Finish what a restart interrupted: write the records that are not on disk (the last
        game's from the replay, earlier games' rebuilt from the journal: the host stopped
        while its disk refused them); void and redo a half-done round.

        A record file that exists is left as it is, readable or not, so a damaged one never
        keeps the round from being voided (``get_record`` answers ``unavailable`` for it).
        """
        async with self._lock:
            records, self.pending_records = self.pending_records, []
            journal, self._restored_journal = self._restored_journal, ()
            have = set(await self.store.list_records(self.table_id))
            lost = self.lost_records(journal, have)
            if lost:
                log.warning(
                    "table %s: rebuilt the lost records of hands %s from the journal",
                    self.table_id, ", ".join(str(h) for h, _ in lost),
                )  # fmt: skip
            for hand_no, record in sorted([*lost, *records], key=lambda r: r[0]):
                if hand_no not in have:
                    await self.store.keep_record(self.table_id, hand_no, record)
            await self._settle_stood_up()
            if self.phase is not TablePhase.DEALING or self.engine is None:
                return
            if self.deal is not None and not self.deal.ended and not self.deal.dealt:
                await self._live(JournalKind.FAIR, {"op": "void", "reason": "host restarted"})
            else:
                batch = Batch()
                self._needs_open = True
                while self._needs_open:
                    self._needs_open = False
                    self._input(batch, JournalKind.FAIR, self._open_payload())
                await self._commit(batch)
