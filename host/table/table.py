"""One table: who is told what, and when, around a game runner.

How it works. A :class:`Table` is composed of four parts, each in its own module, and no
subclass hooks: the game runner (:class:`host.table.runner.GameRunner`: engine, fair deals, journal
numbering; pure, given the table's clock), the seat book (:class:`host.table.seating.SeatBook`:
seats, spectators, tokens, who is present and ready), the clock
(:class:`host.table.clock.TableClock`: what is due when) and the chat log
(:class:`host.table.chat.ChatLog`). The table adds the store and the connections. Every change runs
under the table's lock in three steps: compute (the runner appends the input row and its output rows
to a batch), *commit* the batch in one sqlite transaction (:mod:`host.storage.store`), then
*deliver* it. Nothing is sent that is not durable, so a restarted host rebuilds a table by replaying
the stored inputs (:mod:`host.table.restore`) and resumes at the last message it sent. A hand record
is kept before its batch is delivered, but never holds the batch back: one the disk refuses waits in
the store's memory and is retried.

Who sees what: each journaled message is public (``None``) or private to one seat; seats get
public messages and their own, spectators public ones only. After every change each seat gets a
``state`` with ``game.view(seat)`` and its legal actions; spectators get ``game.view(None)``.
The engine's ``view`` alone decides what is hidden. Deliveries are non-blocking (``Conn.deliver``).

Timers (:meth:`Table.run`, a task in the server's nursery, sleeping until the clock says
something is due): the turn timer (the host's bot plays the move; a seat that lets it run out
twice in a row gets short turns until it acts again), the deal-round deadline (a missing commit
or reveal voids the round; a seat that keeps missing rounds is stood up) and the reconnect grace
period (then the host plays for an absent seat until it returns, or, between games, frees it).
A connection that ends is detached from its seats at once (:meth:`Table.detach`, no lock); its
``ready`` stands (a game starts once every seated player is connected), kept in the stored meta
through a restart. A player may ``leave`` during a game: the host's bot plays it, then frees it.
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Sequence
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.failures import failure_code
from host.games.base import Explanation, State, WireMap
from host.logs import get_logger
from host.storage.journal import ChatRow, JournalKind, JournalRow, SeatRow
from host.storage.store import Store
from host.table.chat import ChatLog
from host.table.clock import EMPTY_TABLE_S, TableClock
from host.table.dealing import Deal
from host.table.runner import GameRunner
from host.table.seating import (
    HOSTED_BOT_PREFIX,
    Conn,
    SeatBook,
    check_name,
    hash_token,
    spectator_name,
)
from host.table.seats import ROUND_TIMEOUT, Batch, EngineFailure, Seat, TableError, TablePhase
from host.table.timers import Timers
from host.table.views import Backlogs, fan_out, state_message
from protocol import table_messages as tm
from protocol.cardfair import ContextError, FairnessError, FairnessStateError
from protocol.cards import Card
from protocol.errors import ErrorCode
from protocol.framing import Outgoing

__all__ = ["ROUND_TIMEOUT", "Table", "TableError", "TablePhase"]

log = get_logger(__name__)

RUNNING = (TablePhase.DEALING, TablePhase.PLAYING)


def _none(seat: int | None) -> list[WireMap]:
    """No view (a batch that changed nothing anyone sees)."""
    return []


class Table:
    """A table and its running game. Public coroutines take the table lock."""

    def __init__(
        self,
        *,
        table_id: str,
        game_cls: type[State],
        seats: int,
        options: dict[str, Any],
        store: Store,
        signing_key: Ed25519PrivateKey,
        turn_timer: float | None,
        grace: float,
        created: int,
        name: str = "",
        round_timeout: float = ROUND_TIMEOUT,
        private: bool = False,
    ) -> None:
        """``private``: a private table (``spec/PROTOCOL.md`` 10): refused options raise
        :class:`~host.games.base.OptionError` (``bad_field``) naming them."""
        self.clock = TableClock(grace)
        self.runner = GameRunner(
            table_id=table_id,
            game_cls=game_cls,
            seats=seats,
            options=options,
            signing_key=signing_key,
            turn_timer=turn_timer,
            round_timeout=round_timeout,
            now=self.clock.now,
            private=private,
        )
        self.book = SeatBook(self.runner.seats, self.clock.now, table_id)
        self.chat_room = ChatLog(table_id)
        self.store = store
        self.table_id = table_id
        self.created = created
        self.name = name or table_id
        self.lock = trio.Lock()
        self.timers = Timers(self)
        self.backlogs = Backlogs(store, table_id)
        self._ack: tuple[Conn, WireMap] | None = None
        #: a connection left (:meth:`detach`); the timer task sends the ``table_info``
        self.summary_due = False
        #: the summary from before an input being committed (see :meth:`public_summary`)
        self._committed: WireMap | None = None
        #: after a restart, the journal replayed, until the lost records are rebuilt from it
        self.replayed: Sequence[JournalRow] = ()

    # ------------------------------------------------------------------ what the parts hold

    @property
    def game_cls(self) -> type[State]:
        return self.runner.game_cls

    @property
    def options(self) -> dict[str, Any]:
        return self.runner.options

    @property
    def nseats(self) -> int:
        return self.runner.nseats

    @property
    def seats(self) -> list[Seat | None]:
        return self.runner.seats

    @property
    def spectators(self) -> dict[Conn, str]:
        return self.book.spectators

    @property
    def creator(self) -> Conn | None:
        return self.book.creator

    @creator.setter
    def creator(self, conn: Conn | None) -> None:
        self.book.set_creator(conn)

    @property
    def phase(self) -> TablePhase:
        return self.runner.phase

    @property
    def engine(self) -> State | None:
        return self.runner.engine

    @property
    def deal(self) -> Deal | None:
        return self.runner.deal

    @property
    def seq(self) -> int:
        return self.runner.seq

    @property
    def game_no(self) -> int:
        return self.runner.game_no

    @property
    def fair_hand_no(self) -> int:
        return self.runner.fair_hand_no

    @property
    def turn_timer(self) -> float | None:
        return self.runner.turn_timer

    @property
    def grace(self) -> float:
        return self.clock.grace

    @property
    def private(self) -> bool:
        """A private table: the host never holds a human seat's hidden card (10.1)."""
        return self.runner.private

    # ------------------------------------------------------------------ summaries

    def meta(self) -> dict[str, Any]:
        return {
            "game": self.game_cls.game.name,
            "seats": self.nseats,
            "options": dict(self.options),
            "turn_timer": self.turn_timer,
            "name": self.name,
            "private": self.private,
            # the players ready for game ``game_no + 1``; stale once that game has started
            "ready": self.book.ready_meta(self.game_no),
        }

    def summary(self) -> WireMap:
        return {
            "table": self.table_id,
            "name": self.name,
            "game": self.game_cls.game.name,
            "options": dict(self.options),
            "seats": self.clock.seat_summaries(self.seats, running=self.phase in RUNNING),
            "phase": self.phase.value,
            "game_no": self.game_no,
            "spectators": len(self.spectators),
            "turn_timer": None if self.turn_timer is None else int(self.turn_timer),
            "voids": self.runner.voids,
            "private": self.private,
        }

    def public_summary(self) -> WireMap:
        """The table as ``list_tables`` shows it: while an input is being committed, the table
        as it was before it (what is not stored yet may still be undone)."""
        return self._committed if self._committed is not None else self.summary()

    def seat_of(self, conn: Conn) -> int | None:
        return self.book.seat_of(conn)

    def members(self) -> list[Conn]:
        return self.book.members()

    def holds_token(self, token: str) -> bool:
        """Whether a seat here has this resume token (no lock: the lobby asks every table)."""
        return self.book.holds_token(token)

    def check_bot_request(self, by: Conn | None) -> None:
        self.book.check_bot_request(by)

    def idle(self) -> bool:
        """Whether the table may be dropped for a new one (PROTOCOL.md): not while a game runs,
        a player holds a seat, or seats are being filled (a bot seated, or an empty table whose
        creator is connected or whose seats changed under ``EMPTY_TABLE_S`` ago), unless it is
        :meth:`SeatBook.abandoned` and never started. Bots-only finished tables are idle."""
        if self.phase in RUNNING:
            return False
        if self.game_no == 0 and self.book.abandoned():
            return True
        taken = [s for s in self.seats if s is not None]
        if any(s.bot is None for s in taken):
            return False
        if self.phase is TablePhase.FINISHED:
            return True
        if taken:
            return False
        creator = self.book.creator
        if creator is not None and not creator.closed:
            return False
        return self.clock.untouched_for(EMPTY_TABLE_S)

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
        async with self.lock:
            if conn.closed:  # gone while waiting for the lock: seat nobody
                raise TableError(
                    "the connection closed before the seat was taken", code=ErrorCode.BAD_STATE
                )
            if self.phase in RUNNING:
                raise TableError("the game has started: watch instead", code=ErrorCode.BAD_STATE)
            index = self.book.free_seat(conn, name, seat)
            token = secrets.token_urlsafe(32)
            row = SeatRow(index, name, hash_token(token), bot)
            await self.store.put_seat(self.table_id, row)
            self.book.sit(conn, SeatBook.new_seat(index, name, bot, row.token_hash, self.game_no))
            self.clock.touch()
            conn.deliver(
                [
                    {
                        "type": "joined",
                        "table": self.table_id,
                        "seat": index,
                        "token": token,
                        "re": re,
                    }
                ]
            )
            # logged here, before a full table starts its game, so the lines come in order
            log.info(
                "table %s: %s took seat %d%s [%s]",
                self.table_id,
                name,
                index,
                f" (bot: {bot})" if bot else "",
                getattr(conn, "peer", "?"),
            )
            self.send_summary()
            await self._maybe_start()
            return index, token

    async def reissue_token(self, seat: int) -> str:
        """A fresh resume token for a seat (host-run bots after a restart)."""
        async with self.lock:
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
        async with self.lock:
            seat = self.seat_of(conn)
            if seat is None and conn not in self.spectators:
                raise TableError("you are not at this table", code=ErrorCode.NOT_FOUND)
            self.book.stop_watching(conn, "left")
            if seat is not None:
                s = self.runner.seat(seat)
                self.book.away(s)  # gone now: it gets neither the game's messages nor a view
                if self.phase in RUNNING:
                    await self.live(JournalKind.SEAT, {"op": "leave", "seat": seat})
                else:
                    self.seats[seat] = None
                    self.clock.touch()
                    await self.store.delete_seat(self.table_id, seat)
            conn.deliver([{"type": "left", "table": self.table_id, "re": re}])
            self.send_summary()

    async def watch(self, conn: Conn, name: str = "") -> None:
        """Add ``conn`` as a spectator whose chat lines carry ``name``
        (:func:`host.table.seating.spectator_name`: empty is "spectator")."""
        name = spectator_name(name)
        async with self.lock:
            if self.seat_of(conn) is not None:
                raise TableError("already seated at this table", code=ErrorCode.BAD_STATE)
            if conn.closed:  # gone while waiting for the lock
                return
            if conn not in self.spectators:
                log.info(
                    "table %s: %s started watching [%s]",
                    self.table_id,
                    name,
                    getattr(conn, "peer", "?"),
                )
            self.spectators[conn] = name
            conn.deliver(
                [
                    {"type": "table_info", **self.summary()},
                    *self.chat_room.backlog(),
                    *self.view_msgs(None),
                ]
            )
            self.send_summary()

    async def set_ready(self, conn: Conn, ready: bool) -> None:
        async with self.lock:
            seat = self._require_seat(conn)
            if self.phase in RUNNING:
                raise TableError("the game is already running", code=ErrorCode.BAD_STATE)
            seat.ready = ready
            # kept in the table's stored meta: a restart keeps who is ready
            await self.store.put_table(self.table_id, self.created, self.meta())
            self.send_summary()
            await self._maybe_start()

    async def resume(self, conn: Conn, token: str, last_seq: int, *, re: Any = None) -> int | None:
        """Give a seat back to its owner and queue what it missed; return the seat or None."""
        async with self.lock:
            found = self.book.seat_for_token(hash_token(token))
            if found is None:
                return None
            if conn.closed:  # gone while waiting for the lock: the seat stays as it is
                return found.index
            old = found.conn
            self.book.attach(found, conn)  # refused if conn holds another seat here
            self.spectators.pop(conn, None)  # a seat sees its own view, not the public one
            if found.substitute and not found.stood_up:
                log.info(
                    "table %s: seat %d (%s) is back: the host stops playing for it",
                    self.table_id,
                    found.index,
                    found.name,
                )
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
            head = {
                "type": "resumed",
                "table": self.table_id,
                "seat": found.index,
                "name": found.name,
                "seq": self.seq,
                "act_seq": found.last_act_seq,
                "re": re,
            }
            conn.deliver_backlog(
                [
                    head,
                    {"type": "table_info", **self.summary()},
                    *self.chat_room.backlog(max(last_seq, self.runner.game_seq)),  # this game's
                    *await self.backlogs.after(found.index, last_seq, self.runner),
                    *self.view_msgs(found.index),
                ]
            )
            self.send_summary()
            await self._maybe_start()
            self.clock.poke()
            return found.index

    def detach(self, conn: Conn) -> None:
        """A connection went away: free its seat for a resume and start its grace period.

        Runs at once, without the table lock: a closing connection must never wait for a busy
        table (it would give up and leave its seat pointing at a dead connection, and a table
        without a turn timer would then wait for that seat forever). Nothing is sent here; the
        timer task, woken by this, pushes the new ``table_info`` under the lock.
        """
        if self.book.detach(conn):
            self.summary_due = True
            self.clock.poke()

    async def chat(self, conn: Conn, text: str) -> None:
        """Say a line to the table: delivered at once, kept in the store after, outside the
        lock (:class:`host.table.chat.ChatLog`; the table's rate limit refuses ``rate_limited``)."""
        async with self.lock:
            seat = self.seat_of(conn)
            if seat is None and conn not in self.spectators:
                raise TableError("join or watch the table to chat", code=ErrorCode.BAD_STATE)
            sender = self.spectators[conn] if seat is None else self.runner.seat(seat).name
            msg = self.chat_room.say(seat=seat, name=sender, text=text, seq=self.seq)
            for member in self.members():
                member.deliver([msg])
        await self.chat_room.save(self.store)

    @property
    def chat_log(self) -> deque[ChatRow]:
        """The chat lines kept (the last ``CHAT_BACKLOG``), oldest first."""
        return self.chat_room.lines

    # ------------------------------------------------------------------ play

    async def act(
        self,
        conn: Conn,
        act_seq: int,
        wire: object,
        *,
        re: Any = None,
        opens: Sequence[Any] = (),
    ) -> bool:
        """Apply a seat's action and acknowledge it; False for a duplicate ``act_seq`` (see
        :meth:`Seat.repeated`), acknowledged as such and not applied again. ``opens`` is a
        private table's ``act.open`` (the keys of the positions a play puts face up).

        Raises:
            TableError, RulesError: the action is refused (code says why).
        """
        async with self.lock:
            seat = self._require_seat(conn)
            if seat.repeated(self.engine, act_seq, wire):
                conn.deliver([self._ack_msg(act_seq, re, duplicate=True)])
                return False
            # the runner parses and checks the move (once); refused, it leaves no row
            self._ack = (conn, self._ack_msg(act_seq, re, duplicate=False))
            try:
                payload = {"seat": seat.index, "action": wire, "act_seq": act_seq, "note": None}
                if opens:
                    payload["open"] = [[s, p, list(keys)] for s, p, keys in opens]
                await self.live(JournalKind.ACTION, payload)
            finally:
                self._ack = None
            return True

    def _ack_msg(self, act_seq: int, re: Any, *, duplicate: bool) -> WireMap:
        """The ``ack`` of an ``act``: sent before the move's messages, or alone for a resend."""
        return tm.Ack(table=self.table_id, seq=act_seq, duplicate=duplicate, re=re).to_wire()

    def explain(self, conn: Conn, card: Card) -> Explanation:
        """Why the connection's seat cannot play ``card`` now; changes nothing, not journaled.

        Raises:
            TableError: not seated here, or no game running (``bad_state``).
        """
        seat = self._require_seat(conn)
        if self.phase not in RUNNING or self.engine is None:
            raise TableError(
                f"no game now: the table is {self.phase.value}", code=ErrorCode.BAD_STATE
            )
        return self.engine.explain(seat.index, card)

    async def fair_commit(self, conn: Conn, hand_no: int, commitment: bytes) -> None:
        async with self.lock:
            seat = self._require_seat(conn)
            deal = self._require_deal(hand_no)
            if deal.already(seat.index, commit=commitment):  # a resend, even after the LOCK
                return  # it completed: ``ok``, nothing journaled (PROTOCOL.md 4.5)
            if deal.locked:
                raise TableError("commitments are locked", code=ErrorCode.BAD_STATE)
            payload = {"op": "commit", "seat": seat.index, "value": commitment}
            await self.live(JournalKind.FAIR, payload)

    async def fair_reveal(self, conn: Conn, hand_no: int, reveal: bytes) -> None:
        async with self.lock:
            seat = self._require_seat(conn)
            deal = self._require_deal(hand_no)
            if not deal.locked:  # a phase error (4.5), not a failed check (``fairness``)
                raise TableError(
                    "reveal only after the lock: commitments are still open",
                    code=ErrorCode.BAD_STATE,
                )
            if deal.already(seat.index, reveal=reveal):
                return  # a repeat: nothing new to journal
            payload = {"op": "reveal", "seat": seat.index, "value": reveal}
            await self.live(JournalKind.FAIR, payload)

    async def mask_request(self, conn: Conn, kind: str, hand_no: int, fields: WireMap) -> None:
        """A seat's masking request of a private hand (``mask_commit`` .. ``mask_reveal``,
        ``spec/PROTOCOL.md`` 10.11), journaled and relayed. A request out of turn or for
        another hand is ``bad_state`` and changes nothing; one that fails a check is a
        ``fairness`` error and voids the hand, naming the seat to blame.

        Raises:
            TableError, FairnessError: the request is refused (its code says why).
        """
        async with self.lock:
            seat = self._require_seat(conn)
            deal = self.deal
            if deal is None or deal.mask is None or deal.ended or hand_no != deal.hand_no:
                if kind == "mask_reveal" and self.private:
                    return  # the hand was voided or is over: nothing left to reveal for
                what = "no private hand" if deal is None else f"not hand {hand_no}"
                raise TableError(f"{kind}: {what} in progress", code=ErrorCode.BAD_STATE)
            if seat.index in deal.mask.maskers:
                raise TableError(
                    "the host plays this seat in this hand: it does the masking",
                    code=ErrorCode.BAD_STATE,
                )
            payload = {"op": "mask", "seat": seat.index, "type": kind, "fields": fields}
            try:
                # a request the host only keeps (a box or key of a position still waiting for
                # other seats') changes nothing a seat sees: no fresh states (10.11)
                await self.live(JournalKind.FAIR, payload, views_if_quiet=False)
            except (FairnessStateError, ContextError) as exc:
                raise TableError(f"{kind}: {exc.message}", code=ErrorCode.BAD_STATE) from None
            except FairnessError as exc:
                blamed = seat.index if exc.seat is None and kind != "open_keys" else exc.seat
                missing = [] if blamed is None else [blamed]
                reason = f"{kind} from seat {seat.index} failed a check: {exc.message}"
                log.warning("table %s: %s; the hand is void", self.table_id, reason)
                await self.live(
                    JournalKind.FAIR, {"op": "void", "reason": reason[:200], "missing": missing}
                )
                raise

    # ------------------------------------------------------------------ timers

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The table's timer loop (:mod:`host.table.timers`); runs until cancelled or closed."""
        await self.timers.run(task_status=task_status)

    def close(self) -> None:
        """Stop the timers and disconnect whoever is left (bots); the lobby forgets the table."""
        self.timers.stop()
        gone = {"type": "error", "code": "not_found", "fatal": True, "message": "table closed"}
        for member in self.members():
            member.close_politely(gone)

    # ------------------------------------------------------------------ inputs

    async def live(
        self, kind: JournalKind, payload: WireMap, *, views_if_quiet: bool = True
    ) -> None:
        """Handle one live input: compute, commit, deliver (with any round it opens).
        ``views_if_quiet`` False: an input that sends no message sends no fresh states either
        (it changed nothing any seat or spectator sees)."""
        batch = Batch()
        self._committed = self.summary()
        try:
            self.runner.feed(batch, kind, payload)
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
                code=failure_code(exc),
            ) from None
        finally:
            self._committed = None
        await self.deliver(batch, views=views_if_quiet or bool(batch.out))

    async def _reload(self) -> None:
        rows = await self.store.load_tables(only=self.table_id)
        self.runner.reload(rows[0] if rows else None)

    async def commit(self, batch: Batch) -> None:
        """Persist the batch, then deliver its messages and fresh views."""
        await self.store.append(self.table_id, batch.rows)
        await self.deliver(batch)

    async def deliver(self, batch: Batch, *, views: bool = True) -> None:
        """Keep the hand records the batch finished, then send its messages and (unless
        ``views`` is False) every seat's and spectator's fresh ``state``.

        The batch is committed, so its messages go out whatever becomes of the records: a
        write the disk refuses waits in the store's memory, is served from there and retried
        (:meth:`host.storage.store.Store.keep_record`); nothing here raises for the disk.
        """
        records, self.runner.pending_records = self.runner.pending_records, []
        for hand_no, record in records:
            try:
                await self.store.records.keep_record(self.table_id, hand_no, record)
            except Exception:  # a bug, not the disk: still, the committed messages go out
                log.exception("table %s: the record of hand %d is lost", self.table_id, hand_no)
        ack, self._ack = self._ack, None
        for conn, msgs in fan_out(self.book, batch.out, ack, self.view_msgs if views else _none):
            conn.deliver(msgs)
        self.clock.poke()  # a turn or a round may have begun: the timers look again
        try:
            await self.settle_stood_up()
        except Exception:  # the seat is freed in memory; the restart replay frees it again
            log.exception("table %s: storing a freed seat failed", self.table_id)

    async def settle_stood_up(self) -> None:
        """Seats the runner stood up: see :meth:`host.table.seating.SeatBook.settle_stood_up`."""
        changed, freed = self.book.settle_stood_up(running=self.phase in RUNNING)
        if freed:
            self.clock.touch()
        for index in freed:
            await self.store.delete_seat(self.table_id, index)
        if changed:
            self.send_summary()

    def send_summary(self) -> None:
        self.summary_due = False
        msg = Outgoing({"type": "table_info", **self.summary()})
        for member in self.members():
            member.deliver([msg])

    def view_msgs(self, seat: int | None) -> list[WireMap]:
        return state_message(self.runner, seat, None if seat is None else self.seats[seat])

    # ------------------------------------------------------------------ helpers

    def _require_seat(self, conn: Conn) -> Seat:
        seat = self.seat_of(conn)
        if seat is None:
            raise TableError("you have no seat at this table", code=ErrorCode.BAD_STATE)
        return self.runner.seat(seat)

    def _require_deal(self, hand_no: int) -> Deal:
        deal = self.deal
        if self.phase is not TablePhase.DEALING or deal is None:
            raise TableError("no deal round in progress", code=ErrorCode.BAD_STATE)
        if hand_no != deal.hand_no:
            raise TableError(
                f"the round in progress is for hand {deal.hand_no}, not {hand_no}",
                code=ErrorCode.BAD_STATE,
            )
        return deal

    async def _maybe_start(self) -> None:
        if self.phase in RUNNING or not self.book.ready_to_start():
            return
        await self.live(JournalKind.GAME, self.runner.next_game())
        self.send_summary()
