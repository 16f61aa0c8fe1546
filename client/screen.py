"""A table screen that holds still: a status block at the bottom, lines scrolling above it.

How it works: a :class:`Screen` draws, at the bottom of a terminal, a *block*: the status the
front end gives it (the table, whose turn, the hand and the moves: :mod:`client.status`) and
under it one input line (a prompt and what the player is typing). A line logged while the block
is up (an event, a chat line, a verdict) is written where the block began, and the block is
drawn again under it: the cursor goes back up over the block (``ESC [ n A``), everything below
is erased (``ESC [ J``), the new lines and the block follow. So the screen grows by exactly the
lines logged, the terminal's own scrollback keeps them, and the block never scrolls away. Every
line is wrapped between words to one column less than the terminal's width before it is
written (rich), so the screen knows how many rows the block takes; a block taller than the
terminal loses its top rows, the input line always kept.

Input is read key by key (the terminal in cbreak mode: no echo, no line editing by the
terminal, Ctrl-C still a signal), so the line being typed survives every redraw; Enter hands it
to the front end. The keys: printable characters, Backspace, Ctrl-U (clear), Ctrl-W (delete a
word), Ctrl-L (draw again), Ctrl-D (the end of input on an empty line); other control keys and
escape sequences (arrows) are ignored. While :attr:`Screen.ticking` is set (a turn timer runs)
the block is drawn again every second, so its countdowns move; a resized terminal is cleared
and drawn afresh.

Only for a terminal in colour: pipes, ``--ascii`` and ``NO_COLOR`` keep plain lines
(:func:`wanted`); nothing here knows a rule or a game.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import trio
from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.text import Text

try:  # POSIX terminals; elsewhere the screen is never wanted
    import termios
    import tty
except ImportError:  # pragma: no cover
    termios = None  # type: ignore[assignment]

__all__ = ["MAX_LINE", "Screen", "wanted"]

#: the longest line the input keeps (a chat line is at most 500 characters)
MAX_LINE = 500
#: how a string is printed: as it is (host text in it never styles the terminal)
_PLAIN: dict[str, Any] = {"markup": False, "emoji": False, "highlight": False}
_UP, _ERASE_DOWN, _CLEAR = "\x1b[{}A", "\x1b[J", "\x1b[2J\x1b[H"

Deliver = Callable[[str | None], Awaitable[None]]


def wanted(console: Console, *, ascii_only: bool) -> bool:
    """Whether to draw a :class:`Screen`: stdin and stdout are one terminal in colour (not
    ``NO_COLOR``, not ``--ascii``, not a dumb terminal)."""
    if ascii_only or os.environ.get("NO_COLOR") or not console.is_terminal:
        return False
    if os.environ.get("TERM", "") in ("", "dumb") or console.color_system is None:
        return False
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, ValueError, OSError):
        return False


class Screen:
    """The status block and the input line; see the module docstring.

    Args:
        console: the console whose file is the terminal (lines are rendered with it).
        status: called at each drawing for the block's status (None: no status yet).
        fd: the terminal's input.
    """

    def __init__(
        self, console: Console, status: Callable[[], RenderableType | None], *, fd: int = 0
    ) -> None:
        self.console = console
        self.status = status
        self.fd = fd
        self.prompt = "> "
        self.buffer = ""  #: the line being typed
        self.ticking = False  #: a countdown runs: draw again every second
        self.is_open = False
        self.reading = False  #: :meth:`read_lines` runs (the screen may open again)
        self._rows = 0  #: rows from the top of the block drawn to the cursor's row
        self._saved: Any = None  #: the terminal's modes before cbreak
        self._size = (0, 0)
        self._typing = 1  #: rows of the input (a long question takes more than one)

    # ------------------------------------------------------------------ drawing

    def size(self) -> tuple[int, int]:
        """The terminal's columns and rows (80 x 24 when it cannot say)."""
        try:
            size = os.get_terminal_size(self.console.file.fileno())
        except (AttributeError, ValueError, OSError):
            return 80, 24
        return max(20, size.columns), max(5, size.lines)

    def lines(self, renderable: RenderableType, width: int) -> list[str]:
        """``renderable`` as terminal lines (styles included) of at most ``width`` columns,
        broken between words."""
        with self.console.capture() as captured:
            self.console.print(renderable, width=width, soft_wrap=False, **_PLAIN)
        text = captured.get()
        return text[:-1].split("\n") if text.endswith("\n") else text.split("\n")

    def _input_rows(self, width: int) -> list[str]:
        """The prompt and the typed line in rows of ``width``: a long question is broken
        between words, and the typed line keeps its end when it is too long for the last row.

        >>> screen = Screen(Console(width=20), lambda: None)
        >>> screen.prompt, screen.buffer = "Leave the game now? [y/N] ", "y"
        >>> screen._input_rows(16)
        ['Leave the game', 'now? [y/N] y']
        """
        prompt, rows = self.prompt, []
        if cell_len(prompt) > width - min(10, width // 2):  # too long to type after
            rows = [row.rstrip() for row in self.lines(Text(prompt.rstrip()), width)]
            prompt = rows.pop() + " "
        room = max(1, width - cell_len(prompt))
        typed = self.buffer if len(self.buffer) <= room else "…" + self.buffer[-(room - 1) :]
        return [*rows, prompt + typed]

    def _write(self, text: str) -> None:
        file = self.console.file
        file.write(text)
        file.flush()

    def draw(self, logged: list[RenderableType] | tuple[RenderableType, ...] = ()) -> None:
        """Draw the block again, with ``logged`` written above it (see the module
        docstring); draws nothing, and prints ``logged`` plainly, when the screen is closed."""
        if not self.is_open:
            for item in logged:
                self.console.print(item, soft_wrap=False, **_PLAIN)
            return
        width, height = self.size()
        if (width, height) != self._size:
            if self._size != (0, 0):
                self._write(_CLEAR)  # rows drawn for another width no longer add up
                self._rows = 0
            self._size = (width, height)
        out = ["\r", _UP.format(self._rows) if self._rows else "", _ERASE_DOWN]
        for item in logged:
            out += [line + "\r\n" for line in self.lines(item, width - 1)]
        status = self.status()
        block = [] if status is None else self.lines(status, width - 1)
        typing = self._input_rows(width - 1)
        room = height - 1 - len(typing)  # (one row is kept to log into)
        if len(block) > room:  # keep the end: the hand, the moves, whose turn it is
            block = ["…", *block[len(block) - room + 1 :]] if room > 1 else []
        block += typing
        out.append("\r\n".join(block))
        self._rows, self._typing = len(block) - 1, len(typing)
        self._write("".join(out))

    def log(self, *items: RenderableType) -> None:
        """Write lines above the block (plain lines while the screen is closed)."""
        self.draw(items)

    def ask(self, prompt: str) -> None:
        """Show ``prompt`` on the input line (what is typed stays)."""
        self.prompt = prompt
        self.draw()

    # ------------------------------------------------------------------ the terminal

    def open(self) -> None:
        """Take the terminal: cbreak mode, and the block drawn."""
        if self.is_open:
            return
        if termios is not None:
            with contextlib.suppress(termios.error, OSError):
                self._saved = termios.tcgetattr(self.fd)
                tty.setcbreak(self.fd, termios.TCSANOW)  # (TCSAFLUSH drops typed-ahead keys)
        self.is_open = True
        self._size = self.size()
        self.draw()

    def close(self, *, keep: bool = True) -> None:
        """Give the terminal back: the block stays as last drawn without the input line (or,
        not ``keep``, goes entirely), the cursor under it, the terminal's modes restored."""
        if not self.is_open:
            return
        self.is_open = False
        up = self._rows if not keep else self._typing - 1
        self._write("\r" + (_UP.format(up) if up > 0 else "") + _ERASE_DOWN)
        if self._saved is not None and termios is not None:
            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None
        self._rows = 0

    async def read_lines(self, deliver: Deliver) -> None:
        """Open the screen, hand every line typed to ``deliver`` (None at the end of input),
        then close it (also when cancelled)."""
        self.open()
        self.reading = True
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._tick)
                await self._keys(deliver)
                nursery.cancel_scope.cancel()
        finally:
            self.reading = False
            self.close()

    async def _tick(self) -> None:
        while True:
            await trio.sleep(1)
            if self.ticking or self.size() != self._size:
                self.draw()

    async def _keys(self, deliver: Deliver) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        escape = ""  # an escape sequence being skipped
        while True:
            await trio.lowlevel.wait_readable(self.fd)
            data = os.read(self.fd, 1024)
            if not data:
                await deliver(None)
                return
            for key in decoder.decode(data):
                if escape or key == "\x1b":
                    escape += key
                    if len(escape) > 1 and (escape[-1].isalpha() or escape[-1] == "~"):
                        escape = ""  # (ESC [ A, ESC O P, ESC [ 3 ~ ...)
                    continue
                line = self.key(key)
                if line == _EOF:  # (reading goes on: the front end may ask before leaving)
                    await deliver(None)
                elif line is not None:
                    await deliver(line)

    def key(self, key: str) -> str | None:
        """Take one key: the line when it ends one, :data:`_EOF` at the end of input (Ctrl-D on
        an empty line), else None."""
        if key in ("\r", "\n"):
            line, self.buffer = self.buffer, ""
            self.draw()
            return line
        if key == "\x04":
            return _EOF if not self.buffer else None
        if key in ("\x7f", "\x08"):
            self.buffer = self.buffer[:-1]
        elif key == "\x15":
            self.buffer = ""
        elif key == "\x17":
            self.buffer = self.buffer.rstrip().rpartition(" ")[0] + (
                " " if " " in self.buffer.rstrip() else ""
            )
        elif key == "\x0c":
            self._write(_CLEAR)
            self._rows = 0
        elif key.isprintable() and len(self.buffer) < MAX_LINE:
            self.buffer += key
        else:
            return None
        self.draw()
        return None


_EOF = "\x04"
"""What :meth:`Screen.key` gives for the end of input (a line never holds it)."""
