"""A table's seats and the words the game runner and the table share about them.

How it works: a :class:`Seat` is one seat's state, kept by the seat book
(:mod:`host.table.seating`: who sits there, how it is reached, whether it is ready) and read and
changed by the game runner (:mod:`host.table.runner`: missed deal rounds, timeouts, whether the host
plays for it). :class:`TablePhase` is where a table is in its life, :class:`Batch` what one
input produced (journal rows and the messages to send once they are stored), and
:class:`TableError` a refusal carrying its wire code. The constants say how patient a table is
with a seat that does not answer.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from host.games.base import RulesError, State, WireMap
from host.storage.journal import JournalRow
from protocol.cards import Card
from protocol.errors import ErrorCode, LocalProtocolError
from protocol.fairness import SignedMessage

__all__ = [
    "AWAY_AFTER_TIMEOUTS",
    "AWAY_TURN_S",
    "HOST_BOT",
    "MAX_MISSED_ROUNDS",
    "ROUND_TIMEOUT",
    "VOID_TIMEOUT",
    "Batch",
    "EngineFailure",
    "ReplayError",
    "Rewriter",
    "Seat",
    "SeqConflictError",
    "TableError",
    "TablePhase",
    "same_action",
]

#: seconds a seat has to send its fair-dealing commitment, and again its reveal
ROUND_TIMEOUT = 20.0
#: deal rounds in a row a seat may leave unanswered (no commit or no reveal in time) before the
#: host stands it up: the seat loses its owner (its resume token stops working), the host plays
#: it to the end of the game and then frees it. Rounds it sits out do not count either way; a
#: reveal it sends takes half a miss off (``Seat.misses`` counts halves), so a seat that
#: alternates a miss and an answer is still stood up, at its third miss, while one that misses
#: now and then is not.
MAX_MISSED_ROUNDS = 2
#: turns in a row the turn timer played for a seat (its player did not act in time) after which
#: its turns get only ``AWAY_TURN_S`` seconds, until it acts again itself
AWAY_AFTER_TIMEOUTS = 2
#: seconds per turn of a seat that let its timer run out ``AWAY_AFTER_TIMEOUTS`` times in a row
AWAY_TURN_S = 10.0
#: the ``void`` reason of a round a seat left unanswered in time (the only kind that counts)
VOID_TIMEOUT = "timeout"
#: the ``bot`` label ``table_info`` gives a seat whose player left its game (or was stood up):
#: the host's bot plays it to the end of the game
HOST_BOT = "host"


class TableError(LocalProtocolError):
    """A lobby or play request the table refuses; carries the wire error code."""


class SeqConflictError(TableError):
    """``conflict``: an ``act`` under a used ``seq``; ``next_seq`` goes in the ``error``."""

    def __init__(self, next_seq: int, used: int) -> None:
        super().__init__(
            f"act seq {used} was already used for another action; the next seq is {next_seq}",
            code=ErrorCode.CONFLICT,
        )
        self.next_seq = next_seq


class EngineFailure(TableError):
    """The engine failed part-way through a change: the game in memory must be rebuilt."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code=ErrorCode.INTERNAL)


class ReplayError(Exception):
    """A stored journal row cannot be replayed; the message names the row and why."""


class TablePhase(enum.Enum):
    WAITING = "waiting"  #: seats are filling up or not everyone is ready
    DEALING = "dealing"  #: a commit-reveal round is in progress
    PLAYING = "playing"  #: seats act
    FINISHED = "finished"  #: the game is over; ``ready`` (rematch) starts another


@dataclass(slots=True)
class Seat:
    index: int
    name: str
    token_hash: bytes | None
    #: a label for seats taken by bot clients (they are always ready); None for players
    bot: str | None = None
    conn: Any = None  #: the seat's connection (a ``host.table.seating.Conn``), None while away
    ready: bool = False
    #: the highest client action seq accepted from this seat in the current game
    last_act_seq: int = 0
    #: the action accepted under ``last_act_seq`` (wire form): a resend of it is a duplicate
    last_act_action: WireMap | None = None
    disconnected_at: float | None = None
    #: the host plays for this seat (grace period over) until it returns
    substitute: bool = False
    #: missed a commit/reveal: the host contributes this seat's entropy in the next round
    sit_out: bool = False
    #: deal rounds this seat was asked to answer and did not, in halves: +2 a miss, -1 a reveal
    #: (see MAX_MISSED_ROUNDS)
    misses: int = 0
    #: deal rounds this seat left unanswered (for the log and the ``stood_up`` event)
    missed: int = 0
    #: turns in a row the turn timer played for this seat (see AWAY_AFTER_TIMEOUTS)
    timeouts: int = 0
    #: stood up after too many missed rounds: no owner, the host plays it until the game ends
    stood_up: bool = False
    #: the first game this seat's occupant plays (0: from the start, or not known): a player
    #: who sat down after a game is shown nothing of it, not the last occupant's hand
    first_game: int = 0

    def repeated(self, engine: State | None, act_seq: int, wire: object) -> bool:
        """Whether an ``act`` under ``act_seq`` was already applied (a resend: a duplicate).

        Raises:
            TableError: ``conflict``: a used ``act_seq`` with another action (PROTOCOL.md 4.2).
        """
        if act_seq > self.last_act_seq:
            return False
        if act_seq == self.last_act_seq and same_action(engine, wire, self.last_act_action):
            return True
        raise SeqConflictError(self.last_act_seq + 1, act_seq)

    def summary(self) -> WireMap:
        """The seat as ``table_info`` lists it. A seat whose player left the game or was stood
        up has no owner any more: the host's bot plays it to the end (``bot: "host"``), so a
        lobby does not list the player as still sitting there."""
        return {
            "seat": self.index,
            "name": self.name,
            "bot": HOST_BOT if self.stood_up and self.bot is None else self.bot,
            "connected": self.conn is not None,
            "ready": self.ready,
            "substitute": self.substitute,
        }


@dataclass(slots=True)
class Batch:
    """Journal rows and the messages to deliver once they are committed."""

    rows: list[JournalRow] = field(default_factory=list)
    out: list[tuple[int | None, WireMap]] = field(default_factory=list)


def same_action(engine: State | None, wire: object, accepted: WireMap | None) -> bool:
    """Whether ``wire`` reads as the ``accepted`` action (card codes read forgivingly): a resend
    of the last accepted ``act`` is a duplicate, another action under its seq a ``conflict``."""
    if accepted is None or engine is None:
        return False
    try:
        return engine.parse_action(wire).to_wire() == accepted
    except RulesError:
        return False


class Rewriter(Protocol):
    """Stands between a table's dealer and the wire: only ``host.table.cheats`` makes one, for a
    host run with ``--cheat`` (an honest table has none)."""

    def rewrite(
        self, msgs: Sequence[tuple[int | None, SignedMessage]]
    ) -> list[tuple[int | None, SignedMessage]]: ...

    def record(self, record: Mapping[str, Any]) -> dict[str, Any]: ...

    def deal_terms(
        self, options: Mapping[str, bool | int | str], deck: Sequence[Card]
    ) -> tuple[dict[str, bool | int | str], list[Card]]:
        """The options (ruleset) and deck a hand is signed under, given the table's."""
        ...
