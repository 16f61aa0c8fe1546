"""One table: its seats, its engine, its fair deals, its timers and who is told what.

How it works. Every change to a running game is an *input* (start a game, open a deal round
with a fresh secret, a seat's commitment or reveal, a void, an action) handled in three steps
under the table's lock: compute (engine, :mod:`host.dealing`), *commit* one sqlite transaction
holding the input row and every output row (chance outcomes and the messages to send, see
:mod:`host.store`), then *deliver* the messages. Nothing is sent that is not durable. Because
every input is journaled, a restarted host rebuilds a table by running the same handlers over
the stored inputs (:meth:`Table.restore`): the engine, the deal and even the seq numbers come
out the same, and the signed fairness messages are byte-identical (Ed25519 is deterministic).

Who sees what: each journaled message is public (``None``) or private to one seat; seats get
public messages and their own, spectators public ones only. After every change each seat gets a
``state`` message with ``game.view(seat)`` and its legal actions; spectators get
``game.view(None)``. The engine's ``view`` alone decides what is hidden.

Chance: when the engine asks for a deal the table opens a commit-reveal round (``fair``
hand_commit; each seat sends ``fair_commit``; ``fair`` lock; each seat ``fair_reveal``; ``fair``
reveals) and then deals. Reshuffles reuse the hand key on the next stream with no round trip. A
seat that misses its commit or reveal deadline voids the round (the secret is still revealed)
and sits out the next one: the host contributes its entropy, as it does for a seat it plays for.

Timers (:meth:`Table.run`, a task in the server's nursery): the turn timer (on expiry the host
plays ``game.default_action`` and says so), the round deadline and the reconnect grace period
(after which the host plays for an absent seat with the heuristic bot policy until it returns).
"""

from __future__ import annotations

import enum
import hashlib
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host import policy
from host.dealing import Deal
from host.games.base import ChanceKind, Event, Game, RulesError, WireMap
from host.store import JournalKind, JournalRow, SeatRow, Store, TableRow
from protocol.errors import ErrorCode, LocalProtocolError
from protocol.fairness import FairnessError, SecretLedger, SignedMessage

__all__ = ["ROUND_TIMEOUT", "Conn", "Seat", "Table", "TableError", "TablePhase", "hash_token"]

log = logging.getLogger(__name__)

#: seconds a seat has to send its fair-dealing commitment, and again its reveal
ROUND_TIMEOUT = 20.0
#: longest player name, in characters
MAX_NAME_CHARS = 32


class TableError(LocalProtocolError):
    """A lobby or play request the table refuses; carries the wire error code."""


class TablePhase(enum.Enum):
    WAITING = "waiting"  #: seats are filling up or not everyone is ready
    DEALING = "dealing"  #: a commit-reveal round is in progress
    PLAYING = "playing"  #: seats act
    FINISHED = "finished"  #: the game is over; ``ready`` (rematch) starts another


class Conn(Protocol):
    """What a table needs of a connection: non-blocking sends into a bounded queue.

    ``deliver`` queues one batch of messages; when the queue is full the connection closes
    itself (the client can resume) and ``deliver`` returns False. ``deliver_backlog`` hands over
    missed messages that must go out before anything queued later.
    """

    def deliver(self, msgs: list[WireMap]) -> bool: ...

    def deliver_backlog(self, msgs: list[WireMap]) -> None: ...

    def close_politely(self, msg: WireMap) -> None: ...


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


@dataclass(slots=True)
class Seat:
    index: int
    name: str
    token_hash: bytes | None
    #: a label for seats taken by bot clients (they are always ready); None for players
    bot: str | None = None
    conn: Conn | None = None
    ready: bool = False
    #: the highest client action seq accepted from this seat in the current game
    last_cseq: int = 0
    disconnected_at: float | None = None
    #: the host plays for this seat (grace period over) until it returns
    substitute: bool = False
    #: missed a commit/reveal: the host contributes this seat's entropy in the next round
    sit_out: bool = False
    last_action: WireMap | None = None

    def summary(self) -> WireMap:
        return {
            "seat": self.index,
            "name": self.name,
            "bot": self.bot,
            "connected": self.conn is not None,
            "ready": self.ready,
            "substitute": self.substitute,
        }


