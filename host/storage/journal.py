"""The rows a table's journal is made of, as the table code and the store both read them.

How it works: plain frozen dataclasses, no I/O. :class:`TableRow` is one stored table (its
options, seats, journal and chat backlog, as :mod:`host.storage.store` loads them at start-up);
a :class:`JournalRow` is one event-sourced row of its journal, of a :class:`JournalKind`; the
game runner (:mod:`host.table.runner`) makes them and replays them, and the store writes them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ChatRow", "JournalKind", "JournalRow", "SeatRow", "TableRow"]


class JournalKind(enum.StrEnum):
    """What a journal row records."""

    #: a new game started at the table (payload: game number, dealer, seat names)
    GAME = "game"
    #: a chance outcome applied to the engine (payload: order, dealer)
    CHANCE = "chance"
    #: an accepted action (payload: seat, wire action)
    ACTION = "action"
    #: fair-dealing state the host must keep (secrets, commitments, reveals)
    FAIR = "fair"
    #: a change of seat during a game (payload: ``op`` "leave", seat): the host plays it on
    SEAT = "seat"
    #: a message sent to the table (``seat`` None: public; else private to that seat)
    MESSAGE = "message"


@dataclass(frozen=True, slots=True)
class JournalRow:
    seq: int
    kind: JournalKind
    seat: int | None
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    name: str
    token_hash: bytes | None
    bot: str | None


@dataclass(frozen=True, slots=True)
class ChatRow:
    """One chat line of a table's backlog: its number, the table seq when it was said, and
    the ``chat_line`` message as sent."""

    n: int
    seq: int
    line: dict[str, Any]


@dataclass(slots=True)
class TableRow:
    table_id: str
    created: int
    meta: dict[str, Any]
    seats: list[SeatRow] = field(default_factory=list)
    journal: list[JournalRow] = field(default_factory=list)
    chat: list[ChatRow] = field(default_factory=list)
    #: None, or which stored row of this table cannot be read (the table must not be served)
    damaged: str | None = None
