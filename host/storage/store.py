"""Durable host state in sqlite: tables, seats and each table's journal.

How it works: every table is event-sourced. Its *journal* is an append-only list of rows
``(table_id, seq, kind, seat, payload)``; ``payload`` is msgpack; when a game starts, the rows
of the games before the previous one are deleted (:mod:`host.storage.compaction`). Kinds (see
:class:`host.storage.journal.JournalKind`) are the chance outcomes and accepted actions a
restarted host replays into a fresh engine, the fair-dealing secrets it must still be able to
reveal, and the messages it sent (public, or private to one seat), which a resuming client
receives again after its last seq. The table code appends a batch in one transaction and only
then sends it: commit before broadcast.

sqlite runs in WAL mode with ``synchronous=FULL`` (each commit syncs the WAL, so a commit that
returned survives a power cut) on one connection used from one worker thread at a time:
every call goes through ``trio.to_thread.run_sync`` with a ``CapacityLimiter(1)``.

Each table also keeps a short chat backlog (the last lines said there, pruned as new ones
arrive) so a client that resumes or a spectator who returns sees the recent chat.

Resume tokens are never stored, only their SHA-256.

One host at a time: the server holds the data directory with
:func:`host.storage.datadir.hold_data_dir` for its whole lifetime, so a second host started on the
same directory is refused instead of replaying the same tables and writing the same journal rows.

Private files: the journal's ``open`` rows hold each hand's secret S (with the public reveals,
the whole deck), so the data directory and the ``records`` directory are 0700 and the database
(with its ``-wal`` and ``-shm``, which sqlite creates with the database's mode) and every
record file 0600, tightened at start-up if they were looser (:mod:`host.storage.filemodes`).

Damaged data, at start-up (:meth:`Store.open`, :meth:`Store.load_tables`): a database sqlite
cannot read (``file is not a database``, page corruption found by ``PRAGMA quick_check``), a
``records`` path that is not a directory, and an empty database beside hand records (its
tables were lost: an empty database with no records is a fresh one, started with a warning)
raise :class:`DataDirDamaged`, one line naming the file and what to do; ``onecard host``
exits with status 65 then, since restarting will not help. A journal, settings or seat row
that cannot be decoded (bad msgpack, an unknown ``kind``) damages only its table: the
:class:`TableRow` comes back with ``damaged`` saying which row, and the lobby leaves that
table out while the rest are served; an unreadable chat line is skipped. A record file that
cannot be read raises :class:`host.storage.record_files.RecordUnreadable` (``get_record`` answers
``unavailable``).

Hand records are files beside the database, one per hand (:mod:`host.storage.record_files`:
``Store.records``), written through the same worker thread; a disk that refuses them never
stops a game.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import msgpack
import trio

from host.logs import get_logger
from host.storage.compaction import compact_journal
from host.storage.datadir import DB_FILE, RECORDS_DIR, DataDirDamaged, DataDirError
from host.storage.filemodes import (
    PRIVATE_FILE_MODE,
    make_private_dir,
    tighten,
)
from host.storage.journal import ChatRow, JournalKind, JournalRow, SeatRow, TableRow
from host.storage.record_files import RecordFiles

__all__ = ["Store"]

log = get_logger(__name__)

#: the files sqlite keeps beside the database in WAL mode
DB_SIDE_SUFFIXES = ("-wal", "-shm")
_T = TypeVar("_T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY,
    created INTEGER NOT NULL,
    meta BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    token_hash BLOB,
    bot TEXT,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS chat (
    table_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    line BLOB NOT NULL,
    PRIMARY KEY (table_id, n)
);
CREATE TABLE IF NOT EXISTS journal (
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER,
    payload BLOB NOT NULL,
    PRIMARY KEY (table_id, seq)
);
"""


def _pack(obj: object) -> bytes:
    data = msgpack.packb(obj, use_bin_type=True)
    assert isinstance(data, bytes)
    return data


def _unpack(data: object) -> dict[str, Any]:
    if not isinstance(data, bytes):
        raise TypeError(f"a blob was expected, not {type(data).__name__}")
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise ValueError(f"bad msgpack: {_why(exc)}") from None
    if not isinstance(obj, dict):
        raise TypeError(f"a map was expected, not {type(obj).__name__}")
    return obj


#: what decoding a stored row can raise (msgpack's errors are ValueErrors, or UnpackException)
_DECODE_ERRORS = (ValueError, TypeError, msgpack.UnpackException)


def _why(exc: BaseException) -> str:
    """An exception as a short reason, never empty (msgpack's FormatError has no text)."""
    return str(exc) or type(exc).__name__