@dataclass(slots=True)
class _Batch:
    """Journal rows and the messages to deliver once they are committed."""

    rows: list[JournalRow] = field(default_factory=list)
    out: list[tuple[int | None, WireMap]] = field(default_factory=list)


class Table:
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
        if not game_cls.min_seats <= seats <= game_cls.max_seats:
            raise TableError(
                f"{game_cls.title} takes {game_cls.min_seats}-{game_cls.max_seats} players, "
                f"not {seats}",
                code=ErrorCode.BAD_FIELD,
            )
        self.table_id = table_id
        self.game_cls = game_cls
        self.nseats = seats
        self.options = game_cls.validate_options(options)
        self.store = store
        self.signing_key = signing_key
        self.turn_timer = turn_timer
        self.grace = grace
        self.round_timeout = round_timeout
        self.created = created
        self.name = name or table_id
        self.seats: list[Seat | None] = [None] * seats
        self.spectators: set[Conn] = set()
        self.phase = TablePhase.WAITING
        self.engine: Game | None = None
        self.game_no = 0
        self.game_names: list[str] = []
        self.game_seq = 0  # seq of the current game's GAME row
        self.seq = 0
        self.fair_hand_no = 0
        self.voids = 0
        self.deal: Deal | None = None
        self.round_deadline: float | None = None
        self.turn_deadline: float | None = None
        self.pending_records: list[tuple[int, dict[str, Any]]] = []
        self._needs_open = False
        self._replaying = False
        self._ack: tuple[Conn, WireMap] | None = None
        self._ledger = SecretLedger()
        self._lock = trio.Lock()
        self._wake = trio.Event()

    # ------------------------------------------------------------------ summaries

    def meta(self) -> dict[str, Any]:
        return {
            "game": self.game_cls.name,
            "seats": self.nseats,
            "options": dict(self.options),
            "turn_timer": self.turn_timer,
            "name": self.name,
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
        """Seat ``conn`` as ``name``; return (seat, resume token)."""
        name = name.strip()
        if not name or len(name) > MAX_NAME_CHARS or not name.isprintable():
            raise TableError(
                f"a name is 1-{MAX_NAME_CHARS} printable characters", code=ErrorCode.BAD_FIELD
            )
        async with self._lock:
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
            row = Seat(seat, name, hash_token(token), bot=bot, conn=conn, ready=bot is not None)
            await self.store.put_seat(self.table_id, SeatRow(seat, name, row.token_hash, bot))
            self.spectators.discard(conn)
            self.seats[seat] = row
            conn.deliver(
                [{"type": "joined", "table": self.table_id, "seat": seat, "token": token, "re": re}]
            )
            self._send_summary()
            await self._maybe_start()
            return seat, token

    async def reissue_token(self, seat: int) -> str:
        """A fresh resume token for a seat (host-run bots after a restart)."""
        async with self._lock:
            s = self.seats[seat]
            if s is None:
                raise TableError(f"seat {seat} is empty", code=ErrorCode.NOT_FOUND)
            token = secrets.token_urlsafe(32)
            s.token_hash = hash_token(token)
            await self.store.put_seat(self.table_id, SeatRow(seat, s.name, s.token_hash, s.bot))
            return token

    async def leave(self, conn: Conn, *, re: Any = None) -> None:
        """A seat leaves (not while a game runs) or a spectator stops watching."""
        async with self._lock:
            self.spectators.discard(conn)
            seat = self.seat_of(conn)
            if seat is not None:
                if self.phase in (TablePhase.DEALING, TablePhase.PLAYING):
                    raise TableError(
                        "cannot leave a game in progress; if you disconnect the host plays "
                        "for you after the grace period",
                        code=ErrorCode.BAD_STATE,
                    )
                self.seats[seat] = None
                await self.store.delete_seat(self.table_id, seat)
            conn.deliver([{"type": "left", "table": self.table_id, "re": re}])
            self._send_summary()

    async def watch(self, conn: Conn) -> None:
        async with self._lock:
            if self.seat_of(conn) is not None:
                raise TableError("already seated at this table", code=ErrorCode.BAD_STATE)
            self.spectators.add(conn)
            conn.deliver([{"type": "table_info", **self.summary()}, *self._view_msgs(None)])
            self._send_summary()

    async def set_ready(self, conn: Conn, ready: bool) -> None:
        async with self._lock:
            seat = self._require_seat(conn)
            if self.phase in (TablePhase.DEALING, TablePhase.PLAYING):
                raise TableError("the game is already running", code=ErrorCode.BAD_STATE)
            seat.ready = ready
            self._send_summary()
            await self._maybe_start()

    async def resume(self, conn: Conn, token: str, last_seq: int, *, re: Any = None) -> int | None:
        """Give a seat back to its owner and queue what it missed; return the seat or None."""
        digest = hash_token(token)
        async with self._lock:
            found = next(
                (
                    s
                    for s in self.seats
                    if s is not None
                    and s.token_hash is not None
                    and secrets.compare_digest(s.token_hash, digest)
                ),
                None,
            )
            if found is None:
                return None
            old = found.conn
            found.conn = conn
            found.disconnected_at = None
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
                    *(r.payload for r in rows),
                    *self._view_msgs(found.index),
                ]
            )
            self._send_summary()
            self._poke()
            return found.index

    async def disconnected(self, conn: Conn) -> None:
        """A connection went away: a seated player's grace period starts."""
        async with self._lock:
            self.spectators.discard(conn)
            for s in self.seats:
                if s is not None and s.conn is conn:
                    s.conn = None
                    s.disconnected_at = trio.current_time()
                    if self.phase is not TablePhase.PLAYING and s.bot is None:
                        s.ready = False
            self._send_summary()
            self._poke()

    async def chat(self, conn: Conn, text: str) -> None:
        async with self._lock:
            seat = self.seat_of(conn)
            if seat is None and conn not in self.spectators:
                raise TableError("join or watch the table to chat", code=ErrorCode.BAD_STATE)
            sender = "spectator" if seat is None else self._seat(seat).name
            msg = {
                "type": "chat_line",
                "table": self.table_id,
                "seat": seat,
                "name": sender,
                "text": text,
            }
            for member in self.members():
                member.deliver([msg])

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

    async def fair_commit(self, conn: Conn, hand_no: int, commitment: bytes) -> None:
        async with self._lock:
            seat = self._require_seat(conn)
            deal = self._require_deal(hand_no)
            if deal.locked:
                raise TableError("commitments are locked", code=ErrorCode.BAD_STATE)
            await self._live(
                JournalKind.FAIR, {"op": "commit", "seat": seat.index, "value": commitment}
            )

    async def fair_reveal(self, conn: Conn, hand_no: int, reveal: bytes) -> None:
        async with self._lock:
            seat = self._require_seat(conn)
            self._require_deal(hand_no)
            await self._live(
                JournalKind.FAIR, {"op": "reveal", "seat": seat.index, "value": reveal}
            )

    # ------------------------------------------------------------------ timers

    def _poke(self) -> None:
        self._wake.set()

    def _next_deadline(self) -> float:
        times = [t for t in (self.round_deadline, self.turn_deadline) if t is not None]
        if self.phase in (TablePhase.DEALING, TablePhase.PLAYING):
            for s in self.seats:
                if s is not None and s.disconnected_at is not None and not s.substitute:
                    times.append(s.disconnected_at + self.grace)
        return min(times, default=float("inf"))

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The table's timer loop; runs until cancelled."""
        task_status.started()
        while True:
            with trio.move_on_at(self._next_deadline()):
                await self._wake.wait()
            self._wake = trio.Event()
            async with self._lock:
                try:
                    await self._tick()
                except (LocalProtocolError, FairnessError) as exc:
                    log.error("table %s: automatic step failed: %s", self.table_id, exc)
                except Exception:  # an engine bug must not take the host down
                    log.exception("table %s: automatic step crashed", self.table_id)
                    await trio.sleep(1.0)
            await trio.lowlevel.checkpoint()

    async def _tick(self) -> None:
        now = trio.current_time()
        if self.phase not in (TablePhase.DEALING, TablePhase.PLAYING) or self.engine is None:
            return
        for s in self.seats:
            away = s is not None and s.disconnected_at is not None and not s.substitute
            if away and s is not None and now >= (s.disconnected_at or now) + self.grace:
                s.substitute = True
                self._send_summary()
        if self.phase is TablePhase.DEALING:
            if self.round_deadline is not None and now >= self.round_deadline:
                await self._live(JournalKind.FAIR, {"op": "void", "reason": "timeout"})
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
            for seat in self.engine.to_act():
                default = self.engine.default_action(seat)
                if default is not None:
                    await self._live(
                        JournalKind.ACTION,
                        {
                            "seat": seat,
                            "action": default.to_wire(),
                            "cseq": None,
                            "note": "timeout",
                        },
                    )
                    return

    # ------------------------------------------------------------------ inputs

    async def _live(self, kind: JournalKind, payload: WireMap) -> None:
        """Handle one live input: compute, commit, deliver (with any round it opens)."""
        batch = _Batch()
        self._input(batch, kind, payload)
        while self._needs_open:
            self._needs_open = False
            self._input(batch, JournalKind.FAIR, self._open_payload())
        await self._commit(batch)

    def _open_payload(self) -> WireMap:
        host_r = {
            str(i): secrets.token_bytes(32)
            for i, s in enumerate(self.seats)
            if s is not None and (s.sit_out or s.substitute)
        }
        return {"op": "open", "secret": secrets.token_bytes(32), "host_r": host_r}

    def _input(self, batch: _Batch, kind: JournalKind, payload: WireMap) -> None:
        """Apply one input (live or replayed) and append its rows to ``batch``.

        Validation happens before the input row is written, so a refused input leaves no row.
        """
        if kind is JournalKind.GAME:
            self._row(batch, kind, payload)
            self._start_game(batch, payload)
        elif kind is JournalKind.ACTION:
            self._action(batch, payload)
        elif kind is JournalKind.FAIR:
            self._fair(batch, payload)
        else:
            raise ValueError(f"{kind} is not an input")

    def _start_game(self, batch: _Batch, payload: WireMap) -> None:
        self.game_no = int(payload["game_no"])
        self.game_names = list(payload["names"])
        self.game_seq = self.seq
        self.engine = self.game_cls(seats=self.nseats, options=self.options, dealer=None)
        self.deal = None
        for s in self.seats:
            if s is not None:
                s.ready = False
                s.last_cseq = 0
                s.last_action = None
        self.phase = TablePhase.PLAYING
        self._message(
            batch,
            {
                "type": "game_start",
                "game_no": self.game_no,
                "game": self.game_cls.name,
                "names": self.game_names,
            },
        )
        self._after_change(batch)

    def _action(self, batch: _Batch, payload: WireMap) -> None:
        assert self.engine is not None
        seat = int(payload["seat"])
        action = self.engine.parse_action(payload["action"])
        self.engine.check(seat, action)
        try:
            events = self.engine.apply(seat, action)
        except RulesError:
            raise
        except Exception:
            log.exception("table %s: the engine failed on %s", self.table_id, payload)
            raise TableError(
                "the host could not apply that action", code=ErrorCode.INTERNAL
            ) from None
        self._row(batch, JournalKind.ACTION, payload)
        if self.deal is not None and self.deal.dealt and not self.deal.ended:
            self.deal.actions.append(
                {"seat": seat, "action": payload["action"], "note": payload.get("note")}
            )
        s = self.seats[seat]
        if s is not None:
            if payload.get("cseq") is not None:
                s.last_cseq = int(payload["cseq"])
            s.last_action = payload["action"]
        if payload.get("note") is not None:
            self._message(
                batch,
                {
                    "type": "event",
                    "event": {
                        "kind": str(payload["note"]),
                        "seat": seat,
                        "action": payload["action"],
                    },
                },
            )
        self._events(batch, events)
        self._after_change(batch)

    def _fair(self, batch: _Batch, payload: WireMap) -> None:
        op = payload["op"]
        if op == "open":
            self._row(batch, JournalKind.FAIR, payload)
            self._open_deal(batch, payload)
            return
        deal = self.deal
        assert deal is not None
        if op == "commit":
            deal.commit(int(payload["seat"]), bytes(payload["value"]))
        elif op == "reveal":
            deal.reveal(int(payload["seat"]), bytes(payload["value"]))
        elif op == "void":
            missing = deal.missing()
            self._row(batch, JournalKind.FAIR, payload)
            self.voids += 1
            for seat in missing:
                self._seat(seat).sit_out = True
            self._signed(batch, [(None, deal.void(missing, str(payload["reason"])))])
            self.pending_records.append((deal.hand_no, deal.record(self.table_id)))
            self.deal = None
            self._needs_open = True
            return
        else:
            raise ValueError(f"unknown fairness op {op!r}")
        self._row(batch, JournalKind.FAIR, payload)
        self._round_progress(batch)

    def _open_deal(self, batch: _Batch, payload: WireMap) -> None:
        assert self.engine is not None
        request = self.engine.chance_request()
        assert request is not None and request.kind is ChanceKind.DEAL
        self.fair_hand_no += 1
        host_r = {int(k): bytes(v) for k, v in payload["host_r"].items()}
        self.deal = Deal(
            signing_key=self.signing_key,
            table_id=self.table_id,
            hand_no=self.fair_hand_no,
            game=self.game_cls.name,
            options=self.options,
            deck=request.cards,
            names=self.game_names,
            secret=bytes(payload["secret"]),
            host_r=host_r,
            ledger=self._ledger,
        )
        for s in self.seats:
            if s is not None:
                s.sit_out = False
        self.phase = TablePhase.DEALING
        self.turn_deadline = None
        self.round_deadline = trio.current_time() + self.round_timeout
        self._signed(batch, [(None, m) for m in self.deal.opening()], host_seats=sorted(host_r))
        self._round_progress(batch)

    def _round_progress(self, batch: _Batch) -> None:
        deal = self.deal
        assert deal is not None
        msgs = deal.progress()
        if msgs:
            self.round_deadline = trio.current_time() + self.round_timeout
            self._signed(batch, [(None, m) for m in msgs])
        if deal.keyed:
            self.round_deadline = None
            self._after_change(batch)

    # ------------------------------------------------------------------ outputs

    def _row(
        self, batch: _Batch, kind: JournalKind, payload: WireMap, seat: int | None = None
    ) -> None:
        self.seq += 1
        batch.rows.append(JournalRow(self.seq, kind, seat, payload))

    def _message(self, batch: _Batch, msg: WireMap, to: int | None = None) -> None:
        """Journal a message (public, or private to seat ``to``) and queue it for delivery."""
        full = {**msg, "table": self.table_id, "seq": self.seq + 1}
        self._row(batch, JournalKind.MESSAGE, full, to)
        batch.out.append((to, full))

    def _signed(
        self,
        batch: _Batch,
        msgs: Sequence[tuple[int | None, SignedMessage]],
        *,
        host_seats: Sequence[int] = (),
    ) -> None:
        assert self.deal is not None
        for to, m in msgs:
            msg = {"type": "fair", "hand_no": self.deal.hand_no, "msg": m.to_wire()}
            if host_seats:
                msg["host_seats"] = list(host_seats)
            self._message(batch, msg, to)

    def _events(self, batch: _Batch, events: Sequence[Event]) -> None:
        for ev in events:
            self._message(batch, {"type": "event", "event": ev.to_wire()}, ev.to)
        if self.deal is not None and self.deal.dealt and not self.deal.ended:
            self._signed(batch, self.deal.draws(events))

    def _after_change(self, batch: _Batch) -> None:
        """Answer chance (deal or reshuffle), open a round, or finish, as the engine needs."""
        assert self.engine is not None
        while True:
            request = self.engine.chance_request()
            if request is None:
                break
            deal = self.deal
            if request.kind is ChanceKind.DEAL and (deal is None or deal.dealt or deal.ended):
                if deal is not None and deal.dealt and not deal.ended:
                    self._end_hand(batch)
                self.phase = TablePhase.DEALING
                self._needs_open = True
                break
            if deal is None or not deal.keyed:
                break  # the round is still collecting commitments or reveals
            order, dealer, msgs = deal.answer(request)
            self._signed(batch, [(None, m) for m in msgs])
            self._row(
                batch,
                JournalKind.CHANCE,
                {"game_no": self.game_no, "order": [c.code for c in order], "dealer": dealer},
            )
            self.phase = TablePhase.PLAYING
            self._events(batch, self.engine.apply_chance(order, dealer))
            if deal.dealer_seat is None:
                shown = self.engine.view(None).get("dealer")
                deal.dealer_seat = shown if isinstance(shown, int) else None
        outcome = self.engine.outcome()
        if outcome is not None and self.phase is not TablePhase.FINISHED:
            self._end_hand(batch)
            self.phase = TablePhase.FINISHED
            self.turn_deadline = None
            self._message(
                batch, {"type": "game_over", "game_no": self.game_no, "outcome": outcome.to_wire()}
            )
        elif self.phase is TablePhase.PLAYING:
            self.turn_deadline = (
                None
                if self.turn_timer is None or not self.engine.to_act()
                else trio.current_time() + self.turn_timer
            )
        self._poke()

    def _end_hand(self, batch: _Batch) -> None:
        deal = self.deal
        if deal is None or not deal.dealt or deal.ended:
            return
        outcome = self.engine.outcome() if self.engine is not None else None
        self._signed(batch, [(None, deal.end(None if outcome is None else outcome.to_wire()))])
        self.pending_records.append((deal.hand_no, deal.record(self.table_id)))

    async def _commit(self, batch: _Batch) -> None:
        """Persist the batch, then deliver its messages and fresh views."""
        await self.store.append(self.table_id, batch.rows)
        records, self.pending_records = self.pending_records, []
        for hand_no, record in records:
            await self.store.save_record(self.table_id, hand_no, record)
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

    def _audience(self, to: int | None) -> list[Conn]:
        if to is None:
            return self.members()
        s = self.seats[to]
        return [s.conn] if s is not None and s.conn is not None else []

    def _send_summary(self) -> None:
        msg = {"type": "table_info", **self.summary()}
        for member in self.members():
            member.deliver([msg])

    def _view_msgs(self, seat: int | None) -> list[WireMap]:
        if self.engine is None:
            return []
        playing = self.phase is TablePhase.PLAYING
        legal = (
            [a.to_wire() for a in self.engine.legal_actions(seat)]
            if (seat is not None and playing)
            else []
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
                "view": self.engine.view(seat),
                "legal": legal,
                "to_act": list(self.engine.to_act()) if playing else [],
                "turn_ms": deadline,
            }
        ]

    # ------------------------------------------------------------------ helpers

    def _seat(self, index: int) -> Seat:
        s = self.seats[index]
        assert s is not None
        return s

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
        names = [self._seat(i).name for i in range(self.nseats)]
        await self._live(JournalKind.GAME, {"game_no": self.game_no + 1, "names": names})
        self._send_summary()

    # ------------------------------------------------------------------ restart

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
        table._replaying = True
        inputs = (JournalKind.GAME, JournalKind.ACTION, JournalKind.FAIR)
        # only the last game matters: skip to its GAME row (older games are finished)
        start = max(
            (i for i, j in enumerate(row.journal) if j.kind is JournalKind.GAME),
            default=len(row.journal),
        )
        if start < len(row.journal):
            table.seq = row.journal[start].seq - 1
            table.game_no = int(row.journal[start].payload["game_no"]) - 1
        for j in row.journal[start:]:
            if j.kind in inputs:
                if table.seq + 1 != j.seq:
                    log.warning(
                        "table %s: replay seq %d, journal seq %d",
                        row.table_id,
                        table.seq + 1,
                        j.seq,
                    )
                    table.seq = j.seq - 1
                table._input(_Batch(), j.kind, j.payload)
                table._needs_open = False
        if row.journal:
            table.seq = max(table.seq, row.journal[-1].seq)
        table._replaying = False
        now = trio.current_time()
        for seat in table.seats:
            if seat is not None:
                seat.disconnected_at = now
        if table.phase is TablePhase.PLAYING and table.turn_timer is not None:
            table.turn_deadline = now + table.turn_timer
        return table

    async def after_restore(self) -> None:
        """Finish what a restart interrupted: write records; void and redo a half-done round."""
        async with self._lock:
            records, self.pending_records = self.pending_records, []
            for hand_no, record in records:
                if await self.store.load_record(self.table_id, hand_no) is None:
                    await self.store.save_record(self.table_id, hand_no, record)
            if self.phase is not TablePhase.DEALING or self.engine is None:
                return
            if self.deal is not None and not self.deal.ended and not self.deal.dealt:
                await self._live(JournalKind.FAIR, {"op": "void", "reason": "host restarted"})
            else:
                batch = _Batch()
                self._needs_open = True
                while self._needs_open:
                    self._needs_open = False
                    self._input(batch, JournalKind.FAIR, self._open_payload())
                await self._commit(batch)
