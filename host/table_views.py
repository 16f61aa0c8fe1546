"""What each connection at a table is sent after a change: its messages and its view.

How it works: a batch's output is a list of ``(to, message)`` pairs, ``to`` being ``None``
for a public message or a seat index for a private one. :func:`fan_out` groups them per
connection, in order, after the acknowledgement of the action that caused them (if its sender
is still here), and appends each seat's own ``state`` (:func:`state_message` with
``game.view(seat)`` and its legal actions) and the spectators' public one. One list per
connection means one ``deliver`` call each, so a client sees a change as one burst. Nothing
here sends, stores or awaits; :class:`host.table.Table` calls it under its lock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from host.games.base import WireMap
from host.runner import GameRunner
from host.seat import TablePhase
from host.seating import Conn, SeatBook
from protocol.framing import Outgoing

__all__ = ["fan_out", "state_message"]


def state_message(runner: GameRunner, seat: int | None) -> list[WireMap]:
    """The ``state`` message for ``seat`` (``None``: a spectator), or none before any game."""
    engine = runner.engine
    if engine is None:
        return []
    playing = runner.phase is TablePhase.PLAYING
    view = engine.view(seat)
    legal: list[Any] = []
    if seat is not None and playing:
        # every game's view already lists the seat's legal actions (VIEW_CORE_KEYS): reuse that
        # list rather than enumerate them twice (Black Jack's can take milliseconds)
        listed = view.get("legal")
        legal = listed if isinstance(listed, list) else [
            a.to_wire() for a in engine.legal_actions(seat)
        ]  # fmt: skip
    deadline = runner.turn_deadline
    turn_ms = None if deadline is None else max(0, int((deadline - runner.now()) * 1000))
    return [
        Outgoing(
            type="state", table=runner.table_id, seq=runner.seq, game_no=runner.game_no,
            phase=runner.phase.value, seat=seat, view=view, legal=legal,
            to_act=list(engine.to_act()) if playing else [], turn_ms=turn_ms,
        )
    ]  # fmt: skip


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
