"""Compacting a table's journal: the rows of games before the previous one are deleted.

How it works: a restarted host replays only a table's last game (from its ``game`` row,
:meth:`host.table.runner.GameRunner.replay`); older rows serve only to rebuild hand records the disk
lost, and a resuming client's backlog. So when a game starts (its ``game`` row committed),
:func:`compact_journal` deletes the table's rows older than the previous game's ``game`` row:
a table's journal holds at most two games however many it has played (about 270 rows a game),
and a restart replays the same rows after 145 games as after 2. :class:`host.storage.store.Store`
runs it after the commit, in its own transaction, and never while hand records of the table wait
in memory for the disk (the journal is what rebuilds them).
"""

from __future__ import annotations

import sqlite3

__all__ = ["compact_journal"]


def compact_journal(db: sqlite3.Connection, table_id: str, game_seq: int) -> int:
    """Delete ``table_id``'s rows before the ``game`` row preceding the one at ``game_seq``;
    return how many went (one transaction)."""
    with db:
        db.execute("BEGIN")
        (previous,) = db.execute(
            "SELECT max(seq) FROM journal WHERE table_id = ? AND kind = 'game' AND seq < ?",
            (table_id, game_seq),
        ).fetchone()
        if previous is None:
            return 0
        cursor = db.execute(
            "DELETE FROM journal WHERE table_id = ? AND seq < ?", (table_id, previous)
        )
        return cursor.rowcount
