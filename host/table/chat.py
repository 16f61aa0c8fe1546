"""A table's chat: lines said, a short backlog kept, and the whole table's rate limit.

How it works: a :class:`ChatLog` numbers the lines said at one table (``n`` 1, 2, 3, ...),
keeps the last ``CHAT_BACKLOG`` of them in memory (and, through :meth:`ChatLog.save`, in the
store) for clients that resume and spectators who come back, and takes at most
``TABLE_CHAT_PER_SECOND`` lines a second from all the table's members together (every line goes
to every member, so fifty chatty connections must not slow the moves). Chat is not journaled:
a line is delivered at once and written to the store after, outside the table lock; lines said
while one write is under way are written together by the next, in one transaction.
"""

from __future__ import annotations

from collections import deque

from host.games.base import WireMap
from host.logs import get_logger
from host.ratelimit import TokenBucket
from host.storage.journal import ChatRow
from host.storage.store import Store
from host.table.seats import TableError
from protocol.errors import ErrorCode
from protocol.framing import Outgoing

__all__ = ["CHAT_BACKLOG", "TABLE_CHAT_BURST", "TABLE_CHAT_PER_SECOND", "ChatLog"]

log = get_logger(__name__)

#: chat lines a table keeps (in the store too) for clients that resume and spectators who return
CHAT_BACKLOG = 50
#: chat lines per second a whole table takes on average, and the burst
TABLE_CHAT_PER_SECOND = 4.0
TABLE_CHAT_BURST = 10.0


class ChatLog:
    """The chat of one table; see the module docstring."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        #: the last CHAT_BACKLOG lines, oldest first
        self.lines: deque[ChatRow] = deque(maxlen=CHAT_BACKLOG)
        self._rate = TokenBucket(TABLE_CHAT_PER_SECOND, TABLE_CHAT_BURST)
        self._unsaved: list[ChatRow] = []
        self._saving = False

    def say(self, *, seat: int | None, name: str, text: str, seq: int) -> WireMap:
        """Number and keep a line said at table seq ``seq``; the ``chat_line`` to deliver.

        Raises:
            TableError: ``rate_limited``: the table's chat is over its rate.
        """
        if not self._rate.take():
            raise TableError("the table's chat is busy: wait a moment", code=ErrorCode.RATE_LIMITED)
        n = self.lines[-1].n + 1 if self.lines else 1
        msg: WireMap = Outgoing(
            type="chat_line", table=self.table_id, seat=seat, name=name, text=text, n=n
        )
        line = ChatRow(n, seq, msg)
        self.lines.append(line)
        self._unsaved.append(line)
        return msg

    async def save(self, store: Store) -> None:
        """Write the lines not yet stored; a write under way takes later lines in its next
        transaction, so concurrent callers return at once. A failed write loses the lines
        from the kept backlog only (they were said), and is logged."""
        if self._saving:
            return
        self._saving = True
        try:
            while self._unsaved:
                rows, self._unsaved = self._unsaved, []
                try:
                    await store.append_chat(self.table_id, rows, keep=CHAT_BACKLOG)
                except Exception:
                    log.exception(
                        "table %s: chat lines %d-%d not kept", self.table_id, rows[0].n, rows[-1].n
                    )
        finally:
            self._saving = False

    def backlog(self, since_seq: int = 0) -> list[WireMap]:
        """The kept lines said at table seq ``since_seq`` or later, oldest first.

        A client that last received seq S may have missed lines said at S (chat does not move
        the seq), so those are sent again: a repeated line rather than a lost one."""
        return [dict(c.line) for c in self.lines if c.seq >= since_seq]