def _journal_row(seq: object, kind: object, seat: object, payload: object) -> JournalRow:
    if not isinstance(seq, int):
        raise TypeError(f"seq {seq!r} is not a number")
    if not isinstance(kind, str):
        raise TypeError(f"kind {kind!r} is not a string")
    if seat is not None and not isinstance(seat, int):
        raise TypeError(f"seat {seat!r} is not a number")
    return JournalRow(seq, JournalKind(kind), seat, _unpack(payload))


def _table_row(table_id: str, created: int, meta: object) -> TableRow:
    row = TableRow(table_id, created, {})
    try:
        row.meta = _unpack(meta)
    except _DECODE_ERRORS as exc:
        row.damaged = f"its settings row is unreadable ({_why(exc)})"
    return row


def _add_seat(row: TableRow, seat: object, name: object, token: object, bot: object) -> None:
    if (
        isinstance(seat, int)
        and isinstance(name, str)
        and isinstance(token, bytes | None)
        and isinstance(bot, str | None)
    ):
        row.seats.append(SeatRow(seat, name, token, bot))
    else:
        row.damaged = f"the row of seat {seat!r} is unreadable"


def _add_journal(row: TableRow, seq: object, kind: object, seat: object, payload: object) -> None:
    try:
        row.journal.append(_journal_row(seq, kind, seat, payload))
    except _DECODE_ERRORS as exc:
        row.damaged = f"journal row {seq!r} ({kind!r}) is unreadable ({_why(exc)})"


def _add_chat(row: TableRow, n: object, seq: object, line: object) -> None:
    """Add a kept chat line; one that cannot be read is skipped (only the backlog loses it)."""
    try:
        if not isinstance(n, int) or not isinstance(seq, int):
            raise TypeError(f"line {n!r} at seq {seq!r} is not numbered")
        row.chat.append(ChatRow(n, seq, _unpack(line)))
    except _DECODE_ERRORS as exc:
        log.warning("table %s: chat line %r unreadable, skipped (%s)", row.table_id, n, _why(exc))


@dataclass(eq=False)
class _PendingAppend:
    """One caller's journal rows waiting for a group commit (:meth:`Store.append`)."""

    params: list[tuple[str, int, str, int | None, bytes]]
    done: trio.Event = field(default_factory=trio.Event)
    error: Exception | None = None


def _as_exception(exc: BaseException) -> Exception:
    if isinstance(exc, Exception):
        return exc
    return RuntimeError(f"the journal commit was interrupted: {exc!r}")


def _database_error(path: Path, exc: sqlite3.Error) -> DataDirError:
    """The start-up error for a database sqlite refused (one line)."""
    exc = type(exc)(" ".join(str(exc).split()))
    if isinstance(exc, sqlite3.OperationalError):  # cannot open or write: not the content
        return DataDirError(
            f"cannot use the database {path}: {exc}; check that it is a file this user may "
            "read and write, on a disk with room"
        )
    return DataDirDamaged(
        f"the database {path} is damaged ({exc}): restore it from a backup, or move it and "
        f"its -wal and -shm files aside to start with no tables (the hand records stay)"
    )


