"""Lobby messages (``spec/PROTOCOL.md`` section 3): games, tables, seats, spectators, bots.

How it works: each message is a registered frozen dataclass like the core ones in
:mod:`protocol.messages`, so the same registry decodes, encodes, validates and documents them.
A client lists the games and tables, creates a table, takes a seat (``join``), watches, seats a
host bot and marks itself ready; the host answers each request with exactly one reply carrying
``re`` (the reply type named in the request's docstring, or ``error``) and pushes ``table_info``
to everyone at a table when its seating or phase changes. The field kinds every table message
shares (:data:`TABLE_ID`, :data:`PLAYER_NAME`, :data:`SEAT`) are defined here too.

Everything here is re-exported by :mod:`protocol.table_messages`: use the messages as
``table_messages.Join`` like the others. :mod:`protocol.registry` holds the registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from protocol.limits import MAX_NAME_LEN
from protocol.messages import (
    AnyMap,
    Bool,
    Direction,
    Int,
    ListOf,
    Message,
    Nullable,
    Str,
    register,
    wire,
)

__all__ = [
    "BOT_KINDS",
    "BOT_LEVELS",
    "BOT_LEVEL_OF",
    "C2H",
    "H2C",
    "PLAYER_NAME",
    "SEAT",
    "TABLE_ID",
    "AddBot",
    "BotAdded",
    "CreateTable",
    "Games",
    "Join",
    "Joined",
    "Leave",
    "Left",
    "ListGames",
    "ListTables",
    "Ok",
    "Ready",
    "TableCreated",
    "TableInfo",
    "Tables",
    "Watch",
    "Watching",
]

C2H = Direction.CLIENT_TO_HOST
H2C = Direction.HOST_TO_CLIENT

TABLE_ID = Str(min_len=1, max_len=64, pattern="[A-Za-z0-9_-]+")
"""The kind of a table id (``table`` fields)."""
PLAYER_NAME = Str(min_len=1, max_len=MAX_NAME_LEN, printable=True)
"""The kind of a name a client chooses (players, bots, tables)."""
SEAT = Int(0, 255)
"""The kind of a seat number."""


@register
@dataclass(frozen=True, kw_only=True)
class ListGames(Message):
    """Asks which games the host runs; answered by `games`."""

    TYPE: ClassVar[str] = "list_games"
    DIRECTION: ClassVar[Direction] = C2H


@register
@dataclass(frozen=True, kw_only=True)
class Games(Message):
    """The games the host runs: name, title, seat range, table options and wording of each."""

    TYPE: ClassVar[str] = "games"
    DIRECTION: ClassVar[Direction] = H2C
    games: tuple[dict[str, Any], ...] = wire(
        ListOf(AnyMap(), max_len=16),
        "`{name, title, min_seats, max_seats, options, help?, layout?, keys?, absent_keys?, "
        "calls?, events?, actions?, words?, endings?, guide?, table?, seat_columns?, "
        "seat_tags?}` per game (options: 3.2; the rest: 3.5)",
    )


@register
@dataclass(frozen=True, kw_only=True)
class ListTables(Message):
    """Asks for the tables on the host; answered by `tables`."""

    TYPE: ClassVar[str] = "list_tables"
    DIRECTION: ClassVar[Direction] = C2H


@register
@dataclass(frozen=True, kw_only=True)
class Tables(Message):
    """Every table on the host, each as in `table_info`."""

    TYPE: ClassVar[str] = "tables"
    DIRECTION: ClassVar[Direction] = H2C
    tables: tuple[dict[str, Any], ...] = wire(
        ListOf(AnyMap(), max_len=256), "table summaries (fields as `table_info`)"
    )


@register
@dataclass(frozen=True, kw_only=True)
class CreateTable(Message):
    """Creates a table; answered by `table_created` (the creator is not seated: send `join`)."""

    TYPE: ClassVar[str] = "create_table"
    DIRECTION: ClassVar[Direction] = C2H
    game: str = wire(Str(min_len=1, max_len=32), "game name from `games`, e.g. `one-card`")
    seats: int = wire(Int(1, 16), "number of seats (within the game's range)")
    options: dict[str, Any] = wire(
        AnyMap(),
        "table options by name (bool, int or str; strings like `on`/`20` accepted)",
        default=None,
    )
    name: str | None = wire(Nullable(PLAYER_NAME), "display name of the table", default=None)
    turn_timer: int | None = wire(
        Nullable(Int(0, 3600)), "seconds per turn; 0: no timer; nil: the host default", default=None
    )
    private: bool = wire(
        Bool(),
        "true: a private table (section 10): the host never sees a hidden card",
        default=False,
    )

    def __post_init__(self) -> None:
        raw: object = self.options
        if raw is None:
            object.__setattr__(self, "options", {})
        super().__post_init__()


@register
@dataclass(frozen=True, kw_only=True)
class TableCreated(Message):
    """Reply to `create_table`: the new table's summary (as `table_info`)."""

    TYPE: ClassVar[str] = "table_created"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "the new table's id")
    info: dict[str, Any] = wire(AnyMap(), "the table summary (fields as `table_info`)")


