"""What each connection at a table is sent after a change: its messages and its view.

How it works: a batch's output is a list of ``(to, message)`` pairs, ``to`` being ``None``
for a public message or a seat index for a private one. :func:`fan_out` groups them per
connection, in order, after the acknowledgement of the action that caused them (if its sender
is still here), and appends each seat's own ``state`` (:func:`state_message` with
``game.view(seat)`` and its legal actions) and the spectators' public one. One list per
connection means one ``deliver`` call each, so a client sees a change as one burst. It sends,
stores and awaits nothing; :class:`host.table.table.Table` calls it under its lock. A seat that
resumes is sent what it missed from :class:`Backlogs`, which reads the journal once per table
seq and hands every resume the same messages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from host.games.base import WireMap
from host.storage.journal import JournalRow
from host.storage.store import Store
from host.table.runner import GameRunner
from host.table.seating import Conn, SeatBook
from host.table.seats import Seat, TablePhase
from protocol.framing import Outgoing

__all__ = ["Backlogs", "fan_out", "state_message"]


def state_message(
    runner: GameRunner, seat: int | None, occupant: Seat | None = None
) -> list[WireMap]:
    """The ``state`` message for ``seat`` (``None``: a spectator), or none before any game,
    and none for a seat whose ``occupant`` sat down after the last game (its view would show
    the hand of whoever played that seat then)."""
    engine = runner.engine
    if engine is None or (occupant is not None and occupant.first_game > runner.game_no):
        return []
    playing = runner.phase is TablePhase.PLAYING
    view = engine.view(seat)
    legal: list[Any] = []
    if seat is not None and playing:
        # every game's view already lists the seat's legal actions (VIEW_CORE_KEYS): reuse that
        # list rather than enumerate them twice (Black Jack's can take milliseconds)
        listed = view.get("legal")
        legal = (
            listed
            if isinstance(listed, list)
            else [a.to_wire() for a in engine.legal_actions(seat)]
        )
    deadline = runner.turn_deadline
    turn_ms = None if deadline is None else max(0, int((deadline - runner.now()) * 1000))
    return [
        Outgoing(
            type="state",
            table=runner.table_id,
            seq=runner.seq,
            game_no=runner.game_no,
            phase=runner.phase.value,
            seat=seat,
            view=view,
            legal=legal,
            to_act=list(engine.to_act()) if playing else [],
            turn_ms=turn_ms,
        )
    ]


class Backlogs:
    """What a resuming seat missed: the current game's journaled pushes it may see.

    A seat's rows are read once and kept until the table moves on (its seq changes), and every
    resume is handed the same message objects: a connection that resumes again and again
    without reading holds references to one backlog, not a copy of it per resume.
    """

    def __init__(self, store: Store, table_id: str) -> None:
        self.store = store
        self.table_id = table_id
        #: per seat: ((game_seq, seq) when read, the rows)
        self._rows: dict[int, tuple[tuple[int, int], list[JournalRow]]] = {}

    async def after(self, seat: int, last_seq: int, runner: GameRunner) -> list[WireMap]:
        """The pushes ``seat`` may see after ``last_seq``, from the current game's start."""
        key = (runner.game_seq, runner.seq)
        cached = self._rows.get(seat)
        if cached is None or cached[0] != key:
            rows = await self.store.messages_after(self.table_id, runner.game_seq, seat)
            cached = self._rows[seat] = (key, rows)
        since = max(last_seq, runner.game_seq)
        return [r.payload for r in cached[1] if r.seq > since]


def fan_out(
    book: SeatBook,
    out: Sequence[tuple[int | None, WireMap]],
    ack: tuple[Conn, WireMap] | None,
    views: Callable[[int | None], list[WireMap]],
) -> list[tuple[Conn, list[WireMap]]]:
    """Each member's messages from a batch's ``out``, acknowledgement first, views last."""
    per_conn: dict[int, tuple[Conn, list[WireMap]]] = {}
    for member in book.members():
        per_conn[id(member)] = (member, [])
    if ack is not None and id(ack[0]) in per_conn:
        per_conn[id(ack[0])][1].append(ack[1])
    for to, msg in out:
        for member in book.audience(to):
            per_conn[id(member)][1].append(msg)
    for s in book.seats:
        if s is not None and s.conn is not None:
            per_conn[id(s.conn)][1].extend(views(s.index))
    if book.spectators:
        public = views(None)  # the same objects for every spectator: packed once
        for spectator in book.spectators:
            per_conn[id(spectator)][1].extend(public)
    return [(conn, msgs) for conn, msgs in per_conn.values() if msgs]
