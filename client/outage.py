"""What the table screen says while the connection to the host is down.

How it works: the table loop tells the front end ``disconnected`` when the connection ends and
``reconnecting`` before each try (with the seconds until it). An :class:`Outage` keeps the last
of these lines and when the next try is due; :meth:`Outage.line` words it for the screen's
block, the seconds to the next try counted down, so the block no longer shows a live turn with
its timer running while nobody can play. Plain lines (no screen) say the first try and then
every :data:`PLAIN_EVERY`-th, not one line every few seconds.
"""

from __future__ import annotations

import re
import time

__all__ = ["PLAIN_EVERY", "Outage"]

#: plain lines say every this many reconnecting tries (the table screen counts each down)
PLAIN_EVERY = 12
#: the countdown in a ``reconnecting`` line
_COUNTDOWN = re.compile(r"trying again in \d+ s")


class Outage:
    """The connection's state as the front end shows it (see the module docstring).

    >>> outage = Outage()
    >>> outage.line() is None
    True
    >>> outage.lost("connection lost (reset); reconnecting")
    >>> outage.line()
    'connection lost (reset); reconnecting'
    >>> outage.retrying("trying again in 0 s (try 1)", wait=0.0, attempt=1)
    True
    >>> outage.line()
    'trying again in 0 s (try 1)'
    >>> outage.retrying("trying again in 5 s (try 2)", wait=5.0, attempt=2)
    False
    >>> outage.back()
    >>> outage.down
    False
    """

    def __init__(self) -> None:
        self._text: str | None = None
        self._due: float | None = None  #: when the next try is (monotonic)

    @property
    def down(self) -> bool:
        return self._text is not None

    def lost(self, text: str) -> None:
        """The connection ended (``text`` says why and what happens now)."""
        self._text, self._due = text, None

    def retrying(self, text: str, *, wait: float, attempt: int) -> bool:
        """A try comes in ``wait`` seconds; whether a plain line should say so."""
        self._text, self._due = text, time.monotonic() + wait
        return attempt == 1 or attempt % PLAIN_EVERY == 0

    def back(self) -> None:
        """Connected again."""
        self._text = self._due = None

    def line(self) -> str | None:
        """What to show instead of whose turn it is, or None while connected."""
        if self._text is None or self._due is None:
            return self._text
        left = max(0, round(self._due - time.monotonic()))
        return _COUNTDOWN.sub(f"trying again in {left} s", self._text, count=1)
