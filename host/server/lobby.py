"""The lobby: the host's tables, by id, and the requests that are not about one seat.

How it works: :class:`Lobby` owns every :class:`host.table.table.Table` (created over the protocol
or restored from the store at start-up) and starts each table's timer task in the server's
nursery. It validates ``create_table`` against the game registry and the game's ``OPTIONS``,
persists the table before answering, finds the seat a resume token belongs to, serves hand
records, and seats host-run bots through the server's bot spawner (bots are ordinary protocol
clients connected in-process, see :mod:`host.bots.bots`).

Damaged data stays with its table: at start-up a table whose stored rows cannot be read or
replayed (or whose game this build lacks) is left out, with one ERROR line naming the table and
the row; its data stays in the store, its id is never given to a new table, and every other
table is served. A hand record whose file cannot be read is answered ``unavailable``.
"""

from __future__ import annotations

import secrets
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from host.bots.ai.levels import Level, parse_level
from host.games import find_game, game_entries
from host.games.base import OptionError, WireMap
from host.logs import get_logger
from host.storage.journal import TableRow
from host.storage.record_files import RecordUnreadable
from host.storage.store import Store
from host.table import cheats
from host.table import restore as table_restore
from host.table.cheats import CheatKind
from host.table.seating import HOSTED_BOT_PREFIX, Conn
from host.table.seats import ReplayError, Seat
from host.table.table import Table, TableError, TablePhase
from protocol.errors import ErrorCode
from protocol.hand_records import dump_record

__all__ = [
    "FINISHED_LISTED_S",
    "HOSTED_BOT_PREFIX",
    "MAX_BOTS_PER_CLIENT",
    "MAX_HARD_BOTS_PER_CLIENT",
    "MAX_TABLES",
    "MAX_TABLES_PER_ADDRESS",
    "MAX_TABLES_PER_CONNECTION",
    "BotLimits",
    "BotSpawner",
    "Lobby",
]

log = get_logger(__name__)  # what a peer sent is shown escaped (host.logs)

#: most tables one host keeps, by default (``onecard host --max-tables``): far more than a LAN
#: night needs; a table in use is never dropped for a new one (:meth:`host.table.table.Table.idle`)
MAX_TABLES = 64
#: tables in use one connection may have made (``create_table`` over it answers ``full``)
MAX_TABLES_PER_CONNECTION = 4
#: tables in use the connections of one address key may have made (host.server.admission)
MAX_TABLES_PER_ADDRESS = 8
#: seconds a finished table where no player sits stays in ``list_tables`` (it is still served
#: by id: watch, hand records)
FINISHED_LISTED_S = 300.0

#: host bots one connection may have seated at once, and how many of them hard
MAX_BOTS_PER_CLIENT = 8
MAX_HARD_BOTS_PER_CLIENT = 4


@dataclass(frozen=True, slots=True)
class BotLimits:
    """Host bots seated at once at the request of one connection, and of one address.

    A hard bot costs the host a core for most of a second per move, so a client that fills
    tables with them takes the host's CPU from every other table: these bound what one client
    (and one machine, by its address: twice as many, for a reconnecting client or two players
    behind one address) can ask for. Bots the host seats itself (``onecard play``) are not
    counted; a bot stops counting when its seat is freed or its table dropped.
    """

    per_client: int = MAX_BOTS_PER_CLIENT
    hard_per_client: int = MAX_HARD_BOTS_PER_CLIENT

    @property
    def per_address(self) -> int:
        return 2 * self.per_client

    @property
    def hard_per_address(self) -> int:
        return 2 * self.hard_per_client


@dataclass(frozen=True, slots=True)
class _BotOrder:
    """Who asked for the host bot in one seat (for :class:`BotLimits`)."""

    table: str
    seat: int
    name: str
    hard: bool
    client: weakref.ref[Conn]  #: the connection that asked (dead once it is gone)
    address: str | None


BotSpawner = Callable[[str, str, int | None, str | None], Awaitable[int]]
"""``spawn(table_id, level, seat, resume_token) -> seat``: connect an in-process bot client."""


def _stale(table: Table) -> bool:
    return (
        table.phase is TablePhase.FINISHED
        and table.idle()
        and table.clock.idle_for(FINISHED_LISTED_S)
    )


