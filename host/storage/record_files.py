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
the next start (:func:`host.table.restore.finish_restore`); that is also what becomes of the
oldest records should more than ``MAX_UNWRITTEN_BYTES`` wait in memory (they are dropped from
it, logged). File work runs through the store's one worker thread (the ``run`` it is given).

On disk each record is xz-compressed (``<table>-hand<NNNN>.json.xz``, stdlib lzma with a 1 MiB
dictionary: a third of the JSON's size, where gzip keeps 40 %, since the signatures and
commitments are hex; ``onecard verify`` reads either form); ``get_record`` still serves the
JSON text. Files of older hosts (``.json``) are read as they are.

Retention (:meth:`RecordFiles.prune`, ``onecard host --keep-records-days`` and
``--max-records-mb``): records older than the days kept are deleted, then the oldest until
the rest fit the size cap. Which hands of each table were pruned is kept in ``PRUNED_FILE``
(the highest pruned hand per table), so ``get_record`` answers ``pruned`` for them and a
restart does not rebuild them from the journal.
"""

from __future__ import annotations

import functools
import json
import lzma
import os
import re
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import trio

from host.logs import get_logger
from host.storage.datadir import RECORDS_DIR, DataDirDamaged, DataDirError, hold_data_dir
from host.storage.filemodes import PRIVATE_FILE_MODE, make_private_dir, tighten
from protocol.hand_records import RecordError, dump_record, unpack_record_bytes

__all__ = [
    "MAX_UNWRITTEN_BYTES",
    "PRUNED_FILE",
    "PRUNE_EVERY_S",
    "RECORD_RETRY_FIRST",
    "RECORD_RETRY_MAX",
    "PruneResult",
    "RecordFiles",
    "RecordUnreadable",
    "prune_data_dir",
]

log = get_logger(__name__)

_T = TypeVar("_T")


class Runner(Protocol):
    """How the store runs a blocking function (:meth:`host.storage.store.Store.run`)."""

    async def __call__(self, fn: Callable[[], _T], /) -> _T: ...


#: seconds before the first retry of hand records the disk refused
RECORD_RETRY_FIRST = 1.0
#: the longest wait between two retries (the wait doubles after each refusal)
RECORD_RETRY_MAX = 60.0
#: bytes of hand records kept in memory for a disk that refuses them; past this the oldest are
#: dropped from memory (the next start rebuilds them from the journal)
MAX_UNWRITTEN_BYTES = 32 * 1024 * 1024


#: seconds between two prunings of the records while the host runs
PRUNE_EVERY_S = 60.0
#: the file in the records directory naming the highest pruned hand of each table
PRUNED_FILE = ".pruned"
#: a record file's name: its table, its hand, compressed or not
_RECORD_NAME = re.compile(r"(?P<table>[A-Za-z0-9_-]+)-hand(?P<hand>\d+)\.json(?:\.xz)?")


@dataclass(frozen=True, slots=True)
class PruneResult:
    """What one :meth:`RecordFiles.prune` did."""

    deleted: int  #: record files deleted
    freed: int  #: their bytes
    kept: int  #: record files left
    kept_bytes: int  #: their bytes


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


#: how records are compressed: xz, LZMA2 at its best preset with a dictionary bigger than any
#: record (so compressing one takes about 10 MB of memory, not the preset's 670 MB) and no
#: literal context (text of hex digits: 1 % smaller)
_XZ_FILTERS = [
    {
        "id": lzma.FILTER_LZMA2,
        "preset": 9 | lzma.PRESET_EXTREME,
        "dict_size": 1 << 20,
        "lc": 0,
        "lp": 0,
        "pb": 0,
    }
]


def _write_record(path: Path, data: bytes) -> None:
    """Write a record's JSON bytes xz-compressed (the same record always gives the same file)."""
    packed = lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32, filters=_XZ_FILTERS)
    _write_file(path, packed)