class Store:
    """The host's sqlite database plus the directory of hand records."""

    def __init__(self, data_dir: Path, *, in_thread: bool = True) -> None:
        """``in_thread=False`` runs sqlite in the trio thread (tests on a mock clock only)."""
        self.data_dir = data_dir
        self.in_thread = in_thread
        self.records_dir = data_dir / RECORDS_DIR
        self.db_path = data_dir / DB_FILE
        self._limiter = trio.CapacityLimiter(1)
        self._db: sqlite3.Connection | None = None
        #: journal appends waiting for the commit in progress (:meth:`append`)
        self._pending: list[_PendingAppend] = []
        self._committing = False
        #: the hand record files (:mod:`host.storage.record_files`), written through the same thread
        self.records = RecordFiles(self.records_dir, self._run)

    # -- lifecycle

    def _open_sync(self) -> None:
        try:
            make_private_dir(self.data_dir, parents=True)
        except OSError as exc:
            raise DataDirError(
                f"cannot use data dir {self.data_dir}: {exc.strerror or exc}"
            ) from None
        self.records.open_dir()
        path = self.db_path
        existed = path.exists()
        sides = [path.with_name(path.name + s) for s in DB_SIDE_SUFFIXES]
        try:
            if not existed:  # made 0600 before sqlite opens it: its -wal and -shm follow
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE_MODE))
        except OSError as exc:
            raise DataDirError(
                f"cannot create the database {path}: {exc.strerror or exc}"
            ) from None
        tighten([path, *sides])
        db: sqlite3.Connection | None = None
        try:
            db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            names = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if existed and not names:
                self._empty_database()
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            if names:  # page corruption shows now, not in the middle of a game
                ((verdict, *_),) = db.execute("PRAGMA quick_check(1)").fetchall()
                if verdict != "ok":  # "*** in database main ***\nPage 8: ...": the last line
                    found = str(verdict).strip().splitlines()[-1]
                    raise sqlite3.DatabaseError(f"quick_check: {found}")
            db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            if db is not None:
                db.close()
            raise _database_error(path, exc) from None
        except BaseException:
            if db is not None:
                db.close()
            raise
        tighten(sides)
        self._db = db

    def _empty_database(self) -> None:
        """The database file existed but holds nothing: fresh, or were its tables lost?

        Hand records beside it say the host served tables from here, so an empty database
        means lost tables (a truncated or replaced file): refuse rather than start over
        silently. With no records it is taken for a fresh one (say, a first start that stopped
        before sqlite wrote anything), with a warning.
        """
        try:
            held = any(self.records_dir.glob("*.json*"))
        except OSError:
            held = False
        if held:
            raise DataDirDamaged(
                f"the database {self.db_path} is empty, but {self.records_dir} holds hand "
                f"records, so the tables it held are lost: restore {DB_FILE} from a backup, or "
                "delete it to start with no tables (the hand records stay)"
            )
        log.warning("%s is empty: starting with no tables", self.db_path)

    async def open(self) -> None:
        """Open (or create) the database and the records directory.

        Raises:
            DataDirDamaged: the database is damaged, empty beside hand records, or the records
                path is not a directory (see the module docstring).
            DataDirError: the directory or database cannot be made, opened or written.
        """
        await self._run(self._open_sync)

    async def close(self) -> None:
        def close_sync() -> None:
            if self._db is not None:
                self._db.close()
                self._db = None

        with trio.CancelScope(shield=True):
            await self.records.close()
            await self._run(close_sync)

    async def _run(self, fn: Callable[[], _T]) -> _T:
        if not self.in_thread:
            await trio.lowlevel.checkpoint()
            return fn()
        return await trio.to_thread.run_sync(fn, limiter=self._limiter)

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("the store is not open")
        return self._db

    # -- writes (each is one transaction)

    async def put_table(self, table_id: str, created: int, meta: dict[str, Any]) -> None:
        def put() -> None:
            with self._conn() as db:
                db.execute("BEGIN")
                db.execute(
                    "INSERT INTO tables(table_id, created, meta) VALUES (?, ?, ?) "
                    "ON CONFLICT(table_id) DO UPDATE SET meta = excluded.meta",
                    (table_id, created, _pack(meta)),
                )

        await self._run(put)

    async def put_seat(self, table_id: str, row: SeatRow) -> None:
        def put() -> None:
            with self._conn() as db:
                db.execute("BEGIN")
                db.execute(
                    "INSERT OR REPLACE INTO seats(table_id, seat, name, token_hash, bot) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (table_id, row.seat, row.name, row.token_hash, row.bot),
                )

        await self._run(put)

    async def delete_seat(self, table_id: str, seat: int) -> None:
        def delete() -> None:
            with self._conn() as db:
                db.execute("BEGIN")
                db.execute("DELETE FROM seats WHERE table_id = ? AND seat = ?", (table_id, seat))

        await self._run(delete)

    async def delete_table(self, table_id: str) -> None:
        """Forget a table, its seats and journal (its hand records stay on disk)."""

        def delete() -> None:
            with self._conn() as db:
                db.execute("BEGIN")
                for name in ("tables", "seats", "journal", "chat"):
                    db.execute(f"DELETE FROM {name} WHERE table_id = ?", (table_id,))

        await self._run(delete)

    async def append(self, table_id: str, rows: Sequence[JournalRow]) -> None:
        """Append journal rows in one committed transaction (durable when this returns).

        Group commit: rows that tables append while a commit is in the worker thread wait
        and then go in together, one transaction and one WAL sync for all of them instead of
        one each (with hundreds of tables, syncs queued one behind another were most of a
        move's wait). If that shared transaction fails, each table's rows are committed in
        their own, so one table's bad rows never fail another's.
        """
        if not rows:
            return
        params = [(table_id, r.seq, r.kind.value, r.seat, _pack(r.payload)) for r in rows]
        mine = _PendingAppend(params)
        self._pending.append(mine)
        # a cancelled caller must not leave a half-known state: finish the commit
        with trio.CancelScope(shield=True):
            if self._committing:
                await mine.done.wait()
            else:
                self._committing = True
                try:
                    while self._pending:
                        group, self._pending = self._pending, []
                        await self._commit_group(group)
                finally:
                    self._committing = False
        if mine.error is not None:
            raise mine.error
        starts = [r.seq for r in rows if r.kind is JournalKind.GAME]
        if starts and not self.records.unwritten_for(table_id):  # host.storage.compaction
            try:
                await self._run(lambda: compact_journal(self._conn(), table_id, starts[0]))
            except (OSError, sqlite3.Error) as exc:  # the journal is only longer: go on
                log.warning("table %s: cannot compact the journal: %s", table_id, exc)

    async def _commit_group(self, group: list[_PendingAppend]) -> None:
        def commit(parts: list[_PendingAppend]) -> None:
            with self._conn() as db:
                db.execute("BEGIN")
                for part in parts:
                    db.executemany(
                        "INSERT INTO journal(table_id, seq, kind, seat, payload) "
                        "VALUES (?,?,?,?,?)",
                        part.params,
                    )

        def commit_all() -> None:
            try:
                commit(group)
            except sqlite3.Error:
                if len(group) == 1:
                    raise
                for part in group:  # one at a time: only the part at fault fails
                    try:
                        commit([part])
                    except sqlite3.Error as exc:
                        part.error = exc

        try:
            await self._run(commit_all)
        except BaseException as exc:
            for part in group:
                part.error = part.error or _as_exception(exc)
            if not isinstance(exc, Exception):
                raise
        finally:
            for part in group:
                part.done.set()

    async def append_chat(self, table_id: str, rows: Sequence[ChatRow], *, keep: int) -> None:
        """Add chat lines (in one transaction) and forget the table's lines older than the last
        ``keep``."""
        if keep < 1:
            raise ValueError(f"keep at least one chat line, not {keep}")
        if not rows:
            return
        params = [(table_id, row.n, row.seq, _pack(row.line)) for row in rows]
        newest = max(row.n for row in rows)

        def append() -> None:
            with self._conn() as db:
                db.execute("BEGIN")
                db.executemany(
                    "INSERT INTO chat(table_id, n, seq, line) VALUES (?, ?, ?, ?)", params
                )
                db.execute(
                    "DELETE FROM chat WHERE table_id = ? AND n <= ?", (table_id, newest - keep)
                )

        with trio.CancelScope(shield=True):
            await self._run(append)

    # -- reads

    async def load_tables(self, only: str | None = None) -> list[TableRow]:
        """Every table (or just table ``only``) with its seats and whole journal, by creation.

        A table with a row that cannot be decoded comes back with ``damaged`` set (and its
        rows up to that one); see the module docstring.

        Raises:
            DataDirDamaged, DataDirError: sqlite cannot read the database.
        """
        # the WHERE clause is one of two constant strings; values are bound parameters
        where, args = ("", ()) if only is None else (" WHERE table_id = ?", (only,))

        def load() -> list[TableRow]:
            db = self._conn()
            tables: dict[str, TableRow] = {}
            for table_id, created, meta in db.execute(
                f"SELECT table_id, created, meta FROM tables{where} ORDER BY created, table_id",
                args,
            ):
                tables[table_id] = _table_row(table_id, created, meta)

            def usable(table_id: str) -> TableRow | None:
                found = tables.get(table_id)
                return None if found is None or found.damaged else found

            for table_id, *seat in db.execute(
                f"SELECT table_id, seat, name, token_hash, bot FROM seats{where} ORDER BY seat",
                args,
            ):
                if (found := usable(table_id)) is not None:
                    _add_seat(found, *seat)
            for table_id, *journal in db.execute(
                "SELECT table_id, seq, kind, seat, payload FROM journal"
                f"{where} ORDER BY table_id, seq",
                args,
            ):
                if (found := usable(table_id)) is not None:
                    _add_journal(found, *journal)
            for table_id, *chat in db.execute(
                f"SELECT table_id, n, seq, line FROM chat{where} ORDER BY table_id, n", args
            ):
                if (found := usable(table_id)) is not None:
                    _add_chat(found, *chat)
            return list(tables.values())

        try:
            return await self._run(load)
        except sqlite3.Error as exc:
            raise _database_error(self.db_path, exc) from None

    async def messages_after(
        self, table_id: str, after_seq: int, seat: int | None
    ) -> list[JournalRow]:
        """The messages of ``table_id`` after ``after_seq`` that ``seat`` may see, in order."""

        def load() -> list[JournalRow]:
            rows = self._conn().execute(
                "SELECT seq, seat, payload FROM journal WHERE table_id = ? AND seq > ? "
                "AND kind = ? AND (seat IS NULL OR seat = ?) ORDER BY seq",
                (table_id, after_seq, JournalKind.MESSAGE.value, -1 if seat is None else seat),
            )
            return [JournalRow(s, JournalKind.MESSAGE, st, _unpack(p)) for s, st, p in rows]

        return await self._run(load)
