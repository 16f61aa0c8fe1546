"""Reading the user's lines from stdin without blocking trio: the one reader every command uses.

How it works: ``sys.stdin.readline`` blocks, so it runs in a worker thread
(``trio.to_thread.run_sync``) that is abandoned when the waiting task is cancelled (the thread
finishes its read on its own; nothing waits for it). :func:`read_line` returns one line without
its line ending, or None at the end of input; :func:`read_lines` feeds every line, then None
at the end, to a callback, for loops that take input alongside the host's pushes.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable

import trio

__all__ = ["read_line", "read_lines"]


async def read_line() -> str | None:
    """The next line from stdin without its line ending; None at the end of input (Ctrl-D)."""
    line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
    return line.rstrip("\r\n") if line else None


async def read_lines(deliver: Callable[[str | None], Awaitable[None]]) -> None:
    """Hand every line to ``deliver``, then None at the end of input, then return."""
    while True:
        line = await read_line()
        await deliver(line)
        if line is None:
            return