def _read_record(path: Path, data: bytes) -> dict[str, Any]:
    try:
        text = unpack_record_bytes(data)
    except RecordError as exc:
        raise RecordUnreadable(f"{path} is not a hand record: {exc.message}") from None
    try:
        obj = json.loads(text.decode("utf-8"))
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
        #: the highest pruned hand of each table (``PRUNED_FILE``)
        self.pruned: dict[str, int] = {}

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
        self.pruned = self._read_pruned()

    def _read_pruned(self) -> dict[str, int]:
        """``PRUNED_FILE``, or nothing if it is missing or unreadable (logged: then a restart
        rebuilds pruned records of kept tables from the journal, and prunes them again)."""
        path = self.records_dir / PRUNED_FILE
        try:
            obj = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("ignoring %s: %s", path, exc)
            return {}
        if not isinstance(obj, dict):
            log.warning("ignoring %s: not a JSON object", path)
            return {}
        return {str(k): v for k, v in obj.items() if isinstance(v, int)}

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
        """Where a record is kept (xz-compressed)."""
        return self._legacy_path(table_id, hand_no).with_suffix(".json.xz")

    def _legacy_path(self, table_id: str, hand_no: int) -> Path:
        """Where hosts before compression kept a record (still read)."""
        safe = "".join(ch for ch in table_id if ch.isalnum() or ch in "-_")
        return self.records_dir / f"{safe}-hand{hand_no:04d}.json"

    def pruned_through(self, table_id: str) -> int:
        """The highest hand of ``table_id`` whose record was pruned (0: none)."""
        return self.pruned.get(table_id, 0)

    async def save_record(self, table_id: str, hand_no: int, record: dict[str, Any]) -> Path:
        """Write a hand record now (mode 0600); OSError if the disk refuses.

        The host itself uses :meth:`keep_record`, which never raises for the disk.
        """
        path = self.record_path(table_id, hand_no)
        data = dump_record(record).encode("utf-8")  # what get_record serves, byte for byte

        with trio.CancelScope(shield=True):
            await self._run(functools.partial(_write_record, path, data))
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
                        await self._run(functools.partial(_write_record, path, data))
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

    def unwritten_for(self, table_id: str) -> bool:
        """Whether records of ``table_id`` wait in memory for the disk."""
        prefix = self._legacy_path(table_id, 0).name.split("-hand")[0] + "-hand"
        return any(p.name.startswith(prefix) for p in self._unwritten)

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
            for at in (path, self._legacy_path(table_id, hand_no)):
                try:
                    data = at.read_bytes()
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    raise RecordUnreadable(f"cannot read {at}: {exc.strerror or exc}") from None
                return _read_record(at, data)
            return None

        return await self._run(read)

    async def list_records(self, table_id: str) -> list[int]:
        """The hand numbers of ``table_id`` with a record (on disk or waiting in memory)."""
        prefix = self._legacy_path(table_id, 0).name.split("-hand")[0]
        waiting = list(self._unwritten)

        def scan() -> list[int]:
            paths = [*self.records_dir.glob(prefix + "-hand*.json*"), *waiting]
            names = (_RECORD_NAME.fullmatch(p.name) for p in paths)
            return sorted({int(m["hand"]) for m in names if m and m["table"] == prefix})

        return await self._run(scan)

    async def keep_pruning(self, *, keep_days: float | None, max_bytes: int | None) -> None:
        """:meth:`prune` now and every ``PRUNE_EVERY_S`` until cancelled (the host's nursery
        runs this); a failure is logged and tried again next time."""
        if keep_days is None and max_bytes is None:
            return
        while True:
            try:
                done = await self.prune(keep_days=keep_days, max_bytes=max_bytes)
            except OSError as exc:
                log.warning("cannot prune the hand records: %s", exc.strerror or exc)
            else:
                if done.deleted:
                    log.info(
                        "pruned %d hand record(s) (%d bytes); %d kept (%d bytes)",
                        done.deleted,
                        done.freed,
                        done.kept,
                        done.kept_bytes,
                    )
            await trio.sleep(PRUNE_EVERY_S)

    async def prune(self, *, keep_days: float | None, max_bytes: int | None) -> PruneResult:
        """Delete the records older than ``keep_days`` (None: any age), then the oldest until
        the rest take at most ``max_bytes`` (None: no cap); note what went in ``PRUNED_FILE``.

        Records still waiting in memory for the disk are not touched. OSError if the
        directory cannot be read or ``PRUNED_FILE`` written (a record that cannot be deleted
        is logged and kept).
        """
        return await self._run(functools.partial(self._prune, keep_days, max_bytes))

    def _prune(self, keep_days: float | None, max_bytes: int | None) -> PruneResult:
        found: list[tuple[float, int, Path, str, int]] = []
        for path in self.records_dir.iterdir():
            match = _RECORD_NAME.fullmatch(path.name)
            if match is None:
                continue
            try:
                st = path.stat()
            except OSError:
                continue
            found.append((st.st_mtime, st.st_size, path, match["table"], int(match["hand"])))
        found.sort()
        cutoff = None if keep_days is None else time.time() - keep_days * 86400
        total = sum(size for _, size, *_ in found)
        deleted = freed = 0
        marks = dict(self.pruned)
        for mtime, size, path, table, hand in found:
            old = cutoff is not None and mtime <= cutoff
            over = max_bytes is not None and total > max_bytes
            if not (old or over):
                break
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("cannot delete the hand record %s: %s", path, exc.strerror or exc)
                continue
            total -= size
            deleted += 1
            freed += size
            marks[table] = max(marks.get(table, 0), hand)
        if marks != self.pruned:
            data = json.dumps(marks, sort_keys=True).encode("utf-8")
            _write_file(self.records_dir / PRUNED_FILE, data)
            self.pruned = marks
        return PruneResult(deleted, freed, len(found) - deleted, total)


def prune_data_dir(
    data_dir: Path, *, keep_days: float | None, max_bytes: int | None
) -> PruneResult:
    """``onecard host --prune``: prune the records of a data directory no host serves now.

    Raises:
        DataDirError: the directory is in use by a host (``DataDirInUse``) or unusable.
        OSError: the records directory cannot be read or ``PRUNED_FILE`` written.
    """

    async def run(fn: Callable[[], _T], /) -> _T:
        return fn()

    with hold_data_dir(data_dir):
        records = RecordFiles(data_dir / RECORDS_DIR, run)
        records.open_dir()
        return records._prune(keep_days, max_bytes)