@register
@dataclass(frozen=True, kw_only=True)
class TableInfo(Message):
    """Pushed to everyone at a table (seated or watching) when its seating or phase changes."""

    TYPE: ClassVar[str] = "table_info"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    name: str = wire(
        Str(max_len=64),
        "display name: `create_table.name` (1..32), or the table id (1..64) when it gave none",
    )
    game: str = wire(Str(max_len=32), "game name")
    options: dict[str, Any] = wire(AnyMap(), "every option with its value")
    seats: tuple[dict[str, Any] | None, ...] = wire(
        ListOf(Nullable(AnyMap()), max_len=16),
        "per seat nil (empty) or `{seat, name, bot, connected, ready, substitute}`",
    )
    phase: str = wire(Str(max_len=16), "`waiting`, `dealing`, `playing` or `finished`")
    game_no: int = wire(Int(), "games started at this table so far")
    spectators: int = wire(Int(), "number of spectators")
    turn_timer: int | None = wire(Nullable(Int()), "seconds per turn, nil: no timer")
    voids: int = wire(Int(), "deal rounds voided at this table (missed reveals)")
    private: bool = wire(Bool(), "true: a private table (section 10)", default=False)


@register
@dataclass(frozen=True, kw_only=True)
class Join(Message):
    """Takes a seat at a waiting (or finished) table; answered by `joined`."""

    TYPE: ClassVar[str] = "join"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    name: str = wire(PLAYER_NAME, "player name, unique at the table (case-insensitive)")
    seat: int | None = wire(Nullable(SEAT), "seat wanted; nil: the first free one", default=None)
    bot: str | None = wire(
        Nullable(Str(max_len=MAX_NAME_LEN, printable=True)),
        "set by bot clients (shown to others in `table_info`; always ready)",
        default=None,
    )


@register
@dataclass(frozen=True, kw_only=True)
class Joined(Message):
    """Reply to `join`: the seat and the resume token (keep it secret; the host keeps a hash)."""

    TYPE: ClassVar[str] = "joined"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    seat: int = wire(SEAT, "your seat number")
    token: str = wire(Str(min_len=16, max_len=128), "resume token for `resume`")


@register
@dataclass(frozen=True, kw_only=True)
class Leave(Message):
    """Gives up a seat (during a game the host's bot takes it over) or stops watching; answered
    by `left`."""

    TYPE: ClassVar[str] = "leave"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")


@register
@dataclass(frozen=True, kw_only=True)
class Left(Message):
    """Reply to `leave`."""

    TYPE: ClassVar[str] = "left"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")


@register
@dataclass(frozen=True, kw_only=True)
class Watch(Message):
    """Watches a table as a spectator (public information only); answered by `watching`."""

    TYPE: ClassVar[str] = "watch"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    name: str = wire(
        Str(max_len=MAX_NAME_LEN, printable=True),
        "the spectator's name in chat (may be a seated player's); empty: `spectator`",
        default="",
    )


@register
@dataclass(frozen=True, kw_only=True)
class Watching(Message):
    """Reply to `watch`; a `table_info`, the recent chat and (during a game) a `state` follow."""

    TYPE: ClassVar[str] = "watching"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")


#: the levels a host bot plays at, easiest first (``add_bot``'s ``kind``)
BOT_LEVELS = ("easy", "normal", "hard")
#: every ``kind`` that ``add_bot`` takes, with the level it names: the levels themselves and the
#: two kinds the protocol had before levels, ``random`` (easy) and ``heuristic`` (normal)
BOT_LEVEL_OF = {**{level: level for level in BOT_LEVELS}, "random": "easy", "heuristic": "normal"}
BOT_KINDS = tuple(BOT_LEVEL_OF)


@register
@dataclass(frozen=True, kw_only=True)
class AddBot(Message):
    """Seats a host-run bot in an empty seat; answered by `bot_added`."""

    TYPE: ClassVar[str] = "add_bot"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    kind: str = wire(
        Str(max_len=16, pattern="|".join(BOT_KINDS)),
        "bot level: easy, normal or hard (older names: random = easy, heuristic = normal)",
        default="normal",
    )
    seat: int | None = wire(Nullable(SEAT), "seat; nil: the first free one", default=None)


@register
@dataclass(frozen=True, kw_only=True)
class BotAdded(Message):
    """Reply to `add_bot`: the bot's seat and name."""

    TYPE: ClassVar[str] = "bot_added"
    DIRECTION: ClassVar[Direction] = H2C
    table: str = wire(TABLE_ID, "table id")
    seat: int = wire(SEAT, "the bot's seat")
    name: str = wire(PLAYER_NAME, "the bot's name")


@register
@dataclass(frozen=True, kw_only=True)
class Ready(Message):
    """Marks the sender's seat (un)ready; the game starts when every seat is taken and ready.

    After a game ends, `ready` again is the rematch. Answered by `ok`.
    """

    TYPE: ClassVar[str] = "ready"
    DIRECTION: ClassVar[Direction] = C2H
    table: str = wire(TABLE_ID, "table id")
    ready: bool = wire(Bool(), "true: ready to start", default=True)


@register
@dataclass(frozen=True, kw_only=True)
class Ok(Message):
    """Reply to a request that needs no other answer (`ready`, `chat`, `fair_commit`, ...)."""

    TYPE: ClassVar[str] = "ok"
    DIRECTION: ClassVar[Direction] = H2C
