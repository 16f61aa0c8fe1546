"""The turn timer as the terminal shows it: seconds left, and when plain lines remind.

How it works: each ``state`` push carries ``turn_ms``, the milliseconds left on the turn timer
(nil without one). :meth:`TurnClock.start` notes when it runs out (monotonic time), so the
table screen can count down every second (:meth:`TurnClock.left`). Plain lines (pipes,
``--ascii``, ``NO_COLOR``) cannot redraw a prompt, so the time left is said again when it passes
each of :data:`REMIND_AT` (:meth:`TurnClock.reminder`), once per turn and only for marks the
turn started above.
"""

from __future__ import annotations

import time

__all__ = ["REMIND_AT", "TurnClock"]

#: seconds left at which plain lines say the time left again
REMIND_AT = (60, 30, 10)


class TurnClock:
    """The turn timer of the last ``state`` (see the module docstring).

    >>> clock = TurnClock()
    >>> clock.left() is None
    True
    >>> _ = clock.start(45_000, now=100.0)
    >>> clock.left(now=110.0)
    35.0
    >>> clock.reminder(now=114.0), clock.reminder(now=116.0), clock.reminder(now=117.0)
    (None, 30, None)
    >>> clock.reminder(now=136.0), clock.reminder(now=150.0)
    (10, None)
    """

    def __init__(self) -> None:
        self._until: float | None = None
        self._said: set[int] = set()  #: marks already reminded of (or above the start)

    def start(self, turn_ms: int | None, *, now: float | None = None) -> bool:
        """A new ``state``: its timer (None: no timer runs). Whether it says another time left
        than the timer running did, by more than the 2 s a message may take (a resumed turn:
        the host's clock ran meanwhile), so the player is told again.

        >>> clock = TurnClock()
        >>> clock.start(119_000, now=0.0), clock.start(63_000, now=1.0)
        (True, True)
        >>> clock.start(62_500, now=1.5), clock.start(None)
        (False, False)
        """
        now = time.monotonic() if now is None else now
        before = self.left(now=now)
        if turn_ms is None:
            self._until = None
            return False
        self._until = now + turn_ms / 1000
        self._said = {m for m in REMIND_AT if m >= turn_ms / 1000 - 1}
        return before is None or abs(before - turn_ms / 1000) > 2

    def stop(self) -> None:
        self._until = None

    def left(self, *, now: float | None = None) -> float | None:
        """Seconds left, or None when no timer runs."""
        if self._until is None:
            return None
        return max(0.0, self._until - (time.monotonic() if now is None else now))

    def reminder(self, *, now: float | None = None) -> int | None:
        """The mark just passed, once (None: nothing to say now)."""
        left = self.left(now=now)
        due = [m for m in REMIND_AT if left is not None and 0 < left <= m and m not in self._said]
        self._said.update(due)
        return min(due) if due else None
