"""A table's clock: when its timers fall due and what is due then.

How it works: a :class:`TableClock` knows the table's grace period and, from the seats and the
game runner's deadlines, computes the next moment anything is due (:meth:`TableClock.next_due`):
a deal round's deadline, the turn timer, the end of a dropped player's grace period during a
game (the host then plays for the seat) or between games (the seat is then freed). The table's
timer task sleeps until then or until :meth:`TableClock.poke` wakes it after a change. The clock
gives ``table_info`` an away player's grace left (:meth:`TableClock.seat_summaries`), and
also remembers since when no game runs (:meth:`TableClock.mark`): the grace for freeing a seat
counts from then. It also remembers when the seats last changed (:meth:`TableClock.touch`): an
empty table whose creator has gone counts as being filled for ``EMPTY_TABLE_S`` after that.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import trio

from host.table.seats import Seat

__all__ = ["EMPTY_TABLE_S", "TableClock"]

#: seconds after its seats last changed that an empty table counts as being filled (someone
#: created it, or its last player left, and others may be on their way): it is not dropped to
#: make room for a new table before that
EMPTY_TABLE_S = 60.0


class TableClock:
    """The timers of one table; see the module docstring."""

    def __init__(self, grace: float, now: Callable[[], float] = trio.current_time) -> None:
        self.grace = grace
        self.now = now
        #: when the table last stopped running a game (None: a game runs, or no tick yet)
        self.idle_since: float | None = None
        #: when a seat was last taken or given up (or the table made)
        self.touched = now()
        self._wake = trio.Event()

    def poke(self) -> None:
        """Something changed that a timer may care about: the timer task looks again."""
        self._wake.set()

    async def wait(self, until: float) -> None:
        """Sleep until ``until`` or a :meth:`poke`, whichever comes first."""
        with trio.move_on_at(until):
            await self._wake.wait()
        self._wake = trio.Event()

    def mark(self, *, running: bool) -> None:
        """Note whether a game runs now (the first idle moment starts the idle time)."""
        if running:
            self.idle_since = None
        elif self.idle_since is None:
            self.idle_since = self.now()

    def away_since(self, seat: Seat) -> float:
        """Since when a seat has been away *while no game runs* (the grace for freeing it)."""
        assert seat.disconnected_at is not None
        idle = self.now() if self.idle_since is None else self.idle_since
        return max(seat.disconnected_at, idle)

    def next_due(
        self, seats: Sequence[Seat | None], deadlines: Sequence[float | None], *, running: bool
    ) -> float:
        """The next moment a timer falls due (``inf``: none)."""
        times = [t for t in deadlines if t is not None]
        for s in seats:
            if s is None or s.disconnected_at is None:
                continue
            if running and not s.substitute:  # the host plays for it after the grace period
                times.append(s.disconnected_at + self.grace)
            elif not running and s.bot is None:  # no game: it is freed after the grace period
                times.append(self.away_since(s) + self.grace)
        return min(times, default=float("inf"))

    def to_free(self, seats: Sequence[Seat | None]) -> list[Seat]:
        """No game running: the players' seats away for the whole grace period."""
        now = self.now()
        return [
            s
            for s in seats
            if s is not None
            and s.bot is None
            and s.disconnected_at is not None
            and now >= self.away_since(s) + self.grace
        ]

    def to_substitute(self, seats: Sequence[Seat | None]) -> list[Seat]:
        """A game running: the seats away for the grace period the host does not yet play."""
        now = self.now()
        return [
            s
            for s in seats
            if s is not None
            and s.disconnected_at is not None
            and not s.substitute
            and now >= s.disconnected_at + self.grace
        ]

    def touch(self) -> None:
        """A seat was taken or given up."""
        self.touched = self.now()

    def untouched_for(self, seconds: float) -> bool:
        """Whether no seat changed for ``seconds``."""
        return self.now() - self.touched >= seconds

    def seat_summaries(self, seats: Sequence[Seat | None], *, running: bool) -> list[Any]:
        """The seats as ``table_info`` shows them; during a game a player away has
        ``away_ms``, the milliseconds left before the host plays the seat (a countdown)."""
        out: list[Any] = []
        for s in seats:
            summary = None if s is None else s.summary()
            away = s is not None and s.disconnected_at is not None
            if summary is not None and s is not None and away and running and not s.substitute:
                left = (s.disconnected_at or 0.0) + self.grace - self.now()
                summary["away_ms"] = max(0, int(left * 1000))
            out.append(summary)
        return out

    def idle_for(self, seconds: float) -> bool:
        """Whether no game has run for ``seconds`` (as far as the timer task has seen)."""
        return self.idle_since is not None and self.now() - self.idle_since >= seconds
