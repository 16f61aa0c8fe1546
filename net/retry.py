"""Pauses between tries: the one retry schedule the clients and bots share.

How it works: a :class:`Backoff` is a fixed, finite list of pauses (seconds), growing from
``first`` by ``factor`` up to ``cap``, ``tries`` long; :meth:`Backoff.pauses` yields them, after
an optional first pause a host asked for (``server_closing.retry_after``). Callers sleep each
pause before their next try and give up when the list ends: a schedule is data, so a test can
read it and a caller cannot spin.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["AFTER_SHUTDOWN", "KEEP_SEAT", "RATE_LIMITED", "RECONNECT", "Backoff"]


@dataclass(frozen=True, slots=True)
class Backoff:
    """``tries`` pauses: ``first``, then each ``factor`` times the last, at most ``cap``."""

    first: float
    factor: float
    cap: float
    tries: int

    def pauses(self, *, asked: float | None = None) -> Iterator[float]:
        """The pauses in order; ``asked`` (a host's ``retry_after``) comes first if given.

        >>> list(Backoff(0.2, 2.0, 1.0, 4).pauses())
        [0.2, 0.4, 0.8, 1.0]
        >>> list(Backoff(1.0, 1.0, 1.0, 2).pauses(asked=5))
        [5.0, 1.0, 1.0]
        """
        if asked is not None:
            yield float(asked)
        pause = self.first
        for _ in range(self.tries):
            yield min(pause, self.cap)
            pause *= self.factor


#: a request the host refused as ``rate_limited`` ("slow down"): resent after each pause
RATE_LIMITED = Backoff(first=0.2, factor=2.5, cap=2.0, tries=4)
#: a connection that dropped: the client or bot reconnects (and resumes) after each pause
RECONNECT = Backoff(first=0.2, factor=2.0, cap=5.0, tries=12)
#: a player's dropped connection: the table client keeps trying for about a quarter of an
#: hour (a seat is held as long as a game runs), until the host says the seat is gone
KEEP_SEAT = Backoff(first=0.2, factor=2.0, cap=5.0, tries=180)
#: a host that announced its shutdown (``server_closing`` with ``retry_after``): after the
#: pause it asked for, a few tries only; it is not a dropped line to wait out
AFTER_SHUTDOWN = Backoff(first=2.0, factor=2.0, cap=5.0, tries=3)
