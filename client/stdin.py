"""Reading the user's lines from stdin without blocking trio: the one reader every command uses.

How it works: ``sys.stdin.readline`` blocks, so it runs in a daemon thread of its own. The line
it reads is kept until someone takes it: :func:`read_line` waits for the read in flight (a
waiting task that is cancelled leaves the read running, and the next :func:`read_line` takes
its line), so a line typed while one reader gives way to the next (the lobby to a table and
back) is never lost to an abandoned read. :func:`read_line` returns one line without its line
ending, or None at the end of input; :func:`read_lines` feeds every line, then None at the end,
to a callback, for loops that take input alongside the host's pushes.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future

import trio

__all__ = ["read_line", "read_lines"]

#: the read in flight, whose line nobody has taken yet, by the stdin it reads (one at most)
_pending: dict[str, tuple[object, Future[str]]] = {}


def _start_read() -> Future[str]:
    future: Future[str] = Future()
    stdin = sys.stdin

    def read() -> None:
        try:
            future.set_result(stdin.readline())
        except (OSError, ValueError) as exc:  # a closed or unreadable stdin: its end
            future.set_exception(exc)

    threading.Thread(target=read, name="onecard-stdin", daemon=True).start()
    return future


async def read_line() -> str | None:
    """The next line from stdin without its line ending; None at the end of input (Ctrl-D)."""
    held = _pending.get("read")
    if held is None or held[0] is not sys.stdin:  # (a test may replace stdin)
        held = _pending["read"] = (sys.stdin, _start_read())
    future = held[1]
    try:
        line = await trio.to_thread.run_sync(future.result, abandon_on_cancel=True)
    except (OSError, ValueError):
        line = ""
    _pending.pop("read", None)
    return line.rstrip("\r\n") if line else None


async def read_lines(deliver: Callable[[str | None], Awaitable[None]]) -> None:
    """Hand every line to ``deliver``, then None at the end of input, then return."""
    while True:
        line = await read_line()
        await deliver(line)
        if line is None:
            return
