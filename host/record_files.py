"""Hand records: one JSON file per hand, written whole, and kept in memory while the disk refuses.

How it works: :class:`RecordFiles` owns the ``records`` directory of the data directory. A
record is written to a synced temporary file renamed over its path (mode 0600), so a reader
never sees half a record. :meth:`RecordFiles.keep_record` never raises for a write the disk
refuses (``ENOSPC``, ``EIO``, ...): the record's text stays in memory, where
:meth:`RecordFiles.load_record` and :meth:`RecordFiles.list_records` find it (so a client
that asks after ``hand_end`` gets it all the same), and is written by the next
:meth:`RecordFiles.keep_record` or by :meth:`RecordFiles.retry_records`, a task that retries
with backoff from ``RECORD_RETRY_FIRST`` up to ``RECORD_RETRY_MAX`` seconds. One WARNING says
when the disk starts refusing and one when it takes the records again. Nothing is lost if the
host stops first: every record is rebuilt from the journal, which holds the hand's inputs, by
the next start (:func:`host.table_restore.finish_restore`); that is also what becomes of the
oldest records should more than ``MAX_UNWRITTEN_BYTES`` wait in memory (they are dropped from
it, logged). File work runs through the store's one worker thread (the ``run`` it is given).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any, Protocol, TypeVar

import trio

from host.datadir import DataDirDamaged, DataDirError
from host.filemodes import PRIVATE_FILE_MODE, make_private_dir, tighten
from host.logs import get_logger
from protocol.records import dump_record

__all__ = [
    "MAX_UNWRITTEN_BYTES",
    "RECORD_RETRY_FIRST",
    "RECORD_RETRY_MAX",
    "RecordFiles",
    "RecordUnreadable",
]

log = get_logger(__name__)

_T = TypeVar("_T")


class Runner(Protocol):
    """How the store runs a blocking function (:meth:`host.store.Store.run`)."""

    async def __call__(self, fn: Callable[[], _T], /) -> _T: ...


#: seconds before the first retry of hand records the disk refused
RECORD_RETRY_FIRST = 1.0
#: the longest wait between two retries (the wait doubles after each refusal)
RECORD_RETRY_MAX = 60.0
#: bytes of hand records kept in memory for a disk that refuses them; past this the oldest are
#: dropped from memory (the next start rebuilds them from the journal)
MAX_UNWRITTEN_BYTES = 32 * 1024 * 1024


class RecordUnreadable(Exception):
    """A hand record file exists but cannot be read (damaged, or not a record)."""


def _write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole (a synced temporary file renamed over it), mode 0600."""
    tmp = path.with_suffix(".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
        with os.fdopen(fd, "wb") as fh:  # bytes: no newline translation on Windows
            if sys.platform != "win32":
                os.fchmod(fh.fileno(), PRIVATE_FILE_MODE)  # a stale .tmp kept its old mode
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


def _read_record(path: Path, data: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise RecordUnreadable(f"{path} is not a hand record: not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise RecordUnreadable(f"{path} is not a hand record: its top level is not an object")
    return obj


class RecordFiles:
    """The directory of hand records, with the records the disk refused kept in memory."""

    def __init__(self, records_dir: Path, run: Runner) -> None:
        """``run`` runs a blocking function where the store runs its own (a worker thread)."""
        self.records_dir = records_dir
        self._run = run
        #: hand records the disk refused, by path: served from here, retried until written
        self._unwritten: dict[Path, bytes] = {}
        #: the disk refused the last record write (one WARNING until it takes one again)
        self._refusing = False
        self._flush_lock = trio.Lock()
        #: set when records are left unwritten (wakes :meth:`retry_records`)
        self._records_due = trio.Event()

    def open_dir(self) -> None:
        """Make the records directory (0700) and tighten its files (run in the store's thread)."""
        records = self.records_dir
        if (records.exists() or records.is_symlink()) and not records.is_dir():
            raise DataDirDamaged(
                f"{records} is not a directory: the host keeps its hand records there; move "
                "it aside (an empty directory is made at the next start)"
            )
        try:
            make_private_dir(records)
            tighten(sorted(p for p in records.iterdir() if p.is_file()))
        except OSError as exc:
            raise DataDirError(f"cannot use {records}: {exc.strerror or exc}") from None

    async def close(self) -> None:
        """Write what waits in memory, or say which records the next start rebuilds."""
        if self._unwritten and not await self.flush_records():
            log.error(
                "%d hand record(s) never reached the disk (%s); the next start rebuilds "
                "them from the journal",
                len(self._unwritten),
                ", ".join(p.name for p in self._unwritten),
            )

    def record_path(self, table_id: str, hand_no: int) -> Path:
        safe = "".join(ch for ch in table_id if ch.isalnum() or ch in "-_")
        return self.records_dir / f"{safe}-hand{hand_no:04d}.json"

    async def save_record(self, table_id: str, hand_no: int, record: dict[str, Any]) -> Path:
        """Write a hand record now (mode 0600); OSError if the disk refuses.

        The host itself uses :meth:`keep_record`, which never raises for the disk.
        """
        path = self.record_path(table_id, hand_no)
        data = dump_record(record).encode("utf-8")  # what get_record serves, byte for byte

        with trio.CancelScope(shield=True):
            await self._run(functools.partial(_write_file, path, data))
        return path

    async def keep_record(self, table_id: str, hand_no: int, record: dict[str, Any]) -> bool:
        """Store a hand record; True once it is on disk, False if it waits in memory.

        Never raises for the disk: a refused write is logged and retried (module docstring).
        """
        path = self.record_path(table_id, hand_no)
        self._unwritten[path] = dump_record(record).encode("utf-8")
        while sum(map(len, self._unwritten.values())) > MAX_UNWRITTEN_BYTES:
            oldest = next(iter(self._unwritten))
            if oldest == path:
                break
            del self._unwritten[oldest]
            log.error(
                "hand record %s dropped from memory (over %d bytes wait for the disk); the "
                "next start rebuilds it from the journal",
                oldest,
                MAX_UNWRITTEN_BYTES,
            )
        try:
            return await self.flush_records()
        finally:
            if self._unwritten:
                self._records_due.set()

    async def flush_records(self) -> bool:
        """Write the records waiting in memory, oldest first; True when none is left."""
        async with self._flush_lock:
            written = 0
            for path, data in list(self._unwritten.items()):
                try:
                    with trio.CancelScope(shield=True):
                        await self._run(functools.partial(_write_file, path, data))
                except OSError as exc:
                    if not self._refusing:
                        self._refusing = True
                        log.warning(
                            "cannot write the hand record %s: %s; it is kept in memory, served "
                            "from there, and written as soon as the disk takes it",
                            path,
                            exc.strerror or exc,
                        )
                    else:
                        log.debug("hand record %s still refused: %s", path, exc)
                    return False
                del self._unwritten[path]
                written += 1
            if self._refusing:
                self._refusing = False
                log.warning("the disk takes hand records again: %d written", written)
            return True

    async def retry_records(self) -> None:
        """Write the records the disk refused, with backoff, until cancelled (the host's
        nursery runs this)."""
        delay = RECORD_RETRY_FIRST
        while True:
            if not self._unwritten:
                delay = RECORD_RETRY_FIRST
                await self._records_due.wait()
                self._records_due = trio.Event()
                continue
            await trio.sleep(delay)
            if not await self.flush_records():
                delay = min(delay * 2, RECORD_RETRY_MAX)

    def unwritten_records(self) -> list[Path]:
        """The paths of the records waiting in memory for the disk, oldest first."""
        return list(self._unwritten)

    async def load_record(self, table_id: str, hand_no: int) -> dict[str, Any] | None:
        """A stored hand record, or None if there is none.

        Raises:
            RecordUnreadable: its file cannot be read or is not a JSON object.
        """
        path = self.record_path(table_id, hand_no)
        waiting = self._unwritten.get(path)
        if waiting is not None:
            return _read_record(path, waiting)

        def read() -> dict[str, Any] | None:
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                return None
            except OSError as exc:
                raise RecordUnreadable(f"cannot read {path}: {exc.strerror or exc}") from None
            return _read_record(path, data)

        return await self._run(read)

    async def list_records(self, table_id: str) -> list[int]:
        """The hand numbers of ``table_id`` with a record (on disk or waiting in memory)."""
        prefix = self.record_path(table_id, 0).name.split("-hand")[0] + "-hand"

        def hand(p: Path) -> int | None:
            if not (p.name.startswith(prefix) and p.name.endswith(".json")):
                return None
            try:
                return int(p.stem.rsplit("-hand", 1)[1])
            except ValueError:
                return None

        waiting = list(self._unwritten)

        def scan() -> list[int]:
            paths = [*self.records_dir.glob(prefix + "*.json"), *waiting]
            return sorted({n for n in map(hand, paths) if n is not None})

        return await self._run(scan)
