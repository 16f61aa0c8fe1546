"""Who sits where at a table, who watches, and how a seat is claimed back: the seat book.

How it works: a :class:`SeatBook` owns the table's seat list (the same list object the game
runner reads names and flags from: :class:`host.table.seats.Seat`) and the spectators, with the
connection (:class:`Conn`) each one is reached through. It answers who is at the table
(:meth:`SeatBook.seat_of`, :meth:`SeatBook.members`), finds the seat a resume token belongs to
(only its SHA-256 is kept, compared in constant time), attaches and detaches connections (a
detached seat remembers since when it is away, on the table's clock), checks names and the
seat a ``join`` asks for, and says when every seat is taken, ready and present so a game may
start. It sends nothing and stores nothing: :class:`host.table.table.Table` does, under its lock.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from typing import Any, Protocol

from host.games.base import WireMap
from host.logs import get_logger
from host.table.seats import Seat, TableError
from protocol.errors import ErrorCode

__all__ = [
    "HOSTED_BOT_PREFIX",
    "MAX_NAME_CHARS",
    "SPECTATOR",
    "WATCHING_TAG",
    "Conn",
    "SeatBook",
    "check_name",
    "hash_token",
    "spectator_name",
]

log = get_logger(__name__)

#: longest player name, in characters
MAX_NAME_CHARS = 32
#: the chat name of a spectator who gave none
SPECTATOR = "spectator"
#: seat ``bot`` labels of bots the host itself runs (restarted with the host); no one else may
#: claim one, or a restart would seat the host's bot there and lock its player out
HOSTED_BOT_PREFIX = "host:"
#: what the client adds to a spectator's name in chat; no name may contain it (a player named
#: "Alice (watching)" would pass for a spectator)
WATCHING_TAG = "(watching)"
#: seconds after which a table that only its creator ever sat at and whose game never started
#: may be dropped for a new one even while its creator stays (host.server.lobby)
UNSTARTED_TABLE_S = 600.0


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


def spectator_name(name: str) -> str:
    """The chat name of a spectator who watches as ``name``: checked like a seat's name, but
    empty means "spectator" and it need not be unique (a seated player's name is fine: the
    chat line's nil ``seat`` tells them apart); ``TableError`` (``bad_field``) if unusable."""
    return check_name(name.strip() or SPECTATOR)


def hash_token(token: str) -> bytes:
    """What the host keeps of a resume token (never the token itself)."""
    return hashlib.sha256(token.encode("utf-8")).digest()


class SeatBook:
    """The seats and spectators of one table; see the module docstring."""

    def __init__(self, seats: list[Seat | None], now: Callable[[], float], table_id: str) -> None:
        self.seats = seats
        self.now = now
        self.table_id = table_id
        #: watching connections, each with the name its chat lines carry
        self.spectators: dict[Conn, str] = {}
        #: the connection that created the table, while it stays connected; it may add bots
        #: before it sits down. Not stored: after a restart only seated players may add bots.
        self.creator: Conn | None = None
        #: the creator's address key (host.server.admission; None: not capped) and whether only it
        #: (its connections from that address, or bots) ever sat here: such a table that never
        #: started is not kept for anyone once they are gone (:meth:`abandoned`)
        self.creator_key: str | None = None
        self.creator_only = False
        self.made_at = now()

    # ------------------------------------------------------------------ who is here

    def seat_of(self, conn: Conn) -> int | None:
        for s in self.seats:
            if s is not None and s.conn is conn:
                return s.index
        return None

    def members(self) -> list[Conn]:
        out = [s.conn for s in self.seats if s is not None and s.conn is not None]
        return out + list(self.spectators)

    def audience(self, to: int | None) -> list[Conn]:
        """Who gets a message public (``None``) or private to seat ``to``."""
        if to is None:
            return self.members()
        s = self.seats[to]
        return [s.conn] if s is not None and s.conn is not None else []

    def seat_for_token(self, digest: bytes) -> Seat | None:
        found = None
        for s in self.seats:  # every seat compared, in constant time, whichever matches
            if (
                s is not None
                and s.token_hash is not None
                and secrets.compare_digest(s.token_hash, digest)
            ):
                found = s
        return found

    def holds_token(self, token: str) -> bool:
        return self.seat_for_token(hash_token(token)) is not None

    # ------------------------------------------------------------------ sitting down

    def free_seat(self, conn: Conn, name: str, seat: int | None) -> int:
        """The seat ``conn`` may take as ``name`` (the first free one if ``seat`` is None).

        Raises:
            TableError: the name is taken (``conflict``), ``conn`` is seated already
                (``bad_state``), no such seat (``not_found``), the seat or table is full.
        """
        if any(s is not None and s.name.casefold() == name.casefold() for s in self.seats):
            raise TableError(f"the name {name!r} is taken at this table", code=ErrorCode.CONFLICT)
        if self.seat_of(conn) is not None:
            raise TableError("already seated at this table", code=ErrorCode.BAD_STATE)
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s is None]
            if not free:
                raise TableError("the table is full", code=ErrorCode.FULL)
            return free[0]
        if not 0 <= seat < len(self.seats):
            raise TableError(f"no seat {seat} at this table", code=ErrorCode.NOT_FOUND)
        if self.seats[seat] is not None:
            raise TableError(f"seat {seat} is taken", code=ErrorCode.FULL)
        return seat

    @staticmethod
    def new_seat(
        index: int, name: str, bot: str | None, token_hash: bytes | None, game_no: int = 0
    ) -> Seat:
        """A seat to :meth:`sit` in (a bot's is ready from the start) while the table has
        played ``game_no`` games and runs none: the next is its first."""
        return Seat(index, name, token_hash, bot=bot, ready=bot is not None, first_game=game_no + 1)

    def set_creator(self, conn: Conn | None) -> None:
        """``conn`` created the table (None: the host did, or the creator is gone)."""
        if conn is not None and self.creator is None and not self.creator_only:
            self.creator_key = getattr(conn, "address_key", None)
            self.creator_only = True
        self.creator = conn

    def abandoned(self) -> bool:
        """Whether only the creator ever sat here and nobody is kept waiting for it: the
        creator has gone and no player's connection is seated, or ``UNSTARTED_TABLE_S``
        passed (the table decides whether its game ever started)."""
        if not self.creator_only:
            return False
        if self.now() - self.made_at >= UNSTARTED_TABLE_S:
            return True
        gone = self.creator is None or self.creator.closed
        return gone and all(s is None or s.bot is not None or s.conn is None for s in self.seats)

    def sit(self, conn: Conn, seat: Seat) -> None:
        """Seat ``conn`` in ``seat`` (its index checked by :meth:`free_seat`)."""
        mine = conn is self.creator or getattr(conn, "trusted", False) or seat.bot is not None
        key = getattr(conn, "address_key", None)
        if not (mine or (key is not None and key == self.creator_key)):
            self.creator_only = False  # someone else sat here: the table is theirs too
        self.spectators.pop(conn, None)
        self.seats[seat.index] = seat
        self.attach(seat, conn)

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

    # ------------------------------------------------------------------ coming and going

    def attach(self, seat: Seat, conn: Conn) -> None:
        """Give ``seat`` to ``conn``, or mark it away if ``conn`` closed meanwhile.

        Raises:
            TableError: ``bad_state``: ``conn`` holds another seat here (resuming a second
                seat's token): one connection plays one seat at a table.
        """
        held = self.seat_of(conn)
        if held is not None and held != seat.index:
            raise TableError(
                f"this connection already holds seat {held} at table {self.table_id}: one "
                f"connection plays one seat at a table (resume seat {seat.index} from another "
                "connection)",
                code=ErrorCode.BAD_STATE,
            )
        if conn.closed:
            seat.conn = None
            seat.disconnected_at = self.now()
        else:
            seat.conn = conn
            seat.disconnected_at = None

    def away(self, seat: Seat) -> None:
        """``seat``'s connection is gone (a drop, or a ``leave`` during a game)."""
        seat.conn = None
        seat.disconnected_at = self.now()

    def stop_watching(self, conn: Conn, why: str) -> bool:
        """``conn`` no longer watches (if it did); whether it did."""
        name = self.spectators.pop(conn, None)
        if name is None:
            return False
        log.info(
            "table %s: %s stopped watching (%s) [%s]",
            self.table_id,
            name,
            why,
            getattr(conn, "peer", "?"),
        )
        return True

    def detach(self, conn: Conn) -> bool:
        """A connection went away: it stops watching, its seats are away (their grace periods
        start); whether anything changed."""
        changed = self.stop_watching(conn, "disconnected")
        if conn is self.creator:  # its right to add bots ends with it (and nothing is kept)
            self.creator = None
        for s in self.seats:
            if s is not None and s.conn is conn:
                changed = True
                self.away(s)
        return changed

    def settle_stood_up(self, *, running: bool) -> tuple[bool, list[int]]:
        """Seats the runner stood up (too many missed deal rounds): the owner's connection
        becomes a spectator at once, and once no game runs (not ``running``) the seat is
        emptied. Whether anything changed, and the seats emptied (to delete from the store).

        The stored seat row keeps its token hash until then; the replayed journal stands the
        seat up again (and forgets the token) after a restart, so it is never resumable."""
        changed, freed = False, []
        for s in list(self.seats):
            if s is None or not s.stood_up:
                continue
            if s.conn is not None:
                conn, s.conn = s.conn, None
                if not conn.closed:
                    self.spectators[conn] = s.name
                    log.info(
                        "table %s: %s started watching (stood up) [%s]",
                        self.table_id,
                        s.name,
                        getattr(conn, "peer", "?"),
                    )
                changed = True
            if not running:
                self.seats[s.index] = None
                freed.append(s.index)
                changed = True
        return changed, freed

    # ------------------------------------------------------------------ ready

    def ready_to_start(self) -> bool:
        """Every seat taken and ready, and every seated player connected (a ready player who
        is away: the game starts when it is back)."""
        if not all(s is not None and (s.ready or s.bot is not None) for s in self.seats):
            return False
        return not any(s is not None and s.bot is None and s.conn is None for s in self.seats)

    def ready_meta(self, game_no: int) -> dict[str, Any]:
        """Who is ready for game ``game_no + 1``, as the table's stored meta keeps it."""
        ready = [[s.index, s.name] for s in self.seats if s and s.bot is None and s.ready]
        return {"game_no": game_no, "seats": ready}

    def restore_ready(self, stored: object, game_no: int) -> None:
        """Mark ready again the players :meth:`ready_meta` kept, if it is about this game."""
        if not isinstance(stored, dict) or stored.get("game_no") != game_no:
            return
        for index, name in stored.get("seats") or []:
            back = self.seats[index] if 0 <= index < len(self.seats) else None
            if back is not None and back.name == name and back.bot is None:
                back.ready = True