class Lobby:
    """Every table on this host."""

    def __init__(
        self,
        *,
        store: Store,
        signing_key: Ed25519PrivateKey,
        host_name: str,
        key_fingerprint: str,
        turn_timer: float | None,
        grace: float,
        round_timeout: float,
        nursery: trio.Nursery,
        max_tables: int = MAX_TABLES,
        cheat: CheatKind | None = None,
        bot_limits: BotLimits | None = None,
    ) -> None:
        self.store = store
        self.signing_key = signing_key
        self.host_name = host_name
        self.key_fingerprint = key_fingerprint
        self.turn_timer = turn_timer
        self.grace = grace
        self.round_timeout = round_timeout
        self.nursery = nursery
        self.max_tables = max_tables
        #: ``onecard host --cheat``: every table deals dishonestly, on purpose (host.table.cheats)
        self.cheat = cheat
        self.tables: dict[str, Table] = {}
        #: tables left out at start-up (damaged data), by id: why (their ids are not reused)
        self.left_out: dict[str, str] = {}
        self.spawn_bot: BotSpawner | None = None
        self.bot_limits = bot_limits or BotLimits()
        #: host bots seated at a connection's request (pruned when their seat is freed)
        self._bot_orders: list[_BotOrder] = []

    # ------------------------------------------------------------------ queries

    def games(self) -> list[WireMap]:
        return game_entries()

    def table_summaries(self) -> list[WireMap]:
        """The tables ``list_tables`` shows: all but those finished for ``FINISHED_LISTED_S``
        with no player seated (nobody there to start a rematch)."""
        return [t.public_summary() for t in self.tables.values() if not _stale(t)]

    def table(self, table_id: str) -> Table:
        found = self.tables.get(table_id)
        if found is None:
            raise TableError(f"no table {table_id!r}", code=ErrorCode.NOT_FOUND)
        return found

    async def record_text(self, table_id: str, hand_no: int) -> str:
        """The record of a hand as ``get_record`` serves it.

        Raises:
            TableError: no such record (``not_found``), one the retention deleted
                (``pruned``), or its file cannot be read (``unavailable``: the host logs which
                file).
        """
        try:
            record = await self.store.records.load_record(table_id, hand_no)
        except RecordUnreadable as exc:
            log.warning(
                "table %s: get_record of hand %d: %s (in a kept table's last two games, "
                "deleting the file and restarting the host rebuilds it from the journal)",
                table_id,
                hand_no,
                exc,
            )
            raise TableError(
                f"the host cannot read its record of hand {hand_no} at table {table_id!r}: "
                "the file is damaged",
                code=ErrorCode.UNAVAILABLE,
            ) from None
        if record is None and hand_no <= self.store.records.pruned_through(table_id):
            raise TableError(
                f"the host no longer keeps its record of hand {hand_no} at table {table_id!r}: "
                "its operator's retention deleted it (onecard host --keep-records-days)",
                code=ErrorCode.PRUNED,
            )
        if record is None:
            raise TableError(
                f"no record of hand {hand_no} at table {table_id!r}", code=ErrorCode.NOT_FOUND
            )
        return dump_record(record)

    # ------------------------------------------------------------------ changes

    async def create_table(
        self,
        *,
        game: str,
        seats: int,
        options: dict[str, Any] | None = None,
        name: str | None = None,
        turn_timer: float | None = None,
        creator: Conn | None = None,
        private: bool = False,
    ) -> Table:
        """Validate and persist a new table, start its timer task, return it.

        ``creator`` is the connection that asked for it (``None``: the host itself); it may
        add bots to the table before it sits down (:meth:`Table.check_bot_request`).

        Raises:
            OptionError: unknown game, unknown option or bad option value (``bad_field``).
            TableError: bad seat count (``bad_field``), host full (``full``), or the creator
                (its connection or address) has too many tables in use (``full``).
        """
        if creator is not None:
            self._check_creator(creator)
        if len(self.tables) >= self.max_tables:
            await self._drop_an_idle_table()
        if len(self.tables) >= self.max_tables:
            raise TableError(
                f"the host has {self.max_tables} tables, all in use (its operator can raise "
                "onecard host --max-tables)",
                code=ErrorCode.FULL,
            )
        table_id = "t" + secrets.token_hex(3)
        while table_id in self.tables or table_id in self.left_out:
            table_id = "t" + secrets.token_hex(3)
        table = Table(
            table_id=table_id,
            game_cls=find_game(game).state,
            seats=seats,
            options=dict(options or {}),
            store=self.store,
            signing_key=self.signing_key,
            # nil: the host's default; 0: no timer at this table
            turn_timer=self.turn_timer if turn_timer is None else (float(turn_timer) or None),
            grace=self.grace,
            created=time.time_ns(),
            name=name or "",
            round_timeout=self.round_timeout,
            private=private,
        )
        if creator is not None and not creator.closed:
            table.creator = creator
        await self.store.put_table(table_id, table.created, table.meta())
        await self._start(table)
        log.info(
            "table %s created: %s, %d seats, options %s",
            table_id,
            table.game_cls.game.name,
            seats,
            " ".join(f"{k}={v}" for k, v in table.options.items()) or "-",
        )
        return table

    def _check_creator(self, creator: Conn) -> None:
        """Refuse a connection (or address) holding its share of tables in use already."""
        key: str | None = getattr(creator, "address_key", None)
        in_use = [t for t in self.tables.values() if not t.idle()]
        mine = sum(1 for t in in_use if t.creator is creator)
        if mine >= MAX_TABLES_PER_CONNECTION:
            raise TableError(
                f"you have made {mine} tables that are in use; at most "
                f"{MAX_TABLES_PER_CONNECTION} per connection: play or leave one first",
                code=ErrorCode.FULL,
            )
        ours = sum(1 for t in in_use if key is not None and t.book.creator_key == key)
        if ours >= MAX_TABLES_PER_ADDRESS:
            raise TableError(
                f"your address ({key}) has made {ours} tables that are in use; at most "
                f"{MAX_TABLES_PER_ADDRESS}: play or leave one first",
                code=ErrorCode.FULL,
            )

    async def _drop_an_idle_table(self) -> None:
        """Make room: forget the oldest table with no game running and no one but bots."""
        idle = sorted((t for t in self.tables.values() if t.idle()), key=lambda t: t.created)
        if not idle:
            return
        table = idle[0]
        table.close()
        del self.tables[table.table_id]
        await self.store.delete_table(table.table_id)

    async def _start(self, table: Table) -> None:
        if self.cheat is not None:
            cheats.install(table.runner, self.cheat, self.signing_key)
        self.tables[table.table_id] = table
        await self.nursery.start(table.run)

    async def restore(self) -> list[tuple[Table, int]]:
        """Rebuild every stored table; return the hosted-bot seats to reconnect."""
        bots: list[tuple[Table, int]] = []
        for row in await self.store.load_tables():
            table = self._rebuild(row)
            if table is None:
                continue
            await self._start(table)
            try:
                await table_restore.finish_restore(table)
            except Exception:  # the table is served as replayed; its journal stays the truth
                log.exception("table %s: finishing its restart failed", row.table_id)
            log.info(
                "table %s restored: %s, %s, seats %s",
                table.table_id,
                table.game_cls.game.name,
                table.phase.value + (f" (game {table.game_no})" if table.game_no else ""),
                ", ".join(_seat_text(s) for s in table.seats),
            )
            for seat in table.seats:
                if seat is None or seat.stood_up:  # a stood-up seat is the host's to play
                    continue
                if (seat.bot or "").startswith(HOSTED_BOT_PREFIX):
                    bots.append((table, seat.index))
        return bots

    def _rebuild(self, row: TableRow) -> Table | None:
        """A stored table replayed, or None (logged) if it must be left out."""
        why = row.damaged
        if why is None:
            try:
                game_cls = find_game(str(row.meta["game"])).state
                return table_restore.restore_table(
                    row,
                    game_cls=game_cls,
                    store=self.store,
                    signing_key=self.signing_key,
                    grace=self.grace,
                    round_timeout=self.round_timeout,
                )
            except (OptionError, ReplayError) as exc:
                why = exc.message if isinstance(exc, OptionError) else str(exc)
            except Exception as exc:  # one unreadable table must not keep the host from starting
                log.debug("table %s: restore failed", row.table_id, exc_info=True)
                why = f"it cannot be restored ({type(exc).__name__}: {exc})"
        self.left_out[row.table_id] = why
        log.error("table %s left out: %s; its data is kept in the store", row.table_id, why)
        return None

    async def add_bot(
        self, table_id: str, *, level: str, seat: int | None, by: Conn | None = None
    ) -> tuple[int, str]:
        """Seat a host-run bot playing at ``level`` (``add_bot.kind`` on the wire: a level or an
        older name of one); return its seat and name.

        ``by`` is the requesting connection (``None``: the host itself, always allowed); only
        the table's creator or a player seated there may (``bad_state`` otherwise, see
        :meth:`Table.check_bot_request`), and only within :class:`BotLimits` (``full``).
        """
        table = self.table(table_id)
        table.check_bot_request(by)
        if self.spawn_bot is None:
            raise TableError("this host cannot run bots", code=ErrorCode.BAD_STATE)
        try:
            hard = parse_level(level) is Level.HARD
        except ValueError:
            hard = False  # the bot itself refuses the level, with its own error
        address = None if by is None else getattr(by, "address_key", None)
        if by is not None:
            self._check_bot_limits(by, address, hard=hard)
        seat_no = await self.spawn_bot(table_id, level, seat, None)
        s = table.seats[seat_no]
        assert s is not None
        if by is not None:
            order = _BotOrder(table_id, seat_no, s.name, hard, weakref.ref(by), address)
            self._bot_orders.append(order)
        return seat_no, s.name

    def _live_bot_orders(self) -> list[_BotOrder]:
        """The orders whose bot still sits where it was seated (the rest are forgotten)."""

        def sits(order: _BotOrder) -> bool:
            table = self.tables.get(order.table)
            s = None if table is None else table.seats[order.seat]
            return s is not None and s.name == order.name and s.bot is not None

        self._bot_orders = [o for o in self._bot_orders if sits(o)]
        return self._bot_orders

    def _check_bot_limits(self, client: Conn, address: str | None, *, hard: bool) -> None:
        """Raise ``TableError`` (``full``) if one more bot would pass :class:`BotLimits`."""
        limits = self.bot_limits
        orders = self._live_bot_orders()
        mine = [o for o in orders if o.client() is client]
        here = [o for o in orders if address is not None and o.address == address]
        checks = [("you have", mine, limits.per_client, "host bots", "")]
        checks.append((f"your address ({address}) has", here, limits.per_address, "host bots", ""))
        if hard:
            mine_hard = [o for o in mine if o.hard]
            here_hard = [o for o in here if o.hard]
            checks.append(("you have", mine_hard, limits.hard_per_client, "hard bots", "hard-"))
            at = f"your address ({address}) has"
            checks.append((at, here_hard, limits.hard_per_address, "hard bots", "hard-"))
        for who, seated, cap, what, option in checks:
            if len(seated) >= cap:
                easier = "; an easy or normal bot may still be added" if option else ""
                raise TableError(
                    f"{who} {len(seated)} {what} seated, the most this host allows (its "
                    f"operator can raise onecard host --max-{option}bots-per-client){easier}",
                    code=ErrorCode.FULL,
                )

    def holds_token(self, token: str) -> bool:
        """Whether a seat at any table holds this resume token (no lock taken)."""
        return any(t.holds_token(token) for t in self.tables.values())

    async def resume(self, conn: Conn, token: str, last_seq: int, *, re: Any = None) -> Table:
        # find the table without taking any table's lock: one busy table must not hold up
        # resumes at the others
        for table in list(self.tables.values()):
            if not table.holds_token(token):
                continue
            if await table.resume(conn, token, last_seq, re=re) is not None:
                return table
        raise TableError("no seat holds that resume token", code=ErrorCode.NOT_FOUND)

    def detach(self, conn: Conn) -> None:
        """A connection ended: free every seat it held and stop its watching, at once."""
        for table in list(self.tables.values()):
            table.detach(conn)

    def bot_name(self, table_id: str) -> str:
        table = self.table(table_id)
        taken = {s.name.casefold() for s in table.seats if s is not None}
        n = 1
        while f"bot-{n}" in taken:
            n += 1
        return f"Bot-{n}"


def _seat_text(seat: Seat | None) -> str:
    """A seat in the restore line: ``-`` (empty), ``Ann``, ``Bot-1 (bot)``, ``Cy (stood up)``."""
    if seat is None:
        return "-"
    if seat.stood_up:
        return f"{seat.name} (stood up)"
    return f"{seat.name} (bot)" if seat.bot else seat.name
